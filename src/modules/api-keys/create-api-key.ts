import type { Ambiente } from '../../generated/prisma/enums.js'
import { randomBase62, sha256Hex } from '../../lib/crypto.js'
import type { Services } from '../../services.js'
import { AppError } from '../../errors.js'
import { KEY_PREFIX } from './key-format.js'
import { toApiKeyView, type ApiKeyView } from './api-key-view.js'
import { isUuid } from '../../lib/ids.js'

export interface CreatedApiKey {
  /** the full key: shown once, never stored */
  secret: string
  key: ApiKeyView
}

export async function createApiKey(
  svc: Pick<Services, 'db'>,
  input: { tenantId: string; ambiente: Ambiente; isAdmin?: boolean; name?: string | null },
): Promise<CreatedApiKey> {
  const tenant = isUuid(input.tenantId) ? await svc.db.tenant.findUnique({ where: { id: input.tenantId }, select: { id: true } }) : null
  if (!tenant) throw new AppError('not_found', `tenant ${input.tenantId} not found`)
  const secret = KEY_PREFIX[input.ambiente] + randomBase62(40)
  const row = await svc.db.apiKey.create({
    data: {
      tenantId: input.tenantId,
      ambiente: input.ambiente,
      keyHash: sha256Hex(secret),
      prefix: KEY_PREFIX[input.ambiente],
      last4: secret.slice(-4),
      isAdmin: input.isAdmin ?? false,
      name: input.name ?? null,
    },
  })
  return { secret, key: toApiKeyView(row) }
}
