/**
 * Anti-fraud score (pure): 100 = no fraud signal, 0 = certain fraud. Every deduction is listed as a signal
 * so the decision is explainable.
 */
import type { MrzResult } from './mrz.js'
import type { VisualFields } from './ocr.js'

export interface AntifraudInput {
  mrz: MrzResult | null
  /** fields read from the visual zone (OCR) */
  visual?: Partial<VisualFields> | null
  /** the document expiry from any source when there is no MRZ (YYYY-MM-DD) */
  expiryDate?: string | null
  /** the same document image (perceptual hash) was seen in another session */
  documentReused?: boolean
  /** this face matched a face enrolled under another external id */
  faceSeenUnderOtherExternalId?: boolean
  /** today (tests pass a fixed date) */
  today?: Date
}

export type AntifraudCode =
  | 'mrz_check_digit_failed'
  | 'mrz_unknown_state'
  | 'document_expired'
  | 'name_mismatch'
  | 'number_mismatch'
  | 'birth_date_mismatch'
  | 'document_reused'
  | 'face_seen_under_other_external_id'

export interface AntifraudSignal { code: AntifraudCode; weight: number; detail: string }

export interface AntifraudResult {
  antifraude: number
  signals: AntifraudSignal[]
  /** derived flags for the scoring step */
  expired: boolean
  mrzInvalid: boolean
  inconsistent: boolean
  suspected: boolean
}

const norm = (s: string | null | undefined): string =>
  (s ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[^A-Z0-9]+/g, ' ').trim()

/** Token-set similarity of two names, 0..1 (order-insensitive, tolerant of a missing middle name). */
export function nameSimilarity(a: string | null | undefined, b: string | null | undefined): number {
  const ta = new Set(norm(a).split(' ').filter((t) => t.length > 1))
  const tb = new Set(norm(b).split(' ').filter((t) => t.length > 1))
  if (!ta.size || !tb.size) return 0
  let inter = 0
  for (const t of ta) if (tb.has(t) || [...tb].some((u) => editDistance(t, u) <= (t.length > 5 ? 1 : 0))) inter++
  return inter / Math.min(ta.size, tb.size)
}

export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0] as number
    dp[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j] as number
      dp[j] = Math.min((dp[j] as number) + 1, (dp[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return dp[b.length] as number
}

export const isExpired = (expiry: string | null | undefined, today = new Date()): boolean =>
  !!expiry && /^\d{4}-\d{2}-\d{2}$/.test(expiry) && expiry < today.toISOString().slice(0, 10)

export function computeAntifraud(input: AntifraudInput): AntifraudResult {
  const signals: AntifraudSignal[] = []
  const today = input.today ?? new Date()
  const { mrz } = input
  if (mrz) {
    const bad = mrz.checkDigits.filter((c) => !c.valid)
    if (bad.length) signals.push({ code: 'mrz_check_digit_failed', weight: Math.min(60, 30 + 10 * (bad.length - 1)), detail: bad.map((c) => `${c.field}: ${c.actual} != ${c.expected}`).join(', ') })
    if (!mrz.stateKnown) signals.push({ code: 'mrz_unknown_state', weight: 5, detail: `${mrz.issuingState}/${mrz.nationality}` })
  }
  const expiry = mrz?.expiryDate ?? input.expiryDate ?? null
  const expired = isExpired(expiry, today)
  if (expired) signals.push({ code: 'document_expired', weight: 20, detail: `expired ${expiry}` })
  let inconsistent = false
  const v = input.visual
  if (mrz && v) {
    if (v.nome) {
      const sim = nameSimilarity(`${mrz.givenNames} ${mrz.surname}`, v.nome)
      if (sim < 0.5) { inconsistent = true; signals.push({ code: 'name_mismatch', weight: 25, detail: `visual "${v.nome}" vs MRZ "${mrz.givenNames} ${mrz.surname}" (${sim.toFixed(2)})` }) }
    }
    if (v.documento_numero && mrz.documentNumber) {
      const a = norm(v.documento_numero).replace(/ /g, '')
      const b = norm(mrz.documentNumber).replace(/ /g, '')
      if (editDistance(a, b) > 1 && !a.includes(b) && !b.includes(a)) { inconsistent = true; signals.push({ code: 'number_mismatch', weight: 25, detail: `visual ${a} vs MRZ ${b}` }) }
    }
    if (v.data_nascimento && mrz.birthDate && v.data_nascimento !== mrz.birthDate) {
      inconsistent = true
      signals.push({ code: 'birth_date_mismatch', weight: 25, detail: `visual ${v.data_nascimento} vs MRZ ${mrz.birthDate}` })
    }
  }
  if (input.documentReused) signals.push({ code: 'document_reused', weight: 50, detail: 'the same document image was submitted in another session' })
  if (input.faceSeenUnderOtherExternalId) signals.push({ code: 'face_seen_under_other_external_id', weight: 50, detail: 'this face is enrolled under another external id' })
  const antifraude = Math.max(0, 100 - signals.reduce((a, s) => a + s.weight, 0))
  return {
    antifraude,
    signals,
    expired,
    mrzInvalid: !!mrz && mrz.checkDigits.some((c) => !c.valid),
    inconsistent,
    suspected: !!input.documentReused || !!input.faceSeenUnderOtherExternalId,
  }
}
