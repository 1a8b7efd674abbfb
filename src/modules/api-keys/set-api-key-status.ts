import type { ApiKeyStatus } from '../../generated/prisma/enums.js'
import { AppError } from '../../errors.js'
import type { Services } from '../../services.js'
import { forgetCachedKey } from './authenticate-api-key.js'
import { toApiKeyView, type ApiKeyView } from './api-key-view.js'
import { isUuid } from '../../lib/ids.js'

/**
 * active ⇄ inactive; any → revoked (final). `tenantId`, when given, scopes the change to that
 * tenant (GraphQL admin keys); the operator CLI passes none.
 */
export async function setApiKeyStatus(
  svc: Pick<Services, 'db'>,
  input: { keyId: string; status: ApiKeyStatus; tenantId?: string },
): Promise<ApiKeyView> {
  const key = isUuid(input.keyId) ? await svc.db.apiKey.findUnique({ where: { id: input.keyId } }) : null
  if (!key || (input.tenantId && key.tenantId !== input.tenantId)) throw new AppError('not_found', `API key ${input.keyId} not found`)
  if (key.status === 'revoked' && input.status !== 'revoked') throw new AppError('invalid_state', 'a revoked key cannot be reactivated; create a new key')
  const row = await svc.db.apiKey.update({
    where: { id: key.id },
    data: { status: input.status, revokedAt: input.status === 'revoked' ? (key.revokedAt ?? new Date()) : null },
  })
  forgetCachedKey(key.keyHash)
  return toApiKeyView(row)
}
