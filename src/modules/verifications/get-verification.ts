import { AppError } from '../../errors.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'
import { isUuid } from '../../lib/ids.js'
import { decisionOf, maskDocumentNumber } from './verification-payload.js'

/**
 * GET /v1/verify/{id}: the full record. Another tenant's or another environment's id is
 * indistinguishable from a missing one (404), so ids leak nothing.
 */
export async function getVerification(svc: Pick<Services, 'db'>, principal: Principal, id: string) {
  if (!isUuid(id)) throw new AppError('not_found', 'verification not found')
  const v = await svc.db.verification.findFirst({
    where: { id, tenantId: principal.tenantId, ambiente: principal.ambiente },
    include: {
      session: { select: { createdAt: true, expiresAt: true, completedAt: true, status: true } },
      webhookEvents: { select: { deliveries: { select: { attempt: true, status: true, finishedAt: true, responseStatus: true } } } },
    },
  })
  if (!v) throw new AppError('not_found', 'verification not found')
  const deliveries = v.webhookEvents.flatMap((e) => e.deliveries)
  const last = deliveries.reduce<(typeof deliveries)[number] | null>((a, d) => (!a || d.attempt > a.attempt ? d : a), null)
  const decided = v.status !== 'processing'
  return {
    verification_id: v.id,
    external_id: v.externalId,
    status: v.status,
    final_status: decided ? decisionOf(v) : null,
    country: v.country,
    modo: v.modo,
    document_type: v.documentType,
    created_at: v.createdAt.toISOString(),
    completed_at: v.completedAt?.toISOString() ?? null,
    scores: { composto: v.scoreComposto, face_match: v.scoreFaceMatch, liveness: v.scoreLiveness, antifraude: v.scoreAntifraude },
    ocr: { nome: v.ocrNome, documento_numero: maskDocumentNumber(v.ocrDocumentoNumero), data_nascimento: v.ocrDataNascimento },
    motivos_rejeicao: decisionOf(v) === 'rejected' ? v.motivosRejeicao : [],
    session: {
      status: v.session.status,
      created_at: v.session.createdAt.toISOString(),
      expira_em: v.session.expiresAt.toISOString(),
      completed_at: v.session.completedAt?.toISOString() ?? null,
    },
    webhook: {
      status: !last ? 'none' : deliveries.some((d) => d.status === 'succeeded') ? 'delivered' : v.status === 'webhook_failed' ? 'failed' : 'pending',
      attempts: deliveries.filter((d) => d.status === 'succeeded' || d.status === 'failed').length,
      last_attempt_at: last?.finishedAt?.toISOString() ?? null,
      last_response_status: last?.responseStatus ?? null,
    },
  }
}
