import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/lib/crypto.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'

let t: TestApp
let acme: CreatedTenant
beforeAll(async () => {
  t = await startTestApp()
  acme = await newTenant(t, { kyc: 5 })
})
afterAll(() => t.close())

const create = (key: string | undefined, json?: unknown) => call(t.url, 'POST', '/v1/verify/session', { ...(key ? { key } : {}), ...(json !== undefined ? { json } : {}) })

describe('POST /v1/verify/session — happy', () => {
  it('creates a sandbox session with defaults: 64-hex token, 30-minute expiry, no widget_url', async () => {
    const before = Date.now()
    const r = await create(acme.sandboxKey, {})
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['expira_em', 'session_token'])
    expect(r.body.session_token).toMatch(/^[0-9a-f]{64}$/)
    const ttl = Date.parse(r.body.expira_em) - before
    expect(ttl).toBeGreaterThan(29.9 * 60_000)
    expect(ttl).toBeLessThan(30.1 * 60_000)
    const row = await t.app.services.db.session.findUnique({ where: { tokenHash: sha256Hex(r.body.session_token) } })
    expect(row).toMatchObject({ kind: 'KYC', ambiente: 'sandbox', country: 'WORLD', status: 'created', creditReserved: false })
    expect(row!.documentosAceitos.sort()).toEqual(['cin', 'cnh', 'drivers_license', 'national_id', 'passport', 'rg'])
  })

  it('stores every field and returns widget_url when redirect_uri is sent', async () => {
    const r = await create(acme.sandboxKey, {
      country: 'br',
      external_id: 'user-42',
      webhook_url: 'https://hooks.example.com/kyc',
      ambiente: 'sandbox',
      documentos_aceitos: ['cnh', 'rg'],
      redirect_uri: 'myapp://kyc/done',
    })
    expect(r.status).toBe(201)
    expect(r.body.widget_url).toBe(`${t.url}/widget?token=${r.body.session_token}`)
    const row = await t.app.services.db.session.findUnique({ where: { tokenHash: sha256Hex(r.body.session_token) } })
    expect(row).toMatchObject({ country: 'BR', externalId: 'user-42', webhookUrl: 'https://hooks.example.com/kyc', redirectUri: 'myapp://kyc/done', documentosAceitos: ['cnh', 'rg'] })
  })

  it('defaults documentos_aceitos to the types compatible with the country', async () => {
    for (const [country, expected] of [
      ['BR', ['cin', 'cnh', 'passport', 'rg']],
      ['US', ['drivers_license', 'national_id', 'passport']],
    ] as const) {
      const r = await create(acme.sandboxKey, { country })
      const row = await t.app.services.db.session.findUnique({ where: { tokenHash: sha256Hex(r.body.session_token) } })
      expect(row!.documentosAceitos.sort()).toEqual([...expected])
    }
  })

  it('accepts an empty documentos_aceitos (selfie-only, SEM_DOC)', async () => {
    const r = await create(acme.sandboxKey, { documentos_aceitos: [] })
    expect(r.status).toBe(201)
  })

  it('a production session reserves one KYC credit with a ledger row; sandbox never debits', async () => {
    const db = t.app.services.db
    const bal = async () => (await db.creditBalance.findUnique({ where: { tenantId_kind: { tenantId: acme.tenantId, kind: 'KYC' } } }))!.balance
    const b0 = await bal()
    await create(acme.sandboxKey, {})
    expect(await bal()).toBe(b0)
    const r = await create(acme.productionKey, { ambiente: 'producao' })
    expect(r.status).toBe(201)
    expect(await bal()).toBe(b0 - 1)
    const s = await db.session.findUnique({ where: { tokenHash: sha256Hex(r.body.session_token) } })
    const ledger = await db.creditLedgerEntry.findMany({ where: { sessionId: s!.id } })
    expect(ledger).toMatchObject([{ delta: -1, kind: 'KYC', reason: 'session_reserved', balanceAfter: b0 - 1 }])
  })
})

describe('POST /v1/verify/session — errors', () => {
  it('401 unauthorized: missing, malformed, unknown key', async () => {
    expectError(await create(undefined, {}), 401, 'unauthorized')
    expectError(await call(t.url, 'POST', '/v1/verify/session', { headers: { authorization: acme.sandboxKey }, json: {} }), 401, 'unauthorized')
    expectError(await call(t.url, 'POST', '/v1/verify/session', { headers: { authorization: 'Basic abc' }, json: {} }), 401, 'unauthorized')
    expectError(await create('sk_test_' + 'A'.repeat(40), {}), 401, 'unauthorized')
    expectError(await create('sk_prod_' + 'A'.repeat(40), {}), 401, 'unauthorized')
  })

  it('402 insufficient_credits when the production balance is zero', async () => {
    const poor = await newTenant(t, { kyc: 0 })
    expectError(await create(poor.productionKey, { ambiente: 'producao' }), 402, 'insufficient_credits')
    expect(await t.app.services.db.session.count({ where: { tenantId: poor.tenantId } })).toBe(0)
  })

  it('403 wrong_ambiente both ways (and a live key with the default ambiente)', async () => {
    expectError(await create(acme.sandboxKey, { ambiente: 'producao' }), 403, 'wrong_ambiente')
    expectError(await create(acme.productionKey, { ambiente: 'sandbox' }), 403, 'wrong_ambiente')
    expectError(await create(acme.productionKey, {}), 403, 'wrong_ambiente')
  })

  it('422 per field with the documented codes', async () => {
    expectError(await create(acme.sandboxKey, { country: 'XX' }), 422, 'invalid_country')
    expectError(await create(acme.sandboxKey, { ambiente: 'prod' }), 422, 'invalid_ambiente')
    expectError(await create(acme.sandboxKey, { external_id: 'x'.repeat(256) }), 422, 'invalid_external_id')
    expectError(await create(acme.sandboxKey, { documentos_aceitos: ['selfie'] }), 422, 'invalid_documentos_aceitos')
    expectError(await create(acme.sandboxKey, { country: 'AR', documentos_aceitos: ['rg'] }), 422, 'invalid_documentos_aceitos')
    expectError(await create(acme.sandboxKey, { redirect_uri: 'https://app.example.com/done' }), 422, 'invalid_redirect_uri')
    expectError(await create(acme.productionKey, { ambiente: 'producao', webhook_url: 'http://hooks.example.com' }), 422, 'invalid_webhook_url')
  })

  it('accepts exactly 255 characters of external_id', async () => {
    expect((await create(acme.sandboxKey, { external_id: 'x'.repeat(255) })).status).toBe(201)
  })
})

describe('POST /v1/verify/session — security', () => {
  it('a revoked key is 401 and a deactivated key 403 key_inactive; reactivation works', async () => {
    const { setApiKeyStatus } = await import('../../src/modules/api-keys/set-api-key-status.js')
    const other = await newTenant(t)
    const key = await t.app.services.db.apiKey.findFirstOrThrow({ where: { tenantId: other.tenantId, ambiente: 'sandbox' } })
    await setApiKeyStatus(t.app.services, { keyId: key.id, status: 'inactive' })
    expectError(await create(other.sandboxKey, {}), 403, 'key_inactive')
    await setApiKeyStatus(t.app.services, { keyId: key.id, status: 'active' })
    expect((await create(other.sandboxKey, {})).status).toBe(201)
    await setApiKeyStatus(t.app.services, { keyId: key.id, status: 'revoked' })
    expectError(await create(other.sandboxKey, {}), 401, 'unauthorized')
  })

  it('keys and tokens are stored only as hashes', async () => {
    const r = await create(acme.sandboxKey, {})
    const db = t.app.services.db
    const keys = await db.apiKey.findMany({ where: { tenantId: acme.tenantId } })
    const dump = JSON.stringify([keys, await db.session.findMany({ where: { tenantId: acme.tenantId } })])
    expect(dump).not.toContain(acme.sandboxKey)
    expect(dump).not.toContain(acme.productionKey)
    expect(dump).not.toContain(r.body.session_token)
    expect(keys.map((k) => k.keyHash).sort()).toEqual([sha256Hex(acme.sandboxKey), sha256Hex(acme.productionKey)].sort())
  })

  it('tokens are unguessable: 100 tokens, all distinct, uniformly hex', async () => {
    const tokens = await Promise.all(Array.from({ length: 100 }, () => create(acme.sandboxKey, {}).then((r) => r.body.session_token as string)))
    expect(new Set(tokens).size).toBe(100)
    // 6400 hex digits: every digit appears, none dominates (a constant or counter-based token would fail)
    const counts = new Map<string, number>()
    for (const ch of tokens.join('')) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(16)
    for (const n of counts.values()) expect(n).toBeGreaterThan(250)
  })

  it('the error body never echoes the key', async () => {
    const r = await create(acme.sandboxKey.slice(0, -1) + 'Z', { country: 'XX' })
    expect(JSON.stringify(r.body)).not.toContain(acme.sandboxKey.slice(8, 30))
  })
})
