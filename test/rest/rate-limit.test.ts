import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '3' })
})
afterAll(() => t.close())

describe('rate limit per credential', () => {
  it('past the burst a key gets 429 rate_limited with Retry-After; another key is unaffected', async () => {
    const a = await newTenant(t)
    const b = await newTenant(t)
    for (let i = 0; i < 3; i++) expect((await call(t.url, 'POST', '/v1/verify/session', { key: a.sandboxKey, json: {} })).status).toBe(201)
    const limited = await call(t.url, 'POST', '/v1/verify/session', { key: a.sandboxKey, json: {} })
    expectError(limited, 429, 'rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await call(t.url, 'POST', '/v1/verify/session', { key: b.sandboxKey, json: {} })).status).toBe(201)
    // nothing was created by the refused request
    expect(await t.app.services.db.session.count({ where: { tenantId: a.tenantId } })).toBe(3)
  })

  it('session tokens are limited too (the widget and the status endpoint)', async () => {
    const c = await newTenant(t)
    const token = (await call(t.url, 'POST', '/v1/verify/session', { key: c.sandboxKey, json: {} })).body.session_token as string
    const codes: number[] = []
    for (let i = 0; i < 4; i++) codes.push((await call(t.url, 'GET', `/v1/verify/session/${token}/status`)).status)
    expect(codes).toEqual([200, 200, 200, 429])
  })
})
