import { AppError } from '../../errors.js'
import { isUuid } from '../../lib/ids.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'
import { announceVerification, enqueueVerificationEvent } from './complete-verification.js'
import { decisionOf } from './verification-payload.js'

export interface ManualReviewResolution {
  decision: 'approved' | 'rejected'
  /** reasons of a rejection (stable snake_case codes); default ["manual_review_rejected"] */
  motivos?: string[]
  reviewer?: string
}

const MOTIVO = /^[a-z][a-z0-9_]{0,63}$/

/**
 * A reviewer decides a verification that is in manual review (also one whose manual_review
 * webhook failed: its decision is still manual_review). Sends verification.completed through the
 * same outbox path as the analysis. Another tenant's or environment's id is 404.
 */
export async function resolveManualReview(svc: Services, principal: Principal, verificationId: string, input: ManualReviewResolution) {
  if (!isUuid(verificationId)) throw new AppError('not_found', 'verification not found')
  if (input.decision !== 'approved' && input.decision !== 'rejected') throw new AppError('invalid_request', 'decision must be approved or rejected')
  const motivos = input.decision === 'rejected' ? (input.motivos?.length ? input.motivos : ['manual_review_rejected']) : []
  const bad = motivos.find((m) => !MOTIVO.test(m))
  if (bad !== undefined || motivos.length > 20) throw new AppError('invalid_request', 'motivos must be up to 20 snake_case codes')
  const reviewer = input.reviewer?.trim().slice(0, 200) || null
  const now = svc.now()
  const result = await svc.db.$transaction(async (tx) => {
    const cur = await tx.verification.findFirst({ where: { id: verificationId, tenantId: principal.tenantId, ambiente: principal.ambiente } })
    if (!cur) throw new AppError('not_found', 'verification not found')
    if (decisionOf(cur) !== 'manual_review') throw new AppError('invalid_state', `verification is ${cur.status}, not in manual review`)
    // conditional on the state read above: two reviewers racing cannot both decide
    const n = await tx.verification.updateMany({
      where: { id: cur.id, status: cur.status, finalStatus: cur.finalStatus },
      data: { status: input.decision, finalStatus: input.decision, motivosRejeicao: motivos, reviewedBy: reviewer, completedAt: now },
    })
    if (n.count === 0) throw new AppError('invalid_state', 'verification changed while it was being reviewed')
    return enqueueVerificationEvent(tx, svc.config, cur.id, now)
  })
  announceVerification(svc, result, now)
  return { verificationId: result.v.id, status: input.decision, eventId: result.ev.eventId, deliveryId: result.ev.deliveryId }
}
