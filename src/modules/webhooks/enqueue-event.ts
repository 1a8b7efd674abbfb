import { randomUUID } from 'node:crypto'
import type { Config } from '../../config.js'
import type { Prisma } from '../../generated/prisma/client.js'
import type { Ambiente } from '../../generated/prisma/enums.js'
import type { Db } from '../../db.js'

export type WebhookEventType = 'verification.completed' | 'verification.manual_review' | 'auth.completed'

type Tx = Prisma.TransactionClient

export interface EnqueueInput {
  tenantId: string
  ambiente: Ambiente
  type: WebhookEventType
  verificationId?: string | null
  authAttemptId?: string | null
  /** the record; `event` is put first */
  payload: Record<string, unknown>
  /** a body stored earlier, sent again byte for byte (redelivery); replaces `payload` */
  body?: string
  /** null: no target configured, the event is recorded with nothing to send */
  url: string | null
  now: Date
}

export interface EnqueuedEvent {
  eventId: string
  deliveryId: string | null
  body: string
}

/**
 * The body as signed and sent: built once, stored in WebhookEvent.body and sent byte for byte on
 * every attempt, so a retry can never carry a different payload (or signature) than the first try.
 */
export const eventBody = (type: WebhookEventType, payload: Record<string, unknown>): string => JSON.stringify({ event: type, ...payload })

/**
 * Outbox write. Must run inside the transaction that makes the status change (`tx`), so the change
 * and its webhook commit together or not at all. The first attempt is due after the schedule's
 * first wait (0 by default).
 */
export async function enqueueEvent(tx: Tx, config: Pick<Config, 'WEBHOOK_RETRY_SCHEDULE'>, input: EnqueueInput): Promise<EnqueuedEvent> {
  const eventId = randomUUID()
  const body = input.body ?? eventBody(input.type, input.payload)
  await tx.webhookEvent.create({
    data: {
      id: eventId,
      tenantId: input.tenantId,
      ambiente: input.ambiente,
      type: input.type,
      verificationId: input.verificationId ?? null,
      authAttemptId: input.authAttemptId ?? null,
      body,
      url: input.url,
      createdAt: input.now,
    },
  })
  let deliveryId: string | null = null
  if (input.url) {
    deliveryId = randomUUID()
    const wait = (config.WEBHOOK_RETRY_SCHEDULE[0] ?? 0) * 1000
    await tx.webhookDelivery.create({
      data: { id: deliveryId, eventId, attempt: 1, status: 'pending', dueAt: new Date(input.now.getTime() + wait), createdAt: input.now },
    })
  }
  return { eventId, deliveryId, body }
}

/** The target: the session's own webhook_url, else the tenant's default URL for that environment. */
export async function targetUrl(tx: Tx | Db, tenantId: string, ambiente: Ambiente, sessionWebhookUrl: string | null): Promise<string | null> {
  if (sessionWebhookUrl) return sessionWebhookUrl
  const t = await tx.tenant.findUnique({ where: { id: tenantId }, select: { webhookUrlSandbox: true, webhookUrlProducao: true } })
  if (!t) return null
  return (ambiente === 'sandbox' ? t.webhookUrlSandbox : t.webhookUrlProducao) ?? null
}

/**
 * Dispatchers running in this process, by database client: a committed event nudges its
 * dispatcher at once instead of waiting for the next poll. Keyed by client so several apps in one
 * process (tests) never wake each other's loops.
 */
const dispatchers = new WeakMap<object, Set<() => void>>()

export function registerDispatcher(db: object, kick: () => void): () => void {
  let set = dispatchers.get(db)
  if (!set) dispatchers.set(db, (set = new Set()))
  set.add(kick)
  return () => set.delete(kick)
}

export function nudgeDispatcher(db: object): void {
  for (const kick of dispatchers.get(db) ?? []) kick()
}
