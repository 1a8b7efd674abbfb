import { AppError } from '../../errors.js'
import { isUuid } from '../../lib/ids.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'

export interface DeliveryView {
  id: string
  eventId: string
  event: string
  /** origin only: paths and queries of customer URLs may carry their own tokens */
  target: string | null
  attempt: number
  status: 'pending' | 'in_flight' | 'succeeded' | 'failed'
  dueAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  responseStatus: number | null
  latencyMs: number | null
  error: string | null
}

const originOf = (url: string | null) => {
  if (!url) return null
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/** Every delivery attempt of a verification's (or an auth attempt's) webhook events, oldest first; 404 across tenants. */
export async function listDeliveries(
  svc: Pick<Services, 'db'>,
  principal: Pick<Principal, 'tenantId' | 'ambiente'>,
  ref: { verificationId: string } | { authAttemptId: string },
): Promise<DeliveryView[]> {
  const id = 'verificationId' in ref ? ref.verificationId : ref.authAttemptId
  if (!isUuid(id)) throw new AppError('not_found', 'not found')
  const owner =
    'verificationId' in ref
      ? await svc.db.verification.findFirst({ where: { id, tenantId: principal.tenantId, ambiente: principal.ambiente }, select: { id: true } })
      : await svc.db.authAttempt.findFirst({ where: { id, tenantId: principal.tenantId, ambiente: principal.ambiente }, select: { id: true } })
  if (!owner) throw new AppError('not_found', 'not found')
  const events = await svc.db.webhookEvent.findMany({
    where: 'verificationId' in ref ? { verificationId: id } : { authAttemptId: id },
    orderBy: { createdAt: 'asc' },
    include: { deliveries: { orderBy: { attempt: 'asc' } } },
  })
  return events.flatMap((e) =>
    e.deliveries.map((d) => ({
      id: d.id,
      eventId: e.id,
      event: e.type,
      target: originOf(e.url),
      attempt: d.attempt,
      status: d.status,
      dueAt: d.dueAt,
      startedAt: d.startedAt,
      finishedAt: d.finishedAt,
      responseStatus: d.responseStatus,
      latencyMs: d.latencyMs,
      error: d.error,
    })),
  )
}
