import { Ambiente, ApiKeyStatus, AuthStatus, CreditKind, SessionKind, SessionStatus, VerificationMode, VerificationStatus, WebhookDeliveryStatus } from '../../generated/prisma/enums.js'
import { builder } from '../builder.js'

/** The database enums, exposed under the same names and values the REST API uses. */
export const AmbienteEnum = builder.enumType(Ambiente, { name: 'Ambiente', description: 'Environment: sandbox (sk_test_) or producao (sk_live_)' })
export const SessionKindEnum = builder.enumType(SessionKind, { name: 'SessionKind' })
export const SessionStatusEnum = builder.enumType(SessionStatus, { name: 'SessionStatus' })
export const VerificationStatusEnum = builder.enumType(VerificationStatus, { name: 'VerificationStatus' })
export const VerificationModeEnum = builder.enumType(VerificationMode, { name: 'VerificationMode' })
export const AuthStatusEnum = builder.enumType(AuthStatus, { name: 'AuthStatus' })
export const ApiKeyStatusEnum = builder.enumType(ApiKeyStatus, { name: 'ApiKeyStatus' })
export const CreditKindEnum = builder.enumType(CreditKind, { name: 'CreditKind' })
export const WebhookDeliveryStatusEnum = builder.enumType(WebhookDeliveryStatus, { name: 'WebhookDeliveryStatus' })

/** Created-at range shared by the list filters. */
export const CreatedRange = builder.inputType('CreatedRange', {
  fields: (t) => ({
    from: t.field({ type: 'DateTime', required: false, description: 'inclusive' }),
    to: t.field({ type: 'DateTime', required: false, description: 'exclusive' }),
  }),
})

export function createdWhere(r: { from?: Date | null; to?: Date | null } | null | undefined) {
  if (!r || (!r.from && !r.to)) return {}
  return { createdAt: { ...(r.from ? { gte: r.from } : {}), ...(r.to ? { lt: r.to } : {}) } }
}

/** The filter fields every list shares: environment (narrowing only), external id, created-at range. */
export function commonWhere(f: { ambiente?: 'sandbox' | 'producao' | null; externalId?: string | null; createdAt?: { from?: Date | null; to?: Date | null } | null } | null | undefined) {
  return {
    ...(f?.ambiente ? { ambiente: f.ambiente } : {}),
    ...(f?.externalId ? { externalId: f.externalId } : {}),
    ...createdWhere(f?.createdAt),
  }
}

/** Newest first, id as tie-breaker: the order under the cursor never changes between pages. */
export const STABLE_ORDER = [{ createdAt: 'desc' as const }, { id: 'desc' as const }]
