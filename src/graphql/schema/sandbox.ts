import { completeSandboxAuth, completeSandboxKyc } from '../../modules/sandbox/complete-sandbox-session.js'
import { builder } from '../builder.js'
import { scoped } from '../scope.js'

interface KycDone {
  verification_id: string
  status: string
}
interface AuthDone {
  auth_id: string
  status: string
  authenticated: boolean
  error_code: string | null
}

const SandboxKycResult = builder.objectRef<KycDone>('SandboxVerificationResult').implement({
  fields: (t) => ({
    verificationId: t.exposeID('verification_id'),
    status: t.exposeString('status'),
    verification: t.prismaField({
      type: 'Verification',
      nullable: true,
      resolve: async (query, r, _args, ctx) => ctx.svc.db.verification.findFirst({ ...query, where: await scoped(ctx, { id: r.verification_id }) }),
    }),
  }),
})

const SandboxAuthResult = builder.objectRef<AuthDone>('SandboxAuthResult').implement({
  fields: (t) => ({
    authAttemptId: t.exposeID('auth_id'),
    status: t.exposeString('status'),
    authenticated: t.exposeBoolean('authenticated'),
    errorCode: t.exposeString('error_code', { nullable: true }),
    authAttempt: t.prismaField({
      type: 'AuthAttempt',
      nullable: true,
      resolve: async (query, r, _args, ctx) => ctx.svc.db.authAttempt.findFirst({ ...query, where: await scoped(ctx, { id: r.auth_id }) }),
    }),
  }),
})

builder.mutationFields((t) => ({
  sandboxCompleteVerification: t.field({
    type: SandboxKycResult,
    description: 'Sandbox keys only: completes a KYC session without a camera; the magic CPF decides the outcome (webhooks fire)',
    args: { sessionToken: t.arg.string({ required: true }), cpf: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => completeSandboxKyc(ctx.svc, await ctx.auth.principal(), args.sessionToken, { cpf: args.cpf }),
  }),
  sandboxCompleteAuth: t.field({
    type: SandboxAuthResult,
    description: 'Sandbox keys only: completes an Auth session; the external_id suffix decides the outcome',
    args: { sessionToken: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => completeSandboxAuth(ctx.svc, await ctx.auth.principal(), args.sessionToken),
  }),
}))
