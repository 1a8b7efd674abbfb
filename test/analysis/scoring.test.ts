import { describe, it, expect } from 'vitest'
import { computeAntifraud, nameSimilarity, isExpired } from '../../src/analysis/antifraud.js'
import { scoreKyc, scoreAuth, DEFAULT_SCORING } from '../../src/analysis/scoring.js'
import { mrzFromText } from '../../src/analysis/mrz.js'

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']
const mrz = mrzFromText(TD3)!
const today = new Date('2010-01-01T00:00:00Z')

describe('antifraud (pure)', () => {
  it('clean document -> high score (unknown UTO state is only a small signal)', () => {
    const r = computeAntifraud({ mrz, visual: { nome: 'Anna Maria Eriksson', documento_numero: 'L898902C3', data_nascimento: '1974-08-12' }, today })
    expect(r.antifraude).toBe(95)
    expect(r.signals.map((s) => s.code)).toEqual(['mrz_unknown_state'])
    expect(r.expired || r.inconsistent || r.suspected || r.mrzInvalid).toBe(false)
  })
  it('expired, inconsistent, reused, face under other id, bad check digit', () => {
    const bad = mrzFromText([TD3[0]!, TD3[1]!.replace('7408122', '7408123')], { repair: false })!
    const r = computeAntifraud({
      mrz: bad, visual: { nome: 'JOHN SMITH', documento_numero: 'X1234567', data_nascimento: '1980-01-01' },
      documentReused: true, faceSeenUnderOtherExternalId: true, today: new Date('2020-01-01T00:00:00Z'),
    })
    const codes = r.signals.map((s) => s.code)
    for (const c of ['mrz_check_digit_failed', 'document_expired', 'name_mismatch', 'number_mismatch', 'birth_date_mismatch', 'document_reused', 'face_seen_under_other_external_id']) expect(codes).toContain(c)
    expect(r.antifraude).toBe(0)
    expect(r).toMatchObject({ expired: true, inconsistent: true, suspected: true, mrzInvalid: true })
  })
  it('helpers', () => {
    expect(nameSimilarity('ANNA MARIA ERIKSSON', 'Eriksson, Anna')).toBe(1)
    expect(nameSimilarity('ANNA ERIKSSON', 'JOHN SMITH')).toBe(0)
    expect(isExpired('2012-04-15', today)).toBe(false)
    expect(isExpired('2009-12-31', today)).toBe(true)
  })
})

describe('scoring (pure)', () => {
  const clean = computeAntifraud({ mrz, today })
  const base = { mode: 'FULL_KYC' as const, face_match: 90, liveness: 90, livenessPassed: true, antifraud: clean, selfieHasFace: true, documentHasFace: true, documentReadable: true }
  it('approves a good FULL_KYC', () => {
    const r = scoreKyc(base)
    expect(r.decision).toBe('approved')
    expect(r.motivos_rejeicao).toEqual([])
    expect(r.score).toBeGreaterThanOrEqual(DEFAULT_SCORING.approveAt)
  })
  it('rejects with the right motivos', () => {
    expect(scoreKyc({ ...base, face_match: 30 }).motivos_rejeicao).toContain('face_mismatch')
    expect(scoreKyc({ ...base, face_match: 30 }).decision).toBe('rejected')
    expect(scoreKyc({ ...base, livenessPassed: false, liveness: 30 }).motivos_rejeicao).toContain('liveness_failed')
    expect(scoreKyc({ ...base, selfieHasFace: false }).motivos_rejeicao).toContain('no_face_detected')
    expect(scoreKyc({ ...base, documentReadable: false }).motivos_rejeicao).toContain('document_unreadable')
    const expired = computeAntifraud({ mrz, today: new Date('2020-01-01T00:00:00Z') })
    const r = scoreKyc({ ...base, antifraud: expired })
    expect(r.motivos_rejeicao).toEqual(['document_expired'])
    expect(r.decision).toBe('manual_review')
    const fraud = computeAntifraud({ mrz, today, documentReused: true })
    expect(scoreKyc({ ...base, antifraud: fraud }).motivos_rejeicao).toContain('suspected_fraud')
    const bad = computeAntifraud({ mrz: mrzFromText([TD3[0]!, TD3[1]!.replace('7408122', '7408123')], { repair: false }), today })
    expect(scoreKyc({ ...base, antifraud: bad }).motivos_rejeicao).toContain('document_invalid')
    const inc = computeAntifraud({ mrz, visual: { nome: 'JOHN SMITH' }, today })
    expect(scoreKyc({ ...base, antifraud: inc }).motivos_rejeicao).toContain('data_inconsistent')
  })
  it('manual review band and configurable thresholds', () => {
    const mid = scoreKyc({ ...base, face_match: 65, liveness: 60 })
    expect(mid.decision).toBe('manual_review')
    expect(scoreKyc({ ...base, face_match: 65, liveness: 60 }, { ...DEFAULT_SCORING, approveAt: 60 }).decision).toBe('approved')
  })
  it('SEM_DOC ignores document parts', () => {
    const r = scoreKyc({ mode: 'SEM_DOC', face_match: null, liveness: 85, livenessPassed: true, selfieHasFace: true })
    expect(r.decision).toBe('approved')
    expect(r.face_match).toBeNull()
    expect(scoreKyc({ mode: 'SEM_DOC', face_match: null, liveness: 20, livenessPassed: false, selfieHasFace: true }).motivos_rejeicao).toEqual(['liveness_failed'])
  })
  it('auth 1:1', () => {
    expect(scoreAuth({ score_facial: 80, score_liveness: 80, livenessPassed: true }).decision).toBe('authenticated')
    expect(scoreAuth({ score_facial: 40, score_liveness: 80, livenessPassed: true }).motivos_rejeicao).toEqual(['face_mismatch'])
    expect(scoreAuth({ score_facial: null, score_liveness: 0, livenessPassed: false }).motivos_rejeicao).toEqual(['no_face_detected', 'liveness_failed'])
  })
})
