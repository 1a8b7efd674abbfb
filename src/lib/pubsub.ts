import { setMaxListeners } from 'node:events'
import { createPubSub, type PubSub } from 'graphql-yoga'
import type { Config } from '../config.js'

/** A status change of a KYC verification or an Auth attempt, as pushed to subscribers. */
export interface StatusEvent {
  kind: 'KYC' | 'AUTH'
  sessionId: string
  tenantId: string
  ambiente: 'sandbox' | 'producao'
  verificationId: string | null
  authAttemptId: string | null
  /** created | in_progress | processing | approved | rejected | manual_review | authenticated | expired | webhook_failed */
  status: string
  at: string
}

export type Topics = {
  /** one session's changes (the widget) */
  'session-status': [sessionId: string, event: StatusEvent]
  /** a tenant-environment's changes (dashboards); key = `${tenantId}:${ambiente}` */
  'tenant-events': [key: string, event: StatusEvent]
}

export type AppPubSub = PubSub<Topics> & { close(): Promise<void> }

/**
 * In-process pub/sub by default; with REDIS_URL every instance publishes to and hears from Redis,
 * so a subscriber on one instance sees a change made through another.
 */
export async function createAppPubSub(config: Pick<Config, 'REDIS_URL'>): Promise<AppPubSub> {
  if (!config.REDIS_URL) {
    // one topic may have thousands of subscribers (dashboards, fan-out): no listener-count warning
    const eventTarget = new EventTarget()
    setMaxListeners(0, eventTarget)
    const ps = createPubSub<Topics>({ eventTarget: eventTarget as never })
    return Object.assign(ps, { close: async () => {} })
  }
  const { Redis } = await import('ioredis')
  const { createRedisEventTarget } = await import('@graphql-yoga/redis-event-target')
  const publishClient = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 3 })
  const subscribeClient = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 3 })
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient })
  const ps = createPubSub<Topics>({ eventTarget })
  return Object.assign(ps, {
    async close() {
      publishClient.disconnect()
      subscribeClient.disconnect()
    },
  })
}

export function publishStatus(pubsub: PubSub<Topics>, e: StatusEvent): void {
  pubsub.publish('session-status', e.sessionId, e)
  pubsub.publish('tenant-events', `${e.tenantId}:${e.ambiente}`, e)
}
