import type { Services } from '../../services.js'
import { NEEDS_BACK } from '../sessions/session-input.js'
import { findSessionByToken, isExpired } from '../sessions/resolve-session.js'
import { BURST } from './capture-rules.js'

/** What the widget needs to draw its flow for a token (never anything secret). */
export async function getWidgetSession(svc: Pick<Services, 'db' | 'now'>, token: string) {
  const s = await findSessionByToken(svc, token)
  const expired = isExpired(s, svc.now())
  const [verification, attempt] = await Promise.all([
    s.kind === 'KYC' ? svc.db.verification.findUnique({ where: { sessionId: s.id }, select: { id: true, status: true } }) : null,
    s.kind === 'AUTH' ? svc.db.authAttempt.findUnique({ where: { sessionId: s.id }, select: { id: true, status: true, scoreFacial: true, scoreLiveness: true, errorCode: true } }) : null,
  ])
  return {
    mode: s.kind,
    ambiente: s.ambiente,
    sandbox: s.ambiente === 'sandbox',
    state: expired ? 'expired' : s.status,
    documentos_aceitos: s.documentosAceitos,
    needs_back: s.documentosAceitos.filter((d) => (NEEDS_BACK as readonly string[]).includes(d)),
    selfie_only: s.kind === 'AUTH' || s.documentosAceitos.length === 0,
    challenge: s.challenge,
    burst: BURST,
    has_redirect: s.redirectUri !== null,
    expira_em: s.expiresAt.toISOString(),
    verification_id: verification?.id ?? null,
    auth_id: attempt?.id ?? null,
    result_status: verification?.status ?? attempt?.status ?? null,
    // Auth results as the widget's onSuccess shows them: scores 0–1, the error code that maps to onError
    ...(attempt
      ? {
          error_code: attempt.errorCode,
          score_liveness: attempt.scoreLiveness === null ? null : attempt.scoreLiveness / 100,
          score_facial: attempt.scoreFacial === null ? null : attempt.scoreFacial / 100,
        }
      : {}),
  }
}
