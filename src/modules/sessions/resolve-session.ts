import { AppError } from '../../errors.js'
import type { Session } from '../../generated/prisma/client.js'
import { sha256Hex } from '../../lib/crypto.js'
import type { Services } from '../../services.js'

export const TOKEN_PATTERN = /^[0-9a-f]{64}$/

/** A session is expired once its time is up, whether or not the sweeper has marked it yet. */
export function isExpired(s: Pick<Session, 'status' | 'expiresAt'>, now: Date): boolean {
  return s.status === 'expired' || ((s.status === 'created' || s.status === 'in_progress') && s.expiresAt <= now)
}

/** Finds the session of a token (any state). Unknown or malformed tokens are 401. */
export async function findSessionByToken(svc: Pick<Services, 'db'>, token: string | null | undefined): Promise<Session> {
  if (!token || !TOKEN_PATTERN.test(token)) throw new AppError('unauthorized', 'invalid session token')
  const s = await svc.db.session.findUnique({ where: { tokenHash: sha256Hex(token) } })
  if (!s) throw new AppError('unauthorized', 'invalid session token')
  return s
}

/**
 * The session of a token that may still act (upload, start a challenge, complete): 410 when expired,
 * 409 when the flow already completed (tokens are single use).
 */
export async function requireActiveSession(svc: Pick<Services, 'db' | 'now'>, token: string | null | undefined): Promise<Session> {
  const s = await findSessionByToken(svc, token)
  if (isExpired(s, svc.now())) throw new AppError('session_expired', 'this session has expired; create a new one')
  if (s.status === 'completed') throw new AppError('session_already_used', 'this session was already used; create a new one')
  return s
}
