/**
 * Offline OCR with tesseract.js: one `langPath` folder (`<dataDir>/tessdata`) filled at start-up from the
 * @tesseract.js-data packages (4.0.0_best_int) plus, when configured, the MRZ model; gzip, no cache, an
 * errorHandler: nothing is ever fetched from a CDN.
 *
 * readDocument(): page OCR in the document's language, MRZ location + re-read (MRZ model when available,
 * else eng with a whitelist + check-digit repair), visual-zone fields when there is no MRZ, and the
 * portrait located with the face detector.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import sharp from 'sharp'
import { createWorker, PSM, type Worker } from 'tesseract.js'
import { decodeImage, cropImage, encodeJpeg, inspectImage, type DecodedImage } from './image.js'
import { mrzFromText, pickMrzRows, parseMrz, cleanRow, type MrzResult } from './mrz.js'
import type { FaceEngine, Box } from './face.js'

const require = createRequire(import.meta.url)

export type OcrLang = 'eng' | 'por' | 'spa'
const LANGS: OcrLang[] = ['eng', 'por', 'spa']
const MRZ_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<'

export interface OcrOptions {
  /** a writable directory; the traineddata folder is created as `<dataDir>/tessdata` */
  dataDir: string
  /** path of mrz.traineddata(.gz) (MRZ_MODEL_PATH); absent = eng + whitelist + check-digit repair */
  mrzModelPath?: string | null | undefined
  /** where tesseract errors go (default: console.error) */
  onError?: (e: unknown) => void
}

/** Language of the visual zone for an ISO country (alpha-2 or alpha-3). */
export function langForCountry(country: string | null | undefined): OcrLang {
  const c = (country ?? '').toUpperCase()
  if (c === 'BR' || c === 'BRA' || c === 'PT' || c === 'PRT') return 'por'
  if (c === 'ES' || c === 'ESP' || c === 'MX' || c === 'MEX' || c === 'AR' || c === 'ARG' || c === 'CO' || c === 'COL' || c === 'CL' || c === 'CHL') return 'spa'
  return 'eng'
}

const pkgLangFile = (lang: OcrLang): string => {
  const entry = require.resolve(`@tesseract.js-data/${lang}/package.json`)
  return path.join(path.dirname(entry), '4.0.0_best_int', `${lang}.traineddata.gz`)
}

/**
 * Create `<dataDir>/tessdata` with eng/por/spa (+ mrz) `.traineddata.gz`. Idempotent; copies only when the
 * size differs. Returns the folder and whether the MRZ model is present.
 */
export async function prepareTessdata(dataDir: string, mrzModelPath?: string | null): Promise<{ dir: string; hasMrz: boolean }> {
  const dir = path.join(dataDir, 'tessdata')
  await fs.promises.mkdir(dir, { recursive: true })
  const copy = async (src: string, dst: string) => {
    const s = await fs.promises.stat(src)
    const d = await fs.promises.stat(dst).catch(() => null)
    if (d && d.size === s.size) return
    const tmp = `${dst}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    await fs.promises.copyFile(src, tmp)
    await fs.promises.rename(tmp, dst)
  }
  for (const l of LANGS) await copy(pkgLangFile(l), path.join(dir, `${l}.traineddata.gz`))
  let hasMrz = false
  if (mrzModelPath) {
    if (!fs.existsSync(mrzModelPath)) throw new Error(`MRZ model not found: ${mrzModelPath}`)
    const dst = path.join(dir, 'mrz.traineddata.gz')
    if (mrzModelPath.endsWith('.gz')) await copy(mrzModelPath, dst)
    else {
      const { gzipSync } = await import('node:zlib')
      await fs.promises.writeFile(dst, gzipSync(await fs.promises.readFile(mrzModelPath)))
    }
    hasMrz = true
  }
  return { dir, hasMrz }
}

export interface OcrLine { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } }
export interface OcrPage {
  text: string
  confidence: number
  lines: OcrLine[]
  width: number
  height: number
  ms: number
  /** the preprocessed page the OCR ran on (for MRZ crops) */
  png?: Buffer
}

export interface VisualFields {
  nome: string | null
  documento_numero: string | null
  /** YYYY-MM-DD */
  data_nascimento: string | null
}

export interface DocumentReading {
  lang: OcrLang
  text: string
  confidence: number
  mrz: MrzResult | null
  /** 'mrz-model' | 'eng-whitelist' | null */
  mrzEngine: string | null
  /** fields from the visual zone (best effort), or from the MRZ when it is valid */
  fields: VisualFields
  /** OCR of the visual zone alone (for OCR-vs-MRZ consistency) */
  visual: VisualFields
  portrait: { box: Box; score: number; jpeg: Buffer; embedding: number[] | null } | null
  ms: { ocr: number; mrz: number; portrait: number; total: number }
}

export class OcrService {
  private workers = new Map<string, Promise<Worker>>()
  private queues = new Map<string, Promise<unknown>>()
  private constructor(private readonly dir: string, readonly hasMrzModel: boolean, private readonly onError: (e: unknown) => void) {}

  static async create(opts: OcrOptions): Promise<OcrService> {
    const { dir, hasMrz } = await prepareTessdata(opts.dataDir, opts.mrzModelPath)
    return new OcrService(dir, hasMrz, opts.onError ?? ((e) => console.error('tesseract:', e)))
  }

  /** worker per role, created on first use: 'eng' | 'por' | 'spa' | 'mrz' | 'eng-mrz' */
  private worker(role: string): Promise<Worker> {
    let w = this.workers.get(role)
    if (!w) {
      const lang = role === 'eng-mrz' ? 'eng' : role
      w = (async () => {
        const mrzRole = role === 'mrz' || role === 'eng-mrz'
        const worker = await createWorker(lang, 1, {
          langPath: this.dir,
          gzip: true,
          cacheMethod: 'none',
          errorHandler: this.onError,
        }, mrzRole ? { load_system_dawg: '0', load_freq_dawg: '0' } : {})
        if (mrzRole) await worker.setParameters({ tessedit_char_whitelist: MRZ_CHARS, tessedit_pageseg_mode: PSM.SINGLE_BLOCK })
        return worker
      })()
      w.catch(() => this.workers.delete(role))
      this.workers.set(role, w)
    }
    return w
  }

  /** run on the role's worker, one job at a time */
  private run<T>(role: string, fn: (w: Worker) => Promise<T>): Promise<T> {
    const prev = this.queues.get(role) ?? Promise.resolve()
    const p = prev.then(async () => fn(await this.worker(role)), async () => fn(await this.worker(role)))
    this.queues.set(role, p.catch(() => undefined))
    return p
  }

  /** Page OCR of an encoded image (validated), preprocessed: grey, ~1800 px wide, normalised. */
  async recognizePage(image: Uint8Array, lang: OcrLang = 'eng'): Promise<OcrPage> {
    const t0 = performance.now()
    const info = await inspectImage(image)
    const width = Math.min(1800, Math.max(1000, info.width))
    const pre = await sharp(Buffer.from(image.buffer, image.byteOffset, image.byteLength)).rotate().grayscale()
      .resize({ width, kernel: 'lanczos3' }).normalise().png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true })
    const { data } = await this.run(lang, (w) => w.recognize(pre.data, {}, { text: true, blocks: true }))
    const lines: OcrLine[] = (data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines))
      .map((l) => ({ text: l.text.trim(), confidence: l.confidence, bbox: l.bbox }))
    return { text: data.text ?? '', confidence: data.confidence ?? 0, lines, width: pre.info.width, height: pre.info.height, ms: performance.now() - t0, png: pre.data }
  }

  /**
   * MRZ from a page already OCR'd: find the MRZ-looking lines, crop with padding, re-read with the MRZ
   * model (or eng + whitelist), parse + repair. Falls back to the page text itself.
   */
  async readMrz(page: OcrPage): Promise<{ mrz: MrzResult | null; engine: string | null }> {
    const mrzLines = page.lines.filter((l) => {
      const s = cleanRow(l.text)
      return s.length >= 25 && ((l.text.match(/[<«]/g) ?? []).length >= 2 || /[<KLC]{5,}/.test(s))
    })
    const candidates: Array<{ mrz: MrzResult; engine: string }> = []
    if (mrzLines.length && page.png) {
      const lh = Math.max(...mrzLines.map((l) => l.bbox.y1 - l.bbox.y0))
      const left = Math.max(0, Math.min(...mrzLines.map((l) => l.bbox.x0)) - 0.6 * lh)
      const top = Math.max(0, Math.min(...mrzLines.map((l) => l.bbox.y0)) - 1.5 * lh)
      const right = Math.min(page.width, Math.max(...mrzLines.map((l) => l.bbox.x1)) + 0.6 * lh)
      const bottom = Math.min(page.height, Math.max(...mrzLines.map((l) => l.bbox.y1)) + 1.5 * lh)
      const cw = Math.round(right - left)
      const ch = Math.round(bottom - top)
      if (cw > 20 && ch > 10) {
        const crop = await sharp(page.png).extract({ left: Math.round(left), top: Math.round(top), width: cw, height: ch })
          .resize({ width: Math.min(2400, cw * 2) }).normalise().png().toBuffer()
        const roles = this.hasMrzModel ? ['mrz', 'eng-mrz'] : ['eng-mrz']
        for (const role of roles) {
          const { data } = await this.run(role, (w) => w.recognize(crop))
          const m = mrzFromText(data.text ?? '')
          if (m) candidates.push({ mrz: m, engine: role === 'mrz' ? 'mrz-model' : 'eng-whitelist' })
          if (m?.valid) break
        }
      }
    }
    // the page text itself (eng often reads the MRZ rows well enough for the repair step)
    const fromPage = pickMrzRows(page.text.split('\n'))
    if (fromPage) candidates.push({ mrz: parseMrz(fromPage.format, fromPage.rows), engine: 'page' })
    if (!candidates.length) return { mrz: null, engine: null }
    const rank = (c: { mrz: MrzResult }) => (c.mrz.valid ? 100 : 0) + c.mrz.checkDigits.filter((d) => d.valid).length * 10 - c.mrz.corrections * 0.1
    candidates.sort((a, b) => rank(b) - rank(a))
    const best = candidates[0]!
    return { mrz: best.mrz, engine: best.engine }
  }

  /** Full document reading. `country` picks the OCR language; `faces` (optional) locates the portrait. */
  async readDocument(image: Uint8Array, opts: { country?: string | null; faces?: FaceEngine | null; lang?: OcrLang } = {}): Promise<DocumentReading> {
    const t0 = performance.now()
    const lang = opts.lang ?? langForCountry(opts.country)
    const page = await this.recognizePage(image, lang)
    const tOcr = performance.now()
    let mrz: MrzResult | null = null
    let engine: string | null = null
    ;({ mrz, engine } = await this.readMrz(page))
    const tMrz = performance.now()
    const visual = extractVisualFields(page.text, lang)
    const fields: VisualFields = mrz && mrz.valid
      ? { nome: [mrz.givenNames, mrz.surname].filter(Boolean).join(' ') || visual.nome, documento_numero: mrz.documentNumber || visual.documento_numero, data_nascimento: mrz.birthDate ?? visual.data_nascimento }
      : visual
    let portrait: DocumentReading['portrait'] = null
    if (opts.faces) portrait = await locatePortrait(await decodeImage(image, { maxSide: 1600 }), opts.faces)
    const tEnd = performance.now()
    return {
      lang, text: page.text, confidence: page.confidence, mrz, mrzEngine: engine, fields, visual, portrait,
      ms: { ocr: tOcr - t0, mrz: tMrz - tOcr, portrait: tEnd - tMrz, total: tEnd - t0 },
    }
  }

  async terminate(): Promise<void> {
    const ws = [...this.workers.values()]
    this.workers.clear()
    await Promise.all(ws.map(async (w) => (await w.catch(() => null))?.terminate().catch(() => undefined)))
  }
}

/** Largest face on the document image (the printed portrait), cropped with a margin. */
export async function locatePortrait(img: DecodedImage, faces: FaceEngine): Promise<DocumentReading['portrait']> {
  const a = await faces.analyze(img, { embed: true, signals: false })
  const f = a.faces[0]
  if (!f) return null
  const m = 0.25
  const box = { x: f.box.x - f.box.width * m, y: f.box.y - f.box.height * m, width: f.box.width * (1 + 2 * m), height: f.box.height * (1 + 2 * m) }
  const crop = await cropImage(img, box)
  return { box: f.box, score: f.score, jpeg: await encodeJpeg(crop), embedding: a.embedding }
}

// ---------------------------------------------------------------------------------------------
// Visual zone (best effort, pure)
// ---------------------------------------------------------------------------------------------
const MONTHS: Record<string, number> = {
  JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12,
  FEV: 2, ABR: 4, MAI: 5, AGO: 8, SET: 9, OUT: 10, DEZ: 12, ENE: 1, DIC: 12,
}

/** First plausible date in a string as YYYY-MM-DD (dd/mm/yyyy, dd.mm.yyyy, dd-mm-yyyy, dd MMM yyyy). */
export function findDate(s: string): string | null {
  const up = s.toUpperCase()
  let m = /\b(\d{1,2})\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{4})\b/.exec(up)
  if (m) return ymd(Number(m[3]), Number(m[2]), Number(m[1]))
  m = /\b(\d{1,2})\s*[ ./-]?\s*([A-Z]{3})[A-Z]*\s*[./-]?\s*(?:[A-ZÀ-Ý]{3,5}\s*[./-]?\s*)?(\d{2,4})\b/.exec(up)
  if (m && MONTHS[m[2] as string]) {
    let y = Number(m[3])
    if (y < 100) y += y > new Date().getUTCFullYear() % 100 ? 1900 : 2000
    return ymd(y, MONTHS[m[2] as string] as number, Number(m[1]))
  }
  return null
}
const ymd = (y: number, mo: number, d: number): string | null =>
  y >= 1900 && y <= 2100 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 ? `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}` : null

const LABELS = {
  name: /\b(NOME|NOMBRE|NAME|SURNAME|APELLIDOS?|NOM|GIVEN NAMES?|PRENOMS?)\b/i,
  birth: /(NASCIMENTO|NACIMIENTO|BIRTH|NAISSANCE|NASC\.?)/i,
  number: /\b(REGISTRO GERAL|RG|CPF|DNI|N[ÚU]MERO|NUM\.?|NO\.?|DOCUMENT(O)? N|PASSPORT N|PASAPORTE|N[º°])\b/i,
}

/** nome / documento_numero / data_nascimento from a page of OCR text (label-then-value heuristics). */
export function extractVisualFields(text: string, _lang: OcrLang = 'eng'): VisualFields {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).filter((l) => (l.match(/</g) ?? []).length < 3)
  const valueAfter = (i: number, re: RegExp): string | null => {
    const line = lines[i] ?? ''
    const rest = line.replace(re, '').replace(/^[\s:./\-|]+/, '').replace(/^\s*\d\w?\.\s+/, '').trim()
    if (rest.length >= 3) return rest
    const next = lines[i + 1]
    return next && next.length >= 3 ? next : null
  }
  let nome: string | null = null
  let numero: string | null = null
  let nasc: string | null = null
  const surname: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string
    if (!nasc && LABELS.birth.test(l)) nasc = findDate(l) ?? findDate(lines[i + 1] ?? '')
    if (!nome && LABELS.name.test(l)) {
      const v = valueAfter(i, LABELS.name)
      const cleaned = v?.replace(/[^A-ZÀ-Ýa-zà-ý' -]/g, ' ').replace(/\s+/g, ' ').trim()
      if (cleaned && cleaned.length >= 3 && /[A-ZÀ-Ý]{2}/.test(cleaned)) {
        if (/SURNAME|APELLIDO/i.test(l) && surname.length === 0) surname.push(cleaned)
        else nome = cleaned
      }
    }
    if (!numero && LABELS.number.test(l)) {
      const m = /([A-Z]{0,3}\d[\dA-Z.\-/]{4,})/.exec((valueAfter(i, LABELS.number) ?? '').toUpperCase())
      if (m) numero = (m[1] as string).replace(/[.\-/]/g, '')
    }
  }
  if (surname.length) nome = nome ? `${nome} ${surname[0]}` : (surname[0] as string)
  if (!nasc) {
    // the earliest date on the page is usually the birth date
    const dates = lines.map(findDate).filter((d): d is string => !!d).sort()
    nasc = dates[0] ?? null
  }
  if (!numero) {
    const m = /\b([A-Z]{1,2}\d{6,9}|\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{8}[A-Z])\b/.exec(lines.join(' ').toUpperCase())
    if (m) numero = (m[1] as string).replace(/[.\-]/g, '')
  }
  return { nome, documento_numero: numero, data_nascimento: nasc }
}

