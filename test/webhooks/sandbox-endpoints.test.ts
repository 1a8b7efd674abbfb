import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCpf } from '../../src/modules/sandbox/magic-cpf.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

const kycDone = (token: string) => `/v1/sandbox/verify/session/${token}/complete`
const authDone = (token: string) => `/v1/sandbox/auth/session/${token}/complete`

describe('sandbox completion endpoints', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t?.close())

  const kycToken = async (key: string, json: Record<string, unknown> = {}) => {
    const r = await call(t.url, 'POST', '/v1/verify/session', { key, json })
    expect(r.status).toBe(201)
    return r.body.session_token as string
  }
  const authToken = async (key: string, externalId: string) => {
    const r = await call(t.url, 'POST', '/v1/auth/session', { key, json: { external_id: externalId } })
    expect(r.status).toBe(201)
    return r.body.session_token as string
  }

  it('every magic CPF decides its outcome, and GET /v1/verify/{id} returns the decision', async () => {
    const tenant = await newTenant(t)
    const cases = [
      ['000.000.001-91', 'approved', []],
      ['00000000272', 'rejected', ['face_mismatch']],
      ['000.000.003-53', 'manual_review', []],
      ['000.000.004-34', 'rejected', ['document_expired']],
      ['529.982.247-25', 'approved', []],
    ] as const
    for (const [cpf, status, motivos] of cases) {
      const token = await kycToken(tenant.sandboxKey)
      const r = await call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: { cpf } })
      expect(r.status, cpf).toBe(200)
      expect(r.body).toEqual({ verification_id: expect.any(String), status })
      const v = await call(t.url, 'GET', `/v1/verify/${r.body.verification_id}`, { key: tenant.sandboxKey })
      expect(v.status).toBe(200)
      expect(v.body).toMatchObject({ verification_id: r.body.verification_id, status, final_status: status, motivos_rejeicao: [...motivos], webhook: { status: 'none' } })
      expect(v.body.ocr.documento_numero).toBe(`********${cpf.replace(/\D/g, '').slice(-3)}`)
      expect(v.body.session.status).toBe('completed')
      // the session status endpoint (token only) points at the verification
      const st = await call(t.url, 'GET', `/v1/verify/session/${token}/status`)
      expect(st.body).toMatchObject({ status, verification_id: r.body.verification_id })
    }
  })

  it('invalid check digits, malformed or missing CPF → 422 invalid_cpf, and the token stays usable', async () => {
    const tenant = await newTenant(t)
    const token = await kycToken(tenant.sandboxKey)
    for (const cpf of ['000.000.001-92', '00000000190', '111.111.111-11', '000000001-91', '0000000019', 12345678909, '']) {
      expectError(await call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: { cpf } }), 422, 'invalid_cpf')
    }
    expectError(await call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: {} }), 422, 'invalid_cpf')
    expect((await call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: { cpf: '00000000191' } })).status).toBe(200)
  })

  it('parseCpf accepts both formats and checks both digits', () => {
    expect(parseCpf('000.000.001-91')).toBe('00000000191')
    expect(parseCpf('52998224725')).toBe('52998224725')
    expect(() => parseCpf('52998224715')).toThrow()
    expect(() => parseCpf('52998224724')).toThrow()
  })

  it('security: live key 403 sandbox_only; another tenant’s token 404; wrong kind 404; no key 401', async () => {
    const a = await newTenant(t, { kyc: 1 })
    const b = await newTenant(t)
    const token = await kycToken(a.sandboxKey)
    expectError(await call(t.url, 'POST', kycDone(token), { key: a.productionKey, json: { cpf: '000.000.001-91' } }), 403, 'sandbox_only')
    expectError(await call(t.url, 'POST', authDone(token), { key: a.productionKey }), 403, 'sandbox_only')
    expectError(await call(t.url, 'POST', kycDone(token), { key: b.sandboxKey, json: { cpf: '000.000.001-91' } }), 404, 'not_found')
    expectError(await call(t.url, 'POST', kycDone('f'.repeat(64)), { key: a.sandboxKey, json: { cpf: '000.000.001-91' } }), 404, 'not_found')
    expectError(await call(t.url, 'POST', authDone(token), { key: a.sandboxKey }), 404, 'not_found')
    expectError(await call(t.url, 'POST', kycDone(token), { json: { cpf: '000.000.001-91' } }), 401, 'unauthorized')
    // a production session of the same tenant cannot be completed in the sandbox
    const live = await call(t.url, 'POST', '/v1/verify/session', { key: a.productionKey, json: { ambiente: 'producao' } })
    expect(live.status).toBe(201)
    expectError(await call(t.url, 'POST', kycDone(live.body.session_token), { key: a.sandboxKey, json: { cpf: '000.000.001-91' } }), 404, 'not_found')
    // none of that used the token up
    expect((await call(t.url, 'POST', kycDone(token), { key: a.sandboxKey, json: { cpf: '000.000.001-91' } })).status).toBe(200)
  })

  it('a used token is 409 session_already_used (also when two completions race); an expired one 410', async () => {
    const tenant = await newTenant(t)
    const token = await kycToken(tenant.sandboxKey)
    const both = await Promise.all([1, 2].map(() => call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })))
    expect(both.map((r) => r.status).sort()).toEqual([200, 409])
    expectError(both.find((r) => r.status === 409)!, 409, 'session_already_used')
    expectError(await call(t.url, 'POST', kycDone(token), { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } }), 409, 'session_already_used')
    expect(await t.app.services.db.verification.count({ where: { tenantId: tenant.tenantId } })).toBe(1)

    const old = await kycToken(tenant.sandboxKey)
    await t.app.services.db.session.updateMany({ where: { tenantId: tenant.tenantId, status: 'created' }, data: { expiresAt: new Date(Date.now() - 1000) } })
    expectError(await call(t.url, 'POST', kycDone(old), { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } }), 410, 'session_expired')
  })

  it('Auth outcomes: no approved KYC → rejected NO_EMBEDDING; approved KYC → authenticated; "-reject" → rejected; "-liveness" → LIVENESS_ERROR', async () => {
    const tenant = await newTenant(t)
    const other = await newTenant(t)
    const r1 = await call(t.url, 'POST', authDone(await authToken(tenant.sandboxKey, 'bob')), { key: tenant.sandboxKey })
    expect(r1.status).toBe(200)
    expect(r1.body).toEqual({ auth_id: expect.any(String), status: 'rejected', authenticated: false, error_code: 'NO_EMBEDDING' })

    // a rejected KYC does not count; an approved one does, for this tenant only
    await call(t.url, 'POST', kycDone(await kycToken(tenant.sandboxKey, { external_id: 'bob' })), { key: tenant.sandboxKey, json: { cpf: '000.000.002-72' } })
    expect((await call(t.url, 'POST', authDone(await authToken(tenant.sandboxKey, 'bob')), { key: tenant.sandboxKey })).body.error_code).toBe('NO_EMBEDDING')
    await call(t.url, 'POST', kycDone(await kycToken(tenant.sandboxKey, { external_id: 'bob' })), { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })
    const r2 = await call(t.url, 'POST', authDone(await authToken(tenant.sandboxKey, 'bob')), { key: tenant.sandboxKey })
    expect(r2.body).toEqual({ auth_id: expect.any(String), status: 'authenticated', authenticated: true, error_code: null })
    expect((await call(t.url, 'POST', authDone(await authToken(other.sandboxKey, 'bob')), { key: other.sandboxKey })).body.status).toBe('rejected')

    const r3 = await call(t.url, 'POST', authDone(await authToken(tenant.sandboxKey, 'bob-reject')), { key: tenant.sandboxKey })
    expect(r3.body).toMatchObject({ status: 'rejected', authenticated: false, error_code: null })
    const r4 = await call(t.url, 'POST', authDone(await authToken(tenant.sandboxKey, 'bob-liveness')), { key: tenant.sandboxKey })
    expect(r4.body).toMatchObject({ status: 'rejected', error_code: 'LIVENESS_ERROR' })

    const a = await t.app.services.db.authAttempt.findUniqueOrThrow({ where: { id: r2.body.auth_id } })
    expect(a).toMatchObject({ status: 'authenticated', externalId: 'bob' })
    expect(a.scoreFacial).toBeGreaterThan(1)
    // the token is single use
    const tok = await authToken(tenant.sandboxKey, 'bob')
    expect((await call(t.url, 'POST', authDone(tok), { key: tenant.sandboxKey })).status).toBe(200)
    expectError(await call(t.url, 'POST', authDone(tok), { key: tenant.sandboxKey }), 409, 'session_already_used')
  })
})
