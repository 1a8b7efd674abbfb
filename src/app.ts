import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Config } from './config.js'
import { openDatabase, type Database } from './db.js'
import { Cipher } from './lib/crypto.js'
import { resolveEncryptionKey } from './lib/encryption-key.js'
import { createLogger, type Logger } from './lib/logger.js'
import { startLoop, type Loop } from './lib/loop.js'
import { createAppPubSub } from './lib/pubsub.js'
import { expireSessions } from './modules/sessions/expire-sessions.js'
import { ensureDemoTenant } from './modules/tenants/ensure-demo-tenant.js'
import { mountGraphql } from './graphql/index.js'
import { startBackground } from './jobs/index.js'
import { buildRestApp } from './rest/router.js'
import type { Services } from './services.js'

export interface App {
  services: Services
  server: Server
  /** base URL actually listened on (after start) */
  url: string
  start(port?: number, host?: string): Promise<string>
  stop(): Promise<void>
  /** runs the background work once now (tests) */
  loops: Record<string, Loop>
  demo: { tenantId: string; sandboxKey: string | null } | null
}

export interface BuildOptions {
  logger?: Logger
  now?: () => Date
  onQuery?: (sql: string) => void
  /** apply pending migrations on start (default true; tests start from a migrated template) */
  migrate?: boolean
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<App> {
  const logger = opts.logger ?? createLogger(config)
  const cipher = new Cipher(resolveEncryptionKey(config))
  const database: Database = await openDatabase(config, { migrate: opts.migrate ?? true, ...(opts.onQuery ? { onQuery: opts.onQuery } : {}) })
  if (database.appliedMigrations.length) logger.info({ migrations: database.appliedMigrations }, 'migrations applied')
  const pubsub = await createAppPubSub(config)
  const services: Services = {
    config,
    db: database.prisma,
    dbKind: database.kind,
    logger,
    cipher,
    pubsub,
    now: opts.now ?? (() => new Date()),
  }

  const demo = config.DEMO_TENANT ? await ensureDemoTenant(services) : null

  const rest = buildRestApp(services, { demo })
  const restListener = getRequestListener(rest.fetch)
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (graphql.handle(req, res)) return
    void restListener(req, res)
  })
  const graphql = mountGraphql(services, server)
  // slow-loris and idle-socket bounds
  server.requestTimeout = 60_000
  server.headersTimeout = 15_000
  server.keepAliveTimeout = 5_000

  const loops: Record<string, Loop> = {}
  const app: App = {
    services,
    server,
    url: config.PUBLIC_URL,
    loops,
    demo,
    async start(port = config.PORT, host = config.HOST) {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      const addr = server.address() as AddressInfo
      app.url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
      if (config.ROLE !== 'api') {
        loops['expiry'] = startLoop('expiry', config.EXPIRY_SWEEP_MS, () => expireSessions(services), logger)
        Object.assign(loops, startBackground(services))
      }
      return app.url
    },
    async stop() {
      await Promise.all(Object.values(loops).map((l) => l.stop()))
      await graphql.stop()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await pubsub.close()
      await database.close()
    },
  }
  return app
}
