import { AppError } from '../../errors.js'
import type { Prisma, Session, Verification } from '../../generated/prisma/client.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { closeSessionForResult } from '../sessions/close-session.js'

export interface StartVerificationInput {
  documentType?: string | null
  modo: 'FULL_KYC' | 'SEM_DOC'
  /** more writes that must commit with the verification (the analysis job) */
  inTransaction?: (tx: Prisma.TransactionClient, v: Verification) => Promise<void>
}

/** A unique violation from the driver adapter (Prisma P2002). */
export const isUniqueViolation = (e: unknown) => (e as { code?: string })?.code === 'P2002'

/**
 * The widget finished a KYC session: the verification exists from now on (status processing) and
 * the session is completed (its token dead) in the same transaction. The conditional session
 * update lets exactly one of two racing calls win; the loser gets 409 session_already_used.
 */
export async function startVerification(
  svc: Pick<Services, 'db' | 'now' | 'pubsub'>,
  session: Pick<Session, 'id' | 'kind' | 'tenantId' | 'ambiente' | 'country' | 'externalId'>,
  input: StartVerificationInput,
): Promise<Verification> {
  if (session.kind !== 'KYC') throw new AppError('invalid_state', 'not a KYC session')
  const now = svc.now()
  let v: Verification
  try {
    v = await svc.db.$transaction(async (tx) => {
      await closeSessionForResult(tx, session.id, now)
      const created = await tx.verification.create({
        data: {
          sessionId: session.id,
          tenantId: session.tenantId,
          ambiente: session.ambiente,
          status: 'processing',
          modo: input.modo,
          country: session.country,
          externalId: session.externalId,
          documentType: input.documentType ?? null,
          createdAt: now,
        },
      })
      await input.inTransaction?.(tx, created)
      return created
    })
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('session_already_used', 'this session was already used; create a new one')
    throw e
  }
  publishStatus(svc.pubsub, {
    kind: 'KYC',
    sessionId: session.id,
    tenantId: session.tenantId,
    ambiente: session.ambiente,
    verificationId: v.id,
    authAttemptId: null,
    status: 'processing',
    at: now.toISOString(),
  })
  return v
}
