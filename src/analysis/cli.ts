/**
 *   npx tsx src/analysis/cli.ts face compare A B          -> {"similarity":0-100,"match":bool,"ms":…}
 *   npx tsx src/analysis/cli.ts document read IMAGE [CC]  -> OCR fields, parsed MRZ (or null), check digits
 * Options via env (the service's config names): DATA_DIR (tessdata goes to $DATA_DIR/tessdata, default ./data),
 * MRZ_MODEL_PATH, ANALYSIS_ENGINE=real|fake.
 */
import fs from 'node:fs'
import path from 'node:path'
import { isAppError } from '../errors.js'
import { createAnalyzer } from './worker.js'

const usage = 'usage: cli.ts face compare A B | cli.ts document read IMAGE [COUNTRY]'

async function main(argv: string[]): Promise<number> {
  const [area, verb, ...rest] = argv
  const engine = process.env.ANALYSIS_ENGINE === 'fake' ? 'fake' : 'real'
  const read = (f: string | undefined): Buffer => {
    if (!f) throw new Error(usage)
    return fs.readFileSync(f)
  }
  if (area === 'face' && verb === 'compare') {
    const a = read(rest[0])
    const b = read(rest[1])
    const an = await createAnalyzer({ engine, dataDir: path.resolve(process.env.DATA_DIR ?? './data') })
    try {
      const r = await an.compareFaces(a, b)
      console.log(JSON.stringify({ similarity: r.similarity, match: r.match, ms: Math.round(r.ms), raw: Number(r.raw.toFixed(4)), model: r.model }))
    } finally {
      await an.close()
    }
    return 0
  }
  if (area === 'document' && verb === 'read') {
    const img = read(rest[0])
    const an = await createAnalyzer({ engine, dataDir: path.resolve(process.env.DATA_DIR ?? './data'), mrzModelPath: process.env.MRZ_MODEL_PATH || null })
    try {
      const t0 = performance.now()
      const d = await an.readDocument(img, rest[1] ?? null)
      const mrz = d.mrz
      console.log(JSON.stringify({
        fields: d.fields,
        visual: d.visual,
        mrz: mrz && {
          format: mrz.format, valid: mrz.valid, surname: mrz.surname, given_names: mrz.givenNames, document_number: mrz.documentNumber,
          birth_date: mrz.birthDate, expiry_date: mrz.expiryDate, nationality: mrz.nationality, issuing_state: mrz.issuingState,
          sex: mrz.sex, lines: mrz.lines, corrections: mrz.corrections,
        },
        check_digits: mrz?.checkDigits ?? null,
        mrz_engine: d.mrzEngine,
        lang: d.lang,
        portrait: d.portrait && { box: d.portrait.box, score: d.portrait.score },
        hash: d.hash,
        ms: Math.round(performance.now() - t0),
      }, null, 1))
    } finally {
      await an.close()
    }
    return 0
  }
  console.error(usage)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(JSON.stringify({ error: isAppError(e) ? e.code : 'error', message: e instanceof Error ? e.message : String(e) }))
    process.exit(1)
  },
)
