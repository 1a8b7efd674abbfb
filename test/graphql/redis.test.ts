import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { print } from 'graphql'
import { createClient } from 'graphql-ws'
import { Redis } from 'ioredis'
import WebSocket from 'ws'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildApp, type App } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { CreateKycSessionDocument, SandboxCompleteVerificationDocument, VerificationEventsDocument } from '../../src/graphql/generated/graphql.js'
import { publishStatus } from '../../src/lib/pubsub.js'
import { createLogger } from '../../src/lib/logger.js'
import { dbKind, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { gql } from './gql.js'
import { Stream, wsUrl } from './ws-client.js'

/**
 * Two instances on the local Redis: a subscriber on A hears a change made through B. On PostgreSQL
 * both share one database and B makes a real change; on PGlite (one process per data directory)
 * each has its own database and the change is published through B's pub/sub, which still proves
 * the Redis path. Topics carry random tenant/session ids, so parallel runs cannot cross-talk.
 */
const REDIS_URL = 'redis://127.0.0.1:6379'

let a: TestApp
let b: { url: string; app: App; close(): Promise<void> }
let redis: Redis

beforeAll(async () => {
  a = await startTestApp({ REDIS_URL })
  if (dbKind() === 'postgres') {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'svc-b-')), DATABASE_URL: a.config.DATABASE_URL!, REDIS_URL })
    const app = await buildApp(config, { logger: createLogger(config), migrate: false })
    const url = await app.start(0, '127.0.0.1')
    b = { url, app, close: () => app.stop() }
  } else {
    b = await startTestApp({ REDIS_URL })
  }
  redis = new Redis(REDIS_URL)
})
afterAll(async () => {
  redis?.disconnect()
  await b?.close()
  await a?.close()
})

it('a subscriber on instance A receives a change made through instance B', async () => {
  const tenant = await newTenant(a, {}, true)
  const client = createClient({ url: wsUrl(a.url), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tenant.sandboxKey}` }, retryAttempts: 0 })
  try {
    const stream = new Stream(client, print(VerificationEventsDocument))
    // live once A has subscribed to the tenant's Redis channel
    const channel = `tenant-events:${tenant.tenantId}:sandbox`
    for (;;) {
      const [, n] = (await redis.pubsub('NUMSUB', channel)) as [string, number]
      if (Number(n) >= 1) break
      await new Promise((r) => setTimeout(r, 20))
    }
    if (dbKind() === 'postgres') {
      const s = await gql(b.url, CreateKycSessionDocument, {}, { key: tenant.sandboxKey })
      await gql(b.url, SandboxCompleteVerificationDocument, { sessionToken: s.data!.createKycSession.sessionToken, cpf: '00000000191' }, { key: tenant.sandboxKey })
      expect((await stream.take(3)).map((e) => e['status'])).toEqual(['created', 'processing', 'approved'])
    } else {
      const sessionId = crypto.randomUUID()
      for (const status of ['created', 'processing']) {
        publishStatus(b.app.services.pubsub, { kind: 'KYC', sessionId, tenantId: tenant.tenantId, ambiente: 'sandbox', verificationId: null, authAttemptId: null, status, at: new Date().toISOString() })
      }
      const got = await stream.take(2)
      expect(got.map((e) => [e['sessionId'], e['status']])).toEqual([
        [sessionId, 'created'],
        [sessionId, 'processing'],
      ])
    }
  } finally {
    await client.dispose()
  }
})
