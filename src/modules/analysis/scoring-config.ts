import { z } from 'zod'
import { DEFAULT_SCORING, type ScoringConfig } from '../../analysis/scoring.js'
import type { Config } from '../../config.js'

const pct = z.number().min(0).max(100)
/** What a tenant may override in `tenants.settings.scoring`. */
const TenantScoring = z
  .object({ approveAt: pct, rejectBelow: pct, faceMatchMin: pct, livenessMin: pct, antifraudeMin: pct })
  .partial()

/** Service defaults from configuration, then the tenant's own thresholds where it has any. */
export function scoringFor(config: Config, tenantSettings: unknown): ScoringConfig {
  const base: ScoringConfig = {
    ...DEFAULT_SCORING,
    approveAt: config.DECISION_APPROVE_AT,
    rejectBelow: config.DECISION_REJECT_BELOW,
    faceMatchMin: config.FACE_MATCH_MIN,
    livenessMin: config.LIVENESS_MIN,
    antifraudeMin: config.ANTIFRAUDE_MIN,
  }
  const parsed = TenantScoring.safeParse((tenantSettings as { scoring?: unknown } | null)?.scoring ?? {})
  return parsed.success ? { ...base, ...parsed.data } : base
}
