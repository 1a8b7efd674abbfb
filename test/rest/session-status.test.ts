import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/lib/crypto.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

let t: TestApp
let acme: CreatedTenant
beforeAll(async () => {
  t = await startTestApp()
  acme = await newTenant(t)
})
afterAll(() => t.close())

const newSession = async (path = '/v1/verify/session', json: unknown = {}) => (await call(t.url, 'POST', path, { key: acme.sandboxKey, json })).body.session_token as string
const status = (token: string, headers: Record<string, string> = {}) => call(t.url, 'GET', `/v1/verify/session/${token}/status`, { headers })

describe('GET /v1/verify/session/{token}/status — happy', () => {
  it('a fresh KYC session is pending, with no verification yet', async () => {
    const token = await newSession()
    const r = await status(token)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'pending', mode: 'KYC', verification_id: null })
    expect(r.headers.get('cache-control')).toBe('no-store')
  })
  it('an Auth session reports mode AUTH and auth_id', async () => {
    const r = await status(await newSession('/v1/auth/session', { external_id: 'u1' }))
    expect(r.body).toMatchObject({ status: 'pending', mode: 'AUTH', auth_id: null })
  })
  it('shows the verification id and status once there is one', async () => {
    const token = await newSession()
    const db = t.app.services.db
    const s = await db.session.findUniqueOrThrow({ where: { tokenHash: sha256Hex(token) } })
    const v = await db.verification.create({ data: { sessionId: s.id, tenantId: s.tenantId, ambiente: s.ambiente, country: s.country, status: 'processing' } })
    expect((await status(token)).body).toMatchObject({ status: 'processing', verification_id: v.id })
  })
})

describe('GET /v1/verify/session/{token}/status — errors', () => {
  it('401 for unknown and malformed tokens', async () => {
    expectError(await status('0'.repeat(64)), 401, 'unauthorized')
    expectError(await status('xyz'), 401, 'unauthorized')
    expectError(await status('A'.repeat(64)), 401, 'unauthorized')
  })
})

describe('GET /v1/verify/session/{token}/status — security', () => {
  it('an API key does not work on this endpoint, neither in the path nor as a header', async () => {
    expectError(await status(acme.sandboxKey), 401, 'unauthorized')
    expectError(await status(acme.sandboxKey, { authorization: `Bearer ${acme.sandboxKey}` }), 401, 'unauthorized')
    expectError(await call(t.url, 'GET', '/v1/verify/session//status', { key: acme.sandboxKey }), 404, 'not_found')
  })
  it("the token's hash is not a token", async () => {
    const token = await newSession()
    expectError(await status(sha256Hex(token)), 401, 'unauthorized')
  })
})
