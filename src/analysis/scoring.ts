/**
 * Decision (pure): composite of face_match, liveness and antifraude with configurable weights and
 * thresholds; approve >= approveAt, reject < rejectBelow, else manual_review; plus `motivos_rejeicao`.
 */
import type { AntifraudResult } from './antifraud.js'

export type Mode = 'FULL_KYC' | 'SEM_DOC'
export type Decision = 'approved' | 'rejected' | 'manual_review'
export type Motivo =
  | 'face_mismatch'
  | 'liveness_failed'
  | 'document_unreadable'
  | 'document_expired'
  | 'document_invalid'
  | 'data_inconsistent'
  | 'suspected_fraud'
  | 'no_face_detected'

export interface ScoringConfig {
  weights: { face_match: number; liveness: number; antifraude: number }
  /** composite >= approveAt => approved (when no hard reason) */
  approveAt: number
  /** composite < rejectBelow => rejected */
  rejectBelow: number
  /** component floors: below => its motivo */
  faceMatchMin: number
  livenessMin: number
  antifraudeMin: number
}

export const DEFAULT_SCORING: ScoringConfig = {
  weights: { face_match: 0.45, liveness: 0.35, antifraude: 0.2 },
  approveAt: 75,
  rejectBelow: 50,
  faceMatchMin: 60, // = similarity threshold at the EER (face.ts calibration maps it to 60)
  livenessMin: 50,
  antifraudeMin: 50,
}

export interface KycScoreInput {
  mode: Mode
  /** 0..100, null when no face could be compared */
  face_match: number | null
  /** 0..100 */
  liveness: number | null
  livenessPassed: boolean
  /** FULL_KYC only */
  antifraud?: AntifraudResult | null
  selfieHasFace: boolean
  /** FULL_KYC: a face was found on the document */
  documentHasFace?: boolean
  /** FULL_KYC: OCR / MRZ produced usable data */
  documentReadable?: boolean
}

export interface KycScore {
  decision: Decision
  score: number
  face_match: number | null
  liveness: number | null
  antifraude: number | null
  motivos_rejeicao: Motivo[]
}

/** motivos that reject regardless of the composite */
const HARD: Motivo[] = ['no_face_detected', 'liveness_failed', 'face_mismatch', 'suspected_fraud', 'document_invalid']

export function scoreKyc(input: KycScoreInput, cfg: ScoringConfig = DEFAULT_SCORING): KycScore {
  const motivos = new Set<Motivo>()
  const full = input.mode === 'FULL_KYC'
  if (!input.selfieHasFace || (full && input.documentHasFace === false)) motivos.add('no_face_detected')
  if (!input.livenessPassed || (input.liveness ?? 0) < cfg.livenessMin) motivos.add('liveness_failed')
  if (full) {
    if (input.face_match !== null && input.face_match < cfg.faceMatchMin) motivos.add('face_mismatch')
    if (input.documentReadable === false) motivos.add('document_unreadable')
    const af = input.antifraud
    if (af) {
      if (af.expired) motivos.add('document_expired')
      if (af.mrzInvalid) motivos.add('document_invalid')
      if (af.inconsistent) motivos.add('data_inconsistent')
      if (af.suspected || af.antifraude < cfg.antifraudeMin) motivos.add('suspected_fraud')
    }
  } else if (input.antifraud?.suspected) motivos.add('suspected_fraud')
  const w = cfg.weights
  const parts: Array<[number, number]> = full
    ? [[input.face_match ?? 0, w.face_match], [input.liveness ?? 0, w.liveness], [input.antifraud?.antifraude ?? 0, w.antifraude]]
    : [[input.liveness ?? 0, w.liveness], [input.antifraud?.antifraude ?? 100, w.antifraude]]
  const tw = parts.reduce((a, [, x]) => a + x, 0) || 1
  const score = Math.round((parts.reduce((a, [v, x]) => a + v * x, 0) / tw) * 10) / 10
  const list = [...motivos]
  let decision: Decision
  if (list.some((m) => HARD.includes(m)) || score < cfg.rejectBelow) decision = 'rejected'
  else if (list.length === 0 && score >= cfg.approveAt) decision = 'approved'
  else decision = 'manual_review'
  if (decision === 'rejected' && list.length === 0) list.push(full ? 'suspected_fraud' : 'liveness_failed')
  return {
    decision,
    score,
    face_match: full ? input.face_match : null,
    liveness: input.liveness,
    antifraude: full ? (input.antifraud?.antifraude ?? null) : (input.antifraud?.antifraude ?? null),
    motivos_rejeicao: decision === 'approved' ? [] : list,
  }
}

export interface AuthScoreInput {
  /** calibrated 0..100 similarity of the best burst frame to the stored embedding; null without a face */
  score_facial: number | null
  score_liveness: number
  livenessPassed: boolean
}

export interface AuthScore {
  decision: 'authenticated' | 'rejected'
  score_facial: number
  score_liveness: number
  motivos_rejeicao: Motivo[]
}

export function scoreAuth(input: AuthScoreInput, cfg: Pick<ScoringConfig, 'faceMatchMin' | 'livenessMin'> = DEFAULT_SCORING): AuthScore {
  const motivos: Motivo[] = []
  if (input.score_facial === null) motivos.push('no_face_detected')
  else if (input.score_facial < cfg.faceMatchMin) motivos.push('face_mismatch')
  if (!input.livenessPassed || input.score_liveness < cfg.livenessMin) motivos.push('liveness_failed')
  return {
    decision: motivos.length ? 'rejected' : 'authenticated',
    score_facial: input.score_facial ?? 0,
    score_liveness: input.score_liveness,
    motivos_rejeicao: motivos,
  }
}
