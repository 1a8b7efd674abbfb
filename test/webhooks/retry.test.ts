import { verify } from '@octokit/webhooks-methods'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StatusEvent } from '../../src/lib/pubsub.js'
import type { Principal } from '../../src/modules/api-keys/authenticate-api-key.js'
import { resolveManualReview } from '../../src/modules/verifications/resolve-manual-review.js'
import { listDeliveries } from '../../src/modules/webhooks/list-deliveries.js'
import { redeliverWebhook } from '../../src/modules/webhooks/redeliver-webhook.js'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { startReceiver, waitUntil, type Receiver } from './receiver.js'

/**
 * Compressed schedule: waits before attempts 1–5 of 0, 0.2, 0.4, 0.6, 0.8 s. The timeout is 2 s,
 * not less: the receiver shares the event loop with embedded PGlite (whose queries block it) on a busy 2-core machine.
 */
const SCHEDULE = [0, 0.2, 0.4, 0.6, 0.8]

describe('webhook retries on the schedule', () => {
  let t: TestApp
  let rx: Receiver
  let healed = false
  const flakyCount = { n: 0 }
  const events: StatusEvent[] = []

  beforeAll(async () => {
    rx = await startReceiver((req, res) => {
      switch (req.url) {
        case '/500':
          return void res.writeHead(500).end('boom')
        case '/timeout':
          return // never answers
        case '/reset':
          return void req.socket.resetAndDestroy()
        case '/redirect':
          return void res.writeHead(302, { location: '/landing' }).end()
        case '/flaky':
          return void res.writeHead(++flakyCount.n <= 2 ? 503 : 200).end()
        case '/heals':
          return void res.writeHead(healed ? 204 : 500).end()
        default:
          return void res.writeHead(200).end('ok')
      }
    })
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','), WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000' })
  })
  afterAll(async () => {
    await t?.close()
    await rx?.close()
  })

  const principalOf = (tenantId: string): Principal => ({ tenantId, ambiente: 'sandbox', keyId: 'test', isAdmin: false })

  async function complete(key: string, path: string, cpf = '000.000.001-91') {
    const s = await call(t.url, 'POST', '/v1/verify/session', { key, json: { webhook_url: `${rx.url}${path}` } })
    expect(s.status).toBe(201)
    const r = await call(t.url, 'POST', `/v1/sandbox/verify/session/${s.body.session_token}/complete`, { key, json: { cpf } })
    expect(r.status).toBe(200)
    return r.body.verification_id as string
  }

  const deliveriesOf = (verificationId: string) =>
    t.app.services.db.webhookDelivery.findMany({ where: { event: { verificationId } }, orderBy: [{ createdAt: 'asc' }, { attempt: 'asc' }] })

  it('500, timeout, connection reset and 302 each fail 5 attempts on the schedule, then webhook_failed with the decision kept', async () => {
    const tenant = await newTenant(t)
    const sub = t.app.services.pubsub.subscribe('tenant-events', `${tenant.tenantId}:sandbox`)
    void (async () => {
      for await (const e of sub) events.push(e)
    })()
    const cases = {
      '/500': { status: 500, error: 'HTTP 500' },
      '/timeout': { status: null, error: 'timeout after 2000 ms' },
      '/reset': { status: null, error: 'connection reset (ECONNRESET)' },
      '/redirect': { status: 302, error: 'redirect (302) not followed' },
    } as const
    const ids = Object.fromEntries(await Promise.all(Object.keys(cases).map(async (p) => [p, await complete(tenant.sandboxKey, p)] as const)))

    for (const [path, expected] of Object.entries(cases)) {
      const id = ids[path]!
      await waitUntil(async () => (await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })).body.status === 'webhook_failed', `${path} webhook_failed`)
      const rows = await deliveriesOf(id)
      expect(rows.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5])
      for (const d of rows) {
        expect(d.status).toBe('failed')
        expect([path, d.attempt, d.responseStatus, d.error]).toEqual([path, d.attempt, expected.status, expected.error])
      }
      // each retry is due exactly its wait after the previous attempt finished, and never starts before it is due
      for (let i = 1; i < rows.length; i++) {
        expect(rows[i]!.dueAt.getTime() - rows[i - 1]!.finishedAt!.getTime()).toBe(SCHEDULE[i]! * 1000)
        expect(rows[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(rows[i]!.dueAt.getTime())
      }
      // the receiver saw attempts 1..5, the same signed bytes each time, a distinct delivery id each
      const got = rx.at(path)
      expect(got.map((g) => g.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5'])
      expect(new Set(got.map((g) => g.raw.toString('hex'))).size).toBe(1)
      expect(new Set(got.map((g) => g.headers['x-service-delivery'])).size).toBe(5)
      expect(await verify(tenant.webhookSecrets.sandbox, got[0]!.raw.toString('utf8'), String(got[0]!.headers['x-service-signature']))).toBe(true)
      for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(SCHEDULE[i]! * 1000 - 2)

      const view = await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })
      expect(view.body).toMatchObject({ status: 'webhook_failed', final_status: 'approved', webhook: { status: 'failed', attempts: 5 } })
    }
    // the redirect was not followed
    expect(rx.at('/landing')).toHaveLength(0)
    // subscribers heard webhook_failed for each
    await waitUntil(() => events.filter((e) => e.status === 'webhook_failed').length === 4, 'webhook_failed events')
    expect(new Set(events.filter((e) => e.status === 'webhook_failed').map((e) => e.verificationId))).toEqual(new Set(Object.values(ids)))
    await sub.return?.()
  })

  it('a receiver that fails twice then answers 200 is delivered at attempt 3; the status stays the decision', async () => {
    const tenant = await newTenant(t)
    const id = await complete(tenant.sandboxKey, '/flaky', '000.000.002-72')
    await waitUntil(async () => (await deliveriesOf(id)).some((d) => d.status === 'succeeded'), 'flaky delivered')
    const rows = await deliveriesOf(id)
    expect(rows.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'succeeded', 200],
    ])
    const view = await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })
    expect(view.body).toMatchObject({ status: 'rejected', final_status: 'rejected', webhook: { status: 'delivered' } })
    const list = await listDeliveries(t.app.services, principalOf(tenant.tenantId), { verificationId: id })
    expect(list.map((d) => d.attempt)).toEqual([1, 2, 3])
    expect(list[0]).toMatchObject({ event: 'verification.completed', target: rx.url, status: 'failed', responseStatus: 503 })
  })

  it('redeliverWebhook sends the same bytes as a new chain; success turns webhook_failed back into the decision', async () => {
    const tenant = await newTenant(t)
    healed = false
    const id = await complete(tenant.sandboxKey, '/heals')
    await waitUntil(async () => (await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })).body.status === 'webhook_failed', 'webhook_failed')
    healed = true
    await expect(redeliverWebhook(t.app.services, principalOf((await newTenant(t)).tenantId), id)).rejects.toMatchObject({ code: 'not_found' })
    const r = await redeliverWebhook(t.app.services, principalOf(tenant.tenantId), id)
    expect(r.deliveryId).toBeTruthy()
    await waitUntil(async () => (await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })).body.status === 'approved', 'status restored')
    const got = rx.at('/heals')
    expect(got).toHaveLength(6)
    expect(got[5]!.headers['x-service-attempt']).toBe('1')
    expect(got[5]!.raw.equals(got[0]!.raw)).toBe(true)
    expect(await verify(tenant.webhookSecrets.sandbox, got[5]!.raw.toString('utf8'), String(got[5]!.headers['x-service-signature']))).toBe(true)
    const view = await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })
    expect(view.body).toMatchObject({ status: 'approved', final_status: 'approved', webhook: { status: 'delivered' } })
  })

  it('resolveManualReview sends verification.completed through the outbox; only from manual review; 404 across tenants', async () => {
    const tenant = await newTenant(t)
    const id = await complete(tenant.sandboxKey, '/review', '000.000.003-53')
    await waitUntil(() => rx.at('/review').length === 1, 'manual_review webhook')
    await expect(resolveManualReview(t.app.services, principalOf((await newTenant(t)).tenantId), id, { decision: 'approved' })).rejects.toMatchObject({ code: 'not_found' })
    await resolveManualReview(t.app.services, principalOf(tenant.tenantId), id, { decision: 'rejected', motivos: ['document_invalid'], reviewer: 'ana' })
    await waitUntil(() => rx.at('/review').length === 2, 'completed webhook')
    const [first, second] = rx.at('/review')
    expect(first!.headers['x-service-event']).toBe('verification.manual_review')
    expect(second!.headers['x-service-event']).toBe('verification.completed')
    expect(await verify(tenant.webhookSecrets.sandbox, second!.raw.toString('utf8'), String(second!.headers['x-service-signature']))).toBe(true)
    const body = JSON.parse(second!.raw.toString('utf8'))
    expect(body).toMatchObject({ event: 'verification.completed', verification_id: id, status: 'rejected', motivos_rejeicao: ['document_invalid'], ocr: { nome: 'SANDBOX USER' } })
    await expect(resolveManualReview(t.app.services, principalOf(tenant.tenantId), id, { decision: 'approved' })).rejects.toMatchObject({ code: 'invalid_state' })
    const view = await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })
    expect(view.body).toMatchObject({ status: 'rejected', final_status: 'rejected', motivos_rejeicao: ['document_invalid'] })
  })
})
