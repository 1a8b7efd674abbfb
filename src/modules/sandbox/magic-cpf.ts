import { AppError } from '../../errors.js'
import type { KycDecision } from '../verifications/complete-verification.js'

/**
 * Sandbox KYC outcomes are chosen by the CPF sent to the completion endpoint. The magic numbers
 * all have valid check digits, so a customer's own CPF validation accepts them too.
 */
export const MAGIC_CPFS = {
  '00000000191': { status: 'approved', motivos: [] },
  '00000000272': { status: 'rejected', motivos: ['face_mismatch'] },
  '00000000353': { status: 'manual_review', motivos: [] },
  '00000000434': { status: 'rejected', motivos: ['document_expired'] },
} as const satisfies Record<string, { status: KycDecision['status']; motivos: readonly string[] }>

/** Check digits of the first 9 (or 10) digits: weights 10..2 (11..2), remainder < 2 → 0. */
function checkDigit(digits: string): number {
  let sum = 0
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (digits.length + 1 - i)
  const r = sum % 11
  return r < 2 ? 0 : 11 - r
}

/**
 * Accepts "000.000.001-91" or "00000000191" and returns the 11 digits; anything else, wrong check
 * digits, or one digit repeated eleven times (valid digits, never issued) → 422 invalid_cpf.
 */
export function parseCpf(raw: unknown): string {
  const bad = () => new AppError('invalid_cpf', 'cpf must be 11 digits ("00000000191" or "000.000.001-91") with valid check digits', { field: 'cpf' })
  if (typeof raw !== 'string') throw bad()
  const s = raw.trim()
  if (!/^\d{11}$/.test(s) && !/^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(s)) throw bad()
  const d = s.replace(/\D/g, '')
  if (/^(\d)\1{10}$/.test(d)) throw bad()
  if (checkDigit(d.slice(0, 9)) !== Number(d[9]) || checkDigit(d.slice(0, 10)) !== Number(d[10])) throw bad()
  return d
}

export const formatCpf = (d: string) => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`

/**
 * The fixed, plausible decision of a sandbox KYC: scores that agree with the outcome, OCR of a
 * fictitious "SANDBOX USER" whose document number is the CPF (masked on output like any other).
 */
export function sandboxKycDecision(cpfDigits: string, documentType: string | null): KycDecision {
  const magic = MAGIC_CPFS[cpfDigits as keyof typeof MAGIC_CPFS]
  const status = magic?.status ?? 'approved'
  const motivos = magic ? [...magic.motivos] : []
  const scores =
    status === 'approved'
      ? { composto: 92.4, faceMatch: 94.1, liveness: 97.3, antifraude: 95 }
      : status === 'manual_review'
        ? { composto: 61.5, faceMatch: 72.8, liveness: 90.2, antifraude: 70.4 }
        : motivos.includes('face_mismatch')
          ? { composto: 31.2, faceMatch: 18.6, liveness: 96.1, antifraude: 88 }
          : { composto: 42.7, faceMatch: 93.5, liveness: 96.8, antifraude: 61.3 }
  return {
    status,
    modo: 'FULL_KYC',
    scores,
    ocr: {
      nome: 'SANDBOX USER',
      documentoNumero: cpfDigits,
      dataNascimento: '1990-01-01',
      documentExpiry: motivos.includes('document_expired') ? '2020-01-31' : '2033-12-31',
    },
    motivosRejeicao: motivos,
    documentType,
    signals: { sandbox: true, rule: magic ? `magic_cpf_${status}${motivos[0] ? `_${motivos[0]}` : ''}` : 'valid_cpf_approved' },
  }
}
