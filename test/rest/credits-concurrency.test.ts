import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, dbKind, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

describe(`credits under concurrency (${dbKind()})`, () => {
  it('50 simultaneous production sessions against a balance of 10: exactly 10 created, 40 × 402, balance 0, ledger consistent', async () => {
    const tenant = await newTenant(t, { kyc: 10 })
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(t.url, 'POST', '/v1/verify/session', { key: tenant.productionKey, json: { ambiente: 'producao' } })),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(10)
    expect(statuses.filter((s) => s === 402)).toHaveLength(40)
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.detail).toBe('insufficient_credits')

    const db = t.app.services.db
    const balance = await db.creditBalance.findUniqueOrThrow({ where: { tenantId_kind: { tenantId: tenant.tenantId, kind: 'KYC' } } })
    expect(balance.balance).toBe(0)
    expect(await db.session.count({ where: { tenantId: tenant.tenantId, ambiente: 'producao' } })).toBe(10)
    const ledger = await db.creditLedgerEntry.findMany({ where: { tenantId: tenant.tenantId, kind: 'KYC' }, orderBy: { balanceAfter: 'desc' } })
    // one grant of +10, then ten reservations of −1, each tied to a distinct session, balances 9…0
    expect(ledger.filter((l) => l.reason === 'grant').map((l) => l.delta)).toEqual([10])
    const reserved = ledger.filter((l) => l.reason === 'session_reserved')
    expect(reserved).toHaveLength(10)
    expect(new Set(reserved.map((l) => l.sessionId)).size).toBe(10)
    expect(reserved.map((l) => l.balanceAfter).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(ledger.reduce((sum, l) => sum + l.delta, 0)).toBe(balance.balance)
  })

  it('the database itself refuses a negative balance', async () => {
    const tenant = await newTenant(t)
    await expect(
      t.app.services.db.$executeRaw`UPDATE credit_balances SET balance = -1 WHERE tenant_id = ${tenant.tenantId}::uuid AND kind = 'KYC'`,
    ).rejects.toThrow()
  })
})
