import { AppError } from '../../errors.js'
import type { Services } from '../../services.js'
import { findSessionByToken } from '../sessions/resolve-session.js'
import { completeSandboxAuth, completeSandboxKyc } from './complete-sandbox-session.js'

export const WIDGET_OUTCOMES = ['approved', 'rejected', 'manual_review', 'document_expired'] as const
export type WidgetOutcome = (typeof WIDGET_OUTCOMES)[number]

/** outcome → the magic CPF documented for it */
const CPF_OF: Record<WidgetOutcome, string> = {
  approved: '000.000.001-91',
  rejected: '000.000.002-72',
  manual_review: '000.000.003-53',
  document_expired: '000.000.004-34',
}

/**
 * The widget's sandbox path: the end user picks an outcome instead of using the camera. It maps
 * to the documented magic CPF and goes through the very same completion as the API's sandbox
 * endpoint (the session's own tenant acts; only sandbox sessions qualify).
 */
export async function completeSandboxFromWidget(svc: Services, token: string, body: unknown) {
  const s = await findSessionByToken(svc, token)
  if (s.ambiente !== 'sandbox') throw new AppError('sandbox_only', 'only sandbox sessions can be completed without a camera')
  const principal = { tenantId: s.tenantId, ambiente: s.ambiente, keyId: 'widget', isAdmin: false }
  if (s.kind === 'AUTH') return completeSandboxAuth(svc, principal, token)
  const outcome = (body as { outcome?: unknown } | undefined)?.outcome ?? 'approved'
  if (typeof outcome !== 'string' || !(WIDGET_OUTCOMES as readonly string[]).includes(outcome))
    throw new AppError('invalid_request', `outcome must be one of ${WIDGET_OUTCOMES.join(', ')}`)
  return completeSandboxKyc(svc, principal, token, { cpf: CPF_OF[outcome as WidgetOutcome] })
}
