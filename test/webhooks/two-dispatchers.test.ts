import { afterAll, describe, expect, it } from 'vitest'
import { startWebhookDispatcher, type WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js'
import { dbKind, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { insertPendingEvents, openServices } from './fixtures.js'
import { startReceiver, waitUntil, type Receiver } from './receiver.js'

const N = 1000

/**
 * Two dispatchers, each with its own connection pool, on one PostgreSQL database: FOR UPDATE SKIP
 * LOCKED must hand each delivery to exactly one of them. The receiver counts, per X-Service-Delivery
 * id, how many requests are open at once; it must never exceed 1. (PGlite is one process's
 * single-connection database: there is no second dispatcher to race there.)
 */
describe.runIf(dbKind() === 'postgres')('two dispatchers on one PostgreSQL database', () => {
  let rx: Receiver
  let t: TestApp
  const closers: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of closers.reverse()) await c().catch(() => {})
    await t?.close()
    await rx?.close()
  })

  it('deliver 1,000 events with no attempt made twice at the same time', async () => {
    const open = new Map<string, number>()
    const seen = new Map<string, number>()
    let maxOpen = 0
    rx = await startReceiver((req, res) => {
      const id = String(req.headers['x-service-delivery'])
      seen.set(id, (seen.get(id) ?? 0) + 1)
      const n = (open.get(id) ?? 0) + 1
      open.set(id, n)
      maxOpen = Math.max(maxOpen, n)
      // hold each request a moment so an overlapping second attempt would be seen
      setTimeout(() => {
        open.set(id, (open.get(id) ?? 1) - 1)
        res.writeHead(200).end()
      }, 5)
    })
    t = await startTestApp({ ROLE: 'api' })
    const tenant = await newTenant(t)
    await insertPendingEvents(t.app.services.db, tenant.tenantId, `${rx.url}/two`, N)

    const dispatchers: WebhookDispatcher[] = []
    for (const name of ['a', 'b']) {
      const { svc, close } = await openServices({ ...t.config, WEBHOOK_POLL_MS: 20, WEBHOOK_CONCURRENCY: 16 })
      const d = startWebhookDispatcher(svc, `webhooks-${name}`)
      dispatchers.push(d)
      closers.push(close, () => d.stop())
    }
    await waitUntil(() => dispatchers.reduce((s, d) => s + d.stats.succeeded, 0) >= N, '1,000 deliveries', 60_000)
    for (const d of dispatchers) await d.stop()

    expect(seen.size).toBe(N)
    expect(maxOpen).toBe(1)
    // no crash, no lease ran out: every delivery was sent exactly once, and both dispatchers took part
    expect([...seen.values()].every((n) => n === 1)).toBe(true)
    const [a, b] = dispatchers.map((d) => d.stats)
    expect(a!.succeeded + b!.succeeded).toBe(N)
    expect(a!.succeeded).toBeGreaterThan(0)
    expect(b!.succeeded).toBeGreaterThan(0)
    expect(a!.lost_lease + b!.lost_lease).toBe(0)
    console.log(`[two dispatchers] a delivered ${a!.succeeded}, b delivered ${b!.succeeded}, max concurrent requests per delivery id ${maxOpen}`)
    const rows = await t.app.services.db.webhookDelivery.groupBy({ by: ['status'], _count: true })
    expect(rows.map((r) => [r.status, r._count])).toEqual([['succeeded', N]])
  })
})
