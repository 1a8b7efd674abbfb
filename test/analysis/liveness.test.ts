import { describe, it, expect, beforeAll } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import sharp from 'sharp'
import { decodeImage, type DecodedImage } from '../../src/analysis/image.js'
import { HumanFaceEngine } from '../../src/analysis/face.js'
import { analyzeLiveness, decideLiveness, detectBlink, detectSmile, detectTurn, detectWave, detectStaticReplay, type FrameSignals } from '../../src/analysis/liveness.js'
import { FACES, hasData, tmpDir } from './helpers.js'

const frame = (o: Partial<FrameSignals> = {}): FrameSignals => ({
  faces: 1, box: { x: 0, y: 0, width: 10, height: 10 }, eyeOpen: 0.3, yaw: 0, happy: 0.1, mouthOpen: 0.05, real: 0.8, live: 0.9,
  hands: [], diffPrev: 5, diffFace: 3, diffSide: 2, ...o,
})

describe('challenge detectors (pure)', () => {
  it('blink needs open -> closed -> open', () => {
    expect(detectBlink([0.3, 0.31, 0.1, 0.29, 0.3]).performed).toBe(true)
    expect(detectBlink([0.3, 0.31, 0.29, 0.3]).performed).toBe(false) // never closed
    expect(detectBlink([0.3, 0.3, 0.1, 0.1]).performed).toBe(false) // never reopened
    expect(detectBlink([0.1, 0.1, 0.1]).performed).toBe(false) // eyes never open
  })
  it('smile needs happy rising', () => {
    expect(detectSmile([0.05, 0.1, 0.5, 0.9]).performed).toBe(true)
    expect(detectSmile([0.9, 0.8, 0.1, 0.05]).performed).toBe(false) // falling
    expect(detectSmile([0.1, 0.2, 0.3]).performed).toBe(false)
  })
  it('turn needs a yaw span', () => {
    expect(detectTurn([0, -5, -15, -25, -10]).performed).toBe(true)
    expect(detectTurn([0, 3, -4, 2]).performed).toBe(false)
  })
  it('wave: moving hand or side motion energy', () => {
    expect(detectWave([{ hands: [0.2], diffSide: 1, diffFace: 1 }, { hands: [0.35], diffSide: 1, diffFace: 1 }]).performed).toBe(true)
    expect(detectWave([{ hands: [0.2], diffSide: 1, diffFace: 1 }, { hands: [0.21], diffSide: 1, diffFace: 1 }]).performed).toBe(false)
    const moving = Array.from({ length: 5 }, () => ({ hands: [], diffSide: 20, diffFace: 3 }))
    expect(detectWave(moving).performed).toBe(true)
    const whole = Array.from({ length: 5 }, () => ({ hands: [], diffSide: 20, diffFace: 18 })) // camera shake
    expect(detectWave(whole).performed).toBe(false)
  })
  it('static replay from frame differences', () => {
    expect(detectStaticReplay([null, 0.3, 0.4, 0.2]).replay).toBe(true)
    expect(detectStaticReplay([null, 3, 0, 5]).replay).toBe(false)
  })
  it('decision reasons', () => {
    const smile = [0.05, 0.1, 0.4, 0.8, 0.9, 0.9].map((h) => frame({ happy: h }))
    const ok = decideLiveness('smile', smile, [0.6, 0.6], { threshold: 0.4 })
    expect(ok).toMatchObject({ passed: true, reason: null })
    expect(ok.score).toBeGreaterThanOrEqual(70)
    expect(decideLiveness('blink', smile, [0.6], { threshold: 0.4 }).reason).toBe('challenge_not_performed')
    expect(decideLiveness('smile', smile, [0.6, 0.2], { threshold: 0.4 }).reason).toBe('face_changed')
    expect(decideLiveness('smile', smile.map((f) => ({ ...f, diffPrev: 0.2 })), [0.9], { threshold: 0.4 }).reason).toBe('static_replay')
    expect(decideLiveness('smile', smile.map((f) => ({ ...f, faces: 0 })), [], { threshold: 0.4 }).reason).toBe('no_face')
    expect(decideLiveness('smile', smile.map((f) => ({ ...f, faces: 2 })), [0.6], { threshold: 0.4 }).reason).toBe('multiple_faces')
    expect(decideLiveness('smile', smile.slice(0, 2), [0.6], { threshold: 0.4 }).reason).toBe('too_few_frames')
  })
})

describe.skipIf(!hasData)('liveness on real frames', () => {
  const engine = new HumanFaceEngine()
  const dec = (b: Buffer) => decodeImage(b, { maxSide: 640 })
  beforeAll(async () => { await engine.init() }, 120_000)

  it('a still image replayed as a burst (with JPEG re-encoding noise) fails with static_replay', async () => {
    const still = fs.readFileSync(path.join(FACES, 'vlado1x.jpg'))
    const frames = await Promise.all(Array.from({ length: 10 }, (_, i) => sharp(still).jpeg({ quality: 75 + i * 2 }).toBuffer().then(dec)))
    for (const ch of ['blink', 'smile', 'turn'] as const) {
      const r = await analyzeLiveness(engine, ch, frames)
      expect(r.passed).toBe(false)
      expect(r.reason).toBe('static_replay')
    }
  }, 60_000)

  it('a smile sequence of one person (emoa1..8) passes the smile challenge', async () => {
    const frames = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => dec(fs.readFileSync(path.join(FACES, `emoa${i}.jpg`)))))
    const r = await analyzeLiveness(engine, 'smile', frames)
    expect(r.signals.performed).toBe(true)
    expect(r.reason).toBeNull()
    expect(r.passed).toBe(true)
  }, 60_000)

  it('frames of two different people fail with face_changed', async () => {
    const files = ['emoa1.jpg', 'emoa2.jpg', 'emoa3.jpg', 'emob4.jpg', 'emob5.jpg', 'emob7.jpg']
    const frames = await Promise.all(files.map((f) => dec(fs.readFileSync(path.join(FACES, f)))))
    const r = await analyzeLiveness(engine, 'smile', frames, { embedFrames: 6 })
    expect(r.reason).toBe('face_changed')
  }, 60_000)

  it('video frames (fr-hamilton-clip.mp4 via ffmpeg) are not taken for a replay', async () => {
    const dir = tmpDir('ham-')
    try {
      execFileSync('ffmpeg', ['-loglevel', 'error', '-i', path.join(FACES, 'fr-hamilton-clip.mp4'), '-vf', 'fps=4', path.join(dir, 'f%02d.jpg')])
    } catch { console.warn('ffmpeg unavailable: skipping'); return }
    const files = fs.readdirSync(dir).sort().slice(0, 10)
    const frames: DecodedImage[] = await Promise.all(files.map((f) => dec(fs.readFileSync(path.join(dir, f)))))
    const r = await analyzeLiveness(engine, 'turn', frames)
    expect(r.reason).not.toBe('static_replay')
    expect(r.signals.medianFrameDiff!).toBeGreaterThan(1)
    fs.rmSync(dir, { recursive: true, force: true })
  }, 60_000)
})
