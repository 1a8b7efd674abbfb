import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectError, startTestApp, type TestApp } from '../helpers/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

describe('service endpoints', () => {
  it('GET /healthz checks the database', async () => {
    const r = await call(t.url, 'GET', '/healthz')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ status: 'ok', database: t.app.services.dbKind })
  })

  it('GET /v1/openapi.json is OpenAPI 3.1 generated from the validating schemas', async () => {
    const r = await call(t.url, 'GET', '/v1/openapi.json')
    expect(r.status).toBe(200)
    expect(r.body.openapi).toBe('3.1.0')
    const create = r.body.paths['/v1/verify/session'].post
    const body = create.requestBody.content['application/json'].schema
    expect(Object.keys(body.properties).sort()).toEqual(['ambiente', 'country', 'documentos_aceitos', 'external_id', 'redirect_uri', 'webhook_url'])
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.ambiente.enum).toEqual(['sandbox', 'producao'])
    expect(body.properties.external_id.maxLength).toBe(255)
    expect(create.responses['422'].description).toContain('invalid_country')
    expect(create.responses['402'].description).toContain('insufficient_credits')
    expect(Object.keys(r.body.paths).sort()).toEqual(
      expect.arrayContaining(['/v1/auth/session', '/v1/verify/session', '/v1/verify/session/{session_token}/status', '/v1/verify/{verification_id}']),
    )
  })

  it('GET /v1/docs is a readable reference of every operation', async () => {
    const res = await fetch(`${t.url}/v1/docs`)
    expect(res.headers.get('content-type')).toContain('text/html')
    const html = await res.text()
    for (const p of ['/v1/verify/session', '/v1/auth/session', '/v1/verify/{verification_id}', 'invalid_redirect_uri']) expect(html).toContain(p)
  })

  it('echoes a safe X-Request-Id and puts it in error bodies; replaces an unsafe one', async () => {
    const r = await call(t.url, 'POST', '/v1/verify/session', { headers: { 'x-request-id': 'abc-123' }, json: {} })
    expectError(r, 401, 'unauthorized')
    expect(r.body.request_id).toBe('abc-123')
    expect(r.headers.get('x-request-id')).toBe('abc-123')
    const bad = await call(t.url, 'POST', '/v1/verify/session', { headers: { 'x-request-id': '<script>' }, json: {} })
    expect(bad.body.request_id).toMatch(/^req_[A-Za-z0-9]{20}$/)
  })
})
