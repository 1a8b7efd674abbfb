import { createClient, type Client } from 'graphql-ws'
import { print } from 'graphql'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AuthEventsDocument,
  CreateAuthSessionDocument,
  CreateKycSessionDocument,
  ResolveManualReviewDocument,
  SandboxCompleteAuthDocument,
  SandboxCompleteVerificationDocument,
  SessionStatusDocument,
  VerificationEventsDocument,
} from '../../src/graphql/generated/graphql.js'
import { newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { gql } from './gql.js'
import { Stream, wsUrl } from './ws-client.js'

describe('subscriptions over graphql-ws', () => {
  let t: TestApp
  let a: CreatedTenant
  let b: CreatedTenant
  const clients: Client[] = []
  const client = (connectionParams: Record<string, unknown>) => {
    const c = createClient({ url: wsUrl(t.url), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true })
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    t = await startTestApp({ WS_MAX_SUBSCRIPTIONS: '3' })
    a = await newTenant(t, {}, true)
    b = await newTenant(t, {}, true)
  })
  afterAll(async () => {
    for (const c of clients) await c.dispose()
    await t?.close()
  })

  it('the dashboard and the widget receive a session’s changes in order; another tenant hears nothing', async () => {
    const dashboard = new Stream(client({ authorization: `Bearer ${a.sandboxKey}` }), print(VerificationEventsDocument))
    const stranger = new Stream(client({ authorization: `Bearer ${b.sandboxKey}` }), print(VerificationEventsDocument))
    const auths = new Stream(client({ authorization: `Bearer ${a.sandboxKey}` }), print(AuthEventsDocument))
    // the dashboard is live once a session created after subscribing shows up on it
    const created = await dashboard.untilLive(async () => {
      const r = await gql(t.url, CreateKycSessionDocument, {}, { key: a.sandboxKey })
      return r.data!.createKycSession.sessionToken
    })
    const token = created.value
    const sessionId = created.event['sessionId'] as string
    await stranger.untilLive(async () => (await gql(t.url, CreateKycSessionDocument, {}, { key: b.sandboxKey })).data!.createKycSession.sessionToken)

    const widget = new Stream(client({ sessionToken: token }), print(SessionStatusDocument))
    // the widget's first event is the current status: from then on it is live
    expect((await widget.next())['status']).toBe('created')

    const done = await gql(t.url, SandboxCompleteVerificationDocument, { sessionToken: token, cpf: '00000000353' }, { key: a.sandboxKey })
    const verificationId = done.data!.sandboxCompleteVerification.verificationId
    await gql(t.url, ResolveManualReviewDocument, { id: verificationId, decision: 'approved' }, { key: a.sandboxKey })

    const order = ['processing', 'manual_review', 'approved']
    expect((await widget.take(3)).map((e) => e['status'])).toEqual(order)
    const forSession = async () => {
      const out: Record<string, unknown>[] = []
      while (out.length < 3) {
        const e = await dashboard.next()
        if (e['sessionId'] === sessionId) out.push(e)
      }
      return out
    }
    const dash = await forSession()
    expect(dash.map((e) => e['status'])).toEqual(order)
    // dashboards get the record resolved; the widget gets statuses only
    expect(dash[2]!['verification']).toEqual({ id: verificationId, status: 'approved' })
    expect(stranger.received.filter((e) => e['sessionId'] === sessionId)).toEqual([])
    expect(auths.received).toEqual([])

    // Auth events go to authEvents, not verificationEvents
    const auth = await gql(t.url, CreateAuthSessionDocument, { input: { externalId: 'nobody' } }, { key: a.sandboxKey })
    await gql(t.url, SandboxCompleteAuthDocument, { sessionToken: auth.data!.createAuthSession.sessionToken }, { key: a.sandboxKey })
    const authStatuses: unknown[] = []
    while (!authStatuses.includes('rejected')) authStatuses.push((await auths.next())['status'])
    expect(authStatuses).toEqual(['created', 'processing', 'rejected'])
  })

  it('refuses a wrong or expired token, and a missing one, with a clear close reason', async () => {
    const wrong = await Stream.refusal(client({ sessionToken: 'f'.repeat(64) }), print(SessionStatusDocument))
    expect(wrong).toEqual({ code: 4403, reason: expect.stringMatching(/^unauthorized: invalid session token/) })
    const badKey = await Stream.refusal(client({ authorization: 'Bearer sk_test_' + 'x'.repeat(40) }), print(VerificationEventsDocument))
    expect(badKey.code).toBe(4403)
    expect(badKey.reason).toMatch(/^unauthorized/)
    const none = await Stream.refusal(client({}), print(VerificationEventsDocument))
    expect(none.reason).toMatch(/^unauthorized/)

    const r = await gql(t.url, CreateKycSessionDocument, {}, { key: a.sandboxKey })
    const token = r.data!.createKycSession.sessionToken
    await t.app.services.db.session.updateMany({ where: { tenantId: a.tenantId }, data: { expiresAt: new Date(Date.now() - 1000) } })
    const expired = await Stream.refusal(client({ sessionToken: token }), print(SessionStatusDocument))
    expect(expired).toEqual({ code: 4403, reason: expect.stringMatching(/^session_expired/) })
  })

  it('an API key follows only its own sessions by id, and a connection has a subscription limit', async () => {
    const s = await gql(t.url, CreateKycSessionDocument, {}, { key: a.sandboxKey })
    const row = await t.app.services.db.session.findFirstOrThrow({ where: { tenantId: a.tenantId }, orderBy: { createdAt: 'desc' } })
    expect(s.data).toBeTruthy()
    const other = new Stream(client({ authorization: `Bearer ${b.sandboxKey}` }), print(SessionStatusDocument), { sessionId: row.id })
    expect((await other.error())[0]).toMatchObject({ extensions: { code: 'not_found' } })

    const c = client({ authorization: `Bearer ${a.sandboxKey}` })
    const live = [1, 2, 3].map(() => new Stream(c, print(SessionStatusDocument), { sessionId: row.id }))
    for (const l of live) expect((await l.next())['sessionId']).toBe(row.id)
    const fourth = new Stream(c, print(SessionStatusDocument), { sessionId: row.id })
    expect((await fourth.error())[0]).toMatchObject({ extensions: { code: 'too_many_subscriptions' } })
    // completing one frees a slot
    live[0]!.stop()
    const again = new Stream(c, print(SessionStatusDocument), { sessionId: row.id })
    expect((await again.next())['sessionId']).toBe(row.id)
  })

  it('SSE subscriptions through Yoga use the same auth', async () => {
    const r = await gql(t.url, CreateKycSessionDocument, {}, { key: a.sandboxKey })
    const token = r.data!.createKycSession.sessionToken
    const ctl = new AbortController()
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-session-token': token },
      body: JSON.stringify({ query: print(SessionStatusDocument) }),
      signal: ctl.signal,
    })
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    const reader = res.body!.getReader()
    let text = ''
    while (!text.includes('"status":"created"')) text += new TextDecoder().decode((await reader.read()).value)
    ctl.abort()
    expect(text).toContain('event: next')
  })
})
