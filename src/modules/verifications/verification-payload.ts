import type { Verification } from '../../generated/prisma/client.js'

export type VerificationEvent = 'verification.completed' | 'verification.manual_review'

/** Masks all but the last 3 characters: "L898902C3" → "******2C3". */
export function maskDocumentNumber(n: string | null): string | null {
  if (!n) return null
  return n.length <= 3 ? n : '*'.repeat(n.length - 3) + n.slice(-3)
}

/** The decision of a verification: final_status survives a later webhook_failed. */
export const decisionOf = (v: Pick<Verification, 'status' | 'finalStatus'>) => v.finalStatus ?? v.status

/**
 * The verification record as the spec's webhook payload shapes it: manual_review carries
 * scores.composto only and no ocr; motivos_rejeicao only when rejected.
 */
export function verificationRecord(v: Verification) {
  const status = decisionOf(v)
  const base = {
    verification_id: v.id,
    external_id: v.externalId,
    status,
    country: v.country,
    modo: v.modo,
    created_at: v.createdAt.toISOString(),
    completed_at: v.completedAt?.toISOString() ?? null,
  }
  if (status === 'manual_review') return { ...base, scores: { composto: v.scoreComposto } }
  return {
    ...base,
    scores: { composto: v.scoreComposto, face_match: v.scoreFaceMatch, liveness: v.scoreLiveness, antifraude: v.scoreAntifraude },
    ocr: { nome: v.ocrNome, documento_numero: maskDocumentNumber(v.ocrDocumentoNumero), data_nascimento: v.ocrDataNascimento },
    ...(status === 'rejected' ? { motivos_rejeicao: v.motivosRejeicao } : {}),
  }
}

export function eventOf(v: Pick<Verification, 'status' | 'finalStatus'>): VerificationEvent {
  return decisionOf(v) === 'manual_review' ? 'verification.manual_review' : 'verification.completed'
}
