import { redeliverWebhook } from '../../modules/webhooks/redeliver-webhook.js'
import { builder } from '../builder.js'
import { scoped } from '../scope.js'
import { WebhookDeliveryStatusEnum } from './enums.js'

builder.prismaObject('WebhookEvent', {
  description: 'A webhook event (outbox row): the exact body signed and sent, and its delivery attempts',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type'),
    url: t.exposeString('url', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deliveries: t.relation('deliveries', { query: { orderBy: { attempt: 'asc' } } }),
  }),
})

builder.prismaObject('WebhookDelivery', {
  description: 'One delivery attempt (1 to 5)',
  fields: (t) => ({
    id: t.exposeID('id'),
    attempt: t.exposeInt('attempt'),
    status: t.expose('status', { type: WebhookDeliveryStatusEnum }),
    dueAt: t.expose('dueAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
})

const Redelivery = builder.objectRef<{ eventId: string; deliveryId: string | null; verificationId: string }>('WebhookRedelivery').implement({
  fields: (t) => ({
    eventId: t.exposeID('eventId'),
    deliveryId: t.exposeID('deliveryId', { nullable: true }),
    verification: t.prismaField({
      type: 'Verification',
      nullable: true,
      resolve: async (query, r, _args, ctx) => ctx.svc.db.verification.findFirst({ ...query, where: await scoped(ctx, { id: r.verificationId }) }),
    }),
  }),
})

builder.mutationFields((t) => ({
  redeliverWebhook: t.field({
    type: Redelivery,
    description: "Sends the verification's latest webhook event again, as a new delivery chain to the current URL",
    args: { verificationId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = String(args.verificationId)
      const r = await redeliverWebhook(ctx.svc, await ctx.auth.principal(), id)
      return { ...r, verificationId: id }
    },
  }),
}))
