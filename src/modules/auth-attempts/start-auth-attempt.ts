import { AppError } from '../../errors.js'
import type { AuthAttempt, Prisma, Session } from '../../generated/prisma/client.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { closeSessionForResult } from '../sessions/close-session.js'
import { isUniqueViolation } from '../verifications/start-verification.js'

/**
 * The widget finished an Auth session: the attempt exists from now on (status processing) and the
 * session is completed (token dead) in the same transaction; a second call gets 409.
 */
export async function startAuthAttempt(
  svc: Pick<Services, 'db' | 'now' | 'pubsub'>,
  session: Pick<Session, 'id' | 'kind' | 'tenantId' | 'ambiente' | 'externalId'>,
  opts: { inTransaction?: (tx: Prisma.TransactionClient, a: AuthAttempt) => Promise<void> } = {},
): Promise<AuthAttempt> {
  if (session.kind !== 'AUTH') throw new AppError('invalid_state', 'not an Auth session')
  if (!session.externalId) throw new AppError('invalid_state', 'Auth session without external_id')
  const externalId = session.externalId
  const now = svc.now()
  let a: AuthAttempt
  try {
    a = await svc.db.$transaction(async (tx) => {
      await closeSessionForResult(tx, session.id, now)
      const created = await tx.authAttempt.create({
        data: { sessionId: session.id, tenantId: session.tenantId, ambiente: session.ambiente, externalId, status: 'processing', createdAt: now },
      })
      await opts.inTransaction?.(tx, created)
      return created
    })
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('session_already_used', 'this session was already used; create a new one')
    throw e
  }
  publishStatus(svc.pubsub, {
    kind: 'AUTH',
    sessionId: session.id,
    tenantId: session.tenantId,
    ambiente: session.ambiente,
    verificationId: null,
    authAttemptId: a.id,
    status: 'processing',
    at: now.toISOString(),
  })
  return a
}
