import { AppError } from '../../errors.js'
import type { Session, SessionKind } from '../../generated/prisma/client.js'
import { sha256Hex } from '../../lib/crypto.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'
import { completeAuthAttempt, type AuthDecision } from '../auth-attempts/complete-auth-attempt.js'
import { startAuthAttempt } from '../auth-attempts/start-auth-attempt.js'
import { isExpired, TOKEN_PATTERN } from '../sessions/resolve-session.js'
import { completeVerification } from '../verifications/complete-verification.js'
import { startVerification } from '../verifications/start-verification.js'
import { parseCpf, sandboxKycDecision } from './magic-cpf.js'

/**
 * The session a sandbox key may complete: its own tenant's sandbox session of the right kind
 * (anything else is 404, as another tenant's ids are everywhere), not expired (410), not used (409).
 */
async function sandboxSession(svc: Pick<Services, 'db' | 'now'>, principal: Principal, token: string, kind: SessionKind): Promise<Session> {
  if (principal.ambiente !== 'sandbox') throw new AppError('sandbox_only', 'sandbox completion needs a sandbox key (sk_test_)')
  const notFound = new AppError('not_found', `no ${kind === 'KYC' ? 'KYC' : 'Auth'} session of this tenant for this token`)
  if (!TOKEN_PATTERN.test(token)) throw notFound
  const s = await svc.db.session.findUnique({ where: { tokenHash: sha256Hex(token) } })
  if (!s || s.tenantId !== principal.tenantId || s.ambiente !== 'sandbox' || s.kind !== kind) throw notFound
  if (isExpired(s, svc.now())) throw new AppError('session_expired', 'this session has expired; create a new one')
  if (s.status === 'completed') throw new AppError('session_already_used', 'this session was already used; create a new one')
  return s
}

/**
 * POST /v1/sandbox/verify/session/{token}/complete: decides a sandbox KYC by its CPF, through
 * the same start/complete functions (decision, outbox event, webhook) as a real analysis.
 */
export async function completeSandboxKyc(svc: Services, principal: Principal, token: string, body: unknown) {
  const s = await sandboxSession(svc, principal, token, 'KYC')
  const cpf = parseCpf((body as { cpf?: unknown } | undefined)?.cpf)
  const documentType = s.documentosAceitos.includes('cnh') ? 'cnh' : (s.documentosAceitos[0] ?? null)
  const v = await startVerification(svc, s, { modo: 'FULL_KYC', documentType })
  const done = await completeVerification(svc, v.id, sandboxKycDecision(cpf, documentType))
  return { verification_id: done.verificationId, status: done.status }
}

/**
 * POST /v1/sandbox/auth/session/{token}/complete. Outcome by external_id:
 * - ending in "-reject": rejected (face did not match; scores present);
 * - ending in "-liveness": rejected with error_code LIVENESS_ERROR;
 * - no approved sandbox KYC for this tenant and external_id: rejected with error_code NO_EMBEDDING
 *   (the sandbox has no embeddings: an approved sandbox verification, found by its final_status,
 *   is what stands for one, so a KYC approved by manual review counts and a later webhook_failed
 *   does not undo it);
 * - otherwise authenticated.
 */
export async function completeSandboxAuth(svc: Services, principal: Principal, token: string) {
  const s = await sandboxSession(svc, principal, token, 'AUTH')
  const externalId = s.externalId ?? ''
  let decision: AuthDecision
  if (externalId.endsWith('-reject')) {
    decision = { status: 'rejected', errorCode: null, scoreFacial: 17.4, scoreLiveness: 96.2, signals: { sandbox: true, rule: 'suffix_reject' } }
  } else if (externalId.endsWith('-liveness')) {
    decision = { status: 'rejected', errorCode: 'LIVENESS_ERROR', scoreFacial: null, scoreLiveness: 12.5, signals: { sandbox: true, rule: 'suffix_liveness' } }
  } else {
    const kyc = await svc.db.verification.findFirst({
      where: { tenantId: s.tenantId, ambiente: 'sandbox', externalId, finalStatus: 'approved' },
      select: { id: true },
    })
    decision = kyc
      ? { status: 'authenticated', errorCode: null, scoreFacial: 95.8, scoreLiveness: 97.9, signals: { sandbox: true, rule: 'approved_kyc', verification_id: kyc.id } }
      : { status: 'rejected', errorCode: 'NO_EMBEDDING', scoreFacial: null, scoreLiveness: null, signals: { sandbox: true, rule: 'no_approved_kyc' } }
  }
  const a = await startAuthAttempt(svc, s)
  const done = await completeAuthAttempt(svc, a.id, decision)
  return { auth_id: done.authId, status: done.status, authenticated: done.status === 'authenticated', error_code: done.errorCode }
}
