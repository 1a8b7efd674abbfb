import { randomUUID } from 'node:crypto'
import type { Services } from '../../src/services.js'

/**
 * A decided verification written straight to the database, for read-side tests that must not
 * depend on the analysis pipeline. The webhook and sandbox tests produce verifications the real way.
 */
export async function insertVerification(
  svc: Pick<Services, 'db'>,
  tenantId: string,
  ambiente: 'sandbox' | 'producao',
  over: Partial<{ status: 'processing' | 'approved' | 'rejected' | 'manual_review' | 'webhook_failed'; finalStatus: 'approved' | 'rejected' | 'manual_review' | null; motivosRejeicao: string[] }> = {},
) {
  const sessionId = randomUUID()
  await svc.db.session.create({
    data: { id: sessionId, tenantId, ambiente, kind: 'KYC', tokenHash: randomUUID() + randomUUID(), status: 'completed', expiresAt: new Date(Date.now() + 60_000), documentosAceitos: ['passport'] },
  })
  return svc.db.verification.create({
    data: {
      sessionId,
      tenantId,
      ambiente,
      country: 'BR',
      externalId: 'user-1',
      status: over.status ?? 'approved',
      finalStatus: over.finalStatus === undefined ? (over.status === 'processing' ? null : (over.status ?? 'approved') === 'webhook_failed' ? 'approved' : (over.status ?? 'approved')) : over.finalStatus,
      scoreComposto: 91,
      scoreFaceMatch: 93,
      scoreLiveness: 88,
      scoreAntifraude: 95,
      ocrNome: 'ANNA MARIA ERIKSSON',
      ocrDocumentoNumero: 'L898902C3',
      ocrDataNascimento: '1974-08-12',
      motivosRejeicao: over.motivosRejeicao ?? [],
      completedAt: over.status === 'processing' ? null : new Date(),
    },
  })
}
