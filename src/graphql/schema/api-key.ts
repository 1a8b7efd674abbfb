import { AppError } from '../../errors.js'
import { toApiKeyView, type ApiKeyView } from '../../modules/api-keys/api-key-view.js'
import { createApiKey, type CreatedApiKey } from '../../modules/api-keys/create-api-key.js'
import { setApiKeyStatus } from '../../modules/api-keys/set-api-key-status.js'
import type { ApiKeyStatus } from '../../generated/prisma/enums.js'
import type { GraphqlContext } from '../context.js'
import { builder } from '../builder.js'
import { scoped } from '../scope.js'
import { AmbienteEnum, ApiKeyStatusEnum } from './enums.js'
import { isUuid } from '../../lib/ids.js'

/** Built from ApiKeyView: the secret and its hash are not even in the shape. */
export const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key as shown after creation: never the secret, only its last 4 characters',
  fields: (t) => ({
    id: t.exposeID('id'),
    ambiente: t.field({ type: AmbienteEnum, resolve: (k) => k.ambiente }),
    status: t.field({ type: ApiKeyStatusEnum, resolve: (k) => k.status }),
    isAdmin: t.exposeBoolean('isAdmin'),
    name: t.exposeString('name', { nullable: true }),
    display: t.exposeString('display', { description: 'e.g. sk_live_…a1B2' }),
    last4: t.exposeString('last4'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
})

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'the full key: shown this once, never stored' }),
    key: t.field({ type: ApiKeyRef, resolve: (r) => r.key }),
  }),
})

const Viewer = builder.objectRef<{ tenantId: string; key: ApiKeyView }>('Viewer').implement({
  description: 'The calling key: its tenant and environment',
  fields: (t) => ({
    tenantId: t.exposeID('tenantId'),
    ambiente: t.field({ type: AmbienteEnum, resolve: (v) => v.key.ambiente }),
    key: t.field({ type: ApiKeyRef, resolve: (v) => v.key }),
  }),
})

builder.queryFields((t) => ({
  viewer: t.field({
    type: Viewer,
    resolve: async (_root, _args, ctx) => {
      const p = await ctx.auth.principal()
      const row = await ctx.svc.db.apiKey.findFirstOrThrow({ where: await scoped(ctx, { id: p.keyId }) })
      return { tenantId: p.tenantId, key: toApiKeyView(row) }
    },
  }),
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: "The keys of the caller's tenant and environment (admin keys only)",
    args: { status: t.arg({ type: [ApiKeyStatusEnum], required: false }) },
    resolve: async (_root, args, ctx) => {
      await ctx.auth.admin()
      const rows = await ctx.svc.db.apiKey.findMany({
        where: await scoped(ctx, args.status?.length ? { status: { in: args.status } } : {}),
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      })
      return rows.map(toApiKeyView)
    },
  }),
}))

/** The key, if it is in the caller's tenant and environment; otherwise not_found, as for a missing id. */
async function changeStatus(ctx: GraphqlContext, id: string, status: ApiKeyStatus): Promise<ApiKeyView> {
  const p = await ctx.auth.admin()
  const where = await scoped(ctx, { id })
  const key = isUuid(id) ? await ctx.svc.db.apiKey.findFirst({ where, select: { id: true } }) : null
  if (!key) throw new AppError('not_found', `API key ${id} not found`)
  return setApiKeyStatus(ctx.svc, { keyId: key.id, status, tenantId: p.tenantId })
}

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "A new key in the caller's environment (admin keys only); the secret is shown once",
    args: { name: t.arg.string({ required: false }), isAdmin: t.arg.boolean({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const p = await ctx.auth.admin()
      if (args.name != null && args.name.length > 200) throw new AppError('invalid_request', 'name must have at most 200 characters')
      return createApiKey(ctx.svc, { tenantId: p.tenantId, ambiente: p.ambiente, isAdmin: args.isAdmin ?? false, name: args.name ?? null })
    },
  }),
  deactivateApiKey: t.field({
    type: ApiKeyRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => changeStatus(ctx, String(args.id), 'inactive'),
  }),
  activateApiKey: t.field({
    type: ApiKeyRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => changeStatus(ctx, String(args.id), 'active'),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    description: 'final: a revoked key cannot be reactivated',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => changeStatus(ctx, String(args.id), 'revoked'),
  }),
}))
