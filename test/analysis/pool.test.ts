import { describe, it, expect, afterAll } from 'vitest'
import sharp from 'sharp'
import { AnalysisPool } from '../../src/analysis/pool.js'
import { AppError } from '../../src/errors.js'
import { tmpDir } from './helpers.js'

const img = (seed: number) => {
  const raw = Buffer.alloc(96 * 96 * 3)
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) + ((i / 288) | 0) * seed * 7) % 256
  return sharp(raw, { raw: { width: 96, height: 96, channels: 3 } }).jpeg().toBuffer()
}

describe('analysis pool (worker_threads under tsx, fake engine)', () => {
  const events: string[] = []
  const pool = new AnalysisPool({ engine: 'fake', dataDir: tmpDir('pool-'), size: 2, onEvent: (e) => events.push(e.type) })
  afterAll(async () => { await pool.close() })

  it('runs jobs off the main thread', async () => {
    await pool.ready()
    const a = await img(1)
    const r = await pool.compareFaces(a, Buffer.from(a))
    expect(r.match).toBe(true)
    expect(r.model).toBe('fake:faceapi')
    const b = await img(5)
    const r2 = await pool.compareFaces(a, b)
    expect(r2.raw).toBeLessThan(r.raw)
    expect(await pool.hashImage(a)).toMatch(/^[0-9a-f]{16}$/)
  }, 60_000)

  it('carries AppError codes across the thread boundary', async () => {
    await expect(pool.compareFaces(Buffer.from('not an image'), await img(1))).rejects.toMatchObject({ code: 'unsupported_media_type' })
    const e = await pool.compareFaces(Buffer.alloc(0), await img(1)).catch((x) => x)
    expect(e).toBeInstanceOf(AppError)
  })

  it('a crashed worker rejects its in-flight job and is respawned', async () => {
    await expect(pool.crashForTest()).rejects.toThrow(/crashed/)
    expect(events).toContain('crash')
    expect(events).toContain('restart')
    await pool.ready()
    const r = await pool.compareFaces(await img(2), await img(2))
    expect(r.match).toBe(true)
  }, 60_000)

  it('runs a SEM_DOC KYC end to end (fake engine)', async () => {
    const frames = await Promise.all([1, 1, 1, 1, 1, 1].map(() => img(3)))
    const r = await pool.analyzeKyc({ mode: 'SEM_DOC', challenge: 'blink', frames })
    expect(r.liveness_result.reason).toBe('static_replay') // identical frames
    expect(r.decision).toBe('rejected')
    expect(r.motivos_rejeicao).toContain('liveness_failed')
  }, 60_000)
})
