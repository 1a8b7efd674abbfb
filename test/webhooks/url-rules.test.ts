import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { setWebhookUrl } from '../../src/modules/tenants/set-webhook-url.js'
import { isForbiddenAddress, resolveDeliveryAddress } from '../../src/modules/webhooks/validate-webhook-url.js'
import { sendWebhook } from '../../src/modules/webhooks/send-webhook.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { startReceiver, waitUntil, type Receiver } from './receiver.js'

/**
 * Production targets must be https and public, checked when given (422 invalid_webhook_url) and
 * again at delivery after DNS resolution. Here the sandbox is run with
 * WEBHOOK_ALLOW_PRIVATE_SANDBOX=false, so it follows the production address rules.
 */
describe('webhook URL rules', () => {
  let t: TestApp
  let rx: Receiver
  beforeAll(async () => {
    rx = await startReceiver()
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_SANDBOX: 'false', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE: '0,0.05,0.05,0.05,0.05' })
  })
  afterAll(async () => {
    await t?.close()
    await rx?.close()
  })

  it('refuses http and local/private/link-local/metadata targets at creation in production (422 invalid_webhook_url)', async () => {
    const tenant = await newTenant(t, { kyc: 5 })
    const bad = [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://172.16.5.4/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://localhost/x',
      'https://metadata.google.internal/x',
      'https://user:pw@hooks.example.com/x',
      'ftp://hooks.example.com/x',
    ]
    for (const webhook_url of bad) {
      const r = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.productionKey, json: { ambiente: 'producao', webhook_url } })
      expectError(r, 422, 'invalid_webhook_url')
    }
    await expect(setWebhookUrl(t.app.services, { tenantId: tenant.tenantId, ambiente: 'producao', url: 'http://hooks.example.com/x' })).rejects.toMatchObject({ code: 'invalid_webhook_url' })
    await expect(setWebhookUrl(t.app.services, { tenantId: tenant.tenantId, ambiente: 'producao', url: 'https://10.0.0.1/x' })).rejects.toMatchObject({ code: 'invalid_webhook_url' })
    // the public https target is accepted
    const ok = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.productionKey, json: { ambiente: 'producao', webhook_url: 'https://hooks.example.com/x' } })
    expect(ok.status).toBe(201)
    // and with the setting off, the sandbox refuses local targets too
    expectError(await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: { webhook_url: `${rx.url}/x` } }), 422, 'invalid_webhook_url')
  })

  it('refuses at delivery time a target that resolves to a forbidden address (never connects)', async () => {
    const tenant = await newTenant(t)
    // a URL stored before the rules applied (or a name that now resolves inward): the delivery-time check stops it
    await t.app.services.db.tenant.update({ where: { id: tenant.tenantId }, data: { webhookUrlSandbox: `http://localhost:${rx.port}/inward` } })
    const s = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: {} })
    const done = await call(t.url, 'POST', `/v1/sandbox/verify/session/${s.body.session_token}/complete`, { key: tenant.sandboxKey, json: { cpf: '000.000.001-91' } })
    const id = done.body.verification_id as string
    await waitUntil(async () => (await call(t.url, 'GET', `/v1/verify/${id}`, { key: tenant.sandboxKey })).body.status === 'webhook_failed', 'webhook_failed')
    const rows = await t.app.services.db.webhookDelivery.findMany({ where: { event: { verificationId: id } }, orderBy: { attempt: 'asc' } })
    expect(rows).toHaveLength(5)
    for (const d of rows) expect(d.error).toMatch(/^refused: localhost resolves to a forbidden address/)
    expect(rx.at('/inward')).toHaveLength(0)
  })

  it('isForbiddenAddress: public IPv4/IPv6 allowed (also IPv4-mapped), loopback/private/link-local/metadata refused', () => {
    for (const ip of ['8.8.8.8', '93.184.215.14', '::ffff:8.8.8.8', '::ffff:808:808', '2606:4700::1']) expect([ip, isForbiddenAddress(ip)]).toEqual([ip, false])
    for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe'])
      expect([ip, isForbiddenAddress(ip)]).toEqual([ip, true])
  })

  it('resolveDeliveryAddress checks resolved addresses; sendWebhook pins the checked one and keeps the Host header', async () => {
    const strict = { WEBHOOK_ALLOW_PRIVATE_SANDBOX: false }
    await expect(resolveDeliveryAddress(strict, new URL('https://localhost/x'), 'producao')).rejects.toThrow(/forbidden/)
    await expect(resolveDeliveryAddress(strict, new URL('https://169.254.169.254/x'), 'producao')).rejects.toThrow(/forbidden/)
    await expect(resolveDeliveryAddress({ WEBHOOK_ALLOW_PRIVATE_SANDBOX: true }, new URL('https://localhost/x'), 'producao')).rejects.toThrow(/forbidden/)
    expect(await resolveDeliveryAddress(strict, new URL('https://93.184.215.14/x'), 'producao')).toEqual({ address: '93.184.215.14', family: 4 })
    expect(await resolveDeliveryAddress({ WEBHOOK_ALLOW_PRIVATE_SANDBOX: true }, new URL('http://localhost/x'), 'sandbox')).toMatchObject({ address: '127.0.0.1' })

    // production never sends over http, whatever the address
    const cfg = loadConfig({ NODE_ENV: 'test', WEBHOOK_TIMEOUT_MS: '2000' })
    const prod = await sendWebhook(cfg, { url: `http://localhost:${rx.port}/p`, ambiente: 'producao', body: '{}', headers: {} })
    expect(prod).toMatchObject({ ok: false, error: 'refused: production webhooks must use https' })
    // sandbox (allowed): connects to the pinned address, the Host header still names the URL's host
    const sb = await sendWebhook(cfg, { url: `http://localhost:${rx.port}/pinned`, ambiente: 'sandbox', body: '{"a":1}', headers: { 'content-type': 'application/json' } })
    expect(sb).toMatchObject({ ok: true, status: 200 })
    const got = rx.at('/pinned')[0]!
    expect(got.headers['host']).toBe(`localhost:${rx.port}`)
    expect(got.raw.toString()).toBe('{"a":1}')
  })
})
