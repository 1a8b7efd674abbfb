import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { OcrService, extractVisualFields, findDate, langForCountry } from '../../src/analysis/ocr.js'
import { DOCS, MRZ_MODEL, hasData, tmpDir } from './helpers.js'

/** every specimen in data/documents with an MRZ. esp_dni_back is a dummy-data specimen whose printed
 *  document-number, birth-date and composite check digits are wrong (AAA100001 -> 8, printed 4; 721201 -> 1,
 *  printed 8; composite -> 1, printed 8), read identically by the MRZ model, eng and the page OCR: reported invalid. */
const SPECIMENS: Record<string, { format: string; invalidOnSpecimen?: string[]; noModel?: boolean }> = {
  'uto_td3_passport.jpg': { format: 'TD3', noModel: true },
  'uto_td2_doc.jpg': { format: 'TD2', noModel: true },
  'cze_passport.jpg': { format: 'TD3', noModel: true },
  'pol_passport.jpg': { format: 'TD3' },
  'rou_id_card.jpg': { format: 'TD2', noModel: true },
  'esp_dni_back.png': { format: 'TD1', invalidOnSpecimen: ['document_number', 'birth_date', 'composite'] },
}

describe('visual zone helpers (pure)', () => {
  it('finds dates and languages', () => {
    expect(findDate('Data de nascimento 05/03/1990')).toBe('1990-03-05')
    expect(findDate('12 AUG/AOÛT 74')).toBe('1974-08-12')
    expect(langForCountry('BR')).toBe('por')
    expect(langForCountry('ESP')).toBe('spa')
    expect(langForCountry('US')).toBe('eng')
    const v = extractVisualFields('REPUBLICA FEDERATIVA DO BRASIL\nNOME\nMARIA DA SILVA\nREGISTRO GERAL 12.345.678-9\nDATA DE NASCIMENTO\n05/03/1990\n', 'por')
    expect(v).toEqual({ nome: 'MARIA DA SILVA', documento_numero: '123456789', data_nascimento: '1990-03-05' })
  })
})

for (const withModel of [true, false]) {
  describe.skipIf(!hasData)(`document MRZ ${withModel ? 'with' : 'WITHOUT'} the MRZ model`, () => {
    let ocr: OcrService
    beforeAll(async () => {
      ocr = await OcrService.create({ dataDir: tmpDir('tess-'), mrzModelPath: withModel ? MRZ_MODEL : null })
      expect(ocr.hasMrzModel).toBe(withModel)
    }, 60_000)
    afterAll(async () => { await ocr?.terminate() })

    for (const [file, spec] of Object.entries(SPECIMENS)) {
      if (!withModel && !spec.noModel) continue
      it(`${file}: ${spec.format}, check digits`, async () => {
        const r = await ocr.readDocument(fs.readFileSync(path.join(DOCS, file)), { country: file.startsWith('esp') ? 'ES' : null })
        expect(r.mrz).not.toBeNull()
        expect(r.mrz!.format).toBe(spec.format)
        const invalid = r.mrz!.checkDigits.filter((c) => !c.valid).map((c) => c.field)
        expect(invalid).toEqual(spec.invalidOnSpecimen ?? [])
        if (!spec.invalidOnSpecimen) expect(r.mrz!.valid).toBe(true)
        if (file === 'uto_td3_passport.jpg' || file === 'uto_td2_doc.jpg') {
          expect(r.mrz!.surname).toBe('ERIKSSON')
          expect(r.mrz!.givenNames).toBe('ANNA MARIA')
          expect(r.mrz!.birthDate).toBe('1974-08-12')
          expect(r.mrz!.expiryDate).toBe('2012-04-15')
          expect(r.mrz!.documentNumber).toBe(file === 'uto_td3_passport.jpg' ? 'L898902C3' : 'D23145890')
        }
        if (withModel && file !== 'rou_id_card.jpg' && file !== 'esp_dni_back.png') expect(r.mrzEngine).toBe('mrz-model')
      }, 60_000)
    }

    it('testocr.png (no MRZ) gives no valid MRZ', async () => {
      const r = await ocr.readDocument(fs.readFileSync(path.join(DOCS, 'testocr.png')))
      expect(r.mrz === null || r.mrz.valid === false).toBe(true)
      expect(r.text.toLowerCase()).toContain('quick brown')
    }, 60_000)
  })
}
