import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/lib/crypto.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

let t: TestApp
let acme: CreatedTenant
beforeAll(async () => {
  t = await startTestApp()
  acme = await newTenant(t, { kyc: 1, auth: 2 })
})
afterAll(() => t.close())

const create = (key: string | undefined, json?: unknown) => call(t.url, 'POST', '/v1/auth/session', { ...(key ? { key } : {}), ...(json !== undefined ? { json } : {}) })

describe('POST /v1/auth/session — happy', () => {
  it('creates an Auth session for an external_id', async () => {
    const r = await create(acme.sandboxKey, { external_id: 'user-1' })
    expect(r.status).toBe(201)
    expect(r.body.session_token).toMatch(/^[0-9a-f]{64}$/)
    expect(r.body.widget_url).toBeUndefined()
    const row = await t.app.services.db.session.findUnique({ where: { tokenHash: sha256Hex(r.body.session_token) } })
    expect(row).toMatchObject({ kind: 'AUTH', externalId: 'user-1', ambiente: 'sandbox' })
  })

  it('returns widget_url with redirect_uri', async () => {
    const r = await create(acme.sandboxKey, { external_id: 'user-1', redirect_uri: 'com.acme.app://auth' })
    expect(r.body.widget_url).toBe(`${t.url}/widget?token=${r.body.session_token}`)
  })

  it('production consumes Auth credits, not KYC credits', async () => {
    const db = t.app.services.db
    const bal = async (kind: 'KYC' | 'AUTH') => (await db.creditBalance.findUnique({ where: { tenantId_kind: { tenantId: acme.tenantId, kind } } }))!.balance
    expect((await create(acme.productionKey, { external_id: 'u', ambiente: 'producao' })).status).toBe(201)
    expect(await bal('AUTH')).toBe(1)
    expect(await bal('KYC')).toBe(1)
  })
})

describe('POST /v1/auth/session — errors', () => {
  it('external_id is required', async () => {
    expectError(await create(acme.sandboxKey, {}), 422, 'invalid_external_id')
    expectError(await create(acme.sandboxKey, { external_id: '' }), 422, 'invalid_external_id')
    expectError(await create(acme.sandboxKey, { external_id: 7 }), 422, 'invalid_external_id')
  })
  it('redirect_uri must be a custom-scheme deep link', async () => {
    for (const uri of ['http://x.com', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'not a uri'])
      expectError(await create(acme.sandboxKey, { external_id: 'u', redirect_uri: uri }), 422, 'invalid_redirect_uri')
  })
  it('402 when Auth credits run out', async () => {
    expect((await create(acme.productionKey, { external_id: 'u', ambiente: 'producao' })).status).toBe(201)
    expectError(await create(acme.productionKey, { external_id: 'u', ambiente: 'producao' }), 402, 'insufficient_credits')
  })
})

describe('POST /v1/auth/session — security', () => {
  it('needs a key; environment must match', async () => {
    expectError(await create(undefined, { external_id: 'u' }), 401, 'unauthorized')
    expectError(await create(acme.sandboxKey, { external_id: 'u', ambiente: 'producao' }), 403, 'wrong_ambiente')
  })
})
