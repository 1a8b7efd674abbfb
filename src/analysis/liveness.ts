/**
 * Active liveness: the server picks a challenge, the client sends a burst of 8-15 frames.
 * Decided from per-frame signals (pure functions below, unit-testable without models):
 *  - the challenge was performed (blink / smile / turn / wave),
 *  - the same face in every frame (embedding similarity to the first frame),
 *  - not a replayed still (frame-to-frame pixel differences ~ 0),
 *  - antispoof / liveness model scores: reported as signals and a small score term, never a gate
 *    (they did not separate reproductions from live photos on this data).
 *
 * Wave: Human's hand detector (handtrack) is used when it sees a hand; it is slow-ish and misses blurred,
 * partly out-of-frame hands, so the decision also accepts a motion-energy signal: the mean absolute
 * frame difference in the regions left/right of the face must be high (a moving hand) while the face
 * region itself stays comparatively still.
 */
import type { DecodedImage } from './image.js'
import type { Box, FaceEngine } from './face.js'

export type Challenge = 'blink' | 'smile' | 'turn' | 'wave'
export const CHALLENGES: Challenge[] = ['blink', 'smile', 'turn', 'wave']

export type LivenessReason =
  | 'no_face'
  | 'multiple_faces'
  | 'face_changed'
  | 'static_replay'
  | 'challenge_not_performed'
  | 'too_few_frames'

export interface FrameSignals {
  faces: number
  box: Box | null
  eyeOpen: number | null
  yaw: number | null
  happy: number | null
  mouthOpen: number | null
  real: number | null
  live: number | null
  /** hand box centres (x, normalised 0..1) seen in this frame */
  hands: number[]
  /** mean |Δ luminance| (0..255) to the previous frame, whole frame; null on the first */
  diffPrev: number | null
  /** same, in the face box */
  diffFace: number | null
  /** same, in the bands left and right of the face (where a waving hand is) */
  diffSide: number | null
}

export interface ChallengeResult { performed: boolean; detail: Record<string, number | null> }

export interface LivenessResult {
  score: number
  passed: boolean
  reason: LivenessReason | null
  signals: {
    challenge: Challenge
    frames: number
    framesWithFace: number
    challengeDetail: Record<string, number | null>
    performed: boolean
    minFaceSimilarity: number | null
    medianFrameDiff: number | null
    maxFrameDiff: number | null
    antispoof: number | null
    live: number | null
    perFrame?: FrameSignals[]
  }
}

// ---------------------------------------------------------------------------------------------
// Challenge detectors (pure)
// ---------------------------------------------------------------------------------------------
const nums = (xs: Array<number | null | undefined>): number[] => xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x))
export const median = (xs: number[]): number | null => {
  if (!xs.length) return null
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

/** Blink: open -> closed (EAR below 60 % of the open level) -> open again. */
export function detectBlink(eyeOpen: Array<number | null>, opts = { closedRatio: 0.6, minOpen: 0.18 }): ChallengeResult {
  const v = nums(eyeOpen)
  const open = v.length ? Math.max(...v) : null
  if (open === null || v.length < 3 || open < opts.minOpen) return { performed: false, detail: { open, closed: v.length ? Math.min(...v) : null } }
  const thr = open * opts.closedRatio
  let state: 'open' | 'closed' | 'reopened' = 'open'
  let seenOpen = false
  for (const e of eyeOpen) {
    if (e === null) continue
    if (state === 'open') {
      if (e >= thr) seenOpen = true
      else if (seenOpen) state = 'closed'
    } else if (state === 'closed' && e >= thr) {
      state = 'reopened'
      break
    }
  }
  return { performed: state === 'reopened', detail: { open, closed: Math.min(...v), ratio: Math.min(...v) / open } }
}

/** Smile: `happy` rises from low (< 0.35) to high (>= 0.6) later in the burst, by at least 0.35. */
export function detectSmile(happy: Array<number | null>, opts = { low: 0.35, high: 0.6, rise: 0.35 }): ChallengeResult {
  let minSoFar = Infinity
  let bestRise = -Infinity
  let peak: number | null = null
  for (const h of happy) {
    if (h === null) continue
    minSoFar = Math.min(minSoFar, h)
    if (h - minSoFar > bestRise) { bestRise = h - minSoFar; peak = h }
  }
  const v = nums(happy)
  const performed = v.length >= 2 && minSoFar <= opts.low && (peak ?? 0) >= opts.high && bestRise >= opts.rise
  return { performed, detail: { min: v.length ? Math.min(...v) : null, max: v.length ? Math.max(...v) : null, rise: Number.isFinite(bestRise) ? bestRise : null } }
}

/** Turn: the head yaw spans at least `minRange` degrees during the burst. */
export function detectTurn(yaw: Array<number | null>, opts = { minRange: 20 }): ChallengeResult {
  const v = nums(yaw)
  if (v.length < 2) return { performed: false, detail: { range: null } }
  const range = Math.max(...v) - Math.min(...v)
  return { performed: range >= opts.minRange, detail: { range, min: Math.min(...v), max: Math.max(...v) } }
}

/**
 * Wave: a hand seen in >= 2 frames moving >= 8 % of the frame width, or motion energy beside the face:
 * median side diff >= `minSide` and >= `ratio` x the face-region diff in at least 3 frames.
 */
export function detectWave(frames: Array<Pick<FrameSignals, 'hands' | 'diffSide' | 'diffFace'>>, opts = { minTravel: 0.08, minSide: 6, ratio: 1.8 }): ChallengeResult {
  const xs = frames.flatMap((f) => f.hands)
  const handFrames = frames.filter((f) => f.hands.length > 0).length
  const travel = xs.length ? Math.max(...xs) - Math.min(...xs) : 0
  const byHand = handFrames >= 2 && travel >= opts.minTravel
  const moving = frames.filter((f) => f.diffSide !== null && (f.diffSide as number) >= opts.minSide && (f.diffSide as number) >= opts.ratio * Math.max(1, f.diffFace ?? 0)).length
  const byMotion = moving >= 3
  return { performed: byHand || byMotion, detail: { handFrames, travel, movingFrames: moving, sideMedian: median(nums(frames.map((f) => f.diffSide))) } }
}

export function detectChallenge(challenge: Challenge, frames: FrameSignals[]): ChallengeResult {
  switch (challenge) {
    case 'blink': return detectBlink(frames.map((f) => (f.faces ? f.eyeOpen : null)))
    case 'smile': return detectSmile(frames.map((f) => (f.faces ? f.happy : null)))
    case 'turn': return detectTurn(frames.map((f) => (f.faces ? f.yaw : null)))
    case 'wave': return detectWave(frames)
  }
}

/** A still image replayed: consecutive frames (almost) identical. JPEG re-encoding noise stays well below 1.0. */
export function detectStaticReplay(diffs: Array<number | null>, opts = { medianBelow: 1.0, maxBelow: 2.5 }): { replay: boolean; median: number | null; max: number | null } {
  const v = nums(diffs)
  if (!v.length) return { replay: false, median: null, max: null }
  const med = median(v) as number
  const max = Math.max(...v)
  return { replay: med < opts.medianBelow && max < opts.maxBelow, median: med, max }
}

export interface DecideOptions {
  /** face-similarity threshold of the engine */
  threshold: number
  minFrames?: number
  includePerFrame?: boolean
}

/** The decision from per-frame signals and the similarities of sampled frames to the first (pure). */
export function decideLiveness(challenge: Challenge, frames: FrameSignals[], faceSims: number[], opts: DecideOptions): LivenessResult {
  const n = frames.length
  const withFace = frames.filter((f) => f.faces >= 1).length
  const multi = frames.filter((f) => f.faces >= 2).length
  const ch = detectChallenge(challenge, frames)
  const replay = detectStaticReplay(frames.map((f) => f.diffPrev))
  const minSim = faceSims.length ? Math.min(...faceSims) : null
  const anti = median(nums(frames.map((f) => f.real)))
  const live = median(nums(frames.map((f) => f.live)))
  let reason: LivenessReason | null = null
  if (n < (opts.minFrames ?? 3)) reason = 'too_few_frames'
  else if (withFace < Math.ceil(n * 0.7)) reason = 'no_face'
  else if (multi > Math.floor(n * 0.3)) reason = 'multiple_faces'
  else if (replay.replay) reason = 'static_replay'
  else if (minSim !== null && minSim < opts.threshold) reason = 'face_changed'
  else if (!ch.performed) reason = 'challenge_not_performed'
  // score: challenge 45, same face 20, not a replay 20, face present 5, model signals 10
  const faceTerm = minSim === null ? 0 : Math.max(0, Math.min(1, (minSim - opts.threshold * 0.8) / (opts.threshold * 0.2 + 1e-9)))
  const motionTerm = replay.median === null ? 0 : Math.max(0, Math.min(1, replay.median / 2))
  const modelTerm = anti === null && live === null ? 0.5 : ((anti ?? 0.5) + (live ?? 0.5)) / 2
  let score = 45 * (ch.performed ? 1 : 0) + 20 * faceTerm + 20 * motionTerm + 5 * (withFace / Math.max(1, n)) + 10 * modelTerm
  if (reason) score = Math.min(score, 40)
  score = Math.round(Math.max(0, Math.min(100, score)))
  return {
    score,
    passed: reason === null,
    reason,
    signals: {
      challenge,
      frames: n,
      framesWithFace: withFace,
      challengeDetail: ch.detail,
      performed: ch.performed,
      minFaceSimilarity: minSim,
      medianFrameDiff: replay.median,
      maxFrameDiff: replay.max,
      antispoof: anti,
      live,
      ...(opts.includePerFrame ? { perFrame: frames } : {}),
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Frame measurements
// ---------------------------------------------------------------------------------------------
const GW = 96
const GH = 72

/** 96x72 luminance thumbnail sampled from the RGB frame (nearest pixel; cheap, no resampling library). */
export function lumaThumb(img: DecodedImage): Float32Array {
  const out = new Float32Array(GW * GH)
  for (let y = 0; y < GH; y++) {
    const sy = Math.min(img.height - 1, Math.floor(((y + 0.5) * img.height) / GH))
    for (let x = 0; x < GW; x++) {
      const sx = Math.min(img.width - 1, Math.floor(((x + 0.5) * img.width) / GW))
      const i = (sy * img.width + sx) * 3
      out[y * GW + x] = 0.299 * (img.data[i] ?? 0) + 0.587 * (img.data[i + 1] ?? 0) + 0.114 * (img.data[i + 2] ?? 0)
    }
  }
  return out
}

/** mean |a-b| over a region given in thumbnail cells (x0..x1, y0..y1 exclusive); null when empty */
export function regionDiff(a: Float32Array, b: Float32Array, x0 = 0, y0 = 0, x1 = GW, y1 = GH): number | null {
  let s = 0
  let n = 0
  for (let y = Math.max(0, y0); y < Math.min(GH, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(GW, x1); x++) {
      s += Math.abs((a[y * GW + x] ?? 0) - (b[y * GW + x] ?? 0))
      n++
    }
  }
  return n ? s / n : null
}

export interface AnalyzeLivenessOptions {
  /** how many frames get an identity embedding (spread over the burst). Default 3 */
  embedFrames?: number
  /** run the hand detector for `wave`. Default true */
  hands?: boolean
  includePerFrame?: boolean
  /** a reference embedding (stored / document): similarities of the embedded frames to it are returned */
  reference?: number[] | null
}

export interface LivenessAnalysis extends LivenessResult {
  /** embedding of the best frame (largest face) for matching, null without a face */
  embedding: number[] | null
  /** similarity of each embedded frame to `reference` */
  referenceSims: number[]
  ms: number
}

/** Run the engine over the burst and decide. */
export async function analyzeLiveness(engine: FaceEngine, challenge: Challenge, frames: DecodedImage[], opts: AnalyzeLivenessOptions = {}): Promise<LivenessAnalysis> {
  const t0 = performance.now()
  const k = Math.max(1, Math.min(frames.length, opts.embedFrames ?? 3))
  const embedIdx = new Set(Array.from({ length: k }, (_, i) => Math.round((i * (frames.length - 1)) / Math.max(1, k - 1))))
  const signals: FrameSignals[] = []
  const embeddings: number[][] = []
  let prevThumb: Float32Array | null = null
  let bestEmb: number[] | null = null
  let bestArea = 0
  for (let i = 0; i < frames.length; i++) {
    const img = frames[i] as DecodedImage
    // only the models the challenge needs on every frame; antispoof/liveness on the embedded frames only
    const sampled = embedIdx.has(i)
    const signalSet = {
      mesh: challenge === 'blink' || challenge === 'turn' || sampled,
      emotion: challenge === 'smile',
      antispoof: sampled,
    }
    const a = await engine.analyze(img, { embed: sampled, signals: signalSet, hands: challenge === 'wave' && (opts.hands ?? true) })
    // ignore tiny background faces (< 25 % of the main face area)
    const main = a.faces[0]
    const faces = main ? a.faces.filter((f) => f.box.width * f.box.height >= 0.25 * main.box.width * main.box.height) : []
    const thumb = lumaThumb(img)
    let diffPrev: number | null = null
    let diffFace: number | null = null
    let diffSide: number | null = null
    if (prevThumb) {
      diffPrev = regionDiff(thumb, prevThumb)
      if (main) {
        const fx0 = Math.floor((main.box.x / img.width) * GW)
        const fx1 = Math.ceil(((main.box.x + main.box.width) / img.width) * GW)
        const fy0 = Math.floor((main.box.y / img.height) * GH)
        const fy1 = Math.ceil(((main.box.y + main.box.height) / img.height) * GH)
        diffFace = regionDiff(thumb, prevThumb, fx0, fy0, fx1, fy1)
        const w = fx1 - fx0
        const left = regionDiff(thumb, prevThumb, fx0 - Math.round(1.5 * w), fy0 - w, fx0 - 1, fy1 + w)
        const right = regionDiff(thumb, prevThumb, fx1 + 1, fy0 - w, fx1 + Math.round(1.5 * w), fy1 + w)
        diffSide = Math.max(left ?? 0, right ?? 0)
      }
    }
    prevThumb = thumb
    if (a.embedding) {
      embeddings.push(a.embedding)
      const area = main ? main.box.width * main.box.height : 0
      if (area > bestArea) { bestArea = area; bestEmb = a.embedding }
    }
    signals.push({
      faces: faces.length,
      box: main?.box ?? null,
      eyeOpen: main?.signals.eyeOpen ?? null,
      yaw: main?.signals.yaw ?? null,
      happy: main?.signals.happy ?? null,
      mouthOpen: main?.signals.mouthOpen ?? null,
      real: main?.signals.real ?? null,
      live: main?.signals.live ?? null,
      hands: a.hands.filter((h) => h.score >= 0.3).map((h) => (h.box.x + h.box.width / 2) / img.width),
      diffPrev, diffFace, diffSide,
    })
  }
  const first = embeddings[0]
  const sims = first ? embeddings.slice(1).map((e) => engine.similarity(first, e)) : []
  const ref = opts.reference
  const referenceSims = ref ? embeddings.map((e) => engine.similarity(ref, e)) : []
  const decision = decideLiveness(challenge, signals, sims, { threshold: engine.threshold, includePerFrame: opts.includePerFrame ?? false })
  return { ...decision, embedding: bestEmb, referenceSims, ms: performance.now() - t0 }
}
