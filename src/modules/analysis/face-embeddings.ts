import type { Ambiente } from '../../generated/prisma/enums.js'
import type { Services } from '../../services.js'

const aad = (tenantId: string, ambiente: Ambiente, externalId: string) => `face-embedding:${tenantId}:${ambiente}:${externalId}`

/** Stores (or replaces) the face embedding of an approved KYC, AES-256-GCM encrypted and bound to its owner. */
export async function storeEmbedding(
  svc: Pick<Services, 'db' | 'cipher'>,
  e: { tenantId: string; ambiente: Ambiente; externalId: string; verificationId: string; model: string; embedding: number[] },
): Promise<void> {
  const ciphertext = svc.cipher.encrypt(Buffer.from(new Float32Array(e.embedding).buffer), aad(e.tenantId, e.ambiente, e.externalId)).toString('base64')
  await svc.db.faceEmbedding.upsert({
    where: { tenantId_ambiente_externalId: { tenantId: e.tenantId, ambiente: e.ambiente, externalId: e.externalId } },
    create: { tenantId: e.tenantId, ambiente: e.ambiente, externalId: e.externalId, verificationId: e.verificationId, model: e.model, ciphertext },
    update: { verificationId: e.verificationId, model: e.model, ciphertext },
  })
}

export function decryptEmbedding(svc: Pick<Services, 'cipher'>, row: { tenantId: string; ambiente: Ambiente; externalId: string; ciphertext: string }): number[] {
  const buf = svc.cipher.decrypt(Buffer.from(row.ciphertext, 'base64'), aad(row.tenantId, row.ambiente, row.externalId))
  return Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4))
}

export async function loadEmbedding(svc: Pick<Services, 'db' | 'cipher'>, tenantId: string, ambiente: Ambiente, externalId: string) {
  const row = await svc.db.faceEmbedding.findUnique({ where: { tenantId_ambiente_externalId: { tenantId, ambiente, externalId } } })
  return row ? { model: row.model, embedding: decryptEmbedding(svc, row) } : null
}

/**
 * 1:N duplicate search: another external_id of this tenant whose stored face matches. Linear over
 * the tenant's embeddings (decrypting each), which is fine for thousands; an ANN index is the
 * next step at larger scale.
 */
export async function findOtherIdentityWithFace(
  svc: Pick<Services, 'db' | 'cipher'>,
  q: { tenantId: string; ambiente: Ambiente; externalId: string | null; model: string; embedding: number[]; isMatch: (a: number[], b: number[]) => boolean },
): Promise<string | null> {
  const rows = await svc.db.faceEmbedding.findMany({
    where: { tenantId: q.tenantId, ambiente: q.ambiente, model: q.model, ...(q.externalId ? { externalId: { not: q.externalId } } : {}) },
    take: 20_000,
  })
  for (const r of rows) if (q.isMatch(q.embedding, decryptEmbedding(svc, r))) return r.externalId
  return null
}
