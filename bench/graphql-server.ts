/**
 * Child process of bench/graphql.ts. `app`: the service on a fresh PGlite directory with one tenant
 * and one approved sandbox verification. `bare`: Yoga alone, answering a constant field.
 * Prints one JSON line when ready; answers {mem:true} IPC messages with its memory after a GC.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { createSchema, createYoga } from 'graphql-yoga'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createTenant } from '../src/modules/tenants/create-tenant.js'
import { createKycSession } from '../src/modules/sessions/create-session.js'
import { completeSandboxKyc } from '../src/modules/sandbox/complete-sandbox-session.js'
import { authenticateApiKey } from '../src/modules/api-keys/authenticate-api-key.js'

const mode = process.argv[2]

function memory() {
  ;(globalThis as { gc?: () => void }).gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed }
}
process.on('message', (msg: { mem?: boolean }) => {
  if (msg?.mem) process.send?.({ mem: memory() })
})

if (mode === 'bare') {
  const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'world' } } }), logging: false })
  const server = createServer(yoga)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as { port: number }).port
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }))
} else {
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn', DEMO_TENANT: 'false', WS_MAX_SUBSCRIPTIONS: '5' })
  const app = await buildApp(config)
  const url = await app.start(0, '127.0.0.1')
  const svc = app.services
  const t = await createTenant(svc, { name: 'bench' })
  const principal = await authenticateApiKey(svc, `Bearer ${t.sandboxKey}`)
  const s = await createKycSession(svc, principal, { country: 'BR' })
  const done = await completeSandboxKyc(svc, principal, s.session_token, { cpf: '00000000191' })
  console.log(JSON.stringify({ url, key: t.sandboxKey, verificationId: done.verification_id }))
  process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)))
}
