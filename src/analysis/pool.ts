/**
 * A pool of worker_threads running the analysis off the main event loop. Each thread loads the models
 * once (worker.ts). One job per thread at a time, FIFO queue; a crashed thread rejects its in-flight job
 * and is respawned. Works from compiled JS and from TypeScript under tsx (the worker is started with
 * `--import tsx` when this file is a .ts).
 */
import { Worker } from 'node:worker_threads'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { AppError } from '../errors.js'
import type { AnalyzerOptions, AuthInput, AuthOutput, CompareOutput, DocumentOutput, KycInput, KycOutput, WorkerRequest, WorkerResponse } from './worker.js'

export interface PoolOptions extends AnalyzerOptions {
  /** number of threads (ANALYSIS_THREADS). Default 1 */
  size?: number
  /** per-job timeout in ms (the thread is restarted). Default 120 000 */
  jobTimeoutMs?: number
  /** called on worker crashes / restarts (logging) */
  onEvent?: (e: { type: 'crash' | 'restart' | 'timeout' | 'init_failed'; detail: string }) => void
}

interface Job { id: number; op: WorkerRequest['op']; args: unknown[]; transfer: ArrayBuffer[]; resolve: (v: unknown) => void; reject: (e: unknown) => void; timer?: NodeJS.Timeout }
interface Slot { worker: Worker; ready: boolean; job: Job | null; dead: boolean }

const isTs = import.meta.url.endsWith('.ts')
const workerUrl = new URL(isTs ? './worker.ts' : './worker.js', import.meta.url)

/**
 * Under TypeScript (tsx / vitest) `execArgv: ['--import', 'tsx']` is NOT enough on Node 20 (the worker's entry
 * is resolved before the hooks apply: "Unknown file extension .ts"). A tiny eval bootstrap registers tsx's
 * ESM hooks in the worker thread itself (tsx/esm/api register()), then imports worker.ts.
 */
function startWorker(workerData: unknown): Worker {
  if (!isTs) return new Worker(workerUrl, { workerData })
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'))
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href
  const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}) })` +
    `.catch((e) => { setImmediate(() => { throw e }) });`
  return new Worker(code, { eval: true, workerData })
}

/** copy a Uint8Array into its own ArrayBuffer so it can be transferred without detaching a shared pool */
const own = (u: Uint8Array): Uint8Array => {
  if (u.byteOffset === 0 && u.byteLength === u.buffer.byteLength && u.buffer instanceof ArrayBuffer) return u
  const c = new Uint8Array(u.byteLength)
  c.set(u)
  return c
}

export class AnalysisPool {
  private slots: Slot[] = []
  private queue: Job[] = []
  private nextId = 1
  private closed = false
  private readonly size: number
  private readyWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = []
  private initError: string | null = null
  /** consecutive deaths of workers that never became ready */
  private startFailures = 0

  constructor(private readonly opts: PoolOptions) {
    this.size = Math.max(1, Math.min(16, opts.size ?? 1))
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn())
  }

  private spawn(): Slot {
    const { size: _s, jobTimeoutMs: _t, onEvent: _e, ...options } = this.opts
    const worker = startWorker({ kind: 'analysis-worker', options })
    const slot: Slot = { worker, ready: false, job: null, dead: false }
    worker.on('message', (m: WorkerResponse) => this.onMessage(slot, m))
    worker.on('error', (e) => this.onDeath(slot, `worker error: ${e instanceof Error ? e.message : String(e)}`))
    worker.on('exit', (code) => this.onDeath(slot, `worker exited with code ${code}`))
    return slot
  }

  private onMessage(slot: Slot, m: WorkerResponse): void {
    if ('ready' in m) {
      if (m.ready) {
        slot.ready = true
        this.startFailures = 0
        for (const w of this.readyWaiters.splice(0)) w.resolve()
        this.pump()
      } else {
        this.initError = m.error
        this.opts.onEvent?.({ type: 'init_failed', detail: m.error })
        for (const w of this.readyWaiters.splice(0)) w.reject(new Error(`analysis worker failed to start: ${m.error}`))
        for (const j of this.queue.splice(0)) j.reject(new Error(`analysis worker failed to start: ${m.error}`))
      }
      return
    }
    const job = slot.job
    if (!job || job.id !== m.id) return
    slot.job = null
    clearTimeout(job.timer)
    if (m.ok) job.resolve(m.result)
    else if (m.error.code) job.reject(new AppError(m.error.code, m.error.message, m.error.details))
    else {
      const e = new Error(m.error.message)
      if (m.error.stack) e.stack = m.error.stack
      job.reject(e)
    }
    this.pump()
  }

  private onDeath(slot: Slot, why: string): void {
    if (slot.dead) return
    slot.dead = true
    const job = slot.job
    slot.job = null
    if (job) {
      clearTimeout(job.timer)
      job.reject(new Error(`analysis worker crashed during ${job.op}: ${why}`))
    }
    const i = this.slots.indexOf(slot)
    if (this.closed || i < 0) return
    this.opts.onEvent?.({ type: 'crash', detail: why })
    if (!slot.ready && ++this.startFailures >= 3) {
      // a worker that cannot even start: stop respawning, fail everything queued
      this.initError = why
      for (const w of this.readyWaiters.splice(0)) w.reject(new Error(`analysis worker failed to start: ${why}`))
      for (const j of this.queue.splice(0)) j.reject(new Error(`analysis worker failed to start: ${why}`))
    }
    if (this.initError) return // do not respawn-loop a worker that cannot start
    void slot.worker.terminate().catch(() => undefined)
    this.slots[i] = this.spawn()
    this.opts.onEvent?.({ type: 'restart', detail: `slot ${i}` })
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!this.queue.length) return
      if (!slot.ready || slot.dead || slot.job) continue
      const job = this.queue.shift() as Job
      slot.job = job
      const timeout = this.opts.jobTimeoutMs ?? 120_000
      job.timer = setTimeout(() => {
        this.opts.onEvent?.({ type: 'timeout', detail: `${job.op} > ${timeout} ms` })
        this.onDeath(slot, `timeout after ${timeout} ms`)
      }, timeout)
      job.timer.unref?.()
      slot.worker.postMessage({ id: job.id, op: job.op, args: job.args } satisfies WorkerRequest, job.transfer)
    }
  }

  private call<T>(op: WorkerRequest['op'], args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('analysis pool is closed'))
    if (this.initError) return Promise.reject(new Error(`analysis worker failed to start: ${this.initError}`))
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, args, transfer, resolve: resolve as (v: unknown) => void, reject })
      this.pump()
    })
  }

  /** resolves when every thread has loaded its models */
  ready(): Promise<void> {
    if (this.slots.every((s) => s.ready)) return Promise.resolve()
    if (this.initError) return Promise.reject(new Error(this.initError))
    return new Promise((resolve, reject) => {
      const check = () => (this.slots.every((s) => s.ready) ? resolve() : this.readyWaiters.push({ resolve: check, reject }))
      this.readyWaiters.push({ resolve: check, reject })
    })
  }

  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.job).length
  }

  analyzeKyc(input: KycInput): Promise<KycOutput> {
    const frames = input.frames.map(own)
    const document = input.document ? own(input.document) : input.document
    return this.call('analyzeKyc', [{ ...input, frames, document }], [...frames.map((f) => f.buffer as ArrayBuffer), ...(document ? [document.buffer as ArrayBuffer] : [])])
  }

  analyzeAuth(input: AuthInput): Promise<AuthOutput> {
    const frames = input.frames.map(own)
    return this.call('analyzeAuth', [{ ...input, frames }], frames.map((f) => f.buffer as ArrayBuffer))
  }

  compareFaces(a: Uint8Array, b: Uint8Array): Promise<CompareOutput> {
    const x = own(a)
    const y = own(b)
    return this.call('compareFaces', [x, y], x.buffer === y.buffer ? [x.buffer as ArrayBuffer] : [x.buffer as ArrayBuffer, y.buffer as ArrayBuffer])
  }

  readDocument(img: Uint8Array, country?: string | null): Promise<DocumentOutput> {
    const x = own(img)
    return this.call('readDocument', [x, country ?? null], [x.buffer as ArrayBuffer])
  }

  hashImage(img: Uint8Array): Promise<string> {
    const x = own(img)
    return this.call('hashImage', [x], [x.buffer as ArrayBuffer])
  }

  /** test hook: make a worker exit abruptly while running a job */
  crashForTest(): Promise<never> {
    return this.call('crash', [])
  }

  async close(): Promise<void> {
    this.closed = true
    for (const j of this.queue.splice(0)) j.reject(new Error('analysis pool closed'))
    await Promise.all(this.slots.map(async (s) => { s.dead = true; await s.worker.terminate().catch(() => undefined) }))
    this.slots = []
  }
}
