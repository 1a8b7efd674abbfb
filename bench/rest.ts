/**
 * POST /v1/verify/session throughput and latency on PGlite and on PostgreSQL (when DATABASE_URL
 * is set), next to a bare node:http server answering the same JSON on the same machine.
 * Each server runs in its own process; autocannon (50 connections) runs in this one.
 *
 *   npx tsx bench/rest.ts        (BENCH_SECONDS=10 by default)
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fmt, load, startChild, stopChild, type LoadResult } from './lib.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const body = JSON.stringify({ country: 'BR', external_id: 'bench-user' })

async function measure(label: string, args: string[], env: Record<string, string | undefined>): Promise<LoadResult> {
  const { child, info } = await startChild<{ url: string; key: string }>('rest-server.ts', args, env)
  try {
    const opts = {
      url: `${info.url}/v1/verify/session`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info.key}` },
      body,
    }
    await load({ ...opts, duration: 2 }) // warm-up: JIT, pools, caches
    const r = await load({ ...opts, duration: seconds })
    if (r.non2xx || r.errors) console.warn(`  ${label}: ${r.non2xx} non-2xx, ${r.errors} errors`)
    return r
  } finally {
    await stopChild(child)
  }
}

/**
 * What PostgreSQL itself accepts here: single-row INSERTs of a session-sized row through the raw
 * `pg` driver, 50 concurrent callers on a 20-connection pool, no HTTP at all. No service doing one
 * durable write per request can pass this line on the same machine.
 */
async function pgInsertCeiling(url: string): Promise<number> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({ connectionString: url, max: 20 })
  pool.on('error', () => {}) // idle clients closing when the bench database is dropped
  await pool.query('CREATE TABLE IF NOT EXISTS bench_ceiling (id uuid PRIMARY KEY, token_hash text, data text[], created_at timestamptz)')
  let n = 0
  const end = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (Date.now() < end) {
        await pool.query('INSERT INTO bench_ceiling VALUES (gen_random_uuid(), md5(random()::text), ARRAY[$1], now())', ['passport'])
        n++
      }
    }),
  )
  await pool.end()
  return Math.round(n / seconds)
}

export async function run(): Promise<Record<string, LoadResult>> {
  const out: Record<string, LoadResult> = {}
  let ceiling: number | null = null
  out['bare node:http'] = await measure('bare', ['bare'], {})
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-rest-'))
  try {
    out['service on PGlite'] = await measure('pglite', ['app'], { DATA_DIR: dir, DATABASE_URL: '' })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    const name = `bench_rest_${process.pid}`
    await admin.query(`CREATE DATABASE "${name}"`)
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    try {
      out['service on PostgreSQL'] = await measure('postgres', ['app'], { DATABASE_URL: url.toString(), DATA_DIR: os.tmpdir() })
      ceiling = await pgInsertCeiling(url.toString())
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin.end()
    }
  }
  const bare = out['bare node:http']!.rps
  console.log(`\nPOST /v1/verify/session, 50 connections, ${seconds} s each (${os.cpus().length} cores)`)
  console.log('server                    req/s    p50 ms   p99 ms   vs bare')
  for (const [name, r] of Object.entries(out))
    console.log(`${name.padEnd(24)} ${String(r.rps).padStart(7)} ${fmt(r.p50).padStart(8)} ${fmt(r.p99).padStart(8)}   ${fmt((100 * r.rps) / bare, 0).padStart(5)}%`)
  if (ceiling !== null) console.log(`raw pg INSERT ceiling (no HTTP, same machine): ${ceiling} inserts/s = ${fmt((100 * ceiling) / bare, 0)}% of the bare server`)
  return out
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
