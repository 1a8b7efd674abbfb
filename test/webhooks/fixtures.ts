import { randomUUID } from 'node:crypto'
import type { Config } from '../../src/config.js'
import { openDatabase, type Database } from '../../src/db.js'
import { Cipher } from '../../src/lib/crypto.js'
import { resolveEncryptionKey } from '../../src/lib/encryption-key.js'
import { createLogger } from '../../src/lib/logger.js'
import { createAppPubSub } from '../../src/lib/pubsub.js'
import type { Services } from '../../src/services.js'

/** Services on their own database connection (a second dispatcher, or a child process). */
export async function openServices(config: Config): Promise<{ svc: Services; database: Database; close(): Promise<void> }> {
  const database = await openDatabase(config, { migrate: false })
  const pubsub = await createAppPubSub(config)
  const svc: Services = {
    config,
    db: database.prisma,
    dbKind: database.kind,
    logger: createLogger(config),
    cipher: new Cipher(resolveEncryptionKey(config)),
    pubsub,
    now: () => new Date(),
  }
  return {
    svc,
    database,
    async close() {
      await pubsub.close()
      await database.close()
    },
  }
}

/**
 * n outbox events, each with its attempt-1 delivery due now, as completeVerification leaves them
 * (bodies carry a sequence number so a receiver can tell which event arrived).
 */
export async function insertPendingEvents(db: Services['db'], tenantId: string, url: string, n: number): Promise<void> {
  const now = new Date()
  for (let from = 0; from < n; from += 500) {
    const events = Array.from({ length: Math.min(500, n - from) }, (_, i) => ({
      id: randomUUID(),
      tenantId,
      ambiente: 'sandbox' as const,
      type: 'verification.completed',
      body: JSON.stringify({ event: 'verification.completed', seq: from + i }),
      url,
      createdAt: now,
    }))
    await db.webhookEvent.createMany({ data: events })
    await db.webhookDelivery.createMany({ data: events.map((e) => ({ id: randomUUID(), eventId: e.id, attempt: 1, status: 'pending' as const, dueAt: now, createdAt: now })) })
  }
}
