import type { Ambiente } from '../../generated/prisma/enums.js'
import { AppError } from '../../errors.js'
import { randomBase62 } from '../../lib/crypto.js'
import type { Services } from '../../services.js'
import { isUuid } from '../../lib/ids.js'

export const newWebhookSecret = (): string => `whsec_${randomBase62(40)}`

const column = (a: Ambiente): 'webhookSecretSandbox' | 'webhookSecretProducao' => (a === 'sandbox' ? 'webhookSecretSandbox' : 'webhookSecretProducao')

/** The tenant's signing secret for one environment (decrypted; never log it). */
export async function getWebhookSecret(svc: Pick<Services, 'db' | 'cipher'>, tenantId: string, ambiente: Ambiente): Promise<string> {
  if (!isUuid(tenantId)) throw new AppError('not_found', `tenant ${tenantId} not found`)
  const t = await svc.db.tenant.findUnique({ where: { id: tenantId }, select: { webhookSecretSandbox: true, webhookSecretProducao: true } })
  if (!t) throw new AppError('not_found', `tenant ${tenantId} not found`)
  return svc.cipher.decryptString(t[column(ambiente)], `webhook-secret:${tenantId}:${ambiente}`)
}

export function encryptWebhookSecret(svc: Pick<Services, 'cipher'>, tenantId: string, ambiente: Ambiente, secret: string): string {
  return svc.cipher.encryptString(secret, `webhook-secret:${tenantId}:${ambiente}`)
}

/** Replaces the secret; deliveries signed from now on use the new one. Returns it (shown once). */
export async function rotateWebhookSecret(svc: Pick<Services, 'db' | 'cipher'>, tenantId: string, ambiente: Ambiente): Promise<string> {
  if (!isUuid(tenantId)) throw new AppError('not_found', `tenant ${tenantId} not found`)
  const secret = newWebhookSecret()
  const n = await svc.db.tenant.updateMany({ where: { id: tenantId }, data: { [column(ambiente)]: encryptWebhookSecret(svc, tenantId, ambiente, secret) } })
  if (n.count === 0) throw new AppError('not_found', `tenant ${tenantId} not found`)
  return secret
}
