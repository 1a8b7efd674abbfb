/**
 * Operator CLI (no portal yet):  npm run admin -- <command> [options] [--json]
 *
 *   tenant create --name N [--kyc-credits N] [--auth-credits N] [--admin]
 *   tenant list
 *   key create --tenant ID --ambiente sandbox|producao [--admin] [--name LABEL]
 *   key list --tenant ID
 *   key deactivate KEY_ID | key activate KEY_ID | key revoke KEY_ID
 *   credits add --tenant ID [--kyc N] [--auth N]
 *   credits show --tenant ID
 *   webhook set --tenant ID --ambiente sandbox|producao --url URL|--clear
 *   webhook rotate-secret --tenant ID --ambiente sandbox|producao
 *
 * It opens the configured database itself: on the embedded default it takes the data directory's
 * lock, so it refuses with a clear message while the server runs (stop it, or use PostgreSQL).
 */
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.js'
import { openDatabase } from '../db.js'
import { AppError } from '../errors.js'
import type { Ambiente } from '../generated/prisma/enums.js'
import { Cipher } from '../lib/crypto.js'
import { resolveEncryptionKey } from '../lib/encryption-key.js'
import { toApiKeyView } from '../modules/api-keys/api-key-view.js'
import { createApiKey } from '../modules/api-keys/create-api-key.js'
import { setApiKeyStatus } from '../modules/api-keys/set-api-key-status.js'
import { addCredits, getBalances } from '../modules/credits/add-credits.js'
import { createTenant } from '../modules/tenants/create-tenant.js'
import { setWebhookUrl } from '../modules/tenants/set-webhook-url.js'
import { rotateWebhookSecret } from '../modules/tenants/webhook-secrets.js'

class UsageError extends Error {}

const USAGE = `usage: npm run admin -- <command> [options] [--json]
  tenant create --name N [--kyc-credits N] [--auth-credits N] [--admin]
  tenant list
  key create --tenant ID --ambiente sandbox|producao [--admin] [--name LABEL]
  key list --tenant ID
  key deactivate KEY_ID | key activate KEY_ID | key revoke KEY_ID
  credits add --tenant ID [--kyc N] [--auth N]
  credits show --tenant ID
  webhook set --tenant ID --ambiente sandbox|producao (--url URL | --clear)
  webhook rotate-secret --tenant ID --ambiente sandbox|producao`

const options = {
  name: { type: 'string' },
  tenant: { type: 'string' },
  ambiente: { type: 'string' },
  url: { type: 'string' },
  clear: { type: 'boolean' },
  kyc: { type: 'string' },
  auth: { type: 'string' },
  'kyc-credits': { type: 'string' },
  'auth-credits': { type: 'string' },
  admin: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function int(v: string | undefined, flag: string): number {
  if (v === undefined) return 0
  if (!/^\d+$/.test(v)) throw new UsageError(`--${flag} must be a whole number`)
  return Number(v)
}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`--${flag} is required`)
  return v
}

function ambiente(v: string | undefined): Ambiente {
  if (v !== 'sandbox' && v !== 'producao') throw new UsageError('--ambiente must be sandbox or producao')
  return v
}

type Out = { json: unknown; text: string }

export async function runAdmin(argv: string[], env: Record<string, string | undefined> = process.env): Promise<Out> {
  const { values: o, positionals: pos } = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  if (o.help || pos.length < 2) throw new UsageError(USAGE)
  const [group, verb, arg] = pos
  const config = loadConfig(env)
  const db = await openDatabase(config, { migrate: true })
  const svc = { db: db.prisma, cipher: new Cipher(resolveEncryptionKey(config)), config }
  try {
    switch (`${group} ${verb}`) {
      case 'tenant create': {
        const t = await createTenant(svc, { name: need(o.name, 'name'), kycCredits: int(o['kyc-credits'], 'kyc-credits'), authCredits: int(o['auth-credits'], 'auth-credits'), adminKeys: o.admin ?? false })
        const json = { tenant_id: t.tenantId, name: t.name, sandbox_key: t.sandboxKey, production_key: t.productionKey, webhook_secrets: t.webhookSecrets, credits: t.credits }
        return {
          json,
          text: `tenant ${t.tenantId} (${t.name})\n  sandbox key:     ${t.sandboxKey}\n  production key:  ${t.productionKey}\n  webhook secret (sandbox):  ${t.webhookSecrets.sandbox}\n  webhook secret (producao): ${t.webhookSecrets.producao}\n  credits: KYC ${t.credits.KYC}, AUTH ${t.credits.AUTH}\nKeys and secrets are shown only now; only hashes (keys) and ciphertexts (secrets) are stored.`,
        }
      }
      case 'tenant list': {
        const rows = await db.prisma.tenant.findMany({ orderBy: { createdAt: 'asc' }, select: { id: true, name: true, createdAt: true } })
        return { json: rows, text: rows.map((r) => `${r.id}  ${r.name}  ${r.createdAt.toISOString()}`).join('\n') || '(no tenants)' }
      }
      case 'key create': {
        const k = await createApiKey(svc, { tenantId: need(o.tenant, 'tenant'), ambiente: ambiente(o.ambiente), isAdmin: o.admin ?? false, name: o.name ?? null })
        return { json: { key: k.secret, ...k.key }, text: `key ${k.key.id} (${k.key.ambiente}${k.key.isAdmin ? ', admin' : ''}):\n  ${k.secret}\nShown only now.` }
      }
      case 'key list': {
        const rows = (await db.prisma.apiKey.findMany({ where: { tenantId: need(o.tenant, 'tenant') }, orderBy: { createdAt: 'asc' } })).map(toApiKeyView)
        return { json: rows, text: rows.map((k) => `${k.id}  ${k.display}  ${k.ambiente}  ${k.status}${k.isAdmin ? '  admin' : ''}`).join('\n') || '(no keys)' }
      }
      case 'key deactivate':
      case 'key activate':
      case 'key revoke': {
        const status = verb === 'deactivate' ? 'inactive' : verb === 'activate' ? 'active' : 'revoked'
        const k = await setApiKeyStatus(svc, { keyId: need(arg, 'KEY_ID (positional)'), status })
        return { json: k, text: `key ${k.id} (${k.display}) is now ${k.status}` }
      }
      case 'credits add': {
        const b = await addCredits(svc, { tenantId: need(o.tenant, 'tenant'), kyc: int(o.kyc, 'kyc'), auth: int(o.auth, 'auth') })
        return { json: { balances: b }, text: `balances: KYC ${b.KYC}, AUTH ${b.AUTH}` }
      }
      case 'credits show': {
        const b = await getBalances(svc, need(o.tenant, 'tenant'))
        return { json: { balances: b }, text: `balances: KYC ${b.KYC}, AUTH ${b.AUTH}` }
      }
      case 'webhook set': {
        if (!o.url && !o.clear) throw new UsageError('--url URL or --clear is required')
        const amb = ambiente(o.ambiente)
        await setWebhookUrl(svc, { tenantId: need(o.tenant, 'tenant'), ambiente: amb, url: o.clear ? null : o.url! })
        return { json: { ok: true, ambiente: amb, url: o.clear ? null : o.url }, text: `webhook URL (${amb}) ${o.clear ? 'cleared' : `set to ${o.url}`}` }
      }
      case 'webhook rotate-secret': {
        const amb = ambiente(o.ambiente)
        const secret = await rotateWebhookSecret(svc, need(o.tenant, 'tenant'), amb)
        return { json: { ambiente: amb, webhook_secret: secret }, text: `new webhook secret (${amb}): ${secret}\nShown only now.` }
      }
      default:
        throw new UsageError(`unknown command "${group} ${verb}"\n${USAGE}`)
    }
  } finally {
    await db.close()
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  const json = argv.includes('--json')
  try {
    const out = await runAdmin(argv)
    process.stdout.write(`${json ? JSON.stringify(out.json, null, 2) : out.text}\n`)
  } catch (e) {
    const known = e instanceof UsageError || e instanceof AppError || e instanceof ConfigError || (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    const message = e instanceof Error ? e.message : String(e)
    const code = e instanceof AppError ? e.code : e instanceof UsageError ? 'usage' : 'error'
    if (json) process.stderr.write(`${JSON.stringify({ error: code, message })}\n`)
    else process.stderr.write(`${message}\n`)
    if (!known) process.stderr.write(`${(e as Error)?.stack ?? ''}\n`)
    process.exit(e instanceof UsageError ? 2 : 1)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
