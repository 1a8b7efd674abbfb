import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

/**
 * Malformed requests across the endpoints: every one must be a 4xx with the documented body
 * `{detail, message, request_id}`, and the server must keep serving afterwards.
 */
let t: TestApp
let acme: CreatedTenant
beforeAll(async () => {
  t = await startTestApp()
  acme = await newTenant(t, { kyc: 3, auth: 3 })
})
afterAll(() => t.close())

type Case = { name: string; method?: string; path?: string; key?: 'sandbox' | 'live' | 'none' | string; body?: string | Blob; type?: string | null; status: number; detail: string }
const KYC = '/v1/verify/session'
const AUTH = '/v1/auth/session'
const J = (v: unknown) => JSON.stringify(v)

const cases: Case[] = [
  // transport-level
  { name: 'malformed JSON', body: '{"country": "BR",', status: 400, detail: 'invalid_json' },
  { name: 'JSON with trailing garbage', body: '{"country":"BR"} x', status: 400, detail: 'invalid_json' },
  { name: 'single quotes', body: "{'country':'BR'}", status: 400, detail: 'invalid_json' },
  { name: 'invalid UTF-8 bytes', body: new Blob([new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]), status: 400, detail: 'invalid_json' },
  { name: 'body over 1 MB', body: J({ external_id: 'x'.repeat(1_100_000) }), status: 413, detail: 'payload_too_large' },
  { name: 'form-encoded body', body: 'country=BR', type: 'application/x-www-form-urlencoded', status: 415, detail: 'unsupported_media_type' },
  { name: 'text/plain body', body: J({ country: 'BR' }), type: 'text/plain', status: 415, detail: 'unsupported_media_type' },
  { name: 'JSON array body', body: '[]', status: 422, detail: 'invalid_request' },
  { name: 'JSON string body', body: '"hello"', status: 422, detail: 'invalid_request' },
  { name: 'JSON null body', body: 'null', status: 422, detail: 'invalid_request' },
  { name: 'JSON number body', body: '42', status: 422, detail: 'invalid_request' },
  { name: 'unknown field', body: J({ contry: 'BR' }), status: 422, detail: 'invalid_request' },
  { name: 'prototype pollution attempt', body: '{"__proto__": {"admin": true}}', status: 422, detail: 'invalid_request' },
  // country
  { name: 'country lowercase unknown', body: J({ country: 'zz' }), status: 422, detail: 'invalid_country' },
  { name: 'country alpha-3', body: J({ country: 'BRA' }), status: 422, detail: 'invalid_country' },
  { name: 'country number', body: J({ country: 76 }), status: 422, detail: 'invalid_country' },
  { name: 'country null', body: J({ country: null }), status: 422, detail: 'invalid_country' },
  { name: 'country empty', body: J({ country: '' }), status: 422, detail: 'invalid_country' },
  { name: 'country array', body: J({ country: ['BR'] }), status: 422, detail: 'invalid_country' },
  // ambiente
  { name: 'ambiente production (English)', body: J({ ambiente: 'production' }), status: 422, detail: 'invalid_ambiente' },
  { name: 'ambiente uppercase', body: J({ ambiente: 'SANDBOX' }), status: 422, detail: 'invalid_ambiente' },
  { name: 'ambiente boolean', body: J({ ambiente: true }), status: 422, detail: 'invalid_ambiente' },
  // external_id
  { name: 'external_id 256 chars', body: J({ external_id: 'a'.repeat(256) }), status: 422, detail: 'invalid_external_id' },
  { name: 'external_id number', body: J({ external_id: 123 }), status: 422, detail: 'invalid_external_id' },
  { name: 'external_id object', body: J({ external_id: { id: 1 } }), status: 422, detail: 'invalid_external_id' },
  { name: 'external_id empty', body: J({ external_id: '' }), status: 422, detail: 'invalid_external_id' },
  { name: 'external_id control chars', body: J({ external_id: 'a\u0000b' }), status: 422, detail: 'invalid_external_id' },
  // documentos_aceitos
  { name: 'documentos_aceitos string', body: J({ documentos_aceitos: 'passport' }), status: 422, detail: 'invalid_documentos_aceitos' },
  { name: 'documentos_aceitos unknown type', body: J({ documentos_aceitos: ['passport', 'library_card'] }), status: 422, detail: 'invalid_documentos_aceitos' },
  { name: 'documentos_aceitos duplicates', body: J({ documentos_aceitos: ['passport', 'passport'] }), status: 422, detail: 'invalid_documentos_aceitos' },
  { name: 'documentos_aceitos numbers', body: J({ documentos_aceitos: [1, 2] }), status: 422, detail: 'invalid_documentos_aceitos' },
  { name: 'documentos_aceitos BR type for DE', body: J({ country: 'DE', documentos_aceitos: ['cnh'] }), status: 422, detail: 'invalid_documentos_aceitos' },
  // redirect_uri
  { name: 'redirect_uri https', body: J({ redirect_uri: 'https://evil.example/cb' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri http', body: J({ redirect_uri: 'http://localhost/cb' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri javascript', body: J({ redirect_uri: 'javascript:alert(document.cookie)' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri data', body: J({ redirect_uri: 'data:text/html;base64,PHNjcmlwdD4=' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri file', body: J({ redirect_uri: 'file:///etc/passwd' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri without scheme', body: J({ redirect_uri: '/relative/path' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri with spaces', body: J({ redirect_uri: 'my app://done' }), status: 422, detail: 'invalid_redirect_uri' },
  { name: 'redirect_uri number', body: J({ redirect_uri: 5 }), status: 422, detail: 'invalid_redirect_uri' },
  // webhook_url
  { name: 'webhook_url not a URL', body: J({ webhook_url: 'not a url' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url ftp', body: J({ webhook_url: 'ftp://files.example.com/hook' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url with credentials', body: J({ webhook_url: 'https://user:pw@hooks.example.com/' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url http in production', key: 'live', body: J({ ambiente: 'producao', webhook_url: 'http://hooks.example.com/' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url loopback in production', key: 'live', body: J({ ambiente: 'producao', webhook_url: 'https://127.0.0.1/hook' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url metadata address in production', key: 'live', body: J({ ambiente: 'producao', webhook_url: 'https://169.254.169.254/latest' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url private IPv6 in production', key: 'live', body: J({ ambiente: 'producao', webhook_url: 'https://[fd00::1]/hook' }), status: 422, detail: 'invalid_webhook_url' },
  { name: 'webhook_url localhost in production', key: 'live', body: J({ ambiente: 'producao', webhook_url: 'https://localhost:8443/hook' }), status: 422, detail: 'invalid_webhook_url' },
  // auth session
  { name: 'auth: missing external_id', path: AUTH, body: J({}), status: 422, detail: 'invalid_external_id' },
  { name: 'auth: empty body', path: AUTH, body: '', type: null, status: 422, detail: 'invalid_external_id' },
  { name: 'auth: documentos_aceitos is not a field here', path: AUTH, body: J({ external_id: 'u', documentos_aceitos: [] }), status: 422, detail: 'invalid_request' },
  { name: 'auth: malformed JSON', path: AUTH, body: '{"external_id":', status: 400, detail: 'invalid_json' },
  // keys
  { name: 'no Authorization header', key: 'none', body: J({}), status: 401, detail: 'unauthorized' },
  { name: 'Bearer with empty key', key: '', body: J({}), status: 401, detail: 'unauthorized' },
  { name: 'key with a wrong prefix', key: 'pk_test_' + 'a'.repeat(40), body: J({}), status: 401, detail: 'unauthorized' },
  { name: 'truncated key', key: 'sk_test_abc', body: J({}), status: 401, detail: 'unauthorized' },
  { name: 'key with SQL', key: "sk_test_' OR 1=1 --", body: J({}), status: 401, detail: 'unauthorized' },
  // other endpoints
  { name: 'GET verification: not a UUID', method: 'GET', path: '/v1/verify/123', status: 404, detail: 'not_found' },
  { name: 'GET verification: unknown UUID', method: 'GET', path: `/v1/verify/${randomUUID()}`, status: 404, detail: 'not_found' },
  { name: 'GET verification: path traversal', method: 'GET', path: '/v1/verify/..%2F..%2Fetc%2Fpasswd', status: 404, detail: 'not_found' },
  { name: 'status: short token', method: 'GET', path: '/v1/verify/session/abc/status', key: 'none', status: 401, detail: 'unauthorized' },
  { name: 'status: token with non-hex', method: 'GET', path: `/v1/verify/session/${'g'.repeat(64)}/status`, key: 'none', status: 401, detail: 'unauthorized' },
  { name: 'status: 10 kB token', method: 'GET', path: `/v1/verify/session/${'a'.repeat(10_000)}/status`, key: 'none', status: 401, detail: 'unauthorized' },
  { name: 'DELETE on the session route', method: 'DELETE', path: KYC, status: 405, detail: 'method_not_allowed' },
  { name: 'PUT on the session route', method: 'PUT', path: KYC, body: J({}), status: 405, detail: 'method_not_allowed' },
  { name: 'POST on a verification id', method: 'POST', path: `/v1/verify/${randomUUID()}`, body: J({}), status: 405, detail: 'method_not_allowed' },
  { name: 'unknown /v1 route', method: 'POST', path: '/v1/verifications', body: J({}), status: 404, detail: 'not_found' },
  { name: 'unknown API version', method: 'POST', path: '/v2/verify/session', body: J({}), status: 404, detail: 'not_found' },
]

describe('bad input: every malformed request is a documented 4xx', () => {
  it('has at least 40 cases', () => expect(cases.length).toBeGreaterThanOrEqual(40))

  it.each(cases)('$name → $status $detail', async (c) => {
    const headers: Record<string, string> = {}
    const key = c.key === undefined || c.key === 'sandbox' ? acme.sandboxKey : c.key === 'live' ? acme.productionKey : c.key
    if (c.key !== 'none') headers['authorization'] = `Bearer ${key}`
    if (c.body !== undefined && c.type !== null) headers['content-type'] = c.type ?? 'application/json'
    const res = await fetch(t.url + (c.path ?? KYC), { method: c.method ?? 'POST', headers, ...(c.body !== undefined ? { body: c.body } : {}) })
    const text = await res.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    expectError({ status: res.status, headers: res.headers, body }, c.status, c.detail)
  })

  it('the server is still healthy and created no session from any of them', async () => {
    const r = await fetch(`${t.url}/healthz`)
    expect(r.status).toBe(200)
    expect(await t.app.services.db.session.count({ where: { tenantId: acme.tenantId } })).toBe(0)
    const bal = await t.app.services.db.creditBalance.findMany({ where: { tenantId: acme.tenantId } })
    expect(bal.map((b) => b.balance)).toEqual([3, 3])
  })
})
