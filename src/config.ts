import path from 'node:path'
import { z } from 'zod'

/**
 * Every setting of the service, validated once. Nothing else reads `process.env`:
 * `loadConfig()` is called by the entry points (server, admin CLI, tools) and the
 * result is passed down. Tests call it with their own overrides.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const secondsList = z
  .string()
  .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds, e.g. 0,30,300,1800,7200')
  .transform((s) => s.split(',').map(Number))

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public address of the service, used for widget_url. Defaults to http://localhost:PORT. */
  PUBLIC_URL: z.url().optional(),
  /** all = API + workers in one process; api / worker split them. */
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  /** Embedded PGlite data and media live here unless DATABASE_URL / MEDIA_DIR say otherwise. */
  DATA_DIR: z.string().default('./data'),
  /** postgresql://… switches from embedded PGlite to PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  /** redis://… switches GraphQL subscriptions to Redis pub/sub (several instances). */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  MEDIA_DIR: z.string().optional(),

  /** 32-byte key (64 hex chars or base64) for AES-256-GCM at rest. Generated into DATA_DIR on the embedded default. */
  ENCRYPTION_KEY: z.string().optional(),

  SESSION_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(1800),
  /** How often expired sessions are swept (credit refunds, `expired` events). */
  EXPIRY_SWEEP_MS: z.coerce.number().int().min(50).default(15_000),
  /** Requests per minute per API key or session token on /v1 (0 turns the limit off), and the burst allowed. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).default(10 * 1_048_576),

  WEBHOOK_RETRY_SCHEDULE: secondsList.default([0, 30, 300, 1800, 7200]),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(500),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Sandbox webhooks may target loopback/private addresses (local development). Production never may. */
  WEBHOOK_ALLOW_PRIVATE_SANDBOX: bool.default(true),
  /**
   * Development and tests only: production-environment webhooks may use http and local addresses,
   * so the production path can be exercised end to end on one machine. Refused with NODE_ENV=production.
   */
  WEBHOOK_DEV_INSECURE_PRODUCTION: bool.default(false),

  /** Creates a demo tenant and prints its sandbox key on first start (embedded default). */
  DEMO_TENANT: bool.optional(),
  GRAPHQL_INTROSPECTION: bool.optional(),
  GRAPHIQL: bool.optional(),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(10),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(10).default(5000),
  WS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).default(20),

  /** real = Human/tesseract models; fake = deterministic stand-in for fast tests (never in production). */
  ANALYSIS_ENGINE: z.enum(['real', 'fake']).default('real'),
  ANALYSIS_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  MRZ_MODEL_PATH: z.string().optional(),
  MEDIA_RETENTION_DAYS: z.coerce.number().min(0).default(30),
  /** Decision thresholds (0–100); a tenant's settings.scoring may override each. */
  DECISION_APPROVE_AT: z.coerce.number().min(0).max(100).default(75),
  DECISION_REJECT_BELOW: z.coerce.number().min(0).max(100).default(50),
  FACE_MATCH_MIN: z.coerce.number().min(0).max(100).default(60),
  LIVENESS_MIN: z.coerce.number().min(0).max(100).default(50),
  ANTIFRAUDE_MIN: z.coerce.number().min(0).max(100).default(50),
})

export type Env = z.input<typeof EnvSchema>

export interface Config extends Omit<z.output<typeof EnvSchema>, 'PUBLIC_URL' | 'DATA_DIR' | 'MEDIA_DIR'> {
  PUBLIC_URL: string
  DATA_DIR: string
  MEDIA_DIR: string
  /** true when running on embedded PGlite */
  embedded: boolean
  DEMO_TENANT: boolean
  GRAPHQL_INTROSPECTION: boolean
  GRAPHIQL: boolean
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // empty strings count as unset, as shells and .env files produce them
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = EnvSchema.safeParse(cleaned)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  const c = parsed.data
  if (c.NODE_ENV === 'production' && c.WEBHOOK_DEV_INSECURE_PRODUCTION)
    throw new ConfigError('invalid configuration:\n  WEBHOOK_DEV_INSECURE_PRODUCTION must not be set with NODE_ENV=production')
  const dataDir = path.resolve(c.DATA_DIR)
  const embedded = !c.DATABASE_URL
  const dev = c.NODE_ENV !== 'production'
  return {
    ...c,
    DATA_DIR: dataDir,
    MEDIA_DIR: path.resolve(c.MEDIA_DIR ?? path.join(dataDir, 'media')),
    PUBLIC_URL: (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    embedded,
    DEMO_TENANT: c.DEMO_TENANT ?? (embedded && c.NODE_ENV !== 'test'),
    GRAPHQL_INTROSPECTION: c.GRAPHQL_INTROSPECTION ?? dev,
    GRAPHIQL: c.GRAPHIQL ?? dev,
  }
}
