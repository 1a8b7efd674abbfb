import { describe, it, expect, beforeAll } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { decodeImage } from '../../src/analysis/image.js'
import { HumanFaceEngine, CALIBRATION, DEFAULT_MODEL, similarityToScore, euclidSimilarity, cosine } from '../../src/analysis/face.js'
import { FakeFaceEngine } from '../../src/analysis/face-fake.js'
import { FACES, hasData } from './helpers.js'

const EXCLUDED = new Set(['fr-two-people.jpg', 'fr-obama-partial.jpg'])
const identity = (f: string) => {
  const b = f.replace(/\.[a-z]+$/i, '')
  return b.startsWith('emoa') ? 'emoa' : b.startsWith('emob') ? 'emob' : b.startsWith('vlado') ? 'vlado' : b.replace(/-?\d+x?$/, '')
}

describe('face calibration (pure)', () => {
  it('maps the threshold to 60 and is monotonic', () => {
    const cal = CALIBRATION[DEFAULT_MODEL]
    expect(similarityToScore(cal.threshold, cal)).toBe(60)
    expect(similarityToScore(cal.low, cal)).toBe(0)
    expect(similarityToScore(cal.high, cal)).toBe(100)
    expect(similarityToScore(cal.threshold - 0.01, cal)).toBeLessThan(60)
    expect(euclidSimilarity([1, 0], [1, 0])).toBe(1)
    expect(euclidSimilarity([1, 0], [0, 1])).toBe(0)
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1)
  })

  it('fake engine: deterministic, same picture ~1, blank = no face', async () => {
    const e = new FakeFaceEngine()
    const mk = (f: (x: number, y: number) => number) => {
      const data = new Uint8Array(64 * 48 * 3)
      for (let y = 0; y < 48; y++) for (let x = 0; x < 64; x++) data.fill(f(x, y), (y * 64 + x) * 3, (y * 64 + x) * 3 + 3)
      return { data, width: 64, height: 48, channels: 3 as const, format: 'png' as const }
    }
    const a = await e.analyze(mk((x, y) => (x * 4 + y) % 256))
    const b = await e.analyze(mk((x, y) => (x * 4 + y) % 256))
    const c = await e.analyze(mk((x, y) => (y * 5) % 256))
    expect(a.embedding).toEqual(b.embedding)
    expect(e.similarity(a.embedding!, b.embedding!)).toBeCloseTo(1)
    expect(e.similarity(a.embedding!, c.embedding!)).toBeLessThan(e.threshold)
    expect((await e.analyze(mk(() => 128))).faces).toHaveLength(0)
  })
})

describe.skipIf(!hasData)('real face engine on data/faces', () => {
  const engine = new HumanFaceEngine({ hands: false })
  const emb = new Map<string, number[]>()
  beforeAll(async () => {
    await engine.init()
    for (const f of fs.readdirSync(FACES).filter((x) => /\.(jpe?g|png)$/i.test(x)).sort()) {
      const a = await engine.analyze(await decodeImage(fs.readFileSync(path.join(FACES, f)), { maxSide: 1280 }), { embed: true, signals: false })
      if (f === 'fr-two-people.jpg') expect(a.faces.length).toBe(2)
      if (a.embedding && !EXCLUDED.has(f)) emb.set(f, a.embedding)
    }
  }, 180_000)

  it('embeds every usable image', () => {
    expect(emb.size).toBe(42) // 44 stills minus fr-two-people and fr-obama-partial
  })

  it('same-person pairs score above different-person pairs at the chosen threshold (EER 1.38 % measured)', () => {
    const files = [...emb.keys()]
    let sameN = 0, sameRejected = 0, diffN = 0, diffAccepted = 0
    for (let i = 0; i < files.length; i++) for (let j = i + 1; j < files.length; j++) {
      const s = engine.similarity(emb.get(files[i]!)!, emb.get(files[j]!)!)
      if (identity(files[i]!) === identity(files[j]!)) { sameN++; if (s < engine.threshold) sameRejected++ }
      else { diffN++; if (s >= engine.threshold) diffAccepted++ }
    }
    expect(sameN).toBe(73)
    expect(diffN).toBe(788)
    // at the EER threshold both error rates are ~1.4 %; allow up to 3 %
    expect(sameRejected / sameN).toBeLessThanOrEqual(0.03)
    expect(diffAccepted / diffN).toBeLessThanOrEqual(0.03)
  })

  it('the calibrated score says match for the same person and not for another', () => {
    const s1 = engine.toScore(engine.similarity(emb.get('fr-obama-1.jpg')!, emb.get('fr-obama-2.jpg')!))
    const s2 = engine.toScore(engine.similarity(emb.get('fr-obama-1.jpg')!, emb.get('fr-biden-1.jpg')!))
    expect(s1).toBeGreaterThanOrEqual(60)
    expect(s2).toBeLessThan(60)
  })

  it('does not leak tensors', async () => {
    const img = await decodeImage(fs.readFileSync(path.join(FACES, 'vladox.jpg')), { maxSide: 640 })
    await engine.analyze(img)
    const before = engine.numTensors()
    for (let i = 0; i < 3; i++) await engine.analyze(img, { embed: true, signals: true, hands: false })
    expect(engine.numTensors()).toBe(before)
  })
})
