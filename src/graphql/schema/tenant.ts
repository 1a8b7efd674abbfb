import { setWebhookUrl } from '../../modules/tenants/set-webhook-url.js'
import { rotateWebhookSecret } from '../../modules/tenants/webhook-secrets.js'
import { builder } from '../builder.js'
import { AmbienteEnum } from './enums.js'

const WebhookSettings = builder
  .objectRef<{ ambiente: 'sandbox' | 'producao'; url: string | null }>('WebhookSettings')
  .implement({
    fields: (t) => ({
      ambiente: t.field({ type: AmbienteEnum, resolve: (w) => w.ambiente }),
      url: t.exposeString('url', { nullable: true }),
    }),
  })

const RotatedSecret = builder.objectRef<{ ambiente: 'sandbox' | 'producao'; secret: string }>('RotatedWebhookSecret').implement({
  fields: (t) => ({
    ambiente: t.field({ type: AmbienteEnum, resolve: (w) => w.ambiente }),
    secret: t.exposeString('secret', { description: 'the new signing secret: shown this once' }),
  }),
})

builder.queryFields((t) => ({
  webhookSettings: t.field({
    type: WebhookSettings,
    description: "The default webhook URL of the caller's environment (admin keys only)",
    resolve: async (_root, _args, ctx) => {
      const p = await ctx.auth.admin()
      const row = await ctx.svc.db.tenant.findUniqueOrThrow({ where: { id: p.tenantId }, select: { webhookUrlSandbox: true, webhookUrlProducao: true } })
      return { ambiente: p.ambiente, url: p.ambiente === 'sandbox' ? row.webhookUrlSandbox : row.webhookUrlProducao }
    },
  }),
}))

builder.mutationFields((t) => ({
  setWebhookUrl: t.field({
    type: WebhookSettings,
    description: "Sets (or clears with null) the default webhook URL of the caller's environment (admin keys only)",
    args: { url: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const p = await ctx.auth.admin()
      await setWebhookUrl(ctx.svc, { tenantId: p.tenantId, ambiente: p.ambiente, url: args.url ?? null })
      const row = await ctx.svc.db.tenant.findUniqueOrThrow({ where: { id: p.tenantId }, select: { webhookUrlSandbox: true, webhookUrlProducao: true } })
      return { ambiente: p.ambiente, url: p.ambiente === 'sandbox' ? row.webhookUrlSandbox : row.webhookUrlProducao }
    },
  }),
  rotateWebhookSecret: t.field({
    type: RotatedSecret,
    description: "Replaces the webhook signing secret of the caller's environment (admin keys only)",
    resolve: async (_root, _args, ctx) => {
      const p = await ctx.auth.admin()
      return { ambiente: p.ambiente, secret: await rotateWebhookSecret(ctx.svc, p.tenantId, p.ambiente) }
    },
  }),
}))
