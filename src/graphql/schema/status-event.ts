import type { StatusEvent } from '../../lib/pubsub.js'
import { builder } from '../builder.js'
import { scoped } from '../scope.js'
import { AmbienteEnum, SessionKindEnum } from './enums.js'
import { isUuid } from '../../lib/ids.js'

/** A status change as published by the modules (src/lib/pubsub.ts), pushed to subscribers. */
export const StatusEventRef = builder.objectRef<StatusEvent>('StatusEvent')

StatusEventRef.implement({
  description:
    'A status change of a session: created, in_progress, processing, approved, rejected, manual_review, authenticated, expired, webhook_failed',
  fields: (t) => ({
    kind: t.field({ type: SessionKindEnum, resolve: (e) => e.kind }),
    sessionId: t.exposeID('sessionId'),
    ambiente: t.field({ type: AmbienteEnum, resolve: (e) => e.ambiente }),
    status: t.exposeString('status'),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
    verificationId: t.exposeID('verificationId', { nullable: true }),
    authAttemptId: t.exposeID('authAttemptId', { nullable: true }),
    // the full records only for API keys (dashboards): a session token (the browser) sees statuses, never scores or OCR
    verification: t.prismaField({
      type: 'Verification',
      nullable: true,
      resolve: async (query, e, _args, ctx) => {
        if (!e.verificationId || !isUuid(e.verificationId) || !ctx.auth.hasKey) return null
        return ctx.svc.db.verification.findFirst({ ...query, where: await scoped(ctx, { id: e.verificationId }) })
      },
    }),
    authAttempt: t.prismaField({
      type: 'AuthAttempt',
      nullable: true,
      resolve: async (query, e, _args, ctx) => {
        if (!e.authAttemptId || !isUuid(e.authAttemptId) || !ctx.auth.hasKey) return null
        return ctx.svc.db.authAttempt.findFirst({ ...query, where: await scoped(ctx, { id: e.authAttemptId }) })
      },
    }),
  }),
})
