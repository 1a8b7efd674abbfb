/**
 * Child process for bench/rest.ts: `bare` answers a fixed session JSON with node:http (the ceiling),
 * `app` runs the real service on the given database. Prints one JSON line {url, key} when ready.
 */
import { createServer } from 'node:http'
import { randomBytes } from 'node:crypto'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createTenant } from '../src/modules/tenants/create-tenant.js'

const mode = process.argv[2]
if (mode === 'bare') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString() || '{}')
      const body = JSON.stringify({ session_token: randomBytes(32).toString('hex'), expira_em: new Date(Date.now() + 1_800_000).toISOString() })
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
  server.listen(0, '127.0.0.1', () => {
    const a = server.address() as { port: number }
    console.log(JSON.stringify({ url: `http://127.0.0.1:${a.port}`, key: 'none' }))
  })
} else {
  // one key at thousands of req/s is exactly what the per-key limit stops: off here, to measure the service itself
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'production', ENCRYPTION_KEY: randomBytes(32).toString('hex'), DEMO_TENANT: 'false', RATE_LIMIT_PER_MINUTE: '0' })
  const app = await buildApp(config)
  const url = await app.start(0, '127.0.0.1')
  const t = await createTenant(app.services, { name: 'bench' })
  console.log(JSON.stringify({ url, key: t.sandboxKey }))
  process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)))
}
