import type { Verification } from '../../generated/prisma/client.js'
import { resolveManualReview } from '../../modules/verifications/resolve-manual-review.js'
import { decisionOf, maskDocumentNumber } from '../../modules/verifications/verification-payload.js'
import { builder } from '../builder.js'
import { scoped } from '../scope.js'
import { AmbienteEnum, commonWhere, CreatedRange, STABLE_ORDER, VerificationModeEnum, VerificationStatusEnum } from './enums.js'
import { tenantEvents } from './session.js'
import { StatusEventRef } from './status-event.js'
import { isUuid } from '../../lib/ids.js'

const Scores = builder.objectRef<Verification>('VerificationScores').implement({
  description: '0 to 100, null when not measured',
  fields: (t) => ({
    composto: t.float({ nullable: true, resolve: (v) => v.scoreComposto }),
    faceMatch: t.float({ nullable: true, resolve: (v) => v.scoreFaceMatch }),
    liveness: t.float({ nullable: true, resolve: (v) => v.scoreLiveness }),
    antifraude: t.float({ nullable: true, resolve: (v) => v.scoreAntifraude }),
  }),
})

const Ocr = builder.objectRef<Verification>('VerificationOcr').implement({
  fields: (t) => ({
    nome: t.string({ nullable: true, resolve: (v) => v.ocrNome }),
    documentoNumero: t.string({ nullable: true, description: 'masked: only the last 3 characters visible', resolve: (v) => maskDocumentNumber(v.ocrDocumentoNumero) }),
    dataNascimento: t.string({ nullable: true, description: 'YYYY-MM-DD', resolve: (v) => v.ocrDataNascimento }),
    documentExpiry: t.string({ nullable: true, resolve: (v) => v.documentExpiry }),
  }),
})

builder.prismaObject('Verification', {
  description: 'A KYC verification (the record of GET /v1/verify/{id})',
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: VerificationStatusEnum }),
    finalStatus: t.field({
      type: VerificationStatusEnum,
      nullable: true,
      description: 'the decision; kept when status becomes webhook_failed; null while processing',
      resolve: (v) => (v.status === 'processing' ? null : decisionOf(v)),
    }),
    modo: t.expose('modo', { type: VerificationModeEnum }),
    ambiente: t.expose('ambiente', { type: AmbienteEnum }),
    country: t.exposeString('country'),
    externalId: t.exposeString('externalId', { nullable: true }),
    documentType: t.exposeString('documentType', { nullable: true }),
    scores: t.field({ type: Scores, resolve: (v) => v }),
    ocr: t.field({ type: Ocr, resolve: (v) => v }),
    motivosRejeicao: t.stringList({
      description: 'rejection reasons (stable snake_case codes); empty unless the decision is rejected',
      resolve: (v) => (decisionOf(v) === 'rejected' ? v.motivosRejeicao : []),
    }),
    reviewedBy: t.exposeString('reviewedBy', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    session: t.relation('session'),
    webhookEvents: t.relation('webhookEvents', { query: { orderBy: { createdAt: 'asc' } } }),
  }),
})

const VerificationFilter = builder.inputType('VerificationFilter', {
  fields: (t) => ({
    status: t.field({ type: [VerificationStatusEnum], required: false }),
    finalStatus: t.field({ type: [VerificationStatusEnum], required: false }),
    ambiente: t.field({ type: AmbienteEnum, required: false, description: 'narrows only: a key sees its own environment' }),
    externalId: t.string({ required: false }),
    createdAt: t.field({ type: CreatedRange, required: false }),
  }),
})

async function verificationWhere(ctx: Parameters<typeof scoped>[0], f: typeof VerificationFilter.$inferInput | null | undefined) {
  return scoped(ctx, {
    ...(f?.status?.length ? { status: { in: f.status } } : {}),
    ...(f?.finalStatus?.length ? { finalStatus: { in: f.finalStatus } } : {}),
    ...commonWhere(f),
  })
}

builder.queryFields((t) => ({
  verification: t.prismaField({
    type: 'Verification',
    nullable: true,
    description: "null when it does not exist or belongs to another tenant or environment",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const where = await scoped(ctx, { id: String(args.id) })
      if (!isUuid(args.id)) return null
      return ctx.svc.db.verification.findFirst({ ...query, where })
    },
  }),
  verifications: t.prismaConnection({
    type: 'Verification',
    cursor: 'id',
    args: { filter: t.arg({ type: VerificationFilter, required: false }) },
    totalCount: async (_parent, args, ctx) => ctx.svc.db.verification.count({ where: await verificationWhere(ctx, args.filter) }),
    resolve: async (query, _root, args, ctx) =>
      ctx.svc.db.verification.findMany({ ...query, where: await verificationWhere(ctx, args.filter), orderBy: STABLE_ORDER }),
  }),
}))

const ReviewDecision = builder.enumType('ReviewDecision', { values: ['approved', 'rejected'] as const })

builder.mutationFields((t) => ({
  resolveManualReview: t.prismaField({
    type: 'Verification',
    description: 'Approve or reject a verification in manual review; sends verification.completed',
    args: {
      id: t.arg.id({ required: true }),
      decision: t.arg({ type: ReviewDecision, required: true }),
      motivos: t.arg.stringList({ required: false }),
      reviewer: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const principal = await ctx.auth.principal()
      const r = await resolveManualReview(ctx.svc, principal, String(args.id), {
        decision: args.decision,
        ...(args.motivos ? { motivos: args.motivos } : {}),
        ...(args.reviewer ? { reviewer: args.reviewer } : {}),
      })
      return ctx.svc.db.verification.findFirstOrThrow({ ...query, where: await scoped(ctx, { id: r.verificationId }) })
    },
  }),
}))

builder.subscriptionFields((t) => ({
  verificationEvents: t.field({
    type: StatusEventRef,
    description: "Every KYC status change of the key's tenant and environment (dashboards)",
    subscribe: (_root, _args, ctx) => tenantEvents(ctx, 'KYC'),
    resolve: (e) => e,
  }),
}))
