import { randomUUID } from 'node:crypto'
import type { Ambiente } from '../../generated/prisma/enums.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import { getWebhookSecret } from '../tenants/webhook-secrets.js'
import { sendWebhook, type SendResult } from './send-webhook.js'
import { signBody } from './sign.js'

type Svc = Pick<Services, 'db' | 'config' | 'logger' | 'cipher' | 'pubsub' | 'now'>

/** A delivery row claimed by this dispatcher, with what is needed to send it. */
export interface ClaimedDelivery {
  id: string
  eventId: string
  attempt: number
  dueAt: Date
  /** fencing token: results are recorded only while the row still carries this lease */
  leaseUntil: Date
  startedAt: Date
  type: string
  body: string
  url: string | null
  tenantId: string
  ambiente: Ambiente
  verificationId: string | null
  authAttemptId: string | null
  verificationStatus: string | null
}

export const maxAttempts = (svc: Pick<Services, 'config'>) => svc.config.WEBHOOK_RETRY_SCHEDULE.length

/**
 * How long a claim stays ours. It must outlast a whole send (the timeout, DNS included) plus the
 * write of its result; only then may another dispatcher take the row again, which is what
 * happens when the dispatcher that claimed it has died.
 */
export const leaseMs = (svc: Pick<Services, 'config'>) => 2 * svc.config.WEBHOOK_TIMEOUT_MS + 1_000

/**
 * Claims up to `limit` due deliveries: `pending` rows whose time has come, and `in_flight` rows
 * whose lease ran out (their dispatcher crashed). FOR UPDATE SKIP LOCKED lets several dispatchers
 * claim side by side without waiting on or taking each other's rows. The select-and-flip is one
 * statement, hence one short transaction: no lock is held while anything is sent.
 */
export async function claimDue(svc: Pick<Services, 'db' | 'config' | 'now'>, limit: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return []
  const now = svc.now()
  const lease = new Date(now.getTime() + leaseMs(svc))
  const rows = await svc.db.$queryRaw<Omit<ClaimedDelivery, 'leaseUntil' | 'startedAt'>[]>`
    WITH due AS (
      SELECT id FROM webhook_deliveries
      WHERE (status = 'pending' AND due_at <= ${now}::timestamptz)
         OR (status = 'in_flight' AND lease_until <= ${now}::timestamptz)
      ORDER BY due_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d
      SET status = 'in_flight', started_at = ${now}::timestamptz, lease_until = ${lease}::timestamptz
      FROM due WHERE d.id = due.id
      RETURNING d.id, d.event_id, d.attempt, d.due_at
    )
    SELECT c.id::text AS id, c.event_id::text AS "eventId", c.attempt, c.due_at AS "dueAt",
           e.type, e.body, e.url, e.tenant_id::text AS "tenantId", e.ambiente::text AS ambiente,
           e.verification_id::text AS "verificationId", e.auth_attempt_id::text AS "authAttemptId",
           v.status::text AS "verificationStatus"
    FROM claimed c
    JOIN webhook_events e ON e.id = c.event_id
    LEFT JOIN verifications v ON v.id = e.verification_id
    ORDER BY c.due_at`
  return rows.map((r) => ({ ...r, attempt: Number(r.attempt), leaseUntil: lease, startedAt: now }))
}

/** Secrets for the tenants of one batch (one query per tenant and environment, never cached longer: a rotation applies at once). */
export function secretLoader(svc: Pick<Services, 'db' | 'cipher'>) {
  const cache = new Map<string, Promise<string>>()
  return (tenantId: string, ambiente: Ambiente) => {
    const key = `${tenantId}:${ambiente}`
    let p = cache.get(key)
    if (!p) cache.set(key, (p = getWebhookSecret(svc, tenantId, ambiente)))
    return p
  }
}

export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed_final' | 'released' | 'lost_lease'

/** Sends one claimed delivery and records the result. Never throws for a receiver's failure. */
export async function deliverClaimed(
  svc: Svc,
  d: ClaimedDelivery,
  secretOf: (tenantId: string, ambiente: Ambiente) => Promise<string>,
  signal?: AbortSignal,
): Promise<DeliveryOutcome> {
  let result: SendResult
  if (!d.url) {
    result = { ok: false, status: null, latencyMs: 0, error: 'no webhook URL', aborted: false }
  } else {
    let secret: string
    try {
      secret = await secretOf(d.tenantId, d.ambiente)
    } catch (e) {
      svc.logger.error({ err: e, deliveryId: d.id }, 'webhook secret unavailable')
      return recordResult(svc, d, { ok: false, status: null, latencyMs: 0, error: 'signing secret unavailable', aborted: false })
    }
    result = await sendWebhook(svc.config, {
      url: d.url,
      ambiente: d.ambiente,
      body: d.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ServiceSec-Webhooks/1',
        'x-service-signature': signBody(secret, d.body),
        'x-service-event': d.type,
        'x-service-attempt': String(d.attempt),
        'x-service-delivery': d.id,
        'x-service-timestamp': String(Math.floor(svc.now().getTime() / 1000)),
      },
      ...(signal ? { signal } : {}),
    })
  }
  return recordResult(svc, d, result)
}

const origin = (url: string | null) => {
  try {
    return url ? new URL(url).origin : null
  } catch {
    return null
  }
}

/**
 * Writes the outcome, fenced by the lease: if this dispatcher was too slow and another one took
 * the row over, nothing is written (the other one owns the attempt now). A failure schedules the
 * next attempt in the same statement; the last failure turns the verification into webhook_failed.
 */
export async function recordResult(svc: Svc, d: ClaimedDelivery, r: SendResult): Promise<DeliveryOutcome> {
  const fin = svc.now()
  if (r.aborted) {
    // stopping, not failing: give the claim back untouched so the attempt is not used up
    await svc.db.webhookDelivery.updateMany({
      where: { id: d.id, status: 'in_flight', leaseUntil: d.leaseUntil },
      data: { status: 'pending', leaseUntil: null, startedAt: null },
    })
    return 'released'
  }
  const error = r.error?.slice(0, 500) ?? null
  if (r.ok) {
    if (d.verificationStatus === 'webhook_failed') {
      // a redelivery got through: the verification's status is its decision again
      const rows = await svc.db.$queryRaw<{ delivered: number; verificationId: string | null; sessionId: string | null; status: string | null }[]>`
        WITH s AS (
          UPDATE webhook_deliveries SET status = 'succeeded', finished_at = ${fin}::timestamptz, lease_until = NULL,
            response_status = ${r.status}, latency_ms = ${r.latencyMs}, error = NULL
          WHERE id = ${d.id}::uuid AND status = 'in_flight' AND lease_until = ${d.leaseUntil}::timestamptz
          RETURNING event_id
        ), v AS (
          UPDATE verifications v SET status = v.final_status, updated_at = ${fin}::timestamptz
          FROM s JOIN webhook_events e ON e.id = s.event_id
          WHERE v.id = e.verification_id AND v.status = 'webhook_failed' AND v.final_status IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM webhook_events e2 WHERE e2.verification_id = v.id AND e2.created_at > e.created_at)
          RETURNING v.id, v.session_id, v.final_status
        )
        SELECT 1 AS delivered, v.id::text AS "verificationId", v.session_id::text AS "sessionId", v.final_status::text AS status FROM s LEFT JOIN v ON true`
      const row = rows[0]
      if (!row) return lostLease(svc, d)
      if (row.verificationId && row.sessionId && row.status)
        publishStatus(svc.pubsub, statusEvent(d, 'KYC', row.sessionId, row.status, fin))
      return 'succeeded'
    }
    const n = await svc.db.webhookDelivery.updateMany({
      where: { id: d.id, status: 'in_flight', leaseUntil: d.leaseUntil },
      data: { status: 'succeeded', finishedAt: fin, leaseUntil: null, responseStatus: r.status, latencyMs: r.latencyMs, error: null },
    })
    return n.count === 1 ? 'succeeded' : lostLease(svc, d)
  }

  svc.logger.warn({ deliveryId: d.id, eventId: d.eventId, attempt: d.attempt, target: origin(d.url), status: r.status, error }, 'webhook attempt failed')
  if (d.attempt < maxAttempts(svc)) {
    const wait = (svc.config.WEBHOOK_RETRY_SCHEDULE[d.attempt] ?? 0) * 1000
    const due = new Date(fin.getTime() + wait)
    const n = await svc.db.$executeRaw`
      WITH f AS (
        UPDATE webhook_deliveries SET status = 'failed', finished_at = ${fin}::timestamptz, lease_until = NULL,
          response_status = ${r.status}, latency_ms = ${r.latencyMs}, error = ${error}
        WHERE id = ${d.id}::uuid AND status = 'in_flight' AND lease_until = ${d.leaseUntil}::timestamptz
        RETURNING event_id
      )
      INSERT INTO webhook_deliveries (id, event_id, attempt, status, due_at, created_at)
      SELECT ${randomUUID()}::uuid, event_id, ${d.attempt + 1}, 'pending', ${due}::timestamptz, ${fin}::timestamptz FROM f
      ON CONFLICT (event_id, attempt) DO NOTHING`
    return n === 1 ? 'retry_scheduled' : lostLease(svc, d)
  }

  // the last attempt failed: webhook_failed, unless a newer event (a later decision or a redelivery) supersedes this one
  const rows = await svc.db.$queryRaw<{ eventId: string; verificationId: string | null; sessionId: string | null }[]>`
    WITH f AS (
      UPDATE webhook_deliveries SET status = 'failed', finished_at = ${fin}::timestamptz, lease_until = NULL,
        response_status = ${r.status}, latency_ms = ${r.latencyMs}, error = ${error}
      WHERE id = ${d.id}::uuid AND status = 'in_flight' AND lease_until = ${d.leaseUntil}::timestamptz
      RETURNING event_id
    ), v AS (
      UPDATE verifications v SET status = 'webhook_failed', updated_at = ${fin}::timestamptz
      FROM f JOIN webhook_events e ON e.id = f.event_id
      WHERE v.id = e.verification_id AND v.status IN ('approved', 'rejected', 'manual_review')
        AND NOT EXISTS (SELECT 1 FROM webhook_events e2 WHERE e2.verification_id = v.id AND e2.created_at > e.created_at)
      RETURNING v.id, v.session_id
    )
    SELECT f.event_id::text AS "eventId", v.id::text AS "verificationId", v.session_id::text AS "sessionId" FROM f LEFT JOIN v ON true`
  const row = rows[0]
  if (!row) return lostLease(svc, d)
  svc.logger.error({ eventId: d.eventId, verificationId: d.verificationId, authAttemptId: d.authAttemptId, attempts: d.attempt }, 'webhook failed after the last attempt')
  if (row.verificationId && row.sessionId) {
    publishStatus(svc.pubsub, statusEvent(d, 'KYC', row.sessionId, 'webhook_failed', fin))
  } else if (d.authAttemptId) {
    // Auth attempts keep their status (authenticated/rejected); subscribers still hear that the webhook failed
    const a = await svc.db.authAttempt.findUnique({ where: { id: d.authAttemptId }, select: { sessionId: true } })
    if (a) publishStatus(svc.pubsub, statusEvent(d, 'AUTH', a.sessionId, 'webhook_failed', fin))
  }
  return 'failed_final'
}

function lostLease(svc: Pick<Services, 'logger'>, d: ClaimedDelivery): DeliveryOutcome {
  svc.logger.warn({ deliveryId: d.id, attempt: d.attempt }, 'webhook delivery lease lost before its result was recorded; another dispatcher owns it')
  return 'lost_lease'
}

function statusEvent(d: ClaimedDelivery, kind: 'KYC' | 'AUTH', sessionId: string, status: string, at: Date) {
  return {
    kind,
    sessionId,
    tenantId: d.tenantId,
    ambiente: d.ambiente,
    verificationId: kind === 'KYC' ? d.verificationId : null,
    authAttemptId: kind === 'AUTH' ? d.authAttemptId : null,
    status,
    at: at.toISOString(),
  }
}

/**
 * One pass, for tools and tests: claims up to `limit` due deliveries, sends them all at once and
 * records the results. The background loop (src/jobs/webhook-dispatcher.ts) does the same with a
 * steady number of sends in flight. Returns how many were claimed.
 */
export async function dispatchDue(svc: Svc, limit = svc.config.WEBHOOK_CONCURRENCY): Promise<number> {
  const batch = await claimDue(svc, limit)
  const secretOf = secretLoader(svc)
  await Promise.all(batch.map((d) => deliverClaimed(svc, d, secretOf)))
  return batch.length
}
