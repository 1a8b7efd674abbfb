import { AppError } from '../../errors.js'
import { isUuid } from '../../lib/ids.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'
import { enqueueEvent, nudgeDispatcher, targetUrl, type WebhookEventType } from './enqueue-event.js'

/**
 * Sends the verification's latest event again as a new delivery chain (attempts 1–5 on the
 * schedule): a new event row carrying the very same body (same bytes, so receivers deduplicate by
 * verification_id as usual), addressed to the current target URL (the customer may have fixed it
 * since). If that chain succeeds, a webhook_failed verification shows its decision again.
 */
export async function redeliverWebhook(svc: Services, principal: Principal, verificationId: string) {
  if (!isUuid(verificationId)) throw new AppError('not_found', 'verification not found')
  const now = svc.now()
  const ev = await svc.db.$transaction(async (tx) => {
    const v = await tx.verification.findFirst({
      where: { id: verificationId, tenantId: principal.tenantId, ambiente: principal.ambiente },
      include: { session: { select: { webhookUrl: true } }, webhookEvents: { orderBy: { createdAt: 'desc' }, take: 1 } },
    })
    if (!v) throw new AppError('not_found', 'verification not found')
    const last = v.webhookEvents[0]
    if (!last) throw new AppError('invalid_state', 'this verification has no webhook event yet')
    const url = await targetUrl(tx, v.tenantId, v.ambiente, v.session.webhookUrl)
    if (!url) throw new AppError('invalid_state', 'no webhook URL is configured for this environment')
    const created = await enqueueEvent(tx, svc.config, {
      tenantId: v.tenantId,
      ambiente: v.ambiente,
      type: last.type as WebhookEventType,
      verificationId: v.id,
      payload: {},
      body: last.body,
      url,
      now: new Date(Math.max(now.getTime(), last.createdAt.getTime() + 1)),
    })
    return created
  })
  nudgeDispatcher(svc.db)
  return { eventId: ev.eventId, deliveryId: ev.deliveryId }
}
