import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

describe('harness smoke', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())
  it('creates a sandbox session', async () => {
    const tenant = await newTenant(t)
    const r = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: {} })
    expect(r.status).toBe(201)
    expect(r.body.session_token).toMatch(/^[0-9a-f]{64}$/)
  })
})
