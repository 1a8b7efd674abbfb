import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimJobs, enqueueJob, failJob, finishJob } from '../../src/jobs/job-queue.js'
import { dbKind, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

/**
 * The durable analysis queue without the models: what makes "a crash mid-analysis re-runs the job
 * after restart" true is the lease: a claimed job whose worker vanished becomes claimable again.
 */
let t: TestApp
let sessionId: string
beforeAll(async () => {
  // ROLE=api: no analysis loop of its own competing for the jobs
  t = await startTestApp({ ROLE: 'api' })
  const tenant = await newTenant(t)
  sessionId = randomUUID()
  await t.app.services.db.session.create({
    data: { id: sessionId, tenantId: tenant.tenantId, ambiente: 'sandbox', kind: 'KYC', tokenHash: randomUUID(), expiresAt: new Date(Date.now() + 60_000), documentosAceitos: [] },
  })
})
afterAll(() => t.close())

describe(`durable job queue (${dbKind()})`, () => {
  it('claims a due job once; a crashed claim (lease run out) is claimed again; finished jobs never come back', async () => {
    const db = t.app.services.db
    const now = new Date()
    const job = await db.$transaction((tx) => enqueueJob(tx, { type: 'analyze_kyc', sessionId, runAt: now }))
    const first = await claimJobs(db, { types: ['analyze_kyc'], limit: 5, leaseMs: 60_000, now, workerId: 'w1' })
    expect(first.map((j) => j.id)).toEqual([job.id])
    expect(first[0]).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'w1' })
    // held by w1's lease: nobody else gets it
    expect(await claimJobs(db, { types: ['analyze_kyc'], limit: 5, leaseMs: 60_000, now, workerId: 'w2' })).toEqual([])
    // w1 died (SIGKILL, power loss): once its lease is over the job is taken again
    const later = new Date(now.getTime() + 61_000)
    const again = await claimJobs(db, { types: ['analyze_kyc'], limit: 5, leaseMs: 60_000, now: later, workerId: 'w2' })
    expect(again).toMatchObject([{ id: job.id, attempts: 2, lockedBy: 'w2' }])
    await finishJob(db, job.id)
    expect(await claimJobs(db, { types: ['analyze_kyc'], limit: 5, leaseMs: 60_000, now: new Date(later.getTime() + 3_600_000) })).toEqual([])
  })

  it('a failed attempt is retried with backoff until max attempts, then failed for good', async () => {
    const db = t.app.services.db
    let now = new Date()
    const job = await db.$transaction((tx) => enqueueJob(tx, { type: 'analyze_auth', sessionId, runAt: now, maxAttempts: 2 }))
    const [a1] = await claimJobs(db, { types: ['analyze_auth'], limit: 1, leaseMs: 60_000, now })
    expect(await failJob(db, a1!, 'boom', now)).toBe(false)
    expect(await claimJobs(db, { types: ['analyze_auth'], limit: 1, leaseMs: 60_000, now })).toEqual([]) // backing off
    now = new Date(now.getTime() + 10_000)
    const [a2] = await claimJobs(db, { types: ['analyze_auth'], limit: 1, leaseMs: 60_000, now })
    expect(a2).toMatchObject({ id: job.id, attempts: 2 })
    expect(await failJob(db, a2!, 'boom again', now)).toBe(true)
    expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: 'failed', lastError: 'boom again' })
  })

  it('only the asked types are claimed, oldest first, at most the limit', async () => {
    const db = t.app.services.db
    const base = Date.now() + 1_000_000 // far from the other tests' jobs
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await db.$transaction((tx) => enqueueJob(tx, { type: 'analyze_kyc', sessionId, runAt: new Date(base + i) }))).id)
    await db.$transaction((tx) => enqueueJob(tx, { type: 'analyze_auth', sessionId, runAt: new Date(base) }))
    const got = await claimJobs(db, { types: ['analyze_kyc'], limit: 2, leaseMs: 1000, now: new Date(base + 10) })
    expect(got.map((j) => j.id).sort()).toEqual(ids.slice(0, 2).sort())
  })
})
