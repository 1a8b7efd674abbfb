import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { announceAuth, enqueueAuthEvent } from '../auth-attempts/complete-auth-attempt.js'
import { refundCredit } from '../credits/credit-ops.js'

/**
 * Marks sessions whose time ran out as expired and gives back the credit of those that never
 * produced a verification or auth attempt. Safe with several instances: the conditional update
 * lets exactly one of them win each session, and the refund commits with it.
 */
export async function expireSessions(svc: Pick<Services, 'db' | 'now' | 'pubsub' | 'logger' | 'config'>, limit = 500): Promise<number> {
  const now = svc.now()
  const due = await svc.db.session.findMany({
    where: { status: { in: ['created', 'in_progress'] }, expiresAt: { lte: now } },
    select: { id: true, tenantId: true, ambiente: true, kind: true, externalId: true },
    orderBy: { expiresAt: 'asc' },
    take: limit,
  })
  let expired = 0
  for (const s of due) {
    // an Auth session that ran out unused ends as an `expired` attempt, with its auth.completed event
    let expiredAuth: Awaited<ReturnType<typeof enqueueAuthEvent>> | null = null
    const won = await svc.db.$transaction(async (tx) => {
      const n = await tx.session.updateMany({
        where: { id: s.id, status: { in: ['created', 'in_progress'] }, expiresAt: { lte: now } },
        data: { status: 'expired' },
      })
      if (n.count === 0) return false
      const used = s.kind === 'KYC' ? await tx.verification.count({ where: { sessionId: s.id } }) : await tx.authAttempt.count({ where: { sessionId: s.id } })
      if (!used) {
        const r = await tx.session.updateMany({ where: { id: s.id, creditReserved: true }, data: { creditReserved: false } })
        if (r.count === 1) await refundCredit(tx, s.tenantId, s.kind, s.id, 'session_expired_unused')
        if (s.kind === 'AUTH' && s.externalId) {
          const a = await tx.authAttempt.create({
            data: { sessionId: s.id, tenantId: s.tenantId, ambiente: s.ambiente, externalId: s.externalId, status: 'expired', completedAt: now, signals: { reason: 'session expired before the selfie was submitted' } },
          })
          expiredAuth = await enqueueAuthEvent(tx, svc.config, a.id, now)
        }
      }
      return true
    })
    if (!won) continue
    expired++
    if (expiredAuth) {
      announceAuth(svc, expiredAuth, now)
      continue
    }
    publishStatus(svc.pubsub, {
      kind: s.kind,
      sessionId: s.id,
      tenantId: s.tenantId,
      ambiente: s.ambiente,
      verificationId: null,
      authAttemptId: null,
      status: 'expired',
      at: now.toISOString(),
    })
  }
  if (expired) svc.logger.info({ expired }, 'sessions expired')
  return expired
}
