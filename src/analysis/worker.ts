/**
 * The analysis operations (analyzeKyc, analyzeAuth, compareFaces, readDocument, hashImage) and the
 * worker_threads entry that runs them with models loaded once per thread. Inputs/outputs are plain
 * structured-cloneable objects. Importing this module on the main thread does not start anything:
 * `createAnalyzer()` can also be used in-process (tests, CLI).
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads'
import { AppError, isAppError, type ErrorCode } from '../errors.js'
import { decodeImage, perceptualHash, type DecodedImage } from './image.js'
import { HumanFaceEngine, type FaceEngine } from './face.js'
import { FakeFaceEngine } from './face-fake.js'
import { OcrService, locatePortrait, type DocumentReading, type OcrLang } from './ocr.js'
import { analyzeLiveness, type Challenge, type LivenessResult } from './liveness.js'
import { computeAntifraud, type AntifraudResult } from './antifraud.js'
import { scoreKyc, scoreAuth, DEFAULT_SCORING, type Mode, type KycScore, type AuthScore, type ScoringConfig } from './scoring.js'

export interface AnalyzerOptions {
  engine: 'real' | 'fake'
  /** writable directory for the tessdata folder (e.g. DATA_DIR) */
  dataDir: string
  mrzModelPath?: string | null
  scoring?: ScoringConfig
  /** longest side frames are decoded to for face work. Default 640 (selfies), documents 1600 */
  frameMaxSide?: number
  /** frames of a burst that get an identity embedding. Default 3 */
  embedFrames?: number
}

export interface KycInput {
  mode: Mode
  challenge: Challenge
  /** encoded JPEG/PNG/WebP frames of the selfie burst (8-15) */
  frames: Uint8Array[]
  /** FULL_KYC: the document image */
  document?: Uint8Array | null
  country?: string | null
  documentReused?: boolean
  faceSeenUnderOtherExternalId?: boolean
  /** YYYY-MM-DD, default today */
  today?: string
}

export interface DocumentOutput {
  lang: OcrLang
  text: string
  confidence: number
  mrz: DocumentReading['mrz']
  mrzEngine: string | null
  fields: DocumentReading['fields']
  visual: DocumentReading['visual']
  portrait: { box: { x: number; y: number; width: number; height: number }; score: number; jpeg: Uint8Array } | null
  /** dHash of the document image (anti-fraud: reuse across sessions) */
  hash: string
  ms: DocumentReading['ms']
}

export interface KycOutput extends KycScore {
  mode: Mode
  liveness_result: LivenessResult
  antifraud: AntifraudResult | null
  document: DocumentOutput | null
  /** embedding of the selfie (to store for Auth 1:1) */
  embedding: number[] | null
  model: string
  ms: number
}

export interface AuthInput {
  challenge: Challenge
  frames: Uint8Array[]
  storedEmbedding: number[]
}

export interface AuthOutput extends AuthScore {
  similarity: number | null
  liveness_result: LivenessResult
  ms: number
}

export interface CompareOutput { similarity: number; raw: number; match: boolean; model: string; ms: number }

export interface Analyzer {
  analyzeKyc(input: KycInput): Promise<KycOutput>
  analyzeAuth(input: AuthInput): Promise<AuthOutput>
  compareFaces(a: Uint8Array, b: Uint8Array): Promise<CompareOutput>
  readDocument(img: Uint8Array, country?: string | null): Promise<DocumentOutput>
  hashImage(img: Uint8Array): Promise<string>
  close(): Promise<void>
}

/** Stand-in OCR for ANALYSIS_ENGINE=fake: reads nothing, never used in production. */
const fakeReading = (): DocumentReading => ({
  lang: 'eng', text: '', confidence: 0, mrz: null, mrzEngine: null,
  fields: { nome: null, documento_numero: null, data_nascimento: null },
  visual: { nome: null, documento_numero: null, data_nascimento: null },
  portrait: null, ms: { ocr: 0, mrz: 0, portrait: 0, total: 0 },
})

export async function createAnalyzer(opts: AnalyzerOptions): Promise<Analyzer> {
  const faces: FaceEngine = opts.engine === 'fake' ? new FakeFaceEngine() : new HumanFaceEngine()
  await faces.init()
  // OCR workers start on the first document (face-only uses never touch the tessdata folder)
  let ocrP: Promise<OcrService> | null = null
  const getOcr = (): Promise<OcrService> | null => {
    if (opts.engine === 'fake') return null
    if (!ocrP) {
      ocrP = OcrService.create({ dataDir: opts.dataDir, mrzModelPath: opts.mrzModelPath ?? null })
      ocrP.catch(() => { ocrP = null })
    }
    return ocrP
  }
  const scoring = opts.scoring ?? DEFAULT_SCORING
  const maxSide = opts.frameMaxSide ?? 640
  const decodeFrames = (frames: Uint8Array[]): Promise<DecodedImage[]> => {
    if (!Array.isArray(frames) || frames.length === 0) throw new AppError('invalid_request', 'no frames were sent')
    if (frames.length > 30) throw new AppError('invalid_request', 'too many frames (at most 30)')
    return Promise.all(frames.map((f) => decodeImage(f, { maxSide })))
  }

  const readDocument = async (img: Uint8Array, country?: string | null): Promise<DocumentOutput> => {
    const hash = await perceptualHash(img)
    let r: DocumentReading
    const ocr = getOcr()
    if (ocr) r = await (await ocr).readDocument(img, { country: country ?? null, faces })
    else {
      r = fakeReading()
      r.portrait = await locatePortrait(await decodeImage(img, { maxSide: 1600 }), faces)
    }
    return {
      lang: r.lang, text: r.text, confidence: r.confidence, mrz: r.mrz, mrzEngine: r.mrzEngine, fields: r.fields, visual: r.visual,
      portrait: r.portrait ? { box: r.portrait.box, score: r.portrait.score, jpeg: new Uint8Array(r.portrait.jpeg) } : null,
      hash, ms: r.ms,
      // the portrait embedding stays in-thread (analyzeKyc uses it)
      ...({ _embedding: r.portrait?.embedding ?? null } as object),
    } as DocumentOutput
  }

  return {
    async analyzeKyc(input) {
      const t0 = performance.now()
      const frames = await decodeFrames(input.frames)
      const full = input.mode === 'FULL_KYC'
      let doc: (DocumentOutput & { _embedding?: number[] | null }) | null = null
      if (full) {
        if (!input.document) throw new AppError('invalid_request', 'FULL_KYC needs a document image')
        doc = await readDocument(input.document, input.country)
      }
      const docEmb = doc?._embedding ?? null
      const live = await analyzeLiveness(faces, input.challenge, frames, { embedFrames: opts.embedFrames ?? 3, reference: docEmb })
      const selfieHasFace = live.signals.framesWithFace > 0 && live.embedding !== null
      let faceMatch: number | null = null
      if (full && docEmb && live.referenceSims.length) faceMatch = faces.toScore(Math.max(...live.referenceSims))
      const antifraud = full
        ? computeAntifraud({
            mrz: doc?.mrz ?? null, visual: doc?.visual ?? null,
            documentReused: input.documentReused, faceSeenUnderOtherExternalId: input.faceSeenUnderOtherExternalId,
            today: input.today ? new Date(input.today + 'T00:00:00Z') : new Date(),
          })
        : input.documentReused || input.faceSeenUnderOtherExternalId
          ? computeAntifraud({ mrz: null, documentReused: input.documentReused, faceSeenUnderOtherExternalId: input.faceSeenUnderOtherExternalId })
          : null
      const documentReadable = !full || opts.engine === 'fake' || !!(doc && (doc.mrz || doc.fields.nome || doc.fields.documento_numero))
      const s = scoreKyc({
        mode: input.mode, face_match: faceMatch, liveness: live.score, livenessPassed: live.passed, antifraud,
        selfieHasFace, documentHasFace: full ? !!doc?.portrait : undefined, documentReadable,
      }, scoring)
      if (doc) delete doc._embedding
      return { ...s, mode: input.mode, liveness_result: strip(live), antifraud, document: doc, embedding: live.embedding, model: `${faces.kind}:${faces.model}`, ms: performance.now() - t0 }
    },

    async analyzeAuth(input) {
      const t0 = performance.now()
      if (!Array.isArray(input.storedEmbedding) || input.storedEmbedding.length === 0) throw new AppError('no_embedding', 'no stored face embedding for this person')
      const frames = await decodeFrames(input.frames)
      const live = await analyzeLiveness(faces, input.challenge, frames, { embedFrames: opts.embedFrames ?? 3, reference: input.storedEmbedding })
      const sim = live.referenceSims.length ? Math.max(...live.referenceSims) : null
      const s = scoreAuth({ score_facial: sim === null ? null : faces.toScore(sim), score_liveness: live.score, livenessPassed: live.passed }, scoring)
      return { ...s, similarity: sim, liveness_result: strip(live), ms: performance.now() - t0 }
    },

    async compareFaces(a, b) {
      const t0 = performance.now()
      const [ia, ib] = await Promise.all([decodeImage(a, { maxSide: 1280 }), decodeImage(b, { maxSide: 1280 })])
      const ra = await faces.analyze(ia, { embed: true, signals: false })
      const rb = await faces.analyze(ib, { embed: true, signals: false })
      if (!ra.embedding || !rb.embedding) throw new AppError('invalid_image', `no face found in the ${!ra.embedding ? 'first' : 'second'} image`)
      const raw = faces.similarity(ra.embedding, rb.embedding)
      return { similarity: faces.toScore(raw), raw, match: raw >= faces.threshold, model: `${faces.kind}:${faces.model}`, ms: performance.now() - t0 }
    },

    async readDocument(img, country) {
      const d = await readDocument(img, country) as DocumentOutput & { _embedding?: unknown }
      delete d._embedding
      return d
    },

    hashImage: (img) => perceptualHash(img),

    async close() {
      if (ocrP) await (await ocrP.catch(() => null))?.terminate()
      await faces.dispose()
    },
  }
}

const strip = (l: LivenessResult & { embedding?: unknown; referenceSims?: unknown; ms?: unknown }): LivenessResult => ({
  score: l.score, passed: l.passed, reason: l.reason, signals: l.signals,
})

// ---------------------------------------------------------------------------------------------
// worker_threads entry
// ---------------------------------------------------------------------------------------------
export interface WorkerRequest { id: number; op: 'analyzeKyc' | 'analyzeAuth' | 'compareFaces' | 'readDocument' | 'hashImage' | 'crash'; args: unknown[] }
export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { message: string; code?: ErrorCode; details?: Record<string, unknown>; stack?: string } }
  | { id: -1; ready: true }
  | { id: -1; ready: false; error: string }

/** ArrayBuffers of the Uint8Arrays inside a result (to transfer instead of copy). */
export function transferables(v: unknown, out: ArrayBuffer[] = [], seen = new Set<unknown>()): ArrayBuffer[] {
  if (!v || typeof v !== 'object' || seen.has(v)) return out
  seen.add(v)
  if (v instanceof Uint8Array) {
    if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && v.buffer instanceof ArrayBuffer && !out.includes(v.buffer)) out.push(v.buffer)
    return out
  }
  for (const x of Array.isArray(v) ? v : Object.values(v)) transferables(x, out, seen)
  return out
}

if (!isMainThread && parentPort && (workerData as { kind?: string } | null)?.kind === 'analysis-worker') {
  const port = parentPort
  const options = (workerData as { options: AnalyzerOptions }).options
  createAnalyzer(options).then(
    (an) => {
      port.postMessage({ id: -1, ready: true } satisfies WorkerResponse)
      port.on('message', async (req: WorkerRequest) => {
        try {
          if (req.op === 'crash') process.exit(3) // test hook: simulate a native crash
          const fn = an[req.op] as (...a: unknown[]) => Promise<unknown>
          if (typeof fn !== 'function') throw new Error(`unknown op ${req.op}`)
          const result = await fn(...req.args)
          port.postMessage({ id: req.id, ok: true, result } satisfies WorkerResponse, transferables(result))
        } catch (e) {
          const err = isAppError(e)
            ? { message: e.message, code: e.code, details: e.details }
            : { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined }
          port.postMessage({ id: req.id, ok: false, error: err } satisfies WorkerResponse)
        }
      })
    },
    (e) => {
      port.postMessage({ id: -1, ready: false, error: e instanceof Error ? e.stack ?? e.message : String(e) } satisfies WorkerResponse)
    },
  )
}
