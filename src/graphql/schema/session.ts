import { filter, pipe, Repeater } from 'graphql-yoga'
import { AppError } from '../../errors.js'
import { createAuthSession, createKycSession, type SessionCreatedResult } from '../../modules/sessions/create-session.js'
import type { StatusEvent } from '../../lib/pubsub.js'
import { isExpired } from '../../modules/sessions/resolve-session.js'
import type { Services } from '../../services.js'
import { builder } from '../builder.js'
import { scoped, tenantScope } from '../scope.js'
import { AmbienteEnum, commonWhere, CreatedRange, SessionKindEnum, SessionStatusEnum, STABLE_ORDER } from './enums.js'
import { StatusEventRef } from './status-event.js'
import { isUuid } from '../../lib/ids.js'

builder.prismaObject('Session', {
  description: 'A KYC or Auth session (the token itself is never shown again after creation)',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.expose('kind', { type: SessionKindEnum }),
    ambiente: t.expose('ambiente', { type: AmbienteEnum }),
    status: t.expose('status', { type: SessionStatusEnum }),
    country: t.exposeString('country'),
    externalId: t.exposeString('externalId', { nullable: true }),
    documentosAceitos: t.exposeStringList('documentosAceitos'),
    redirectUri: t.exposeString('redirectUri', { nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    verification: t.relation('verification', { nullable: true }),
    authAttempt: t.relation('authAttempt', { nullable: true }),
  }),
})

const SessionFilter = builder.inputType('SessionFilter', {
  fields: (t) => ({
    kind: t.field({ type: SessionKindEnum, required: false }),
    status: t.field({ type: [SessionStatusEnum], required: false }),
    ambiente: t.field({ type: AmbienteEnum, required: false, description: 'narrows only: a key sees its own environment' }),
    externalId: t.string({ required: false }),
    createdAt: t.field({ type: CreatedRange, required: false }),
  }),
})

const SessionCreated = builder.objectRef<SessionCreatedResult>('SessionCreated').implement({
  fields: (t) => ({
    sessionToken: t.exposeString('session_token', { description: '64 hex characters; hand it to the widget. Shown once.' }),
    expiraEm: t.field({ type: 'DateTime', resolve: (r) => r.expira_em }),
    widgetUrl: t.exposeString('widget_url', { nullable: true }),
  }),
})

const KycSessionInput = builder.inputType('KycSessionInput', {
  description: 'Same fields and rules as POST /v1/verify/session',
  fields: (t) => ({
    country: t.string({ required: false }),
    externalId: t.string({ required: false }),
    webhookUrl: t.string({ required: false }),
    ambiente: t.string({ required: false, description: 'sandbox | producao (a string, so a bad value gives invalid_ambiente as in REST)' }),
    documentosAceitos: t.stringList({ required: false }),
    redirectUri: t.string({ required: false }),
  }),
})

const AuthSessionInput = builder.inputType('AuthSessionInput', {
  description: 'Same fields and rules as POST /v1/auth/session',
  fields: (t) => ({
    externalId: t.string({ required: true }),
    webhookUrl: t.string({ required: false }),
    ambiente: t.string({ required: false }),
    redirectUri: t.string({ required: false }),
  }),
})

/** GraphQL names → the REST body, dropping nulls (absent), so the module validates exactly what REST validates. */
function restBody(input: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) out[names[k] ?? k] = v
  return out
}
const REST_NAMES = { externalId: 'external_id', webhookUrl: 'webhook_url', documentosAceitos: 'documentos_aceitos', redirectUri: 'redirect_uri' }

builder.queryFields((t) => ({
  session: t.prismaField({
    type: 'Session',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const where = await scoped(ctx, { id: String(args.id) })
      if (!isUuid(args.id)) return null
      return ctx.svc.db.session.findFirst({ ...query, where })
    },
  }),
  sessions: t.prismaConnection({
    type: 'Session',
    cursor: 'id',
    args: { filter: t.arg({ type: SessionFilter, required: false }) },
    totalCount: async (_parent, args, ctx) => ctx.svc.db.session.count({ where: await sessionWhere(ctx, args.filter) }),
    resolve: async (query, _root, args, ctx) =>
      ctx.svc.db.session.findMany({ ...query, where: await sessionWhere(ctx, args.filter), orderBy: STABLE_ORDER }),
  }),
}))

async function sessionWhere(ctx: Parameters<typeof scoped>[0], f: typeof SessionFilter.$inferInput | null | undefined) {
  return scoped(ctx, {
    ...(f?.kind ? { kind: f.kind } : {}),
    ...(f?.status?.length ? { status: { in: f.status } } : {}),
    ...commonWhere(f),
  })
}

builder.mutationFields((t) => ({
  createKycSession: t.field({
    type: SessionCreated,
    description: 'Mirrors POST /v1/verify/session: same validation, same error codes (extensions.code)',
    args: { input: t.arg({ type: KycSessionInput, required: false }) },
    resolve: async (_root, args, ctx) => createKycSession(ctx.svc, await ctx.auth.principal(), restBody(args.input ?? {}, REST_NAMES)),
  }),
  createAuthSession: t.field({
    type: SessionCreated,
    description: 'Mirrors POST /v1/auth/session',
    args: { input: t.arg({ type: AuthSessionInput, required: true }) },
    resolve: async (_root, args, ctx) => createAuthSession(ctx.svc, await ctx.auth.principal(), restBody(args.input, REST_NAMES)),
  }),
}))

builder.subscriptionFields((t) => ({
  sessionStatus: t.field({
    type: StatusEventRef,
    description:
      "One session's status: its current status first, then every change. The widget authenticates with its session token (X-Session-Token or connectionParams.sessionToken); an API key may follow any session of its tenant and environment by sessionId.",
    args: { sessionId: t.arg.id({ required: false }) },
    subscribe: async (_root, args, ctx) => {
      let sessionId: string
      if (args.sessionId != null) {
        const where = await scoped(ctx, { id: String(args.sessionId) })
        const s = isUuid(args.sessionId) ? await ctx.svc.db.session.findFirst({ where, select: { id: true } }) : null
        if (!s) throw new AppError('not_found', 'session not found')
        sessionId = s.id
      } else {
        sessionId = (await ctx.auth.session()).id
      }
      return withSnapshot(ctx.svc.pubsub.subscribe('session-status', sessionId), () => currentStatus(ctx.svc, sessionId))
    },
    resolve: (e) => e,
  }),
}))

/**
 * The current status first, then every change. The live stream is started before the current state
 * is read, so no change can fall between the two (at worst one is seen twice); the first event also
 * tells the client that the subscription is live.
 */
function withSnapshot(source: AsyncIterable<StatusEvent>, snapshot: () => Promise<StatusEvent>): AsyncIterable<StatusEvent> {
  // a Repeater, not an async generator: a generator awaiting the source cannot be ended by the
  // client (return() waits for the pending await), which would leak the subscription
  return new Repeater<StatusEvent>(async (push, stop) => {
    const it = source[Symbol.asyncIterator]()
    const stopped = stop.then(() => ({ done: true as const, value: undefined }))
    let pending = it.next() // starts listening before the snapshot is read
    try {
      await push(await snapshot())
      for (;;) {
        const r = await Promise.race([pending, stopped])
        if (r.done) break
        await push(r.value)
        pending = it.next()
      }
    } catch (e) {
      stop(e)
    } finally {
      await it.return?.()
      stop()
    }
  })
}

async function currentStatus(svc: Services, sessionId: string): Promise<StatusEvent> {
  const s = await svc.db.session.findUniqueOrThrow({
    where: { id: sessionId },
    select: { id: true, kind: true, tenantId: true, ambiente: true, status: true, expiresAt: true, verification: { select: { id: true, status: true } }, authAttempt: { select: { id: true, status: true } } },
  })
  const result = s.verification ?? s.authAttempt
  return {
    kind: s.kind,
    sessionId: s.id,
    tenantId: s.tenantId,
    ambiente: s.ambiente,
    verificationId: s.verification?.id ?? null,
    authAttemptId: s.authAttempt?.id ?? null,
    status: result?.status ?? (isExpired(s, svc.now()) ? 'expired' : s.status),
    at: svc.now().toISOString(),
  }
}

/** The tenant-environment stream of one kind (dashboards). */
export async function tenantEvents(ctx: Parameters<typeof scoped>[0], kind: StatusEvent['kind']): Promise<AsyncIterable<StatusEvent>> {
  const s = await tenantScope(ctx)
  return pipe(
    ctx.svc.pubsub.subscribe('tenant-events', `${s.tenantId}:${s.ambiente}`),
    // the key already isolates tenant and environment; the check is a second line for a misrouted message
    filter((e: StatusEvent) => e.kind === kind && e.tenantId === s.tenantId && e.ambiente === s.ambiente),
  )
}
