import type { Loop } from '../lib/loop.js'
import type { Services } from '../services.js'
import { startLoop } from '../lib/loop.js'
import { purgeExpiredCaptures } from '../modules/captures/delete-captures.js'
import { startAnalysisRunner } from './analysis-runner.js'
import { startWebhookDispatcher } from './webhook-dispatcher.js'

/**
 * Background work of the worker role (ROLE=all|worker): each entry is a named loop.
 */
export function startBackground(svc: Services): Record<string, Loop> {
  return {
    webhooks: startWebhookDispatcher(svc),
    analysis: startAnalysisRunner(svc).loop,
    // media retention: captures past MEDIA_RETENTION_DAYS are erased (hourly)
    retention: startLoop('retention', 3_600_000, () => purgeExpiredCaptures(svc), svc.logger),
  }
}
