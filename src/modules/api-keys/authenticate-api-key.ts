import type { Ambiente } from '../../generated/prisma/enums.js'
import { AppError } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import type { Services } from '../../services.js'
import { ambienteOfKey } from './key-format.js'

/** Who is calling: one tenant in one environment. */
export interface Principal {
  tenantId: string
  ambiente: Ambiente
  keyId: string
  isAdmin: boolean
}

/**
 * A short positive cache keeps the hot path (session creation) at one query; status changes made
 * in this process evict at once, changes from another process are seen within CACHE_MS.
 */
const CACHE_MS = 5_000
const cache = new Map<string, { at: number; principal: Principal | AppError }>()
const lastUsedWrites = new Map<string, number>()

export function forgetCachedKey(keyHash: string): void {
  cache.delete(keyHash)
}

/** Parses `Authorization: Bearer sk_…` and returns the principal, or throws 401/403 as the spec says. */
export async function authenticateApiKey(svc: Pick<Services, 'db' | 'logger'>, authorization: string | null | undefined): Promise<Principal> {
  if (!authorization) throw new AppError('unauthorized', 'missing Authorization header: send "Authorization: Bearer sk_…"')
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
  if (!m?.[1]) throw new AppError('unauthorized', 'malformed Authorization header: expected "Bearer sk_…"')
  const key = m[1]
  if (!ambienteOfKey(key)) throw new AppError('unauthorized', 'invalid API key')
  const hash = sha256Hex(key)
  const now = Date.now()
  const hit = cache.get(hash)
  if (hit && now - hit.at < CACHE_MS) {
    if (hit.principal instanceof AppError) throw hit.principal
    return hit.principal
  }
  const row = await svc.db.apiKey.findUnique({ where: { keyHash: hash } })
  let result: Principal | AppError
  if (!row || row.status === 'revoked') result = new AppError('unauthorized', 'invalid API key')
  else if (row.status === 'inactive') result = new AppError('key_inactive', 'this API key is deactivated')
  else result = { tenantId: row.tenantId, ambiente: row.ambiente, keyId: row.id, isAdmin: row.isAdmin }
  if (cache.size > 10_000) cache.clear()
  cache.set(hash, { at: now, principal: result })
  if (result instanceof AppError) throw result
  // last_used_at at most once a minute per key: a write per request would double the hot path
  if (row && now - (lastUsedWrites.get(row.id) ?? 0) > 60_000) {
    lastUsedWrites.set(row.id, now)
    svc.db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } }).catch((e: unknown) => {
      svc.logger.warn({ err: e }, 'could not record last_used_at')
    })
  }
  return result
}
