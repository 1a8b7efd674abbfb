import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/lib/crypto.js'
import { expireSessions } from '../../src/modules/sessions/expire-sessions.js'
import { requireActiveSession } from '../../src/modules/sessions/resolve-session.js'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

/** A controllable clock: the service's now() is what the tests move forward. */
let clock = Date.now()
let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ EXPIRY_SWEEP_MS: '3600000' }, { now: () => new Date(clock) })
})
afterAll(() => t.close())

const HALF_HOUR = 30 * 60_000

describe('session expiry', () => {
  it('after 30 minutes the session is expired everywhere and an unused production session gives its credit back', async () => {
    const tenant = await newTenant(t, { kyc: 1 })
    const svc = t.app.services
    const r = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.productionKey, json: { ambiente: 'producao' } })
    expect(r.status).toBe(201)
    const token = r.body.session_token as string
    const balance = async () => (await svc.db.creditBalance.findUniqueOrThrow({ where: { tenantId_kind: { tenantId: tenant.tenantId, kind: 'KYC' } } })).balance
    expect(await balance()).toBe(0)

    clock += HALF_HOUR - 1000
    expect((await call(t.url, 'GET', `/v1/verify/session/${token}/status`)).body.status).toBe('pending')
    await expect(requireActiveSession(svc, token)).resolves.toBeTruthy()

    clock += 2000
    // expired before the sweeper ran: reads already say so, actions are refused with 410
    expect((await call(t.url, 'GET', `/v1/verify/session/${token}/status`)).body.status).toBe('expired')
    await expect(requireActiveSession(svc, token)).rejects.toMatchObject({ code: 'session_expired', status: 410 })

    expect(await expireSessions(svc)).toBe(1)
    expect(await balance()).toBe(1)
    const s = await svc.db.session.findUniqueOrThrow({ where: { tokenHash: sha256Hex(token) } })
    expect(s).toMatchObject({ status: 'expired', creditReserved: false })
    const ledger = await svc.db.creditLedgerEntry.findMany({ where: { sessionId: s.id }, orderBy: { createdAt: 'asc' } })
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
      ['session_reserved', -1],
      ['session_expired_unused', 1],
    ])
    // a second sweep (or a second instance) refunds nothing more
    expect(await expireSessions(svc)).toBe(0)
    expect(await balance()).toBe(1)
  })

  it('a session that produced a verification keeps its credit when it expires', async () => {
    const tenant = await newTenant(t, { kyc: 1 })
    const svc = t.app.services
    const r = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.productionKey, json: { ambiente: 'producao' } })
    const s = await svc.db.session.findUniqueOrThrow({ where: { tokenHash: sha256Hex(r.body.session_token) } })
    await svc.db.session.update({ where: { id: s.id }, data: { status: 'in_progress' } })
    await svc.db.verification.create({ data: { sessionId: s.id, tenantId: s.tenantId, ambiente: s.ambiente, country: s.country } })
    clock += HALF_HOUR + 1000
    await expireSessions(svc)
    const bal = await svc.db.creditBalance.findUniqueOrThrow({ where: { tenantId_kind: { tenantId: tenant.tenantId, kind: 'KYC' } } })
    expect(bal.balance).toBe(0)
  })

  it('sandbox sessions expire without any credit movement', async () => {
    const tenant = await newTenant(t)
    const r = await call(t.url, 'POST', '/v1/auth/session', { key: tenant.sandboxKey, json: { external_id: 'u' } })
    clock += HALF_HOUR + 1000
    await expireSessions(t.app.services)
    const status = (await call(t.url, 'GET', `/v1/verify/session/${r.body.session_token}/status`)).body
    expect(status).toMatchObject({ status: 'expired', mode: 'AUTH' })
    expect(await t.app.services.db.creditLedgerEntry.count({ where: { tenantId: tenant.tenantId } })).toBe(0)
    // the Auth result is `expired` (the token ran out first), with its auth.completed event in the outbox
    const attempt = await t.app.services.db.authAttempt.findUniqueOrThrow({ where: { id: status.auth_id } })
    expect(attempt).toMatchObject({ status: 'expired', externalId: 'u', scoreFacial: null })
    const event = await t.app.services.db.webhookEvent.findFirstOrThrow({ where: { authAttemptId: attempt.id } })
    expect(JSON.parse(event.body)).toMatchObject({ event: 'auth.completed', auth_id: attempt.id, status: 'expired', external_id: 'u' })
  })
})
