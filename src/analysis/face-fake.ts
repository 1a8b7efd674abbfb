/**
 * FAKE face engine, for fast unit tests of code that consumes a FaceEngine (ANALYSIS_ENGINE=fake).
 * It runs no model: it never recognises anybody and must never be used in production.
 *
 * Deterministic rules, derived from the pixels only:
 * - an image whose luminance is almost uniform (std-dev < 4) has no face; otherwise one face, centred,
 *   half the shorter side wide, score 0.99;
 * - the embedding is the mean-centred, L2-normalised 16x8 luminance grid of the image (128 numbers): the same
 *   picture (or a re-encoded copy) gives similarity ~1, unrelated pictures much less;
 * - signals: eyeOpen/happy/yaw/mouthOpen are read from the mean of the red channel of the top-left 8x8 block
 *   (so tests can script a burst by painting that block): eyeOpen = r/255*0.4, happy = g/255, yaw = (b-128)/2.
 */
import type { DecodedImage } from './image.js'
import type { AnalyzeOptions, FaceAnalysis, FaceEngine, EmbeddingModel } from './face.js'
import { cosine } from './face.js'

export class FakeFaceEngine implements FaceEngine {
  readonly kind = 'fake' as const
  readonly model: EmbeddingModel = 'faceapi'
  readonly threshold = 0.9

  async init(): Promise<void> {}

  async analyze(img: DecodedImage, opts: AnalyzeOptions = {}): Promise<FaceAnalysis> {
    const t0 = performance.now()
    const { data, width, height } = img
    const gw = 16
    const gh = 8
    const grid = new Float64Array(gw * gh)
    const cnt = new Float64Array(gw * gh)
    let sum = 0
    let sum2 = 0
    let n = 0
    const step = Math.max(1, Math.floor(Math.sqrt((width * height) / 20_000)))
    for (let y = 0; y < height; y += step) {
      for (let x = 0; x < width; x += step) {
        const i = (y * width + x) * 3
        const l = 0.299 * (data[i] ?? 0) + 0.587 * (data[i + 1] ?? 0) + 0.114 * (data[i + 2] ?? 0)
        const g = Math.min(gh - 1, Math.floor((y * gh) / height)) * gw + Math.min(gw - 1, Math.floor((x * gw) / width))
        grid[g] = (grid[g] ?? 0) + l
        cnt[g] = (cnt[g] ?? 0) + 1
        sum += l
        sum2 += l * l
        n++
      }
    }
    const mean = sum / Math.max(1, n)
    const std = Math.sqrt(Math.max(0, sum2 / Math.max(1, n) - mean * mean))
    if (std < 4) return { width, height, faces: [], embedding: null, hands: [], ms: performance.now() - t0 }
    const emb = Array.from(grid, (v, i) => v / Math.max(1, cnt[i] ?? 1) - mean)
    const norm = Math.hypot(...emb) || 1
    const side = Math.min(width, height) / 2
    // scripted signals from the top-left 8x8 block
    let r = 0, g = 0, b = 0, k = 0
    for (let y = 0; y < Math.min(8, height); y++) for (let x = 0; x < Math.min(8, width); x++) {
      const i = (y * width + x) * 3
      r += data[i] ?? 0; g += data[i + 1] ?? 0; b += data[i + 2] ?? 0; k++
    }
    r /= k; g /= k; b /= k
    return {
      width,
      height,
      faces: [{
        box: { x: (width - side) / 2, y: (height - side) / 2, width: side, height: side },
        score: 0.99,
        signals: {
          eyeOpen: (r / 255) * 0.4, eyeOpenLeft: (r / 255) * 0.4, eyeOpenRight: (r / 255) * 0.4,
          yaw: (b - 128) / 2, pitch: 0, roll: 0, mouthOpen: 0, happy: g / 255, real: 0.9, live: 0.9,
        },
      }],
      embedding: opts.embed === false ? null : emb.map((v) => v / norm),
      hands: [],
      ms: performance.now() - t0,
    }
  }

  similarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
    return cosine(a, b)
  }

  toScore(sim: number): number {
    return Math.round(Math.max(0, Math.min(100, sim <= 0.5 ? 0 : sim < 0.9 ? ((sim - 0.5) / 0.4) * 60 : 60 + ((sim - 0.9) / 0.1) * 40)) * 10) / 10
  }

  async dispose(): Promise<void> {}
}
