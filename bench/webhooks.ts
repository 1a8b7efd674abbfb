/**
 * Webhook dispatcher figures, on PGlite and on PostgreSQL (when DATABASE_URL is set):
 *  1. deliveries/s from one dispatcher (default WEBHOOK_CONCURRENCY) to a local receiver that answers
 *     200 at once: BENCH_WEBHOOK_EVENTS events (default 2,000) pending, time until all succeeded;
 *  2. lateness of retries against their schedule: BENCH_WEBHOOK_RETRY_EVENTS events (default 200) to a
 *     receiver failing attempts 1–3, compressed schedule 0,1,1,1,1 s, default poll interval; lateness is
 *     started_at − due_at of every retry (attempts 2–4), i.e. how long after it was due the attempt left.
 * The receiver runs in its own process (this file with --receiver), so it does not share an event loop
 * with the dispatcher and embedded PGlite.
 *
 *   npx tsx bench/webhooks.ts
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadConfig, type Config } from '../src/config.js'
import { openDatabase } from '../src/db.js'
import { startWebhookDispatcher } from '../src/jobs/webhook-dispatcher.js'
import { Cipher } from '../src/lib/crypto.js'
import { resolveEncryptionKey } from '../src/lib/encryption-key.js'
import { createLogger } from '../src/lib/logger.js'
import { createAppPubSub } from '../src/lib/pubsub.js'
import { createTenant } from '../src/modules/tenants/create-tenant.js'
import type { Services } from '../src/services.js'
import { insertPendingEvents } from '../test/webhooks/fixtures.js'
import { fmt, startChild, stopChild } from './lib.js'

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000)
const RETRY_EVENTS = Number(process.env.BENCH_WEBHOOK_RETRY_EVENTS ?? 200)

export interface WebhookBenchResult {
  db: 'pglite' | 'postgres'
  events: number
  seconds: number
  perSecond: number
  retries: number
  latenessMs: { p50: number; p99: number; max: number }
  pollMs: number
}

/** --receiver <failBelowAttempt>: answers 500 to attempts below it, 200 otherwise. */
async function receiver(failBelow: number): Promise<void> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(Number(req.headers['x-service-attempt']) < failBelow ? 500 : 200).end())
  })
  server.keepAliveTimeout = 1000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const addr = server.address() as { port: number }
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })}\n`)
  process.on('SIGTERM', () => process.exit(0))
}

async function withDatabase<T>(kind: 'pglite' | 'postgres', env: Record<string, string>, fn: (svc: Services) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-webhooks-'))
  let dbName: string | undefined
  let dbUrl: string | undefined
  const { default: pg } = kind === 'postgres' ? await import('pg') : { default: undefined }
  if (kind === 'postgres' && pg) {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    dbName = `svc_bench_wh_${process.pid}_${Date.now()}`
    await admin.query(`CREATE DATABASE "${dbName}"`)
    await admin.end()
    const u = new URL(process.env.DATABASE_URL!)
    u.pathname = `/${dbName}`
    dbUrl = u.toString()
  }
  const config: Config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: dbUrl ?? '', ...env })
  const database = await openDatabase(config, { migrate: true })
  const pubsub = await createAppPubSub(config)
  const svc: Services = { config, db: database.prisma, dbKind: database.kind, logger: createLogger(config), cipher: new Cipher(resolveEncryptionKey(config)), pubsub, now: () => new Date() }
  try {
    return await fn(svc)
  } finally {
    await pubsub.close()
    await database.close()
    await rm(dataDir, { recursive: true, force: true })
    if (dbName && pg) {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)
      await admin.end()
    }
  }
}


async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('bench timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

export async function measure(kind: 'pglite' | 'postgres'): Promise<WebhookBenchResult> {
  // 1. throughput
  const ok = await startChild<{ url: string }>('webhooks.ts', ['--receiver', '0'])
  let seconds = 0
  try {
    await withDatabase(kind, {}, async (svc) => {
      const tenant = await createTenant(svc, { name: 'bench' })
      await insertPendingEvents(svc.db, tenant.tenantId, `${ok.info.url}/hook`, EVENTS)
      const started = performance.now()
      const d = startWebhookDispatcher(svc)
      await until(() => d.stats.succeeded + d.stats.retry_scheduled >= EVENTS, 300_000)
      seconds = (performance.now() - started) / 1000
      await d.stop()
      if (d.stats.retry_scheduled) console.warn(`  ${kind}: ${d.stats.retry_scheduled} attempts failed during the throughput run`)
    })
  } finally {
    await stopChild(ok.child)
  }

  // 2. retry lateness (compressed schedule, default poll interval)
  const failing = await startChild<{ url: string }>('webhooks.ts', ['--receiver', '4'])
  let lateness: number[] = []
  let pollMs = 0
  try {
    await withDatabase(kind, { WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1' }, async (svc) => {
      pollMs = svc.config.WEBHOOK_POLL_MS
      const tenant = await createTenant(svc, { name: 'bench' })
      await insertPendingEvents(svc.db, tenant.tenantId, `${failing.info.url}/hook`, RETRY_EVENTS)
      const d = startWebhookDispatcher(svc)
      await until(() => d.stats.succeeded >= RETRY_EVENTS, 300_000)
      await d.stop()
      const rows = await svc.db.webhookDelivery.findMany({ where: { attempt: { gt: 1 } }, select: { dueAt: true, startedAt: true } })
      lateness = rows.map((r) => r.startedAt!.getTime() - r.dueAt.getTime()).sort((a, b) => a - b)
    })
  } finally {
    await stopChild(failing.child)
  }
  return {
    db: kind,
    events: EVENTS,
    seconds,
    perSecond: EVENTS / seconds,
    retries: lateness.length,
    latenessMs: { p50: pct(lateness, 50), p99: pct(lateness, 99), max: lateness.at(-1) ?? 0 },
    pollMs,
  }
}

export async function run(): Promise<WebhookBenchResult[]> {
  const kinds: ('pglite' | 'postgres')[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']
  const results: WebhookBenchResult[] = []
  console.log(`webhooks: one dispatcher (concurrency ${loadConfig({}).WEBHOOK_CONCURRENCY}) → local receiver in another process`)
  for (const kind of kinds) {
    const r = await measure(kind)
    results.push(r)
    console.log(
      `  ${kind.padEnd(8)} ${r.events} deliveries in ${fmt(r.seconds, 2)} s = ${fmt(r.perSecond, 0)} deliveries/s; ` +
        `retry lateness vs schedule over ${r.retries} retries (poll ${r.pollMs} ms): p50 ${r.latenessMs.p50} ms, p99 ${r.latenessMs.p99} ms, worst ${r.latenessMs.max} ms`,
    )
  }
  return results
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--receiver')
  if (i >= 0) await receiver(Number(process.argv[i + 1] ?? 0))
  else await run()
}
