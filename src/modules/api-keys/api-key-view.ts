import type { ApiKey } from '../../generated/prisma/client.js'

/** What may be shown of a key after its creation: never the secret nor its hash. */
export interface ApiKeyView {
  id: string
  tenantId: string
  ambiente: ApiKey['ambiente']
  status: ApiKey['status']
  isAdmin: boolean
  name: string | null
  /** e.g. "sk_live_…a1B2" */
  display: string
  last4: string
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

export function toApiKeyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    tenantId: k.tenantId,
    ambiente: k.ambiente,
    status: k.status,
    isAdmin: k.isAdmin,
    name: k.name,
    display: `${k.prefix}…${k.last4}`,
    last4: k.last4,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  }
}
