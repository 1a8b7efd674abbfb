import { AppError } from '../../errors.js'
import type { Prisma } from '../../generated/prisma/client.js'
import { isExpired } from './resolve-session.js'

/**
 * Inside the transaction that creates a session's result: the session is completed (its token
 * dies). The conditional update lets exactly one of two racing calls win; the loser learns why
 * (410 expired, 409 already used).
 */
export async function closeSessionForResult(tx: Prisma.TransactionClient, sessionId: string, now: Date): Promise<void> {
  const n = await tx.session.updateMany({
    where: { id: sessionId, status: { in: ['created', 'in_progress'] }, expiresAt: { gt: now } },
    data: { status: 'completed', completedAt: now },
  })
  if (n.count === 1) return
  const s = await tx.session.findUnique({ where: { id: sessionId }, select: { status: true, expiresAt: true } })
  if (!s) throw new AppError('not_found', 'session not found')
  if (s.status !== 'completed' && isExpired(s, now)) throw new AppError('session_expired', 'this session has expired; create a new one')
  throw new AppError('session_already_used', 'this session was already used; create a new one')
}
