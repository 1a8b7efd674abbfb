import { computeAntifraud } from '../analysis/antifraud.js'
import { CALIBRATION, similarityFor, similarityToScore, type EmbeddingModel } from '../analysis/face.js'
import { hammingDistance } from '../analysis/image.js'
import type { Challenge } from '../analysis/liveness.js'
import { AnalysisPool } from '../analysis/pool.js'
import { scoreKyc } from '../analysis/scoring.js'
import type { KycOutput } from '../analysis/worker.js'
import type { Job } from '../generated/prisma/client.js'
import { startLoop, type Loop } from '../lib/loop.js'
import { findOtherIdentityWithFace, loadEmbedding, storeEmbedding } from '../modules/analysis/face-embeddings.js'
import { scoringFor } from '../modules/analysis/scoring-config.js'
import { mediaStore } from '../modules/captures/media.js'
import { completeAuthAttempt } from '../modules/auth-attempts/complete-auth-attempt.js'
import { completeVerification } from '../modules/verifications/complete-verification.js'
import type { Services } from '../services.js'
import { claimJobs, failJob, finishJob } from './job-queue.js'

/** A document image whose perceptual hash is this close to another session's was reused. */
const REUSE_MAX_BITS = 6
const LEASE_MS = 5 * 60_000

/**
 * The analysis worker: claims analysis jobs (SKIP LOCKED, leased, so a crash re-runs them after
 * restart), decrypts the captures and runs the image work in the worker-thread pool, so the API's
 * event loop stays free. Decisions go through the same completeVerification / completeAuthAttempt
 * as sandbox, with their outbox webhook.
 */
export function startAnalysisRunner(svc: Services): { loop: Loop; pool: () => AnalysisPool | null } {
  let pool: AnalysisPool | null = null
  const getPool = () =>
    (pool ??= new AnalysisPool({
      engine: svc.config.ANALYSIS_ENGINE,
      dataDir: svc.config.DATA_DIR,
      mrzModelPath: svc.config.MRZ_MODEL_PATH ?? null,
      size: svc.config.ANALYSIS_THREADS,
      onEvent: (e) => svc.logger.warn({ event: e.type, detail: e.detail }, 'analysis pool event'),
    }))
  const inFlight = new Set<Promise<void>>()

  const tick = async (): Promise<boolean> => {
    const capacity = svc.config.ANALYSIS_THREADS * 2 - inFlight.size
    if (capacity <= 0) return false
    const jobs = await claimJobs(svc.db, { types: ['analyze_kyc', 'analyze_auth'], limit: capacity, leaseMs: LEASE_MS, now: svc.now() })
    for (const job of jobs) {
      const p = runJob(svc, getPool(), job).finally(() => {
        inFlight.delete(p)
        loop.kick()
      })
      inFlight.add(p)
    }
    return false
  }
  const loop = startLoop('analysis', 500, tick, svc.logger)
  const stop = loop.stop
  loop.stop = async () => {
    await stop()
    await Promise.allSettled([...inFlight])
    await pool?.close()
  }
  return { loop, pool: () => pool }
}

async function runJob(svc: Services, pool: AnalysisPool, job: Job): Promise<void> {
  const t0 = performance.now()
  try {
    if (job.type === 'analyze_kyc') await analyzeKyc(svc, pool, job)
    else if (job.type === 'analyze_auth') await analyzeAuth(svc, pool, job)
    await finishJob(svc.db, job.id)
    svc.logger.info({ job: job.id, type: job.type, ms: Math.round(performance.now() - t0) }, 'analysis done')
  } catch (err) {
    svc.logger.error({ err, job: job.id, type: job.type }, 'analysis failed')
    const final = await failJob(svc.db, job, String((err as Error)?.message ?? err), svc.now())
    if (final) await giveUp(svc, job, String((err as Error)?.message ?? err))
  }
}

/** After the last attempt the case goes to a human (KYC) or fails closed (Auth), never stays stuck in processing. */
async function giveUp(svc: Services, job: Job, error: string): Promise<void> {
  if (!job.sessionId) return
  if (job.type === 'analyze_kyc') {
    const v = await svc.db.verification.findUnique({ where: { sessionId: job.sessionId } })
    if (v?.status === 'processing')
      await completeVerification(svc, v.id, {
        status: 'manual_review',
        modo: v.modo,
        scores: { composto: null, faceMatch: null, liveness: null, antifraude: null },
        ocr: { nome: null, documentoNumero: null, dataNascimento: null, documentExpiry: null },
        motivosRejeicao: [],
        signals: { analysis_error: error },
      })
  } else {
    const a = await svc.db.authAttempt.findUnique({ where: { sessionId: job.sessionId } })
    if (a?.status === 'processing')
      await completeAuthAttempt(svc, a.id, { status: 'rejected', errorCode: 'ANALYSIS_ERROR', scoreFacial: null, scoreLiveness: null, signals: { analysis_error: error } })
  }
}

async function loadCaptures(svc: Services, sessionId: string) {
  const rows = await svc.db.capture.findMany({ where: { sessionId }, orderBy: [{ kind: 'asc' }, { frameIndex: 'asc' }] })
  const store = mediaStore(svc)
  const frames = await Promise.all(rows.filter((r) => r.kind === 'selfie').map((r) => store.get(r.storageKey)))
  const front = rows.find((r) => r.kind === 'document_front') ?? null
  return { rows, frames, front, frontBytes: front ? await store.get(front.storageKey) : null }
}

const modelOf = (out: { model: string }): EmbeddingModel => (out.model.split(':')[1] === 'faceres' ? 'faceres' : 'faceapi')

async function analyzeKyc(svc: Services, pool: AnalysisPool, job: Job): Promise<void> {
  const session = await svc.db.session.findUnique({ where: { id: job.sessionId ?? '' }, include: { verification: true, tenant: { select: { settings: true } } } })
  const v = session?.verification
  if (!session || !v || v.status !== 'processing') return // already decided (a re-run after a crash)
  const { frames, front, frontBytes } = await loadCaptures(svc, session.id)

  // anti-fraud input: the same document image (perceptual hash) in another session of this tenant
  let documentReused = false
  if (front?.phash) {
    const others = await svc.db.capture.findMany({
      where: { kind: 'document_front', phash: { not: null }, sessionId: { not: session.id }, session: { tenantId: session.tenantId } },
      select: { phash: true },
      orderBy: { createdAt: 'desc' },
      take: 20_000,
    })
    documentReused = others.some((o) => hammingDistance(o.phash!, front.phash!) <= REUSE_MAX_BITS)
  }

  const out: KycOutput = await pool.analyzeKyc({
    mode: v.modo,
    challenge: (session.challenge ?? 'blink') as Challenge,
    frames,
    document: frontBytes,
    country: session.country,
    documentReused,
    today: svc.now().toISOString().slice(0, 10),
  })

  // 1:N: is this face already enrolled under another external_id of the tenant?
  const cfg = scoringFor(svc.config, session.tenant.settings)
  const model = modelOf(out)
  const isMatch = (a: number[], b: number[]) => similarityToScore(similarityFor(model, a, b), CALIBRATION[model]) >= cfg.faceMatchMin
  const duplicateOf = out.embedding
    ? await findOtherIdentityWithFace(svc, { tenantId: session.tenantId, ambiente: session.ambiente, externalId: session.externalId, model: out.model, embedding: out.embedding, isMatch })
    : null

  // decide on this thread with the tenant's thresholds (the pool scored with the defaults)
  const doc = out.document
  const antifraud =
    v.modo === 'FULL_KYC' || documentReused || duplicateOf
      ? computeAntifraud({
          mrz: doc?.mrz ?? null,
          visual: doc?.visual ?? null,
          documentReused,
          faceSeenUnderOtherExternalId: duplicateOf !== null,
          today: new Date(svc.now().toISOString().slice(0, 10) + 'T00:00:00Z'),
        })
      : null
  const score = scoreKyc(
    {
      mode: v.modo,
      face_match: out.face_match,
      liveness: out.liveness,
      livenessPassed: out.liveness_result.passed,
      antifraud,
      selfieHasFace: out.liveness_result.signals.framesWithFace > 0 && out.embedding !== null,
      ...(v.modo === 'FULL_KYC'
        ? {
            documentHasFace: !!doc?.portrait,
            documentReadable: svc.config.ANALYSIS_ENGINE === 'fake' || !!(doc && (doc.mrz || doc.fields.nome || doc.fields.documento_numero)),
          }
        : {}),
    },
    cfg,
  )

  await completeVerification(svc, v.id, {
    status: score.decision,
    modo: v.modo,
    scores: { composto: score.score, faceMatch: score.face_match, liveness: score.liveness, antifraude: score.antifraude },
    ocr: {
      nome: doc?.fields.nome ?? null,
      documentoNumero: doc?.fields.documento_numero ?? null,
      dataNascimento: doc?.fields.data_nascimento ?? null,
      documentExpiry: doc?.mrz?.expiryDate ?? null,
    },
    motivosRejeicao: score.motivos_rejeicao,
    signals: {
      model: out.model,
      liveness: out.liveness_result,
      antifraud: antifraud?.signals ?? [],
      document: doc ? { lang: doc.lang, mrz_valid: doc.mrz?.valid ?? null, mrz_format: doc.mrz?.format ?? null, mrz_checks: doc.mrz?.checkDigits ?? null, portrait: !!doc.portrait } : null,
      document_reused: documentReused,
      duplicate_of_external_id: duplicateOf,
      thresholds: cfg,
      analysis_ms: Math.round(out.ms),
    },
  })
  if (score.decision === 'approved' && session.externalId && out.embedding)
    await storeEmbedding(svc, { tenantId: session.tenantId, ambiente: session.ambiente, externalId: session.externalId, verificationId: v.id, model: out.model, embedding: out.embedding })
}

async function analyzeAuth(svc: Services, pool: AnalysisPool, job: Job): Promise<void> {
  const session = await svc.db.session.findUnique({ where: { id: job.sessionId ?? '' }, include: { authAttempt: true } })
  const a = session?.authAttempt
  if (!session || !a || a.status !== 'processing') return
  const stored = await loadEmbedding(svc, session.tenantId, session.ambiente, a.externalId)
  if (!stored) {
    await completeAuthAttempt(svc, a.id, { status: 'rejected', errorCode: 'NO_EMBEDDING', scoreFacial: null, scoreLiveness: null, signals: { reason: 'no approved KYC for this external_id' } })
    return
  }
  const { frames } = await loadCaptures(svc, session.id)
  const out = await pool.analyzeAuth({ challenge: (session.challenge ?? 'blink') as Challenge, frames, storedEmbedding: stored.embedding })
  const livenessFailed = !out.liveness_result.passed
  await completeAuthAttempt(svc, a.id, {
    status: out.decision,
    errorCode: out.decision === 'authenticated' ? null : livenessFailed ? 'LIVENESS_ERROR' : 'FACE_MISMATCH',
    scoreFacial: out.score_facial,
    scoreLiveness: out.score_liveness,
    signals: { liveness: out.liveness_result, similarity: out.similarity, motivos: out.motivos_rejeicao, model: stored.model, analysis_ms: Math.round(out.ms) },
  })
}
