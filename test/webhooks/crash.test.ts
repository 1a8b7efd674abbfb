import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { dbKind, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { insertPendingEvents, openServices } from './fixtures.js'
import { startReceiver, waitUntil, type Receiver } from './receiver.js'

const N = 1000
const script = fileURLToPath(new URL('./dispatcher-process.ts', import.meta.url))

function startDispatcher(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null || c.signalCode ? r(c.exitCode) : c.once('exit', (code) => r(code))))

/**
 * 1,000 deliveries pending; the dispatcher process is killed with SIGKILL mid-run and started
 * again: every event must arrive. Duplicates are allowed (at-least-once) and counted.
 */
describe('dispatcher crash (SIGKILL) and restart', () => {
  let rx: Receiver
  let t: TestApp | undefined
  const children: ChildProcess[] = []
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && !c.signalCode) c.kill('SIGKILL')
    await t?.close()
    await rx?.close()
  })

  it('delivers every one of 1,000 events across a SIGKILL; reports duplicates', async () => {
    rx = await startReceiver((_req, res) => {
      // a little latency, so the kill lands with sends in flight
      setTimeout(() => res.writeHead(200).end(), 3)
    })
    t = await startTestApp({ ROLE: 'api' })
    const tenant = await newTenant(t)
    await insertPendingEvents(t.app.services.db, tenant.tenantId, `${rx.url}/crash`, N)
    const dbEnv: Record<string, string> = { DATA_DIR: t.config.DATA_DIR, DATABASE_URL: t.config.DATABASE_URL ?? '' }
    const env = { ...dbEnv, WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY: '16' }
    // PGlite is one process's database: the child opens the directory only once the test's app has let go of it
    if (dbKind() === 'pglite') {
      await t.close()
      t = undefined
    }
    const seqs = () => new Set(rx.received.map((r) => JSON.parse(r.raw.toString('utf8')).seq as number))

    const first = startDispatcher(env)
    children.push(first)
    await waitUntil(() => seqs().size >= 250 || first.exitCode !== null, 'first dispatcher to deliver 250', 180_000)
    first.kill('SIGKILL')
    await exited(first)
    const atKill = seqs().size
    expect(first.signalCode).toBe('SIGKILL')
    expect(atKill).toBeLessThan(N)

    const second = startDispatcher({ ...env, EXIT_WHEN_DRAINED: '1' })
    children.push(second)
    let out = ''
    second.stdout!.on('data', (b: Buffer) => (out += b.toString()))
    expect(await exited(second)).toBe(0)

    const all = seqs()
    expect(all.size).toBe(N)
    for (let i = 0; i < N; i++) expect(all.has(i)).toBe(true)
    const perDelivery = new Map<string, number>()
    for (const r of rx.received) perDelivery.set(String(r.headers['x-service-delivery']), (perDelivery.get(String(r.headers['x-service-delivery'])) ?? 0) + 1)
    const twice = [...perDelivery.values()].filter((n) => n > 1).length
    console.log(`[crash test ${dbKind()}] ${N} events, ${atKill} delivered before SIGKILL, ${rx.received.length} requests received, ${twice} events arrived twice; restart: ${out.trim().split('\n').pop()}`)

    // the outbox agrees: every delivery succeeded at its first attempt (a re-sent claim is the same attempt, not a new one)
    const check = await openServices(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...dbEnv }))
    try {
      const rows = await check.svc.db.webhookDelivery.groupBy({ by: ['status', 'attempt'], _count: true })
      expect(rows.map((r) => [r.status, r.attempt, r._count])).toEqual([['succeeded', 1, N]])
    } finally {
      await check.close()
    }
    // two child processes start (tsx, database open) and a lease must run out: generous on a loaded 2-core machine
  }, 180_000)
})
