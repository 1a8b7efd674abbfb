import { randomUUID } from 'node:crypto'
import type { Job, Prisma } from '../generated/prisma/client.js'
import type { Db } from '../db.js'

type Tx = Prisma.TransactionClient

export type JobType = 'analyze_kyc' | 'analyze_auth'

/** Enqueues a job inside the caller's transaction, so the job exists exactly when its cause commits. */
export async function enqueueJob(tx: Tx, job: { type: JobType; sessionId: string; payload?: Prisma.InputJsonValue; runAt: Date; maxAttempts?: number }): Promise<Job> {
  return tx.job.create({
    data: { type: job.type, sessionId: job.sessionId, payload: job.payload ?? {}, runAt: job.runAt, maxAttempts: job.maxAttempts ?? 3 },
  })
}

/**
 * Claims up to `limit` due jobs (queued and due, or running with an expired lease: a crashed worker's
 * job runs again). FOR UPDATE SKIP LOCKED lets several workers claim side by side without taking
 * the same job; the lease bounds how long a claim survives its worker.
 */
export async function claimJobs(db: Db, opts: { types: JobType[]; limit: number; leaseMs: number; now: Date; workerId?: string }): Promise<Job[]> {
  const worker = opts.workerId ?? `w_${randomUUID().slice(0, 8)}`
  const lease = new Date(opts.now.getTime() + opts.leaseMs)
  return db.$transaction(async (tx) => {
    const due = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM jobs
      WHERE type = ANY(${opts.types}::text[])
        AND ((status = 'queued' AND run_at <= ${opts.now}) OR (status = 'running' AND lease_until < ${opts.now}))
      ORDER BY run_at
      LIMIT ${opts.limit}
      FOR UPDATE SKIP LOCKED`
    if (!due.length) return []
    const ids = due.map((d) => d.id)
    await tx.job.updateMany({ where: { id: { in: ids } }, data: { status: 'running', leaseUntil: lease, lockedBy: worker, attempts: { increment: 1 } } })
    return tx.job.findMany({ where: { id: { in: ids } } })
  })
}

export async function finishJob(db: Db, id: string): Promise<void> {
  await db.job.update({ where: { id }, data: { status: 'done', leaseUntil: null } })
}

/** Failed attempt: retried with backoff until maxAttempts, then `failed`. Returns true when it is final. */
export async function failJob(db: Db, job: Job, error: string, now: Date): Promise<boolean> {
  const final = job.attempts >= job.maxAttempts
  await db.job.update({
    where: { id: job.id },
    data: { status: final ? 'failed' : 'queued', lastError: error.slice(0, 2000), leaseUntil: null, runAt: new Date(now.getTime() + 2 ** job.attempts * 1000) },
  })
  return final
}
