import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { call, dbKind, expectError, freshDbEnv } from '../helpers/harness.js'

const run = promisify(execFile)

/** The operator CLI, run as operators run it: a separate process on the configured database. */
let env: Record<string, string>
const admin = async (...args: string[]) => {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args, '--json'], { env: { ...process.env, ...env, LOG_LEVEL: 'silent' } })
    return { code: 0, json: JSON.parse(r.stdout), stderr: r.stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, json: null, stderr: err.stderr }
  }
}

beforeAll(async () => {
  env = { ...(await freshDbEnv()), NODE_ENV: 'test' }
})

describe('admin CLI', () => {
  // each call is a process that opens the database: slow on a loaded 2-core machine
  it('creates a tenant with keys, secrets and credits; manages keys, credits and webhooks; the API honours all of it', { timeout: 240_000 }, async () => {
    const t = await admin('tenant', 'create', '--name', 'Acme', '--kyc-credits', '2', '--auth-credits', '1')
    expect(t.code).toBe(0)
    expect(t.json.sandbox_key).toMatch(/^sk_test_[A-Za-z0-9]{40}$/)
    expect(t.json.production_key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/)
    expect(t.json.webhook_secrets.sandbox).toMatch(/^whsec_/)
    expect(t.json.credits).toEqual({ KYC: 2, AUTH: 1 })
    const tenant = t.json.tenant_id as string

    const k = await admin('key', 'create', '--tenant', tenant, '--ambiente', 'producao', '--admin')
    expect(k.json.key).toMatch(/^sk_live_/)
    expect(k.json).toMatchObject({ ambiente: 'producao', isAdmin: true, status: 'active', last4: k.json.key.slice(-4) })
    const list = await admin('key', 'list', '--tenant', tenant)
    expect(list.json).toHaveLength(3)
    expect(JSON.stringify(list.json)).not.toContain(k.json.key)

    expect((await admin('key', 'deactivate', k.json.id)).json.status).toBe('inactive')
    expect((await admin('credits', 'add', '--tenant', tenant, '--kyc', '3')).json.balances).toEqual({ KYC: 5, AUTH: 1 })
    expect((await admin('webhook', 'set', '--tenant', tenant, '--ambiente', 'producao', '--url', 'https://hooks.acme.example/kyc')).code).toBe(0)
    const rotated = await admin('webhook', 'rotate-secret', '--tenant', tenant, '--ambiente', 'sandbox')
    expect(rotated.json.webhook_secret).toMatch(/^whsec_/)
    expect(rotated.json.webhook_secret).not.toBe(t.json.webhook_secrets.sandbox)

    // the server sees what the CLI did
    const { buildApp } = await import('../../src/app.js')
    const srv = await buildApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { migrate: false })
    const url = await srv.start(0, '127.0.0.1')
    try {
      expectError(await call(url, 'POST', '/v1/verify/session', { key: k.json.key, json: { ambiente: 'producao' } }), 403, 'key_inactive')
      expect((await call(url, 'POST', '/v1/verify/session', { key: t.json.production_key, json: { ambiente: 'producao' } })).status).toBe(201)
      const tenantRow = await srv.services.db.tenant.findUniqueOrThrow({ where: { id: tenant } })
      expect(tenantRow.webhookUrlProducao).toBe('https://hooks.acme.example/kyc')
      expect(JSON.stringify(tenantRow)).not.toContain(rotated.json.webhook_secret)
    } finally {
      await srv.stop()
    }
  })

  it('refuses bad input with a clear message and a non-zero exit', { timeout: 120_000 }, async () => {
    const bad = await admin('credits', 'add', '--tenant', 'not-a-tenant', '--kyc', '1')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('not found')
    const usage = await admin('key', 'create', '--tenant', 'x', '--ambiente', 'prod')
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--ambiente must be sandbox or producao')
    const unknown = await admin('frobnicate', 'now')
    expect(unknown.code).toBe(2)
  })

  it.runIf(dbKind() === 'pglite')('refuses to open the embedded database while a server holds it', async () => {
    const { buildApp } = await import('../../src/app.js')
    const srv = await buildApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { migrate: false })
    try {
      const r = await admin('tenant', 'list')
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/in use by process \d+/)
    } finally {
      await srv.stop()
    }
  })
})
