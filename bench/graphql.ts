/**
 * GraphQL benchmarks (`npx tsx bench/graphql.ts`, or through `npm run bench`):
 * 1. requests/s of a `verification(id)` query on the service (PGlite) next to a bare Yoga server
 *    answering a constant field, same machine, same run (autocannon, 50 connections);
 * 2. subscription fan-out: N graphql-ws clients (in a child process) subscribed to
 *    verificationEvents on one service process; time from a status change (a session created
 *    through GraphQL) to its receipt by every client (p50/p99), and server memory per connection.
 * Settings: BENCH_SECONDS (10), BENCH_FANOUT (1000,5000,10000), BENCH_ROUNDS (5).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'

const here = path.dirname(fileURLToPath(import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const fanouts = (process.env.BENCH_FANOUT ?? '1000,5000,10000').split(',').map(Number)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)

interface Child<T> {
  child: ChildProcess
  info: T
  ask<R>(msg: object, key: string): Promise<R>
}

/** A tsx child with IPC, started under a raised open-file limit (10,000 sockets need it). */
async function start<T>(script: string, args: string[], env: Record<string, string> = {}): Promise<Child<T>> {
  const cmd = `ulimit -n $(ulimit -Hn) 2>/dev/null; exec "${process.execPath}" --expose-gc --import tsx "${path.join(here, script)}" ${args.map((a) => `'${a}'`).join(' ')}`
  const child = spawn('bash', ['-c', cmd], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const info = await new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    const onMsg = (m: { ready?: boolean }) => {
      if (m?.ready) resolve(m as T)
    }
    child.on('message', onMsg)
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as T))
  })
  const ask = <R>(msg: object, key: string) =>
    new Promise<R>((resolve) => {
      const on = (m: Record<string, unknown>) => {
        if (key in m) {
          child.off('message', on)
          resolve(m as R)
        }
      }
      child.on('message', on)
      child.send(msg)
    })
  return { child, info, ask }
}

async function stop(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null) return
  await new Promise<void>((resolve) => {
    c.once('exit', () => resolve())
    c.kill('SIGTERM')
    setTimeout(() => c.kill('SIGKILL'), 10_000).unref()
  })
}

async function rps(url: string, body: string, headers: Record<string, string> = {}) {
  const opts = { url: `${url}/graphql`, method: 'POST' as const, headers: { 'content-type': 'application/json', ...headers }, body, connections: 50 }
  await autocannon({ ...opts, duration: 2 }) // warm-up
  const r = await autocannon({ ...opts, duration: seconds })
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN
}

async function gqlPost(url: string, key: string, query: string) {
  const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query }) })
  return (await r.json()) as { data?: Record<string, unknown>; errors?: unknown[] }
}

export async function run() {
  const out: Record<string, unknown> = {}
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-gql-'))
  try {
    // 1. query throughput
    const bare = await start<{ url: string }>('graphql-server.ts', ['bare'])
    let bareR
    try {
      bareR = await rps(bare.info.url, JSON.stringify({ query: '{ hello }' }))
    } finally {
      await stop(bare.child)
    }
    const query = 'query($id: ID!) { verification(id: $id) { id status finalStatus country externalId scores { composto faceMatch liveness antifraude } createdAt session { id status } } }'
    const measureApp = async (env: Record<string, string>) => {
      const app = await start<{ url: string; key: string; verificationId: string }>('graphql-server.ts', ['app'], env)
      try {
        const probe = await fetch(`${app.info.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.info.key}` }, body: JSON.stringify({ query, variables: { id: app.info.verificationId } }) }).then((r) => r.json() as Promise<{ data: { verification: unknown } }>)
        if (!probe.data?.verification) throw new Error(`verification query failed: ${JSON.stringify(probe)}`)
        return await rps(app.info.url, JSON.stringify({ query, variables: { id: app.info.verificationId } }), { authorization: `Bearer ${app.info.key}` })
      } finally {
        await stop(app.child)
      }
    }
    const appR = await measureApp({ DATA_DIR: path.join(dir, 'q'), DATABASE_URL: '' })
    let pgR: Awaited<ReturnType<typeof rps>> | undefined
    if (process.env.DATABASE_URL) {
      const { default: pg } = await import('pg')
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await admin.connect()
      const name = `bench_gql_${process.pid}`
      await admin.query(`CREATE DATABASE "${name}"`)
      try {
        const url = new URL(process.env.DATABASE_URL)
        url.pathname = `/${name}`
        pgR = await measureApp({ DATA_DIR: path.join(dir, 'pg'), DATABASE_URL: url.toString() })
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
        await admin.end()
      }
    }
    out['bare Yoga { hello }'] = bareR
    out['service verification(id) on PGlite'] = appR
    if (pgR) out['service verification(id) on PostgreSQL'] = pgR
    console.log(`\nGraphQL query throughput (${seconds}s, 50 connections)`)
    console.log(`  bare Yoga { hello }:               ${bareR.rps} req/s  p50 ${bareR.p50} ms  p99 ${bareR.p99} ms  non2xx ${bareR.non2xx}`)
    console.log(`  service verification(id), PGlite:  ${appR.rps} req/s  p50 ${appR.p50} ms  p99 ${appR.p99} ms  non2xx ${appR.non2xx}`)
    console.log(`  ratio: ${((100 * appR.rps) / bareR.rps).toFixed(1)}% of bare Yoga`)
    if (pgR) {
      console.log(`  service verification(id), Postgres: ${pgR.rps} req/s  p50 ${pgR.p50} ms  p99 ${pgR.p99} ms  non2xx ${pgR.non2xx}`)
      console.log(`  ratio: ${((100 * pgR.rps) / bareR.rps).toFixed(1)}% of bare Yoga`)
    }

    // 2. subscription fan-out
    console.log(`\nSubscription fan-out (verificationEvents over graphql-ws, ${rounds} status changes each)`)
    for (const n of fanouts) {
      const srv = await start<{ url: string; key: string }>('graphql-server.ts', ['app'], { DATA_DIR: path.join(dir, `f${n}`), DATABASE_URL: '' })
      let clients: Child<{ ready: boolean }> | undefined
      try {
        const before = (await srv.ask<{ mem: { rss: number; heapUsed: number } }>({ mem: true }, 'mem')).mem
        clients = await start<{ ready: boolean }>('graphql-ws-clients.ts', [srv.info.url.replace(/^http/, 'ws') + '/graphql', srv.info.key, String(n)])
        const c = await clients.ask<{ connected: number; failed: number }>({ connect: true }, 'connected')
        // every subscription is live once a probe event reached all clients
        for (;;) {
          const r = await gqlPost(srv.info.url, srv.info.key, 'mutation { createKycSession { sessionToken } }')
          if (r.errors) throw new Error(JSON.stringify(r.errors))
          await new Promise((res) => setTimeout(res, 300))
          const s = await gqlPost(srv.info.url, srv.info.key, '{ sessions(first: 1) { edges { node { id } } } }')
          const id = ((s.data!['sessions'] as { edges: { node: { id: string } }[] }).edges[0]!.node.id)
          if ((await clients.ask<{ count: number }>({ count: id }, 'count')).count >= c.connected) break
        }
        const after = (await srv.ask<{ mem: { rss: number; heapUsed: number } }>({ mem: true }, 'mem')).mem
        const all: number[] = []
        const toAll: number[] = []
        for (let i = 0; i < rounds; i++) {
          await clients.ask({ t0: true, count: 'none' }, 'count')
          const r = await gqlPost(srv.info.url, srv.info.key, 'mutation { createKycSession { sessionToken } }')
          if (r.errors) throw new Error(JSON.stringify(r.errors))
          const s = await gqlPost(srv.info.url, srv.info.key, '{ sessions(first: 1) { edges { node { id } } } }')
          const id = ((s.data!['sessions'] as { edges: { node: { id: string } }[] }).edges[0]!.node.id)
          const { latencies } = await clients.ask<{ latencies: number[] }>({ await: id }, 'latencies')
          all.push(...latencies)
          toAll.push(Math.max(...latencies))
        }
        const perConn = (x: number) => (x / Math.max(1, c.connected) / 1024).toFixed(1)
        const row = {
          clients: c.connected,
          failed: c.failed,
          p50ms: +pct(all, 50).toFixed(1),
          p99ms: +pct(all, 99).toFixed(1),
          allReceivedMedianMs: +pct(toAll, 50).toFixed(1),
          heapKiBPerConn: +perConn(after.heapUsed - before.heapUsed),
          rssKiBPerConn: +perConn(after.rss - before.rss),
        }
        out[`fan-out ${n}`] = row
        console.log(
          `  N=${String(n).padStart(5)}: connected ${row.clients} (failed ${row.failed}); change→receipt p50 ${row.p50ms} ms, p99 ${row.p99ms} ms; all received (median of rounds) ${row.allReceivedMedianMs} ms; server heap ${row.heapKiBPerConn} KiB/conn, RSS ${row.rssKiBPerConn} KiB/conn`,
        )
      } finally {
        if (clients) {
          clients.child.send({ exit: true })
          await stop(clients.child)
        }
        await stop(srv.child)
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return out
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await run()
}
