import { randomUUID } from 'node:crypto'
import { AppError } from '../../errors.js'
import type { Prisma } from '../../generated/prisma/client.js'
import type { Ambiente, SessionKind } from '../../generated/prisma/enums.js'
import { randomHex, sha256Hex } from '../../lib/crypto.js'
import { publishStatus } from '../../lib/pubsub.js'
import type { Services } from '../../services.js'
import type { Principal } from '../api-keys/authenticate-api-key.js'
import { reserveCredit } from '../credits/credit-ops.js'
import { validateWebhookUrl } from '../webhooks/validate-webhook-url.js'
import { AuthSessionInput, BR_DOCUMENT_TYPES, defaultDocumentTypes, KycSessionInput, parseInput } from './session-input.js'

export interface SessionCreatedResult {
  session_token: string
  expira_em: string
  widget_url?: string
}

interface NewSession {
  kind: SessionKind
  ambiente: Ambiente
  country: string
  externalId: string | null
  webhookUrl: string | null
  documentosAceitos: string[]
  redirectUri: string | null
}

/** POST /v1/verify/session and the GraphQL mutation: validation, environment check, credit, session. */
export async function createKycSession(svc: Services, principal: Principal, body: unknown): Promise<SessionCreatedResult> {
  const input = parseInput(KycSessionInput, body === undefined ? {} : body)
  assertAmbiente(principal, input.ambiente)
  const docs = input.documentos_aceitos ?? defaultDocumentTypes(input.country)
  const foreign = input.country !== 'BR' && input.country !== 'WORLD' ? docs.filter((d) => BR_DOCUMENT_TYPES.includes(d)) : []
  if (foreign.length)
    throw new AppError('invalid_documentos_aceitos', `${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} Brazilian only; country is ${input.country}`, {
      field: 'documentos_aceitos',
    })
  return insertSession(svc, principal, {
    kind: 'KYC',
    ambiente: input.ambiente,
    country: input.country,
    externalId: input.external_id ?? null,
    webhookUrl: input.webhook_url === undefined ? null : await validateWebhookUrl(svc.config, input.webhook_url, input.ambiente),
    documentosAceitos: docs,
    redirectUri: input.redirect_uri ?? null,
  })
}

/** POST /v1/auth/session and the GraphQL mutation. */
export async function createAuthSession(svc: Services, principal: Principal, body: unknown): Promise<SessionCreatedResult> {
  const input = parseInput(AuthSessionInput, body === undefined ? {} : body)
  assertAmbiente(principal, input.ambiente)
  return insertSession(svc, principal, {
    kind: 'AUTH',
    ambiente: input.ambiente,
    country: 'WORLD',
    externalId: input.external_id,
    webhookUrl: input.webhook_url === undefined ? null : await validateWebhookUrl(svc.config, input.webhook_url, input.ambiente),
    documentosAceitos: [],
    redirectUri: input.redirect_uri ?? null,
  })
}

type SessionRow = Omit<NewSession, 'kind' | 'ambiente'> & { id: string; tenantId: string; ambiente: Ambiente; kind: SessionKind; tokenHash: string; expiresAt: Date; createdAt: Date }

/**
 * The hot path of the API (every session creation): one parameterised INSERT. Written as SQL
 * because Prisma's create costs 2–3× the CPU of the same statement through $executeRaw here
 * (bench/rest.ts); the columns are those of the `sessions` model in prisma/schema.prisma.
 */
async function insertSessionRow(db: Pick<Prisma.TransactionClient, '$executeRaw'>, r: SessionRow, creditReserved: boolean): Promise<void> {
  await db.$executeRaw`
    INSERT INTO sessions (id, tenant_id, ambiente, kind, token_hash, status, country, external_id, webhook_url,
                          documentos_aceitos, redirect_uri, credit_reserved, expires_at, created_at, updated_at)
    VALUES (${r.id}::uuid, ${r.tenantId}::uuid, ${r.ambiente}::"Ambiente", ${r.kind}::"SessionKind", ${r.tokenHash}, 'created',
            ${r.country}, ${r.externalId}, ${r.webhookUrl}, ${r.documentosAceitos}::text[], ${r.redirectUri}, ${creditReserved},
            ${r.expiresAt}, ${r.createdAt}, ${r.createdAt})`
}

function assertAmbiente(principal: Principal, ambiente: Ambiente): void {
  if (principal.ambiente !== ambiente) {
    const key = principal.ambiente === 'sandbox' ? 'a sandbox key (sk_test_)' : 'a production key (sk_live_)'
    throw new AppError('wrong_ambiente', `ambiente "${ambiente}" cannot be used with ${key}`)
  }
}

async function insertSession(svc: Services, principal: Principal, s: NewSession): Promise<SessionCreatedResult> {
  // 32 random bytes → 64 hex characters; only the hash is stored, so a database leak yields no usable token
  const token = randomHex(32)
  const id = randomUUID()
  const now = svc.now()
  const expiresAt = new Date(now.getTime() + svc.config.SESSION_TTL_SECONDS * 1000)
  const data = {
    id,
    tenantId: principal.tenantId,
    ambiente: s.ambiente,
    kind: s.kind,
    tokenHash: sha256Hex(token),
    country: s.country,
    externalId: s.externalId,
    webhookUrl: s.webhookUrl,
    documentosAceitos: s.documentosAceitos,
    redirectUri: s.redirectUri,
    expiresAt,
    createdAt: now,
  }
  if (s.ambiente === 'producao') {
    // credit and session commit together or not at all
    await svc.db.$transaction(async (tx) => {
      await insertSessionRow(tx, data, true)
      await reserveCredit(tx, principal.tenantId, s.kind, id)
    })
  } else {
    await insertSessionRow(svc.db, data, false)
  }
  publishStatus(svc.pubsub, {
    kind: s.kind,
    sessionId: id,
    tenantId: principal.tenantId,
    ambiente: s.ambiente,
    verificationId: null,
    authAttemptId: null,
    status: 'created',
    at: now.toISOString(),
  })
  return {
    session_token: token,
    expira_em: expiresAt.toISOString(),
    ...(s.redirectUri ? { widget_url: `${svc.config.PUBLIC_URL}/widget?token=${token}` } : {}),
  }
}
