import { verify } from '@octokit/webhooks-methods'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { startReceiver, waitUntil, type Receiver } from './receiver.js'

/**
 * Every event is signed over the exact bytes sent; the signatures are checked with
 * @octokit/webhooks-methods (GitHub's sha256=<hex> verifier), an implementation written elsewhere.
 */
describe('webhook signing and payloads', () => {
  let t: TestApp
  let rx: Receiver
  beforeAll(async () => {
    rx = await startReceiver()
    t = await startTestApp({ WEBHOOK_POLL_MS: '50' })
  })
  afterAll(async () => {
    await t?.close()
    await rx?.close()
  })

  async function kycSession(key: string, path: string, extra: Record<string, unknown> = {}) {
    const r = await call(t.url, 'POST', '/v1/verify/session', { key, json: { webhook_url: `${rx.url}${path}`, ...extra } })
    expect(r.status).toBe(201)
    return r.body.session_token as string
  }

  it('signs verification.completed (approved) with the sandbox secret; body = stored body; headers as documented', async () => {
    const tenant = await newTenant(t)
    const token = await kycSession(tenant.sandboxKey, '/approved', { external_id: 'user-1' })
    const done = await call(t.url, 'POST', `/v1/sandbox/verify/session/${token}/complete`, { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })
    expect(done.status).toBe(200)
    expect(done.body.status).toBe('approved')
    await waitUntil(() => rx.at('/approved').length === 1, 'approved webhook')
    const got = rx.at('/approved')[0]!
    const raw = got.raw.toString('utf8')
    const sig = String(got.headers['x-service-signature'])
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(await verify(tenant.webhookSecrets.sandbox, raw, sig)).toBe(true)
    // the production secret, or one changed byte, must not verify
    expect(await verify(tenant.webhookSecrets.producao, raw, sig)).toBe(false)
    expect(await verify(tenant.webhookSecrets.sandbox, raw.replace('approved', 'rejected'), sig)).toBe(false)

    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-service-event']).toBe('verification.completed')
    expect(got.headers['x-service-attempt']).toBe('1')
    expect(got.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/)
    expect(Number(got.headers['x-service-timestamp'])).toBeGreaterThan(1_600_000_000)
    expect(got.headers['host']).toBe(`127.0.0.1:${rx.port}`)

    const body = JSON.parse(raw)
    expect(Object.keys(body)[0]).toBe('event')
    expect(body).toMatchObject({
      event: 'verification.completed',
      verification_id: done.body.verification_id,
      external_id: 'user-1',
      status: 'approved',
      modo: 'FULL_KYC',
      scores: { composto: expect.any(Number), face_match: expect.any(Number), liveness: expect.any(Number), antifraude: expect.any(Number) },
      ocr: { nome: 'SANDBOX USER', documento_numero: '********191', data_nascimento: '1990-01-01' },
    })
    expect(body).not.toHaveProperty('motivos_rejeicao')
    const stored = await t.app.services.db.webhookEvent.findFirstOrThrow({ where: { verificationId: done.body.verification_id } })
    expect(stored.body).toBe(raw)
  })

  it('verification.completed (rejected) carries motivos_rejeicao; manual_review carries scores.composto only and no ocr', async () => {
    const tenant = await newTenant(t)
    const rejected = await kycSession(tenant.sandboxKey, '/rejected')
    const review = await kycSession(tenant.sandboxKey, '/review')
    await call(t.url, 'POST', `/v1/sandbox/verify/session/${rejected}/complete`, { key: tenant.sandboxKey, json: { cpf: '00000000272' } })
    await call(t.url, 'POST', `/v1/sandbox/verify/session/${review}/complete`, { key: tenant.sandboxKey, json: { cpf: '000.000.003-53' } })
    await waitUntil(() => rx.at('/rejected').length === 1 && rx.at('/review').length === 1, 'both webhooks')
    const r = rx.at('/rejected')[0]!
    const m = rx.at('/review')[0]!
    for (const x of [r, m]) expect(await verify(tenant.webhookSecrets.sandbox, x.raw.toString('utf8'), String(x.headers['x-service-signature']))).toBe(true)
    const rb = JSON.parse(r.raw.toString('utf8'))
    expect(rb).toMatchObject({ event: 'verification.completed', status: 'rejected', motivos_rejeicao: ['face_mismatch'] })
    expect(rb.ocr.documento_numero).toBe('********272')
    const mb = JSON.parse(m.raw.toString('utf8'))
    expect(m.headers['x-service-event']).toBe('verification.manual_review')
    expect(mb.event).toBe('verification.manual_review')
    expect(mb.status).toBe('manual_review')
    expect(mb.scores).toEqual({ composto: expect.any(Number) })
    expect(mb).not.toHaveProperty('ocr')
    expect(mb).not.toHaveProperty('motivos_rejeicao')
  })

  it('auth.completed is signed and carries the Auth record (scores 0–100)', async () => {
    const tenant = await newTenant(t)
    const kyc = await kycSession(tenant.sandboxKey, '/kyc-for-auth', { external_id: 'alice' })
    await call(t.url, 'POST', `/v1/sandbox/verify/session/${kyc}/complete`, { key: tenant.sandboxKey, json: { cpf: '52998224725' } })
    const s = await call(t.url, 'POST', '/v1/auth/session', { key: tenant.sandboxKey, json: { external_id: 'alice', webhook_url: `${rx.url}/auth` } })
    expect(s.status).toBe(201)
    const done = await call(t.url, 'POST', `/v1/sandbox/auth/session/${s.body.session_token}/complete`, { key: tenant.sandboxKey })
    expect(done.body).toMatchObject({ status: 'authenticated', authenticated: true })
    await waitUntil(() => rx.at('/auth').length === 1, 'auth webhook')
    const got = rx.at('/auth')[0]!
    expect(await verify(tenant.webhookSecrets.sandbox, got.raw.toString('utf8'), String(got.headers['x-service-signature']))).toBe(true)
    expect(got.headers['x-service-event']).toBe('auth.completed')
    const body = JSON.parse(got.raw.toString('utf8'))
    expect(Object.keys(body)).toEqual(['event', 'auth_id', 'external_id', 'status', 'score_liveness', 'score_facial', 'created_at', 'completed_at'])
    expect(body).toMatchObject({ event: 'auth.completed', auth_id: done.body.auth_id, external_id: 'alice', status: 'authenticated' })
    expect(body.score_facial).toBeGreaterThan(1)
    expect(body.score_facial).toBeLessThanOrEqual(100)
  })

  it('uses the tenant default URL when the session has none, and records an event with no delivery when there is no URL at all', async () => {
    const tenant = await newTenant(t)
    await t.app.services.db.tenant.update({ where: { id: tenant.tenantId }, data: { webhookUrlSandbox: `${rx.url}/default` } })
    const s1 = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: {} })
    await call(t.url, 'POST', `/v1/sandbox/verify/session/${s1.body.session_token}/complete`, { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })
    await waitUntil(() => rx.at('/default').length === 1, 'default-URL webhook')

    const bare = await newTenant(t)
    const s2 = await call(t.url, 'POST', '/v1/verify/session', { key: bare.sandboxKey, json: {} })
    const done = await call(t.url, 'POST', `/v1/sandbox/verify/session/${s2.body.session_token}/complete`, { key: bare.sandboxKey, json: { cpf: '000.000.001-91' } })
    expect(done.status).toBe(200)
    const ev = await t.app.services.db.webhookEvent.findFirstOrThrow({ where: { verificationId: done.body.verification_id }, include: { deliveries: true } })
    expect(ev.url).toBeNull()
    expect(ev.deliveries).toEqual([])
  })

  it('signs with the rotated secret from the rotation on', async () => {
    const { rotateWebhookSecret } = await import('../../src/modules/tenants/webhook-secrets.js')
    const tenant = await newTenant(t)
    const fresh = await rotateWebhookSecret(t.app.services, tenant.tenantId, 'sandbox')
    const token = await kycSession(tenant.sandboxKey, '/rotated')
    await call(t.url, 'POST', `/v1/sandbox/verify/session/${token}/complete`, { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })
    await waitUntil(() => rx.at('/rotated').length === 1, 'rotated webhook')
    const got = rx.at('/rotated')[0]!
    const sig = String(got.headers['x-service-signature'])
    expect(await verify(fresh, got.raw.toString('utf8'), sig)).toBe(true)
    expect(await verify(tenant.webhookSecrets.sandbox, got.raw.toString('utf8'), sig)).toBe(false)
  })
})
