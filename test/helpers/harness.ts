import { cp, mkdtemp } from 'node:fs/promises'
import path from 'node:path'
import { inject } from 'vitest'
import { buildApp, type App, type BuildOptions } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import { createLogger } from '../../src/lib/logger.js'
import { createTenant, type CreatedTenant } from '../../src/modules/tenants/create-tenant.js'

export const dbKind = (): 'pglite' | 'postgres' => (process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite')

let counter = 0

/** Settings for a fresh, isolated database: a copy of the migrated PGlite template, or a new PostgreSQL database from the template. */
export async function freshDbEnv(): Promise<Record<string, string>> {
  const root = inject('testRoot')
  const dataDir = await mkdtemp(path.join(root, 'app-'))
  if (dbKind() === 'pglite') {
    await cp(inject('pgliteTemplate'), dataDir, { recursive: true })
    // explicit: a child process inheriting the runner's DATABASE_URL must not reach PostgreSQL
    return { DATA_DIR: dataDir, DATABASE_URL: '' }
  }
  const base = process.env.DATABASE_URL
  if (!base) throw new Error('TEST_DB=postgres needs DATABASE_URL')
  const { default: pg } = await import('pg')
  const name = `svc_t_${inject('runId')}_${process.pid}_${counter++}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('pgTemplate')}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return { DATA_DIR: dataDir, DATABASE_URL: url.toString() }
}

export interface TestApp {
  app: App
  url: string
  config: Config
  close(): Promise<void>
}

/** A real server on an ephemeral port against a fresh database. */
export async function startTestApp(env: Record<string, string> = {}, opts: BuildOptions = {}): Promise<TestApp> {
  const dbEnv = await freshDbEnv()
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...dbEnv, ...env })
  const app = await buildApp(config, { logger: createLogger(config), migrate: false, ...opts })
  const url = await app.start(0, '127.0.0.1')
  // widget_url etc. must point at the port actually used
  ;(app.services.config as { PUBLIC_URL: string }).PUBLIC_URL = url
  return { app, url, config, close: () => app.stop() }
}

export async function newTenant(t: TestApp, credits: { kyc?: number; auth?: number } = {}, adminKeys = false): Promise<CreatedTenant> {
  return createTenant(t.app.services, { name: `tenant-${counter++}`, kycCredits: credits.kyc ?? 0, authCredits: credits.auth ?? 0, adminKeys })
}

export interface JsonResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

/** fetch + JSON, with a bearer key when given. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.key) headers['authorization'] = `Bearer ${opts.key}`
  let body = opts.body
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json)
    headers['content-type'] ??= 'application/json'
  }
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T }
}

/** The documented error body, with the code. */
export function expectError(r: JsonResponse, status: number, detail: string): void {
  const ctx = `${status} ${detail} — got ${r.status} ${JSON.stringify(r.body)}`
  if (r.status !== status) throw new Error(`expected status ${ctx}`)
  const b = r.body as Record<string, unknown>
  if (b?.['detail'] !== detail) throw new Error(`expected detail ${ctx}`)
  if (typeof b['message'] !== 'string' || !(b['message'] as string).length) throw new Error(`missing message: ${ctx}`)
  if (typeof b['request_id'] !== 'string' || !(b['request_id'] as string).length) throw new Error(`missing request_id: ${ctx}`)
}
