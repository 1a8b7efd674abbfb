/**
 * Equal error rate of the face embeddings on ALL images of /work/shared/data/faces.
 *   npx tsx bench/face-eer.ts            (env FACES_DIR to point elsewhere, FULL_FACEAPI=1 adds face-api's own SSD pipeline)
 * Identity = file name prefix before the trailing digits / -N; emoa*, emob*, vlado* are one person each.
 * fr-two-people (two faces) and fr-obama-partial (half a face) are reported separately, never paired;
 * the mp4 is not a still.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { decodeImage } from '../src/analysis/image.js'
import { HumanFaceEngine, similarityFor, type EmbeddingModel } from '../src/analysis/face.js'

export const FACES_DIR = process.env.FACES_DIR ?? '/work/shared/data/faces'
export const EXCLUDED = new Set(['fr-two-people.jpg', 'fr-obama-partial.jpg'])

export function identityOf(file: string): string {
  const base = path.basename(file).replace(/\.[a-z0-9]+$/i, '')
  if (base.startsWith('emoa')) return 'emoa'
  if (base.startsWith('emob')) return 'emob'
  if (base.startsWith('vlado')) return 'vlado'
  return base.replace(/-?\d+x?$/, '')
}

export interface EerResult {
  eer: number
  threshold: number
  far: number
  frr: number
  same: number[]
  diff: number[]
}

/** EER over similarity scores (higher = more similar): threshold t accepts s >= t. */
export function computeEer(same: number[], diff: number[]): EerResult {
  const cands = [...new Set([...same, ...diff])].sort((a, b) => a - b)
  let best = { gap: Infinity, t: 0, far: 1, frr: 0 }
  for (let i = 0; i <= cands.length; i++) {
    // midpoints between consecutive observed values, plus the extremes
    const t = i === 0 ? (cands[0] ?? 0) - 1e-6 : i === cands.length ? (cands[i - 1] ?? 0) + 1e-6 : ((cands[i - 1] ?? 0) + (cands[i] ?? 0)) / 2
    const far = diff.filter((s) => s >= t).length / Math.max(1, diff.length)
    const frr = same.filter((s) => s < t).length / Math.max(1, same.length)
    const gap = Math.abs(far - frr)
    // among equal gaps prefer the threshold in the middle of the separating interval
    if (gap < best.gap - 1e-12) best = { gap, t, far, frr }
  }
  // when the classes separate, centre the threshold in the empty interval
  if (best.far === 0 && best.frr === 0) {
    const lo = Math.max(...diff)
    const hi = Math.min(...same)
    best.t = (lo + hi) / 2
  }
  return { eer: (best.far + best.frr) / 2, threshold: best.t, far: best.far, frr: best.frr, same, diff }
}

export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  if (!s.length) return NaN
  const i = Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))
  return s[i] as number
}

export interface ImageEmbedding { file: string; id: string; emb: number[] | null; faces: number }

export async function embedAll(model: EmbeddingModel, files: string[]): Promise<{ rows: ImageEmbedding[]; msPerImage: number }> {
  const engine = new HumanFaceEngine({ model, hands: false, flip: process.env.FLIP === '1', levelEyes: process.env.LEVEL !== '0' })
  await engine.init()
  const rows: ImageEmbedding[] = []
  const t0 = performance.now()
  for (const f of files) {
    const img = await decodeImage(fs.readFileSync(f), { maxSide: Number(process.env.MAXSIDE ?? 1280) })
    const a = await engine.analyze(img, { embed: true, signals: false })
    rows.push({ file: path.basename(f), id: identityOf(f), emb: a.embedding, faces: a.faces.length })
  }
  return { rows, msPerImage: (performance.now() - t0) / files.length }
}

export function pairs(rows: ImageEmbedding[], model: EmbeddingModel): { same: number[]; diff: number[]; sameNames: string[]; diffNames: string[]; missing: string[] } {
  const ok = rows.filter((r) => r.emb && !EXCLUDED.has(r.file))
  const same: number[] = []
  const diff: number[] = []
  const sameNames: string[] = []
  const diffNames: string[] = []
  for (let i = 0; i < ok.length; i++) {
    for (let j = i + 1; j < ok.length; j++) {
      const a = ok[i]!
      const b = ok[j]!
      const s = similarityFor(model, a.emb!, b.emb!)
      if (a.id === b.id) { same.push(s); sameNames.push(`${a.file}~${b.file}`) } else { diff.push(s); diffNames.push(`${a.file}~${b.file}`) }
    }
  }
  return { same, diff, sameNames, diffNames, missing: rows.filter((r) => !r.emb).map((r) => r.file) }
}

export function listFaceFiles(dir = FACES_DIR): string[] {
  return fs.readdirSync(dir).filter((f) => /\.(jpe?g|png|webp)$/i.test(f)).sort().map((f) => path.join(dir, f))
}

/** face-api's own pipeline (SSD MobileNet v1 + 68 landmarks + recognition): for comparison only. */
async function embedAllFaceApiSsd(files: string[]): Promise<{ rows: ImageEmbedding[]; msPerImage: number }> {
  const { loadFaceApi, faceApiModelDir } = await import('../src/analysis/face.js')
  const e = new HumanFaceEngine({ model: 'faceapi', hands: false })
  await e.init() // sets up the wasm backend
  const fa = loadFaceApi()
  await fa.nets.ssdMobilenetv1.loadFromDisk(faceApiModelDir())
  await fa.nets.faceLandmark68Net.loadFromDisk(faceApiModelDir())
  const tf = (await import('@tensorflow/tfjs-core')) as unknown as { tensor3d: (...a: unknown[]) => { dispose(): void } }
  const rows: ImageEmbedding[] = []
  const t0 = performance.now()
  for (const f of files) {
    const img = await decodeImage(fs.readFileSync(f), { maxSide: Number(process.env.MAXSIDE ?? 1280) })
    const t = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32')
    const r = await fa.detectAllFaces(t, new fa.SsdMobilenetv1Options({ minConfidence: 0.3 })).withFaceLandmarks().withFaceDescriptors()
    t.dispose()
    r.sort((a: { detection: { box: { area: number } } }, b: { detection: { box: { area: number } } }) => b.detection.box.area - a.detection.box.area)
    rows.push({ file: path.basename(f), id: identityOf(f), emb: r[0] ? Array.from(r[0].descriptor as Float32Array) : null, faces: r.length })
  }
  return { rows, msPerImage: (performance.now() - t0) / files.length }
}

async function main(): Promise<void> {
  if (!fs.existsSync(FACES_DIR)) {
    console.log(`face-eer: ${FACES_DIR} is absent; nothing to measure`)
    return
  }
  const files = listFaceFiles()
  const models: Array<[string, EmbeddingModel, () => Promise<{ rows: ImageEmbedding[]; msPerImage: number }>]> = [
    ['faceapi (Human mesh crop)', 'faceapi', () => embedAll('faceapi', files)],
    ['faceres (Human, cosine)', 'faceres', () => embedAll('faceres', files)],
  ]
  if (process.env.FULL_FACEAPI) models.push(['faceapi (own SSD+68lm)', 'faceapi', () => embedAllFaceApiSsd(files)])
  const table: string[] = []
  for (const [name, model, fn] of models) {
    const { rows, msPerImage } = await fn()
    const p = pairs(rows, model)
    const r = computeEer(p.same, p.diff)
    const special = rows.filter((x) => EXCLUDED.has(x.file)).map((x) => `${x.file}: ${x.faces} face(s)`).join(', ')
    table.push(
      `${name.padEnd(27)} images=${rows.length} noFace=[${p.missing.join(',')}] same=${p.same.length} diff=${p.diff.length}` +
        ` EER=${(100 * r.eer).toFixed(2)}% (FAR ${(100 * r.far).toFixed(2)}% FRR ${(100 * r.frr).toFixed(2)}%) thr=${r.threshold.toFixed(4)}` +
        `\n${''.padEnd(27)} same: min ${Math.min(...p.same).toFixed(3)} p10 ${quantile(p.same, 0.1).toFixed(3)} med ${quantile(p.same, 0.5).toFixed(3)} p90 ${quantile(p.same, 0.9).toFixed(3)}` +
        ` | diff: med ${quantile(p.diff, 0.5).toFixed(3)} p99 ${quantile(p.diff, 0.99).toFixed(3)} max ${Math.max(...p.diff).toFixed(3)}` +
        ` | ${msPerImage.toFixed(0)} ms/image | ${special}` +
        `\n${''.padEnd(27)} mapping 0-100: low=${quantile(p.diff, 0.5).toFixed(3)}->0, thr=${r.threshold.toFixed(3)}->60, high=${quantile(p.same, 0.9).toFixed(3)}->100` +
        `\n${''.padEnd(27)} weakest same pairs: ${p.same.map((s, i) => [s, p.sameNames[i]] as const).sort((a, b) => a[0] - b[0]).slice(0, 3).map(([s, n]) => `${n} ${s.toFixed(3)}`).join('; ')}` +
        `\n${''.padEnd(27)} closest different pairs: ${p.diff.map((s, i) => [s, p.diffNames[i]] as const).sort((a, b) => b[0] - a[0]).slice(0, 3).map(([s, n]) => `${n} ${s.toFixed(3)}`).join('; ')}`,
    )
  }
  console.log(table.join('\n'))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => { console.error(e); process.exit(1) })
}
