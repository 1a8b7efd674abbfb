/**
 * Warm timings of the analysis core (single thread, in-process; the pool adds ~1 ms of messaging).
 *   npx tsx bench/analysis.ts          (RUNS=10, MRZ_MODEL_PATH to use the MRZ model, default the shared one)
 * Goals: Auth 1:1 p95 < 400 ms, KYC p95 < 3 s, EER < 2 %.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { decodeImage } from '../src/analysis/image.js'
import { HumanFaceEngine } from '../src/analysis/face.js'
import { OcrService } from '../src/analysis/ocr.js'
import { createAnalyzer } from '../src/analysis/worker.js'
import { computeEer, embedAll, listFaceFiles, pairs, FACES_DIR } from './face-eer.js'

const RUNS = Number(process.env.RUNS ?? 10)
const DATA = '/work/shared/data'
const MRZ = process.env.MRZ_MODEL_PATH ?? path.join(DATA, 'models', 'mrz.traineddata.gz')

const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? NaN }
const rows: string[] = []
const report = (name: string, xs: number[], goal?: number) => {
  const med = q(xs, 0.5), p95 = q(xs, 0.95)
  rows.push(`${name.padEnd(34)} median ${med.toFixed(0).padStart(6)} ms   p95 ${p95.toFixed(0).padStart(6)} ms   n=${xs.length}${goal ? `   goal p95 < ${goal} ms: ${p95 < goal ? 'MET' : 'MISSED'}` : ''}`)
}
async function time<T>(n: number, fn: () => Promise<T>, warm = 1): Promise<number[]> {
  for (let i = 0; i < warm; i++) await fn()
  const out: number[] = []
  for (let i = 0; i < n; i++) { const t = performance.now(); await fn(); out.push(performance.now() - t) }
  return out
}

async function main(): Promise<void> {
  if (!fs.existsSync(DATA)) { console.log(`${DATA} absent: nothing to measure`); return }
  const face = fs.readFileSync(path.join(DATA, 'faces', 'vlado1x.jpg'))
  const doc = fs.readFileSync(path.join(DATA, 'documents', 'uto_td3_passport.jpg'))
  // a client burst: 10 JPEG frames of 640 px (one person, expressions changing)
  const burst = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 1, 2].map((i) =>
    sharp(fs.readFileSync(path.join(DATA, 'faces', `emoa${i}.jpg`))).resize({ width: 640 }).jpeg({ quality: 85 }).toBuffer()))

  report('decode 1280 px (sharp)', await time(RUNS, () => decodeImage(face, { maxSide: 1280 })))
  const engine = new HumanFaceEngine({ hands: true })
  await engine.init()
  const img = await decodeImage(face, { maxSide: 1280 })
  report('detect (blazeface only)', await time(RUNS, () => engine.analyze(img, { embed: false, signals: false })))
  report('detect + mesh + signals', await time(RUNS, () => engine.analyze(img, { embed: false, signals: true })))
  report('detect + mesh + embedding (faceapi)', await time(RUNS, () => engine.analyze(img, { embed: true, signals: false })))
  report('all (signals + embedding + hands)', await time(RUNS, () => engine.analyze(img, { embed: true, signals: true, hands: true })))

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'))
  const ocr = await OcrService.create({ dataDir, mrzModelPath: fs.existsSync(MRZ) ? MRZ : null })
  report('OCR page (eng, 1800 px)', await time(Math.min(RUNS, 5), () => ocr.recognizePage(doc, 'eng')))
  const page = await ocr.recognizePage(doc, 'eng')
  report(`MRZ locate + re-read (${ocr.hasMrzModel ? 'model' : 'eng'})`, await time(Math.min(RUNS, 5), () => ocr.readMrz(page)))
  await ocr.terminate()

  const an = await createAnalyzer({ engine: 'real', dataDir, mrzModelPath: fs.existsSync(MRZ) ? MRZ : null })
  const kyc = await an.analyzeKyc({ mode: 'FULL_KYC', challenge: 'smile', frames: burst, document: doc })
  const kycTimes = await time(Math.min(RUNS, 5), () => an.analyzeKyc({ mode: 'FULL_KYC', challenge: 'smile', frames: burst, document: doc }), 0)
  report('KYC FULL (document + 10 frames)', kycTimes, 3000)
  const stored = kyc.embedding!
  report('Auth 1:1 (10 frames vs stored)', await time(RUNS, () => an.analyzeAuth({ challenge: 'smile', frames: burst, storedEmbedding: stored })), 400)
  report('Auth 1:1, blink (no hands)', await time(RUNS, () => an.analyzeAuth({ challenge: 'blink', frames: burst, storedEmbedding: stored })), 400)
  await an.close()

  const { rows: embs } = await embedAll('faceapi', listFaceFiles(FACES_DIR))
  const p = pairs(embs, 'faceapi')
  const eer = computeEer(p.same, p.diff)
  rows.push(`EER faceapi (${p.same.length} same / ${p.diff.length} diff pairs)   ${(100 * eer.eer).toFixed(2)} % at similarity ${eer.threshold.toFixed(4)}   goal < 2 %: ${eer.eer < 0.02 ? 'MET' : 'MISSED'}`)
  rows.push(`KYC sample decision: ${kyc.decision} score ${kyc.score} liveness ${kyc.liveness_result.score} (${kyc.liveness_result.reason ?? 'ok'}) MRZ ${kyc.document?.mrz?.valid}`)
  console.log(`node ${process.version}, ${os.cpus().length} cpus, tfjs wasm backend, single thread\n` + rows.join('\n'))
  fs.rmSync(dataDir, { recursive: true, force: true })
}

main().catch((e) => { console.error(e); process.exit(1) })
