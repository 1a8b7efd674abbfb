import type { Services } from '../../services.js'
import { findSessionByToken, isExpired } from './resolve-session.js'

export interface SessionStatusView {
  /** pending (widget not finished) | expired | the verification's or auth attempt's status */
  status: string
  mode: 'KYC' | 'AUTH'
  verification_id?: string | null
  auth_id?: string | null
  expira_em: string
}

/** GET /v1/verify/session/{token}/status: authenticated by the token alone. */
export async function getSessionStatus(svc: Pick<Services, 'db' | 'now'>, token: string): Promise<SessionStatusView> {
  const s = await findSessionByToken(svc, token)
  const [verification, attempt] = await Promise.all([
    s.kind === 'KYC' ? svc.db.verification.findUnique({ where: { sessionId: s.id }, select: { id: true, status: true } }) : null,
    s.kind === 'AUTH' ? svc.db.authAttempt.findUnique({ where: { sessionId: s.id }, select: { id: true, status: true } }) : null,
  ])
  const result = verification ?? attempt
  const status = result?.status ?? (isExpired(s, svc.now()) ? 'expired' : 'pending')
  const base = { status, mode: s.kind, expira_em: s.expiresAt.toISOString() }
  return s.kind === 'KYC' ? { ...base, verification_id: verification?.id ?? null } : { ...base, auth_id: attempt?.id ?? null }
}
