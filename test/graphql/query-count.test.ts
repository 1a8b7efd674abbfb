import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { VerificationsDocument } from '../../src/graphql/generated/graphql.js'
import { newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { gql } from './gql.js'

let t: TestApp
let tenant: CreatedTenant
const queries: string[] = []

beforeAll(async () => {
  t = await startTestApp({}, { onQuery: (sql) => queries.push(sql) })
  tenant = await newTenant(t)
  // seed rows directly: the subject is the read path, not creation
  const db = t.app.services.db
  const sessions = Array.from({ length: 60 }, (_, i) => ({
    id: randomUUID(),
    tenantId: tenant.tenantId,
    ambiente: 'sandbox' as const,
    kind: 'KYC' as const,
    tokenHash: randomUUID().replace(/-/g, '') + i,
    status: 'completed' as const,
    expiresAt: new Date(Date.now() + 3_600_000),
    createdAt: new Date(Date.now() - i * 1000),
  }))
  await db.session.createMany({ data: sessions })
  await db.verification.createMany({
    data: sessions.map((s, i) => ({ sessionId: s.id, tenantId: s.tenantId, ambiente: s.ambiente, status: 'approved' as const, country: 'BR', createdAt: new Date(Date.now() - i * 1000) })),
  })
})
afterAll(() => t?.close())

async function countFor(first: number): Promise<number> {
  // warm the key cache so authentication is not counted
  await gql(t.url, '{ viewer { tenantId } }', {}, { key: tenant.sandboxKey })
  queries.length = 0
  const r = await gql(t.url, VerificationsDocument, { first }, { key: tenant.sandboxKey })
  expect(r.errors).toBeUndefined()
  expect(r.data!.verifications.edges).toHaveLength(first)
  expect(r.data!.verifications.edges.every((e) => e.node.session.status === 'completed')).toBe(true)
  // the background loops (webhook dispatcher, expiry sweep) query too: count the request's tables only
  return queries.filter((q) => /"public"\."(verifications|sessions)"/.test(q)).length
}

it('listing 50 verifications with their sessions costs as many queries as listing 5', async () => {
  const five = await countFor(5)
  const fifty = await countFor(50)
  expect(fifty).toBe(five)
  // the page with its sessions (one query: Prisma relationJoins), and the total count
  expect(fifty).toBe(2)
})
