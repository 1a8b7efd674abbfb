import type { Loop } from '../lib/loop.js'
import type { Services } from '../services.js'

/**
 * Background work of the worker role (ROLE=all|worker): each entry is a named loop.
 * Placeholder entries are added by the webhook dispatcher and the analysis job runner.
 */
export function startBackground(_svc: Services): Record<string, Loop> {
  return {}
}
