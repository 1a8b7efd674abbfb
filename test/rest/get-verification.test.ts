import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { insertVerification } from './fixtures.js'

let t: TestApp
let acme: CreatedTenant
let rival: CreatedTenant
beforeAll(async () => {
  t = await startTestApp()
  acme = await newTenant(t)
  rival = await newTenant(t)
})
afterAll(() => t.close())

const get = (key: string | undefined, id: string) => call(t.url, 'GET', `/v1/verify/${id}`, key ? { key } : {})

describe('GET /v1/verify/{id} — happy', () => {
  it('returns the full record with the document number masked', async () => {
    const v = await insertVerification(t.app.services, acme.tenantId, 'sandbox')
    const r = await get(acme.sandboxKey, v.id)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      verification_id: v.id,
      status: 'approved',
      final_status: 'approved',
      modo: 'FULL_KYC',
      scores: { composto: 91, face_match: 93, liveness: 88, antifraude: 95 },
      ocr: { nome: 'ANNA MARIA ERIKSSON', documento_numero: '******2C3', data_nascimento: '1974-08-12' },
      motivos_rejeicao: [],
      webhook: { status: 'none', attempts: 0 },
    })
  })
  it('keeps the decision in final_status after webhook_failed', async () => {
    const v = await insertVerification(t.app.services, acme.tenantId, 'sandbox', { status: 'webhook_failed', finalStatus: 'rejected', motivosRejeicao: ['face_mismatch'] })
    const r = await get(acme.sandboxKey, v.id)
    expect(r.body).toMatchObject({ status: 'webhook_failed', final_status: 'rejected', motivos_rejeicao: ['face_mismatch'] })
  })
})

describe('GET /v1/verify/{id} — errors', () => {
  it('404 for unknown and malformed ids', async () => {
    expectError(await get(acme.sandboxKey, randomUUID()), 404, 'not_found')
    expectError(await get(acme.sandboxKey, 'not-a-uuid'), 404, 'not_found')
    expectError(await get(acme.sandboxKey, "1' OR '1'='1"), 404, 'not_found')
  })
  it('401 without a key', async () => {
    const v = await insertVerification(t.app.services, acme.tenantId, 'sandbox')
    expectError(await get(undefined, v.id), 401, 'unauthorized')
  })
})

describe('GET /v1/verify/{id} — security', () => {
  it("another tenant's id is 404, exactly like a missing one", async () => {
    const v = await insertVerification(t.app.services, acme.tenantId, 'sandbox')
    const theirs = await get(rival.sandboxKey, v.id)
    const missing = await get(rival.sandboxKey, randomUUID())
    expectError(theirs, 404, 'not_found')
    expect(theirs.body.message).toBe(missing.body.message)
  })
  it("another environment's id is 404", async () => {
    const v = await insertVerification(t.app.services, acme.tenantId, 'producao')
    expectError(await get(acme.sandboxKey, v.id), 404, 'not_found')
    expect((await get(acme.productionKey, v.id)).status).toBe(200)
  })
})
