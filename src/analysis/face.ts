/**
 * Face engine: detection, liveness signals and identity embeddings.
 *
 * Real implementation: @vladmandic/human (tfjs wasm backend, models read from node_modules through a
 * file loader registered with tf.io.registerLoadRouter: no network) for detection, the 468-point mesh
 * (eyes, mouth, yaw), emotion (`happy`), antispoof/liveness scores and hands; plus the 128-d recognition
 * ResNet of @vladmandic/face-api run on the SAME tfjs-core instance / wasm backend (see loadFaceApi: its
 * node-wasm build requires the umbrella package `@tensorflow/tfjs`, which we answer with tfjs-core +
 * tfjs-converter, after registering the chained tensor methods that the umbrella package would add).
 * face-api gets Human's mesh-derived face crop (its own SSD + 68-landmark pipeline costs ~450 ms more
 * per image; measured in bench/face-eer.ts).
 *
 * One engine instance = models loaded once; calls are serialised (Human is not re-entrant).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import type { DecodedImage } from './image.js'

const require = createRequire(import.meta.url)

// ---------------------------------------------------------------------------------------------
// Public interface (also implemented by face-fake.ts)
// ---------------------------------------------------------------------------------------------

export type EmbeddingModel = 'faceapi' | 'faceres'

export interface Box { x: number; y: number; width: number; height: number }

/** Per-face signals used by liveness challenges (all from the mesh / side models; null when unavailable). */
export interface FaceSignals {
  /** eye aspect ratio (lid gap / eye width), ~0.25-0.35 open, < 0.15 closed; mean of both eyes */
  eyeOpen: number | null
  eyeOpenLeft: number | null
  eyeOpenRight: number | null
  /** head yaw in degrees (sign: subject turning to image-left is negative) */
  yaw: number | null
  pitch: number | null
  roll: number | null
  /** inner-lip gap / mouth width */
  mouthOpen: number | null
  /** emotion model `happy` probability 0..1 */
  happy: number | null
  /** Human antispoof model (1 = real) and liveness model (1 = live); signals only, never gates */
  real: number | null
  live: number | null
}

export interface DetectedFace {
  box: Box
  score: number
  signals: FaceSignals
}

export interface HandBox { box: Box; score: number }

export interface FaceAnalysis {
  width: number
  height: number
  /** sorted by area, largest first */
  faces: DetectedFace[]
  /** embedding of faces[0] (largest face), when requested and a face was found */
  embedding: number[] | null
  hands: HandBox[]
  ms: number
}

export interface AnalyzeOptions {
  /** compute the identity embedding of the largest face (default true) */
  embed?: boolean
  /** run mesh/emotion/antispoof/liveness for signals (default true); an object picks models (cheaper) */
  signals?: boolean | SignalSet
  /** run the hand detector (default false) */
  hands?: boolean
}

export interface SignalSet { mesh?: boolean; emotion?: boolean; antispoof?: boolean }

export interface FaceEngine {
  readonly kind: 'real' | 'fake'
  readonly model: EmbeddingModel
  /** similarity (0..1) at or above which two embeddings are the same person */
  readonly threshold: number
  init(): Promise<void>
  analyze(img: DecodedImage, opts?: AnalyzeOptions): Promise<FaceAnalysis>
  /** similarity of two embeddings in 0..1 (the metric the model is calibrated on) */
  similarity(a: ArrayLike<number>, b: ArrayLike<number>): number
  /** calibrated 0..100 score: threshold -> 60 */
  toScore(similarity: number): number
  dispose(): Promise<void>
}

// ---------------------------------------------------------------------------------------------
// Calibration, measured with `npx tsx bench/face-eer.ts` on the 42 identity stills of /work/shared/data/faces
// (73 same-person pairs, 788 different-person pairs; decode maxSide 1280):
//   face-api 128-d, Human mesh crop (face-api's alignDlib box), eyes levelled, similarity = 1 - euclidean distance:
//       EER 1.38 % at similarity 0.3975 (distance 0.6025, face-api's published 0.6), ~100 ms/image detect+mesh+embed
//       (same metric: no levelling 2.77 %, levelling + mirror averaging 1.45 %; cosine instead of euclid 2.83 %;
//        face-api's own SSD + 68-landmark pipeline 4.09 % (cosine) at 311 ms/image)
//   Human faceres, cosine: EER 12.32 % at 0.478 (euclid 15.1 %), ~145 ms/image
// => DEFAULT_MODEL = 'faceapi', threshold 0.3975.
// ---------------------------------------------------------------------------------------------
export interface Calibration {
  /** similarity at the equal error rate: maps to score 60 */
  threshold: number
  /** similarity mapped to score 0 (median of different-person pairs) */
  low: number
  /** similarity mapped to score 100 (90th percentile of same-person pairs) */
  high: number
}

export const CALIBRATION: Record<EmbeddingModel, Calibration> = {
  faceapi: { threshold: 0.3975, low: 0.159, high: 0.632 },
  faceres: { threshold: 0.478, low: 0.369, high: 0.764 },
}

/** Chosen by equal error rate (above): face-api 1.38 % vs faceres 12.32 %. */
export const DEFAULT_MODEL: EmbeddingModel = 'faceapi'

export const MATCH_SCORE = 60

/** The metric each model is calibrated on: face-api 1 - euclidean distance (clamped), faceres cosine. */
export function similarityFor(model: EmbeddingModel, a: ArrayLike<number>, b: ArrayLike<number>): number {
  return model === 'faceapi' ? euclidSimilarity(a, b) : cosine(a, b)
}

export function euclidSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0
  let d = 0
  for (let i = 0; i < a.length; i++) d += ((a[i] as number) - (b[i] as number)) ** 2
  return Math.max(0, Math.min(1, 1 - Math.sqrt(d)))
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length)
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < n; i++) {
    const x = a[i] as number
    const y = b[i] as number
    dot += x * y
    na += x * x
    nb += y * y
  }
  if (na === 0 || nb === 0) return 0
  return Math.max(0, Math.min(1, dot / Math.sqrt(na * nb)))
}

/** Piecewise-linear calibrated score: low -> 0, threshold -> 60, high -> 100. */
export function similarityToScore(sim: number, cal: Calibration): number {
  let s: number
  if (sim <= cal.low) s = 0
  else if (sim < cal.threshold) s = (MATCH_SCORE * (sim - cal.low)) / (cal.threshold - cal.low)
  else if (sim < cal.high) s = MATCH_SCORE + ((100 - MATCH_SCORE) * (sim - cal.threshold)) / (cal.high - cal.threshold)
  else s = 100
  return Math.round(Math.max(0, Math.min(100, s)) * 10) / 10
}

// ---------------------------------------------------------------------------------------------
// Mesh-derived signals (pure, exported for tests)
// ---------------------------------------------------------------------------------------------
type Pt = [number, number, number?] | number[]

const dist2d = (a: Pt | undefined, b: Pt | undefined): number =>
  a && b ? Math.hypot((a[0] ?? 0) - (b[0] ?? 0), (a[1] ?? 0) - (b[1] ?? 0)) : NaN

/** Eye aspect ratio from MediaPipe mesh indices (corners, upper/lower lid). */
export function eyeAspect(mesh: Pt[], side: 'left' | 'right'): number | null {
  const [c1, c2, u1, l1, u2, l2] = side === 'right' ? [33, 133, 159, 145, 160, 144] : [362, 263, 386, 374, 385, 380]
  const w = dist2d(mesh[c1], mesh[c2])
  const h = (dist2d(mesh[u1], mesh[l1]) + dist2d(mesh[u2], mesh[l2])) / 2
  if (!Number.isFinite(w) || !Number.isFinite(h) || w <= 0) return null
  return h / w
}

export function mouthAspect(mesh: Pt[]): number | null {
  const w = dist2d(mesh[78], mesh[308])
  const h = dist2d(mesh[13], mesh[14])
  if (!Number.isFinite(w) || !Number.isFinite(h) || w <= 0) return null
  return h / w
}

/** MediaPipe mesh indices of the dlib-68 eye contours (36-41, 42-47) and mouth (48-67). */
const MESH_EYE_A = [33, 160, 158, 133, 153, 144]
const MESH_EYE_B = [362, 385, 387, 263, 373, 380]
const MESH_MOUTH = [61, 39, 37, 0, 267, 269, 291, 405, 314, 17, 84, 181, 78, 82, 13, 312, 308, 317, 14, 87]

const centroid = (mesh: Pt[], idx: number[]): [number, number] | null => {
  let x = 0, y = 0, n = 0
  for (const i of idx) {
    const p = mesh[i]
    if (!p) continue
    x += p[0] ?? 0; y += p[1] ?? 0; n++
  }
  return n ? [x / n, y / n] : null
}

/**
 * The crop face-api's recognition net was used with: its `alignDlib` rule (what `withFaceDescriptor()` does):
 * reference points = both eye centres + mouth centre; side = mean eye-to-mouth distance / 0.45; the square
 * starts 0.5 side left and 0.43 side above the centroid of the three points. Computed from Human's mesh.
 */
export function faceApiCropBox(mesh: Pt[] | null, fallback: Box): Box {
  const a = mesh && mesh.length >= 468 ? centroid(mesh, MESH_EYE_A) : null
  const b = mesh && mesh.length >= 468 ? centroid(mesh, MESH_EYE_B) : null
  const m = mesh && mesh.length >= 468 ? centroid(mesh, MESH_MOUTH) : null
  if (!a || !b || !m) return { ...fallback }
  const d = (Math.hypot(m[0] - a[0], m[1] - a[1]) + Math.hypot(m[0] - b[0], m[1] - b[1])) / 2
  const side = Math.floor(d / 0.45)
  if (!(side >= 8)) return { ...fallback }
  const cx = (a[0] + b[0] + m[0]) / 3
  const cy = (a[1] + b[1] + m[1]) / 3
  return { x: Math.floor(Math.max(0, cx - 0.5 * side)), y: Math.floor(Math.max(0, cy - 0.43 * side)), width: side, height: side }
}

// ---------------------------------------------------------------------------------------------
// Library loading (once per thread)
// ---------------------------------------------------------------------------------------------
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyObj = any

interface Libs { H: AnyObj; tf: AnyObj }
let libs: Libs | null = null
let faceApi: AnyObj | null = null
let routerRegistered = false

/** Root folder of an installed package (some `exports` maps hide package.json): walk up from its entry. */
export function packageRoot(name: string): string {
  let dir = path.dirname(require.resolve(name))
  for (;;) {
    const pj = path.join(dir, 'package.json')
    if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).name === name) return dir
    const up = path.dirname(dir)
    if (up === dir) throw new Error(`package root of ${name} not found`)
    dir = up
  }
}
export const humanModelDir = (): string => path.join(packageRoot('@vladmandic/human'), 'models')
export const faceApiModelDir = (): string => path.join(packageRoot('@vladmandic/face-api'), 'model')
const wasmDir = (): string => path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep

function loadLibs(): Libs {
  if (libs) return libs
  // package.json `exports` of Human lacks './' prefixes: load the node-wasm build by file path
  const H = require(path.join(packageRoot('@vladmandic/human'), 'dist', 'human.node-wasm.js'))
  const tf = require('@tensorflow/tfjs-core')
  registerChainedOps(tf)
  if (!routerRegistered) {
    tf.io.registerLoadRouter(fileLoadRouter)
    routerRegistered = true
  }
  libs = { H, tf }
  return libs
}

/** tf.io handler for file:// model.json URLs: reads topology + shards from disk (no fetch, no network). */
function fileLoadRouter(url: string | string[]): AnyObj {
  const u = Array.isArray(url) ? url[0] : url
  if (typeof u !== 'string' || !u.startsWith('file://')) return null
  const file = u.slice('file://'.length)
  return {
    load: async () => {
      const json = JSON.parse(await fs.promises.readFile(file, 'utf8'))
      const dir = path.dirname(file)
      const specs: unknown[] = []
      const bufs: Buffer[] = []
      for (const group of json.weightsManifest) {
        specs.push(...group.weights)
        for (const p of group.paths) bufs.push(await fs.promises.readFile(path.join(dir, p)))
      }
      const all = Buffer.concat(bufs)
      const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength)
      return {
        modelTopology: json.modelTopology,
        weightSpecs: specs,
        weightData,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        // without these two Human's models load but never detect anything
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        modelInitializer: json.modelInitializer,
      }
    },
  }
}

/**
 * The tensor methods (`t.as3D()`, `t.toFloat()`, ...) that the umbrella `@tensorflow/tfjs` package registers
 * and face-api relies on; tfjs-core's CJS bundle does not register them. Same semantics as
 * tfjs-core/dist/public/chained_ops.
 */
function registerChainedOps(tf: AnyObj): void {
  const T = tf.Tensor.prototype
  if (T.__chainedOpsShim) return
  const generic = ('abs acos acosh add all any argMax argMin asin asinh atan atan2 atanh batchToSpaceND broadcastTo cast ceil ' +
    'clipByValue conv1d conv2d cos cosh cumprod cumsum depthToSpace div divNoNan dot elu equal erf euclideanNorm exp expandDims ' +
    'expm1 fft floor floorDiv gather greater greaterEqual ifft irfft isFinite isInf isNaN leakyRelu less lessEqual log log1p ' +
    'logSigmoid logSoftmax logSumExp logicalAnd logicalNot logicalOr logicalXor matMul max maximum mean min minimum mirrorPad mod ' +
    'mul neg norm notEqual oneHot onesLike pad pool pow prelu prod reciprocal relu relu6 reshape reverse rfft round rsqrt selu ' +
    'sigmoid sign sin sinh slice softmax softplus spaceToBatchND split sqrt square squaredDifference squeeze step stridedSlice ' +
    'sub sum tan tanh tile topk transpose unique unstack zerosLike').split(' ')
  for (const n of generic) {
    if (!T[n] && typeof tf[n] === 'function') T[n] = function (this: unknown, ...a: unknown[]) { return tf[n](this, ...a) }
  }
  const def = (n: string, f: (this: AnyObj, ...a: AnyObj[]) => unknown) => { if (!T[n]) T[n] = f }
  def('as1D', function () { return tf.reshape(this, [this.size]) })
  def('as2D', function (a, b) { return tf.reshape(this, [a, b]) })
  def('as3D', function (a, b, c) { return tf.reshape(this, [a, b, c]) })
  def('as4D', function (a, b, c, d) { return tf.reshape(this, [a, b, c, d]) })
  def('as5D', function (a, b, c, d, e) { return tf.reshape(this, [a, b, c, d, e]) })
  def('asScalar', function () { return tf.reshape(this, []) })
  def('asType', function (d) { return tf.cast(this, d) })
  def('toFloat', function () { return tf.cast(this, 'float32') })
  def('toInt', function () { return tf.cast(this, 'int32') })
  def('toBool', function () { return tf.cast(this, 'bool') })
  def('flatten', function () { return tf.reshape(this, [this.size]) })
  def('reshapeAs', function (x) { return tf.reshape(this, x.shape) })
  def('concat', function (x, axis) { return tf.concat(x instanceof tf.Tensor ? [this, x] : [this, ...x], axis) })
  def('stack', function (x, axis) { return tf.stack(x instanceof tf.Tensor ? [this, x] : [this, ...x], axis) })
  def('where', function (c, x) { return tf.where(c, this, x) })
  def('batchNorm', function (m, v, o, s, e) { return tf.batchNorm(this, m, v, o, s, e) })
  T.__chainedOpsShim = true
}

/**
 * Load @vladmandic/face-api's node-wasm build on our tfjs-core. It does `require("@tensorflow/tfjs")`
 * (not installed: the umbrella package pulls layers/data/webgl); we hand it tfjs-core + tfjs-converter,
 * i.e. the very instance Human uses, so there is ONE engine, ONE wasm backend and one tensor registry.
 */
export function loadFaceApi(): AnyObj {
  if (faceApi) return faceApi
  const { tf } = loadLibs()
  const Module = require('node:module') as AnyObj
  const shim = { ...tf, ...require('@tensorflow/tfjs-converter') }
  const orig = Module._load
  Module._load = function (request: string, ...rest: unknown[]) {
    if (request === '@tensorflow/tfjs') return shim
    return orig.call(this, request, ...rest)
  }
  try {
    faceApi = require(path.join(packageRoot('@vladmandic/face-api'), 'dist', 'face-api.node-wasm.js'))
  } finally {
    Module._load = orig
  }
  return faceApi
}

// ---------------------------------------------------------------------------------------------
// Real engine
// ---------------------------------------------------------------------------------------------
export interface HumanEngineOptions {
  model?: EmbeddingModel
  /** also load the hand models (wave challenge). Default true */
  hands?: boolean
  /** max faces reported. Default 5 */
  maxFaces?: number
  /** minimum detector confidence. Default 0.3 */
  minConfidence?: number
  /** override the calibration of the chosen model */
  calibration?: Calibration
  /** face-api: also embed the mirrored crop and average (test-time augmentation; no gain measured). Default false */
  flip?: boolean
  /** face-api: rotate the crop so the eyes are level before embedding (EER 2.77 % -> 1.38 %). Default true */
  levelEyes?: boolean
}

export class HumanFaceEngine implements FaceEngine {
  readonly kind = 'real' as const
  readonly model: EmbeddingModel
  readonly threshold: number
  private readonly cal: Calibration
  private human: AnyObj = null
  private tf: AnyObj = null
  private fa: AnyObj = null
  private initP: Promise<void> | null = null
  private queue: Promise<unknown> = Promise.resolve()
  private readonly opts: Required<Omit<HumanEngineOptions, 'calibration' | 'model'>>

  constructor(opts: HumanEngineOptions = {}) {
    this.model = opts.model ?? DEFAULT_MODEL
    this.cal = opts.calibration ?? CALIBRATION[this.model]
    this.threshold = this.cal.threshold
    this.opts = {
      hands: opts.hands ?? true,
      maxFaces: opts.maxFaces ?? 5,
      minConfidence: opts.minConfidence ?? 0.3,
      flip: opts.flip ?? false,
      levelEyes: opts.levelEyes ?? true,
    }
  }

  private config(o: { embed: boolean; signals: boolean | SignalSet; hands: boolean }): AnyObj {
    const all = o.signals === true
    const set: SignalSet = typeof o.signals === 'object' ? o.signals : {}
    const mesh = all || !!set.mesh
    const emotion = all || !!set.emotion
    const anti = all || !!set.antispoof
    return {
      backend: 'wasm',
      modelBasePath: 'file://' + humanModelDir() + '/',
      wasmPath: wasmDir(),
      debug: false,
      async: true,
      warmup: 'none',
      cacheSensitivity: 0, // never reuse results between images (server use)
      cacheModels: false,
      filter: { enabled: false },
      gesture: { enabled: false },
      face: {
        enabled: true,
        detector: { rotation: false, maxDetected: this.opts.maxFaces, minConfidence: this.opts.minConfidence, return: false },
        mesh: { enabled: mesh || (o.embed && this.model === 'faceapi') },
        iris: { enabled: false },
        attention: { enabled: false },
        emotion: { enabled: emotion },
        description: { enabled: o.embed && this.model === 'faceres' },
        antispoof: { enabled: anti },
        liveness: { enabled: anti },
      },
      body: { enabled: false },
      hand: {
        enabled: o.hands && this.opts.hands,
        maxDetected: 2,
        minConfidence: 0.3,
        landmarks: false,
        detector: { modelPath: 'handtrack.json' },
        skeleton: { modelPath: 'handlandmark-lite.json' },
      },
      object: { enabled: false },
      segmentation: { enabled: false },
    }
  }

  init(): Promise<void> {
    if (!this.initP) this.initP = this.doInit()
    return this.initP
  }

  private async doInit(): Promise<void> {
    const { H, tf } = loadLibs()
    this.tf = tf
    // load every model we may use once; per-call configs only switch them on/off
    this.human = new H.Human(this.config({ embed: true, signals: true, hands: true }))
    if (this.model === 'faceres') this.human.config.face.description.enabled = true
    await this.human.init()
    if (tf.getBackend() !== 'wasm') throw new Error(`tfjs backend is ${tf.getBackend()}, expected wasm`)
    await this.human.load()
    if (this.model === 'faceapi') {
      this.fa = loadFaceApi()
      if (!this.fa.nets.faceRecognitionNet.isLoaded) await this.fa.nets.faceRecognitionNet.loadFromDisk(faceApiModelDir())
    }
    // warm-up: the first inference compiles kernels (~350 ms); do it at load, not on the first request
    const w = 160
    const data = new Uint8Array(w * w * 3).fill(128)
    await this.analyze({ data, width: w, height: w, channels: 3, format: 'png' }, { embed: true, signals: true, hands: this.opts.hands })
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn)
    this.queue = p.catch(() => undefined)
    return p
  }

  async analyze(img: DecodedImage, opts: AnalyzeOptions = {}): Promise<FaceAnalysis> {
    if (!this.human) await this.init()
    return this.serial(() => this.run(img, opts))
  }

  private async run(img: DecodedImage, opts: AnalyzeOptions): Promise<FaceAnalysis> {
    const t0 = performance.now()
    const embed = opts.embed ?? true
    const sig = opts.signals ?? true
    const signals = sig !== false
    const hands = opts.hands ?? false
    const tf = this.tf
    const input = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32')
    let res: AnyObj
    try {
      res = await this.human.detect(input, this.config({ embed, signals: sig, hands }))
    } finally {
      tf.dispose(input)
    }
    if (res.error) throw new Error(`face detection failed: ${res.error}`)
    const faces: Array<DetectedFace & { mesh: Pt[] | null; emb?: number[] }> = (res.face as AnyObj[]).map((f) => {
      const mesh: Pt[] | null = Array.isArray(f.mesh) && f.mesh.length >= 468 ? f.mesh : null
      const happy = Array.isArray(f.emotion) ? (f.emotion.find((e: AnyObj) => e.emotion === 'happy')?.score ?? 0) : null
      const ang = f.rotation?.angle
      const l = mesh && signals ? eyeAspect(mesh, 'left') : null
      const r = mesh && signals ? eyeAspect(mesh, 'right') : null
      return {
        box: { x: f.box[0], y: f.box[1], width: f.box[2], height: f.box[3] },
        score: f.score ?? f.boxScore ?? 0,
        mesh,
        emb: f.embedding,
        signals: {
          eyeOpen: l !== null && r !== null ? (l + r) / 2 : (l ?? r),
          eyeOpenLeft: l,
          eyeOpenRight: r,
          yaw: signals && ang ? (ang.yaw * 180) / Math.PI : null,
          pitch: signals && ang ? (ang.pitch * 180) / Math.PI : null,
          roll: signals && ang ? (ang.roll * 180) / Math.PI : null,
          mouthOpen: mesh && signals ? mouthAspect(mesh) : null,
          happy: signals ? happy : null,
          real: signals && typeof f.real === 'number' ? f.real : null,
          live: signals && typeof f.live === 'number' ? f.live : null,
        },
      }
    })
    faces.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)
    let embedding: number[] | null = null
    const best = faces[0]
    if (embed && best) {
      if (this.model === 'faceres') embedding = best.emb && best.emb.length ? Array.from(best.emb) : null
      else embedding = await this.faceApiDescriptor(img, faceApiCropBox(best.mesh, best.box), this.opts.levelEyes ? eyeLineAngle(best.mesh) : 0)
    }
    const handList: HandBox[] = hands
      ? (res.hand as AnyObj[]).map((h) => ({ box: { x: h.box[0], y: h.box[1], width: h.box[2], height: h.box[3] }, score: h.score ?? h.boxScore ?? 0 }))
      : []
    return {
      width: img.width,
      height: img.height,
      faces: faces.map(({ box, score, signals: s }) => ({ box, score, signals: s })),
      embedding,
      hands: handList,
      ms: performance.now() - t0,
    }
  }

  /** 128-d face-api descriptor of a box of the image (face-api's own extraction: clamp, centred zero pad, 150 px). */
  private async faceApiDescriptor(img: DecodedImage, box: Box, angle: number): Promise<number[]> {
    const tf = this.tf
    const crop = faceCropTensor(tf, img, box, angle)
    let flipped: AnyObj = null
    try {
      const d = Array.from((await this.fa.nets.faceRecognitionNet.computeFaceDescriptor(crop)) as Float32Array)
      if (!this.opts.flip) return d
      flipped = tf.tidy(() => tf.reverse(crop, 1))
      const f = (await this.fa.nets.faceRecognitionNet.computeFaceDescriptor(flipped)) as Float32Array
      return d.map((v, i) => (v + (f[i] ?? 0)) / 2)
    } finally {
      tf.dispose(crop)
      if (flipped) tf.dispose(flipped)
    }
  }

  similarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
    return similarityFor(this.model, a, b)
  }

  toScore(sim: number): number {
    return similarityToScore(sim, this.cal)
  }

  async dispose(): Promise<void> {
    // models stay with the thread (loaded once); nothing per-call is kept
    this.human = null
    this.initP = null
  }

  /** live tensors (for leak tests) */
  numTensors(): number {
    return this.tf ? this.tf.memory().numTensors : 0
  }
}

/** Angle (radians) of the line between the eye centres, for levelling. */
export function eyeLineAngle(mesh: Pt[] | null): number {
  const a = mesh && mesh.length >= 468 ? centroid(mesh, MESH_EYE_A) : null
  const b = mesh && mesh.length >= 468 ? centroid(mesh, MESH_EYE_B) : null
  if (!a || !b) return 0
  return Math.atan2(b[1] - a[1], b[0] - a[0])
}

/**
 * Box of the RGB image (clamped to the image, like face-api's clipAtImageBorders), zero-padded to a centred
 * square, resized to 150x150: float32 [150,150,3] 0..255. With `angle`, the face is first rotated level.
 */
function faceCropTensor(tf: AnyObj, img: DecodedImage, box: Box, angle: number): AnyObj {
  // with rotation take a larger window so the corners stay filled, rotate about its centre, cut the middle
  const grow = angle ? 1.5 : 1
  const cx = box.x + box.width / 2
  const cy = box.y + box.height / 2
  const bw = box.width * grow
  const bh = box.height * grow
  const x = Math.max(0, Math.floor(cx - bw / 2))
  const y = Math.max(0, Math.floor(cy - bh / 2))
  const w = Math.max(1, Math.min(img.width - x, Math.ceil(bw)))
  const h = Math.max(1, Math.min(img.height - y, Math.ceil(bh)))
  // copy the crop rows on the JS side (cheaper than uploading the whole frame)
  const buf = new Uint8Array(w * h * 3)
  for (let r = 0; r < h; r++) {
    const src = ((y + r) * img.width + x) * 3
    buf.set(img.data.subarray(src, src + w * 3), r * w * 3)
  }
  return tf.tidy(() => {
    let t = tf.cast(tf.tensor3d(buf, [h, w, 3], 'int32'), 'float32')
    if (angle) {
      const rot = tf.image.rotateWithOffset(tf.expandDims(t, 0), angle, 0, [(cx - x) / w, (cy - y) / h])
      const ow = Math.max(1, Math.min(w, Math.round(box.width)))
      const oh = Math.max(1, Math.min(h, Math.round(box.height)))
      const ox = Math.max(0, Math.min(w - ow, Math.round(cx - x - ow / 2)))
      const oy = Math.max(0, Math.min(h - oh, Math.round(cy - y - oh / 2)))
      t = tf.slice(tf.squeeze(rot, [0]), [oy, ox, 0], [oh, ow, 3])
    }
    const [th, tw] = t.shape as [number, number]
    const side = Math.max(tw, th)
    const padH = side - th
    const padW = side - tw
    const sq = tf.pad(t, [[Math.floor(padH / 2), Math.ceil(padH / 2)], [Math.floor(padW / 2), Math.ceil(padW / 2)], [0, 0]])
    return tf.image.resizeBilinear(sq, [150, 150])
  })
}

/** Engine used when nothing is injected (one per thread). */
let shared: HumanFaceEngine | null = null
export function getSharedFaceEngine(opts?: HumanEngineOptions): HumanFaceEngine {
  if (!shared) shared = new HumanFaceEngine(opts)
  return shared
}
