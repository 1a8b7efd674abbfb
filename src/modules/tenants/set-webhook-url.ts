import type { Ambiente } from '../../generated/prisma/enums.js'
import { AppError } from '../../errors.js'
import type { Services } from '../../services.js'
import { validateWebhookUrl } from '../webhooks/validate-webhook-url.js'
import { isUuid } from '../../lib/ids.js'

/** The tenant's default webhook URL for one environment (null clears it). */
export async function setWebhookUrl(
  svc: Pick<Services, 'db' | 'config'>,
  input: { tenantId: string; ambiente: Ambiente; url: string | null },
): Promise<void> {
  if (!isUuid(input.tenantId)) throw new AppError('not_found', `tenant ${input.tenantId} not found`)
  const url = input.url === null ? null : await validateWebhookUrl(svc.config, input.url, input.ambiente)
  const n = await svc.db.tenant.updateMany({
    where: { id: input.tenantId },
    data: input.ambiente === 'sandbox' ? { webhookUrlSandbox: url } : { webhookUrlProducao: url },
  })
  if (n.count === 0) throw new AppError('not_found', `tenant ${input.tenantId} not found`)
}
