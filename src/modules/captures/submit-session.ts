import { AppError } from '../../errors.js'
import { enqueueJob } from '../../jobs/job-queue.js'
import type { Services } from '../../services.js'
import { startAuthAttempt } from '../auth-attempts/start-auth-attempt.js'
import { DOCUMENT_TYPES, NEEDS_BACK } from '../sessions/session-input.js'
import { requireActiveSession } from '../sessions/resolve-session.js'
import { startVerification } from '../verifications/start-verification.js'
import { BURST } from './capture-rules.js'

/**
 * The widget is done capturing: checks that everything the flow needs was uploaded, then starts the
 * verification (or auth attempt) and its analysis job in one transaction. The token dies here.
 * Returns what the widget and the redirect flow may show: the id and `processing`.
 */
export async function submitSession(svc: Services, token: string, body: { document_type?: unknown }) {
  const s = await requireActiveSession(svc, token)
  if (s.ambiente === 'sandbox') throw new AppError('invalid_state', 'sandbox sessions are completed with a magic CPF outcome, without image processing')
  const captures = await svc.db.capture.findMany({ where: { sessionId: s.id }, select: { kind: true, frameIndex: true } })
  const frames = captures.filter((c) => c.kind === 'selfie').length
  if (!s.challenge) throw new AppError('invalid_state', 'no liveness challenge was issued for this session')
  if (frames < BURST.min) throw new AppError('invalid_state', `the selfie burst needs at least ${BURST.min} frames (got ${frames})`)
  const runAt = svc.now()

  if (s.kind === 'AUTH') {
    const a = await startAuthAttempt(svc, s, { inTransaction: (tx) => enqueueJob(tx, { type: 'analyze_auth', sessionId: s.id, runAt }).then(() => {}) })
    return { auth_id: a.id, status: 'processing' as const }
  }

  const selfieOnly = s.documentosAceitos.length === 0
  let documentType: string | null = null
  if (!selfieOnly) {
    const dt = body.document_type
    if (typeof dt !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(dt) || !s.documentosAceitos.includes(dt))
      throw new AppError('invalid_request', `document_type must be one of this session's types: ${s.documentosAceitos.join(', ')}`)
    documentType = dt
    if (!captures.some((c) => c.kind === 'document_front')) throw new AppError('invalid_state', 'the document front is missing')
    if ((NEEDS_BACK as readonly string[]).includes(dt) && !captures.some((c) => c.kind === 'document_back'))
      throw new AppError('invalid_state', `the back of the ${dt} is missing`)
  }
  const v = await startVerification(svc, s, {
    modo: selfieOnly ? 'SEM_DOC' : 'FULL_KYC',
    documentType,
    inTransaction: (tx) => enqueueJob(tx, { type: 'analyze_kyc', sessionId: s.id, runAt }).then(() => {}),
  })
  return { verification_id: v.id, status: 'processing' as const }
}
