import { AppError } from '../errors.js'
import type { Session } from '../generated/prisma/client.js'
import { randomBase62 } from '../lib/crypto.js'
import { authenticateApiKey, type Principal } from '../modules/api-keys/authenticate-api-key.js'
import { findSessionByToken, isExpired } from '../modules/sessions/resolve-session.js'
import type { Services } from '../services.js'

export interface Credentials {
  /** `Bearer sk_…` */
  authorization?: string | null | undefined
  /** a session token (the widget) */
  sessionToken?: string | null | undefined
}

/**
 * Who is calling, resolved lazily: a request that asks only for `__typename` needs no credentials,
 * and a field that needs them fails with the documented code (unauthorized, key_inactive, …).
 */
export class RequestAuth {
  private principalP: Promise<Principal> | undefined
  private sessionP: Promise<Session> | undefined

  constructor(
    private readonly svc: Services,
    readonly credentials: Credentials,
    known: { principal?: Principal; session?: Session } = {},
  ) {
    if (known.principal) this.principalP = Promise.resolve(known.principal)
    if (known.session) this.sessionP = Promise.resolve(known.session)
  }

  get hasKey(): boolean {
    return !!this.credentials.authorization
  }

  get hasSessionToken(): boolean {
    return !!this.credentials.sessionToken
  }

  /** The API key's tenant and environment; throws 401/403 codes as REST does. */
  principal(): Promise<Principal> {
    this.principalP ??= authenticateApiKey(this.svc, this.credentials.authorization)
    return this.principalP
  }

  async admin(): Promise<Principal> {
    const p = await this.principal()
    if (!p.isAdmin) throw new AppError('forbidden', 'this operation needs an admin key (flagged by the admin CLI)')
    return p
  }

  /** The session of the token; an expired session is refused (410 session_expired). */
  session(): Promise<Session> {
    this.sessionP ??= (async () => {
      if (!this.credentials.sessionToken) throw new AppError('unauthorized', 'missing session token: send the X-Session-Token header (or connectionParams.sessionToken)')
      const s = await findSessionByToken(this.svc, this.credentials.sessionToken)
      if (isExpired(s, this.svc.now())) throw new AppError('session_expired', 'this session has expired; create a new one')
      return s
    })()
    return this.sessionP
  }
}

export interface GraphqlContext {
  svc: Services
  requestId: string
  auth: RequestAuth
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

export function requestIdFrom(given: string | null | undefined): string {
  return given && REQUEST_ID.test(given) ? given : `req_${randomBase62(20)}`
}

export function buildContext(svc: Services, credentials: Credentials, requestId: string, known?: { principal?: Principal; session?: Session }): GraphqlContext {
  return { svc, requestId, auth: new RequestAuth(svc, credentials, known) }
}
