import { setMaxListeners } from 'node:events'
import { startLoop, type Loop } from '../lib/loop.js'
import { registerDispatcher } from '../modules/webhooks/enqueue-event.js'
import { claimDue, deliverClaimed, secretLoader, type DeliveryOutcome } from '../modules/webhooks/dispatch-due.js'
import type { Services } from '../services.js'

export interface WebhookDispatcher extends Loop {
  /** counters since start (tests, benchmarks, metrics) */
  readonly stats: Record<DeliveryOutcome | 'claimed', number>
  /** sends in flight right now */
  inFlight(): number
}

/**
 * The webhook loop: keeps up to WEBHOOK_CONCURRENCY sends in flight. Each pass claims only as many
 * rows as there are free slots (so a claim never sits waiting behind our own backlog, where its
 * lease would run out); a finished send wakes the loop once half the slots are free, so claims
 * come in batches rather than one query per delivery. stop() aborts the sends still running and
 * gives their claims back, so a clean shutdown uses up no attempt.
 */
export function startWebhookDispatcher(svc: Services, name = 'webhooks'): WebhookDispatcher {
  const max = svc.config.WEBHOOK_CONCURRENCY
  const inflight = new Set<Promise<void>>()
  const abort = new AbortController()
  // every send in flight listens for the stop signal
  setMaxListeners(max + 8, abort.signal)
  const stats: WebhookDispatcher['stats'] = { claimed: 0, succeeded: 0, retry_scheduled: 0, failed_final: 0, released: 0, lost_lease: 0 }
  let stopping = false

  const pass = async (): Promise<boolean> => {
    const free = max - inflight.size
    if (stopping || free <= 0) return false
    const batch = await claimDue(svc, free)
    stats.claimed += batch.length
    const secretOf = secretLoader(svc)
    for (const d of batch) {
      const p: Promise<void> = deliverClaimed(svc, d, secretOf, abort.signal)
        .then((outcome) => {
          stats[outcome]++
        })
        .catch((err: unknown) => {
          // the claim stays in_flight and is taken again when its lease runs out
          svc.logger.error({ err, deliveryId: d.id }, 'webhook delivery could not be recorded')
        })
        .finally(() => {
          inflight.delete(p)
          if (!stopping && inflight.size <= max / 2) loop.kick()
        })
      inflight.add(p)
    }
    // a full batch means more may be due: come back as soon as slots free up (the finally above)
    return false
  }

  const loop = startLoop(name, svc.config.WEBHOOK_POLL_MS, pass, svc.logger)
  const unregister = registerDispatcher(svc.db, () => loop.kick())
  return {
    stats,
    inFlight: () => inflight.size,
    kick: () => loop.kick(),
    async stop() {
      stopping = true
      unregister()
      await loop.stop()
      abort.abort()
      await Promise.allSettled([...inflight])
    },
  }
}
