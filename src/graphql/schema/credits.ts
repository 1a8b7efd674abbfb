import { builder } from '../builder.js'
import { scoped, tenantOnly } from '../scope.js'
import { createdWhere, CreatedRange, CreditKindEnum, STABLE_ORDER } from './enums.js'

builder.prismaObject('CreditBalance', {
  description: "The tenant's balance of one kind (sandbox never debits)",
  fields: (t) => ({
    kind: t.expose('kind', { type: CreditKindEnum }),
    balance: t.exposeInt('balance'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
})

builder.prismaObject('CreditLedgerEntry', {
  description: 'One credit movement: grant (+N), session_reserved (-1), refund (+1)',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.expose('kind', { type: CreditKindEnum }),
    delta: t.exposeInt('delta'),
    balanceAfter: t.exposeInt('balanceAfter'),
    reason: t.exposeString('reason'),
    sessionId: t.exposeID('sessionId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
})

const LedgerFilter = builder.inputType('CreditLedgerFilter', {
  fields: (t) => ({
    kind: t.field({ type: CreditKindEnum, required: false }),
    createdAt: t.field({ type: CreatedRange, required: false }),
  }),
})

builder.queryFields((t) => ({
  creditBalances: t.prismaField({
    type: ['CreditBalance'],
    description: "The caller's tenant balances (credits belong to the tenant, not to an environment)",
    resolve: async (query, _root, _args, ctx) =>
      ctx.svc.db.creditBalance.findMany({ ...query, where: await tenantOnly(ctx), orderBy: { kind: 'asc' } }),
  }),
  creditLedger: t.prismaConnection({
    type: 'CreditLedgerEntry',
    cursor: 'id',
    description: "Ledger of the caller's tenant: grants, and the movements of its own environment's sessions",
    args: { filter: t.arg({ type: LedgerFilter, required: false }) },
    resolve: async (query, _root, args, ctx) => {
      const env = await scoped(ctx, {})
      const { tenantId, ambiente } = env.AND[1]
      return ctx.svc.db.creditLedgerEntry.findMany({
        ...query,
        where: {
          tenantId,
          // a movement tied to a session shows only in that session's environment
          OR: [{ sessionId: null }, { session: { ambiente } }],
          ...(args.filter?.kind ? { kind: args.filter.kind } : {}),
          ...createdWhere(args.filter?.createdAt),
        },
        orderBy: STABLE_ORDER,
      })
    },
  }),
}))
