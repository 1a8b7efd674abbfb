import { describe, it, expect } from 'vitest'
import { checkDigit, mrzFromText, parseMrz, squeeze, repairMrz } from '../../src/analysis/mrz.js'

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']
const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<']
const TD2 = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6']

describe('MRZ (pure)', () => {
  it('computes ICAO check digits', () => {
    expect(checkDigit('L898902C3')).toBe('6')
    expect(checkDigit('740812')).toBe('2')
    expect(checkDigit('120415')).toBe('9')
    expect(checkDigit('<<<<<<')).toBe('0')
  })

  it('parses TD3, TD2 and TD1 with every check digit valid', () => {
    for (const [rows, format] of [[TD3, 'TD3'], [TD2, 'TD2'], [TD1, 'TD1']] as const) {
      const r = mrzFromText(rows.join('\n'))!
      expect(r.format).toBe(format)
      expect(r.valid).toBe(true)
      expect(r.checkDigits.every((c) => c.valid)).toBe(true)
      expect(r.surname).toBe('ERIKSSON')
      expect(r.givenNames).toBe('ANNA MARIA')
      expect(r.birthDate).toBe('1974-08-12')
      expect(r.expiryDate).toBe('2012-04-15')
      expect(r.sex).toBe('F')
      expect(r.stateKnown).toBe(false) // UTO is ICAO's fictional state
    }
    const r = mrzFromText(TD3)!
    expect(r.documentNumber).toBe('L898902C3')
    expect(r.checkDigits.map((c) => c.field)).toEqual(['document_number', 'birth_date', 'expiry_date', 'personal_number', 'composite'])
  })

  it('detects a wrong check digit without repair', () => {
    const bad = [TD3[0]!, TD3[1]!.replace('7408122', '7408123')]
    const r = parseMrz('TD3', bad, { repair: false })
    expect(r.valid).toBe(false)
    expect(r.checkDigits.find((c) => c.field === 'birth_date')!.valid).toBe(false)
  })

  it('repairs the eng confusions (<K, K/L fillers, O for 0) guided by the check digits', () => {
    const ocr = ['P<KUTOERIKSSON<K<KANNA<MARIA<LLLLLLLLLLLLLLLKLKLKLK', 'L898902C36UT07408122F12O4159ZE184226B<<<<<K10']
    const r = mrzFromText(ocr.join('\n'))!
    expect(r.valid).toBe(true)
    expect(r.lines).toEqual(TD3)
    expect(r.corrections).toBeGreaterThan(0)
    expect(squeeze('AB<KCD', 5)).toBe('AB<CD')
  })

  it('fixes letter-for-digit confusions in the document number, never a forged digit', () => {
    const { rows } = repairMrz('TD3', [TD3[0]!, 'AAO0O00O00POL6002084F1412314<<<<<<<<<<<<<<<4'])
    expect(rows[1]!.slice(0, 10)).toBe('AA00000000')
    // every single-digit change of the specimen's line 2 must stay invalid (no "repair" into validity)
    let turnedValid = 0
    let total = 0
    for (let i = 0; i < 28; i++) for (const d of '0123456789') {
      const l = TD3[1]!.split('')
      if (l[i] === d || !/[0-9]/.test(l[i]!)) continue
      l[i] = d
      total++
      if (parseMrz('TD3', [TD3[0]!, l.join('')]).checkDigits.every((c) => c.valid)) turnedValid++
    }
    expect(total).toBeGreaterThan(150)
    expect(turnedValid).toBe(0)
  })

  it('returns null for text without an MRZ', () => {
    expect(mrzFromText('The quick brown fox\njumps over the lazy dog')).toBeNull()
  })
})
