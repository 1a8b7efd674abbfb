import { readFileSync } from 'node:fs'
import { serverAudits } from 'graphql-http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { printedSchema, SCHEMA_FILE } from '../../codegen.js'
import {
  ActivateApiKeyDocument,
  ApiKeysDocument,
  AuthAttemptDocument,
  AuthAttemptsDocument,
  CreateApiKeyDocument,
  CreateAuthSessionDocument,
  CreateKycSessionDocument,
  CreditsDocument,
  DeactivateApiKeyDocument,
  ResolveManualReviewDocument,
  RevokeApiKeyDocument,
  RotateWebhookSecretDocument,
  SandboxCompleteAuthDocument,
  SandboxCompleteVerificationDocument,
  SessionDocument,
  SessionsDocument,
  SetWebhookUrlDocument,
  VerificationDocument,
  VerificationsDocument,
  ViewerDocument,
} from '../../src/graphql/generated/graphql.js'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { codeOf, gql } from './gql.js'

const APPROVE = '00000000191'
const REVIEW = '00000000353'

describe('GraphQL API', () => {
  let t: TestApp
  let a: CreatedTenant // the owner of the data, admin keys
  let b: CreatedTenant // another tenant, admin keys
  let plain: CreatedTenant // non-admin keys
  const ids = { session: '', verification: '', authAttempt: '', authSession: '', prodSession: '' }

  beforeAll(async () => {
    t = await startTestApp({ GRAPHQL_MAX_DEPTH: '8', GRAPHQL_MAX_COST: '3000' })
    a = await newTenant(t, { kyc: 3, auth: 3 }, true)
    b = await newTenant(t, { kyc: 3, auth: 3 }, true)
    plain = await newTenant(t, {}, false)
    // a sandbox KYC (approved), a sandbox Auth (authenticated), a production session (credit reserved)
    const s = await gql(t.url, CreateKycSessionDocument, { input: { country: 'BR', externalId: 'user-1' } }, { key: a.sandboxKey })
    const done = await gql(t.url, SandboxCompleteVerificationDocument, { sessionToken: s.data!.createKycSession.sessionToken, cpf: APPROVE }, { key: a.sandboxKey })
    expect(done.errors).toBeUndefined()
    ids.verification = done.data!.sandboxCompleteVerification.verificationId
    const auth = await gql(t.url, CreateAuthSessionDocument, { input: { externalId: 'user-1' } }, { key: a.sandboxKey })
    const authDone = await gql(t.url, SandboxCompleteAuthDocument, { sessionToken: auth.data!.createAuthSession.sessionToken }, { key: a.sandboxKey })
    expect(authDone.data!.sandboxCompleteAuth.authenticated).toBe(true)
    ids.authAttempt = authDone.data!.sandboxCompleteAuth.authAttemptId
    const v = await t.app.services.db.verification.findUniqueOrThrow({ where: { id: ids.verification } })
    ids.session = v.sessionId
    ids.authSession = (await t.app.services.db.authAttempt.findUniqueOrThrow({ where: { id: ids.authAttempt } })).sessionId
    const prod = await gql(t.url, CreateKycSessionDocument, { input: { ambiente: 'producao' } }, { key: a.productionKey })
    expect(prod.errors).toBeUndefined()
    ids.prodSession = (await t.app.services.db.session.findFirstOrThrow({ where: { tenantId: a.tenantId, ambiente: 'producao' } })).id
  })
  afterAll(() => t?.close())

  it('schema.graphql is the printed schema (run `npm run codegen` after changing the schema)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema())
  })

  it('passes every MUST audit of the GraphQL-over-HTTP spec (graphql-http serverAudits)', async () => {
    const audits = serverAudits({ url: `${t.url}/graphql` })
    const failures: string[] = []
    for (const audit of audits) {
      if (!audit.name.startsWith('MUST')) continue
      const r = await audit.fn()
      if (r.status !== 'ok') failures.push(`${audit.name}: ${r.reason}`)
    }
    expect(failures).toEqual([])
    expect(audits.filter((x) => x.name.startsWith('MUST')).length).toBeGreaterThan(10)
  })

  describe('reads', () => {
    it('a verification with scores, masked OCR, its session and webhook events', async () => {
      const r = await gql(t.url, VerificationDocument, { id: ids.verification }, { key: a.sandboxKey })
      expect(r.errors).toBeUndefined()
      const v = r.data!.verification!
      expect(v).toMatchObject({ id: ids.verification, status: 'approved', finalStatus: 'approved', country: 'BR', externalId: 'user-1', motivosRejeicao: [] })
      expect(v.session.id).toBe(ids.session)
      expect(v.scores.composto).toBeTypeOf('number')
      if (v.ocr.documentoNumero) expect(v.ocr.documentoNumero).toMatch(/^\*+.{3}$/)
      expect(v.webhookEvents.map((e) => e.type)).toEqual(expect.arrayContaining([]))
    })

    it('lists page with stable cursors and filters', async () => {
      for (let i = 0; i < 3; i++) await gql(t.url, CreateKycSessionDocument, { input: { externalId: `page-${i}` } }, { key: a.sandboxKey })
      const all = await gql(t.url, SessionsDocument, { first: 100 }, { key: a.sandboxKey })
      const total = all.data!.sessions.totalCount
      expect(total).toBe(all.data!.sessions.edges.length)
      const seen: string[] = []
      let after: string | null | undefined = undefined
      do {
        const p: Awaited<ReturnType<typeof gql<any, any>>> = await gql(t.url, SessionsDocument, { first: 2, after }, { key: a.sandboxKey })
        seen.push(...p.data!.sessions.edges.map((e: { node: { id: string } }) => e.node.id))
        after = p.data!.sessions.pageInfo.hasNextPage ? p.data!.sessions.pageInfo.endCursor : null
      } while (after)
      expect(seen).toEqual(all.data!.sessions.edges.map((e) => e.node.id))
      const f = await gql(t.url, SessionsDocument, { first: 10, filter: { externalId: 'page-1' } }, { key: a.sandboxKey })
      expect(f.data!.sessions.edges.map((e) => e.node.externalId)).toEqual(['page-1'])
      const kyc = await gql(t.url, VerificationsDocument, { first: 10, filter: { status: ['approved'], externalId: 'user-1' } }, { key: a.sandboxKey })
      expect(kyc.data!.verifications.edges.map((e) => e.node.id)).toEqual([ids.verification])
      const none = await gql(t.url, VerificationsDocument, { first: 10, filter: { createdAt: { to: '2000-01-01T00:00:00Z' } } }, { key: a.sandboxKey })
      expect(none.data!.verifications.totalCount).toBe(0)
    })
  })

  describe('tenant and environment isolation (another tenant or environment sees null / nothing)', () => {
    const others = () => [
      ['another tenant', b.sandboxKey],
      ['the same tenant in production', a.productionKey],
    ] as const

    it('Session', async () => {
      for (const [, key] of others()) {
        expect((await gql(t.url, SessionDocument, { id: ids.session }, { key })).data!.session).toBeNull()
        const list = await gql(t.url, SessionsDocument, { first: 100, filter: { ambiente: 'sandbox' } }, { key })
        expect(list.data!.sessions.edges.map((e) => e.node.id)).not.toContain(ids.session)
      }
      expect((await gql(t.url, SessionDocument, { id: ids.session }, { key: a.sandboxKey })).data!.session?.id).toBe(ids.session)
      expect((await gql(t.url, SessionDocument, { id: ids.prodSession }, { key: a.sandboxKey })).data!.session).toBeNull()
    })

    it('Verification', async () => {
      for (const [, key] of others()) {
        expect((await gql(t.url, VerificationDocument, { id: ids.verification }, { key })).data!.verification).toBeNull()
        const list = await gql(t.url, VerificationsDocument, { first: 100, filter: { ambiente: 'sandbox' } }, { key })
        expect(list.data!.verifications.totalCount).toBe(0)
        const review = await gql(t.url, ResolveManualReviewDocument, { id: ids.verification, decision: 'rejected' }, { key })
        expect(codeOf(review)).toBe('not_found')
      }
    })

    it('AuthAttempt', async () => {
      expect((await gql(t.url, AuthAttemptDocument, { id: ids.authAttempt }, { key: a.sandboxKey })).data!.authAttempt?.session.id).toBe(ids.authSession)
      for (const [, key] of others()) {
        expect((await gql(t.url, AuthAttemptDocument, { id: ids.authAttempt }, { key })).data!.authAttempt).toBeNull()
        expect((await gql(t.url, AuthAttemptsDocument, { first: 100 }, { key })).data!.authAttempts.totalCount).toBe(0)
      }
    })

    it('ApiKey', async () => {
      const mine = await gql(t.url, ApiKeysDocument, {}, { key: a.sandboxKey })
      const ids_ = mine.data!.apiKeys.map((k) => k.id)
      expect(mine.data!.apiKeys.every((k) => k.ambiente === 'sandbox')).toBe(true)
      for (const [, key] of others()) {
        const theirs = await gql(t.url, ApiKeysDocument, {}, { key })
        expect(theirs.data!.apiKeys.map((k) => k.id).filter((id) => ids_.includes(id))).toEqual([])
        expect(codeOf(await gql(t.url, DeactivateApiKeyDocument, { id: ids_[0]! }, { key }))).toBe('not_found')
      }
      // the key still works
      expect((await gql(t.url, ViewerDocument, {}, { key: a.sandboxKey })).data!.viewer.key.status).toBe('active')
    })

    it('CreditBalance and ledger entries', async () => {
      const mine = await gql(t.url, CreditsDocument, {}, { key: a.productionKey })
      expect(mine.data!.creditBalances).toEqual([{ kind: 'KYC', balance: 2 }, { kind: 'AUTH', balance: 3 }])
      const reserved = mine.data!.creditLedger.edges.filter((e) => e.node.reason === 'session_reserved')
      expect(reserved.map((e) => e.node.sessionId)).toEqual([ids.prodSession])
      // the production session's movement is not shown to the sandbox key; another tenant sees its own balances only
      const sandbox = await gql(t.url, CreditsDocument, {}, { key: a.sandboxKey })
      expect(sandbox.data!.creditLedger.edges.map((e) => e.node.sessionId)).not.toContain(ids.prodSession)
      const other = await gql(t.url, CreditsDocument, {}, { key: b.sandboxKey })
      expect(other.data!.creditBalances).toEqual([{ kind: 'KYC', balance: 3 }, { kind: 'AUTH', balance: 3 }])
      expect(other.data!.creditLedger.edges.map((e) => e.node.sessionId)).toEqual([null, null])
    })
  })

  describe('mutations and their error codes', () => {
    it('session creation: same validation and codes as REST', async () => {
      const g = await gql(t.url, CreateKycSessionDocument, { input: { country: 'XX' } }, { key: a.sandboxKey })
      const rest = await call(t.url, 'POST', '/v1/verify/session', { key: a.sandboxKey, json: { country: 'XX' } })
      expect(codeOf(g)).toBe(rest.body.detail)
      expect(codeOf(g)).toBe('invalid_country')
      expect(g.status).toBe(422)
      expect(codeOf(await gql(t.url, CreateKycSessionDocument, { input: { ambiente: 'producao' } }, { key: a.sandboxKey }))).toBe('wrong_ambiente')
      expect(codeOf(await gql(t.url, CreateKycSessionDocument, { input: { redirectUri: 'https://x.test' } }, { key: a.sandboxKey }))).toBe('invalid_redirect_uri')
      expect(codeOf(await gql(t.url, CreateAuthSessionDocument, { input: { externalId: 'u', ambiente: 'nope' } }, { key: a.sandboxKey }))).toBe('invalid_ambiente')
      const none = await gql(t.url, CreateKycSessionDocument, {}, {})
      expect(codeOf(none)).toBe('unauthorized')
      expect(none.status).toBe(401)
      const bad = await gql(t.url, CreateKycSessionDocument, {}, { key: 'sk_test_' + 'x'.repeat(40) })
      expect(codeOf(bad)).toBe('unauthorized')
      const ok = await gql(t.url, CreateKycSessionDocument, { input: { redirectUri: 'myapp://done' } }, { key: a.sandboxKey })
      expect(ok.data!.createKycSession.sessionToken).toMatch(/^[0-9a-f]{64}$/)
      expect(ok.data!.createKycSession.widgetUrl).toContain('/widget?token=')
    })

    it('manual review is resolved through GraphQL', async () => {
      const s = await gql(t.url, CreateKycSessionDocument, {}, { key: a.sandboxKey })
      const done = await gql(t.url, SandboxCompleteVerificationDocument, { sessionToken: s.data!.createKycSession.sessionToken, cpf: REVIEW }, { key: a.sandboxKey })
      const id = done.data!.sandboxCompleteVerification.verificationId
      expect(done.data!.sandboxCompleteVerification.status).toBe('manual_review')
      const r = await gql(t.url, ResolveManualReviewDocument, { id, decision: 'rejected', motivos: ['suspected_fraud'], reviewer: 'ana' }, { key: a.sandboxKey })
      expect(r.data!.resolveManualReview).toMatchObject({ status: 'rejected', finalStatus: 'rejected', motivosRejeicao: ['suspected_fraud'], reviewedBy: 'ana' })
      expect(codeOf(await gql(t.url, ResolveManualReviewDocument, { id, decision: 'approved' }, { key: a.sandboxKey }))).toBe('invalid_state')
    })

    it('key management: admin keys only; the secret is shown once; deactivate, activate, revoke', async () => {
      for (const doc of [ApiKeysDocument, RotateWebhookSecretDocument] as const) expect(codeOf(await gql(t.url, doc, {}, { key: plain.sandboxKey }))).toBe('forbidden')
      expect(codeOf(await gql(t.url, CreateApiKeyDocument, { name: 'x' }, { key: plain.sandboxKey }))).toBe('forbidden')
      expect(codeOf(await gql(t.url, SetWebhookUrlDocument, { url: null }, { key: plain.sandboxKey }))).toBe('forbidden')

      const created = await gql(t.url, CreateApiKeyDocument, { name: 'ci' }, { key: a.sandboxKey })
      const { secret, key } = created.data!.createApiKey
      expect(secret).toMatch(/^sk_test_/)
      expect(key).toMatchObject({ last4: secret.slice(-4), display: `sk_test_…${secret.slice(-4)}`, isAdmin: false, ambiente: 'sandbox' })
      const listed = JSON.stringify((await gql(t.url, ApiKeysDocument, {}, { key: a.sandboxKey })).data)
      expect(listed).toContain(key.id)
      expect(listed).not.toContain(secret)
      // a non-admin key it created cannot manage keys either
      expect(codeOf(await gql(t.url, DeactivateApiKeyDocument, { id: key.id }, { key: secret }))).toBe('forbidden')

      expect((await gql(t.url, DeactivateApiKeyDocument, { id: key.id }, { key: a.sandboxKey })).data!.deactivateApiKey.status).toBe('inactive')
      expect(codeOf(await gql(t.url, ViewerDocument, {}, { key: secret }))).toBe('key_inactive')
      expect((await gql(t.url, ActivateApiKeyDocument, { id: key.id }, { key: a.sandboxKey })).data!.activateApiKey.status).toBe('active')
      expect((await gql(t.url, ViewerDocument, {}, { key: secret })).data!.viewer.key.id).toBe(key.id)
      expect((await gql(t.url, RevokeApiKeyDocument, { id: key.id }, { key: a.sandboxKey })).data!.revokeApiKey.status).toBe('revoked')
      expect(codeOf(await gql(t.url, ViewerDocument, {}, { key: secret }))).toBe('unauthorized')
      expect(codeOf(await gql(t.url, ActivateApiKeyDocument, { id: key.id }, { key: a.sandboxKey }))).toBe('invalid_state')
    })

    it('webhook URL and secret rotation (admin)', async () => {
      const set = await gql(t.url, SetWebhookUrlDocument, { url: 'https://hooks.example.com/kyc' }, { key: a.productionKey })
      expect(set.data!.setWebhookUrl).toEqual({ ambiente: 'producao', url: 'https://hooks.example.com/kyc' })
      expect(codeOf(await gql(t.url, SetWebhookUrlDocument, { url: 'ftp://x' }, { key: a.productionKey }))).toBe('invalid_webhook_url')
      const rot = await gql(t.url, RotateWebhookSecretDocument, {}, { key: a.sandboxKey })
      expect(rot.data!.rotateWebhookSecret.secret).toMatch(/^whsec_/)
      expect(rot.data!.rotateWebhookSecret.secret).not.toBe(a.webhookSecrets.sandbox)
    })
  })

  describe('protection', () => {
    it('refuses queries deeper or costlier than the limits, before running them', async () => {
      const deep = await gql(t.url, `{ verifications(first: 1) { edges { node { session { verification { session { verification { session { id } } } } } } } } }`, {}, { key: a.sandboxKey })
      expect(codeOf(deep)).toBe('query_too_deep')
      const costly = await gql(t.url, `{ verifications(first: 100) { edges { node { id status country createdAt webhookEvents { id type url createdAt deliveries { id attempt status } } } } } }`, {}, { key: a.sandboxKey })
      expect(codeOf(costly)).toBe('query_too_costly')
      expect(costly.data).toBeNull()
    })

    it('masks unexpected errors and quotes a request id', async () => {
      // a database failure is unexpected: masked for the client, logged with the request id
      const delegate = t.app.services.db.verification as unknown as { findFirst: (...a: unknown[]) => Promise<unknown> }
      const orig = delegate.findFirst
      delegate.findFirst = () => Promise.reject(new Error('connection reset by db-secret-host'))
      let r
      try {
        r = await gql(t.url, VerificationDocument, { id: ids.verification }, { key: a.sandboxKey, headers: { 'x-request-id': 'req-test-123' } })
      } finally {
        delegate.findFirst = orig
      }
      expect(codeOf(r)).toBe('internal_error')
      expect(r.errors![0]!.message).toContain('req-test-123')
      expect(JSON.stringify(r.errors)).not.toContain('db-secret-host')
      expect(r.headers.get('x-request-id')).toBe('req-test-123')
    })

    it('introspection follows the setting', async () => {
      const r = await gql(t.url, `{ __schema { queryType { name } } }`)
      expect(r.data).toEqual({ __schema: { queryType: { name: 'Query' } } })
      const off = await startTestApp({ GRAPHQL_INTROSPECTION: 'false', GRAPHIQL: 'false' })
      try {
        const r2 = await gql(off.url, `{ __schema { queryType { name } } }`)
        expect(r2.data ?? null).toBeNull()
        expect(r2.errors![0]!.message).toMatch(/introspection/i)
        const page = await fetch(`${off.url}/graphql`, { headers: { accept: 'text/html' } })
        expect(await page.text()).not.toMatch(/graphiql/i)
      } finally {
        await off.close()
      }
    })
  })
})
