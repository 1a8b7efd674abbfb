import type { AuthAttempt, Prisma } from '../../generated/prisma/client.js'
import { AppError } from '../../errors.js'
import { isUuid } from '../../lib/ids.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { enqueueEvent, nudgeDispatcher, targetUrl } from '../webhooks/enqueue-event.js'

export interface AuthDecision {
  status: 'authenticated' | 'rejected' | 'expired'
  /** NO_EMBEDDING, LIVENESS_ERROR, … (null when authenticated) */
  errorCode: string | null
  /** 0–100 */
  scoreFacial: number | null
  /** 0–100 */
  scoreLiveness: number | null
  signals: Record<string, unknown>
}

/** The auth.completed payload (scores 0–100, as every webhook score). */
export function authRecord(a: AuthAttempt) {
  return {
    auth_id: a.id,
    external_id: a.externalId,
    status: a.status,
    score_liveness: a.scoreLiveness,
    score_facial: a.scoreFacial,
    created_at: a.createdAt.toISOString(),
    completed_at: a.completedAt?.toISOString() ?? null,
  }
}

/**
 * The Auth comparison decided. One transaction: the attempt takes its status and scores, and the
 * auth.completed event plus its first delivery are written to the outbox.
 */
export async function completeAuthAttempt(svc: Services, authAttemptId: string, decision: AuthDecision) {
  if (!isUuid(authAttemptId)) throw new AppError('not_found', 'auth attempt not found')
  const now = svc.now()
  const result = await svc.db.$transaction(async (tx) => {
    const n = await tx.authAttempt.updateMany({
      where: { id: authAttemptId, status: 'processing' },
      data: {
        status: decision.status,
        errorCode: decision.errorCode,
        scoreFacial: decision.scoreFacial,
        scoreLiveness: decision.scoreLiveness,
        signals: decision.signals as Prisma.InputJsonValue,
        completedAt: now,
      },
    })
    if (n.count === 0) {
      const exists = await tx.authAttempt.findUnique({ where: { id: authAttemptId }, select: { status: true } })
      if (!exists) throw new AppError('not_found', 'auth attempt not found')
      throw new AppError('invalid_state', `auth attempt is ${exists.status}, not processing`)
    }
    return enqueueAuthEvent(tx, svc.config, authAttemptId, now)
  })
  announceAuth(svc, result, now)
  return { authId: result.a.id, status: decision.status, errorCode: decision.errorCode, eventId: result.ev.eventId, deliveryId: result.ev.deliveryId }
}

/** Inside the deciding transaction: the attempt as it now stands goes to the outbox as `auth.completed`. */
export async function enqueueAuthEvent(tx: Prisma.TransactionClient, config: Services['config'], authAttemptId: string, now: Date) {
  const a = await tx.authAttempt.findUniqueOrThrow({ where: { id: authAttemptId }, include: { session: { select: { webhookUrl: true } } } })
  const url = await targetUrl(tx, a.tenantId, a.ambiente, a.session.webhookUrl)
  const ev = await enqueueEvent(tx, config, { tenantId: a.tenantId, ambiente: a.ambiente, type: 'auth.completed', authAttemptId: a.id, payload: authRecord(a), url, now })
  return { a, ev }
}

/** After the commit: subscribers hear the new status, and a dispatcher in this process sends at once. */
export function announceAuth(svc: Pick<Services, 'pubsub' | 'db'>, { a, ev }: Awaited<ReturnType<typeof enqueueAuthEvent>>, now: Date): void {
  publishStatus(svc.pubsub, {
    kind: 'AUTH',
    sessionId: a.sessionId,
    tenantId: a.tenantId,
    ambiente: a.ambiente,
    verificationId: null,
    authAttemptId: a.id,
    status: a.status,
    at: now.toISOString(),
  })
  if (ev.deliveryId) nudgeDispatcher(svc.db)
}
