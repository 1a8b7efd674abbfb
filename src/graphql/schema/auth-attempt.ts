import { builder } from '../builder.js'
import { scoped } from '../scope.js'
import { AmbienteEnum, AuthStatusEnum, commonWhere, CreatedRange, STABLE_ORDER } from './enums.js'
import { tenantEvents } from './session.js'
import { StatusEventRef } from './status-event.js'
import { isUuid } from '../../lib/ids.js'

builder.prismaObject('AuthAttempt', {
  description: 'An Auth 1:1 attempt (selfie compared with the stored KYC embedding of externalId)',
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: AuthStatusEnum }),
    authenticated: t.boolean({ resolve: (a) => a.status === 'authenticated' }),
    ambiente: t.expose('ambiente', { type: AmbienteEnum }),
    externalId: t.exposeString('externalId'),
    errorCode: t.exposeString('errorCode', { nullable: true, description: 'NO_EMBEDDING, LIVENESS_ERROR, …' }),
    scoreFacial: t.exposeFloat('scoreFacial', { nullable: true, description: '0 to 100' }),
    scoreLiveness: t.exposeFloat('scoreLiveness', { nullable: true, description: '0 to 100' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    session: t.relation('session'),
    webhookEvents: t.relation('webhookEvents', { query: { orderBy: { createdAt: 'asc' } } }),
  }),
})

const AuthAttemptFilter = builder.inputType('AuthAttemptFilter', {
  fields: (t) => ({
    status: t.field({ type: [AuthStatusEnum], required: false }),
    ambiente: t.field({ type: AmbienteEnum, required: false, description: 'narrows only: a key sees its own environment' }),
    externalId: t.string({ required: false }),
    createdAt: t.field({ type: CreatedRange, required: false }),
  }),
})

async function attemptWhere(ctx: Parameters<typeof scoped>[0], f: typeof AuthAttemptFilter.$inferInput | null | undefined) {
  return scoped(ctx, {
    ...(f?.status?.length ? { status: { in: f.status } } : {}),
    ...commonWhere(f),
  })
}

builder.queryFields((t) => ({
  authAttempt: t.prismaField({
    type: 'AuthAttempt',
    nullable: true,
    description: 'null when it does not exist or belongs to another tenant or environment',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const where = await scoped(ctx, { id: String(args.id) })
      if (!isUuid(args.id)) return null
      return ctx.svc.db.authAttempt.findFirst({ ...query, where })
    },
  }),
  authAttempts: t.prismaConnection({
    type: 'AuthAttempt',
    cursor: 'id',
    args: { filter: t.arg({ type: AuthAttemptFilter, required: false }) },
    totalCount: async (_parent, args, ctx) => ctx.svc.db.authAttempt.count({ where: await attemptWhere(ctx, args.filter) }),
    resolve: async (query, _root, args, ctx) =>
      ctx.svc.db.authAttempt.findMany({ ...query, where: await attemptWhere(ctx, args.filter), orderBy: STABLE_ORDER }),
  }),
}))

builder.subscriptionFields((t) => ({
  authEvents: t.field({
    type: StatusEventRef,
    description: "Every Auth status change of the key's tenant and environment (dashboards)",
    subscribe: (_root, _args, ctx) => tenantEvents(ctx, 'AUTH'),
    resolve: (e) => e,
  }),
}))
