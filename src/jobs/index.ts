import type { Loop } from '../lib/loop.js'
import type { Services } from '../services.js'
import { startWebhookDispatcher } from './webhook-dispatcher.js'

/**
 * Background work of the worker role (ROLE=all|worker): each entry is a named loop.
 * The analysis job runner is added here next to the webhook dispatcher.
 */
export function startBackground(svc: Services): Record<string, Loop> {
  return {
    webhooks: startWebhookDispatcher(svc),
  }
}
