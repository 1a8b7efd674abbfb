import type { Prisma } from '../../generated/prisma/client.js'
import { AppError } from '../../errors.js'
import { isUuid } from '../../lib/ids.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { enqueueEvent, nudgeDispatcher, targetUrl } from '../webhooks/enqueue-event.js'
import { eventOf, maskDocumentNumber, verificationRecord } from './verification-payload.js'

export interface KycDecision {
  status: 'approved' | 'rejected' | 'manual_review'
  modo: 'FULL_KYC' | 'SEM_DOC'
  scores: { composto: number | null; faceMatch: number | null; liveness: number | null; antifraude: number | null }
  /** documentoNumero as read; it is stored and sent masked (last 3 characters) */
  ocr: { nome: string | null; documentoNumero: string | null; dataNascimento: string | null; documentExpiry: string | null }
  motivosRejeicao: string[]
  documentType?: string | null
  signals: Record<string, unknown>
}

export interface CompletedVerification {
  verificationId: string
  status: KycDecision['status']
  eventId: string
  /** null when no webhook URL is configured: the event is recorded, nothing is sent */
  deliveryId: string | null
}

/**
 * The analysis decided. One transaction: the verification takes its decision (status and
 * final_status), and the webhook event plus its first delivery are written to the outbox, so the
 * decision never commits without its webhook and no webhook exists for a decision that did not
 * commit. Only a processing verification can be completed (409 invalid_state otherwise).
 */
export async function completeVerification(svc: Services, verificationId: string, decision: KycDecision): Promise<CompletedVerification> {
  if (!isUuid(verificationId)) throw new AppError('not_found', 'verification not found')
  const now = svc.now()
  const result = await svc.db.$transaction(async (tx) => {
    const n = await tx.verification.updateMany({
      where: { id: verificationId, status: 'processing' },
      data: {
        status: decision.status,
        finalStatus: decision.status,
        modo: decision.modo,
        scoreComposto: decision.scores.composto,
        scoreFaceMatch: decision.scores.faceMatch,
        scoreLiveness: decision.scores.liveness,
        scoreAntifraude: decision.scores.antifraude,
        ocrNome: decision.ocr.nome,
        // stored masked as well: the full number is never needed after the decision
        ocrDocumentoNumero: maskDocumentNumber(decision.ocr.documentoNumero),
        ocrDataNascimento: decision.ocr.dataNascimento,
        documentExpiry: decision.ocr.documentExpiry,
        motivosRejeicao: decision.status === 'rejected' ? decision.motivosRejeicao : [],
        ...(decision.documentType !== undefined ? { documentType: decision.documentType } : {}),
        signals: decision.signals as Prisma.InputJsonValue,
        completedAt: now,
      },
    })
    if (n.count === 0) {
      const exists = await tx.verification.findUnique({ where: { id: verificationId }, select: { status: true } })
      if (!exists) throw new AppError('not_found', 'verification not found')
      throw new AppError('invalid_state', `verification is ${exists.status}, not processing`)
    }
    return enqueueVerificationEvent(tx, svc.config, verificationId, now)
  })
  announceVerification(svc, result, now)
  return { verificationId: result.v.id, status: decision.status, eventId: result.ev.eventId, deliveryId: result.ev.deliveryId }
}

/**
 * Inside the deciding transaction: the verification as it now stands goes to the outbox as its
 * event (and first delivery when there is a target URL).
 */
export async function enqueueVerificationEvent(tx: Prisma.TransactionClient, config: Services['config'], verificationId: string, now: Date) {
  const v = await tx.verification.findUniqueOrThrow({ where: { id: verificationId }, include: { session: { select: { webhookUrl: true } } } })
  const url = await targetUrl(tx, v.tenantId, v.ambiente, v.session.webhookUrl)
  const ev = await enqueueEvent(tx, config, { tenantId: v.tenantId, ambiente: v.ambiente, type: eventOf(v), verificationId: v.id, payload: verificationRecord(v), url, now })
  return { v, ev }
}

/** After the commit: subscribers hear the new status, and a dispatcher in this process sends at once. */
export function announceVerification(
  svc: Pick<Services, 'pubsub' | 'db'>,
  { v, ev }: Awaited<ReturnType<typeof enqueueVerificationEvent>>,
  now: Date,
): void {
  publishStatus(svc.pubsub, {
    kind: 'KYC',
    sessionId: v.sessionId,
    tenantId: v.tenantId,
    ambiente: v.ambiente,
    verificationId: v.id,
    authAttemptId: null,
    status: v.status,
    at: now.toISOString(),
  })
  if (ev.deliveryId) nudgeDispatcher(svc.db)
}
