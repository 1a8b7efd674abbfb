import { randomUUID } from 'node:crypto'
import { AppError } from '../../errors.js'
import type { Services } from '../../services.js'
import { createApiKey } from '../api-keys/create-api-key.js'
import { addCredits } from '../credits/add-credits.js'
import { encryptWebhookSecret, newWebhookSecret } from './webhook-secrets.js'

export interface CreatedTenant {
  tenantId: string
  name: string
  sandboxKey: string
  productionKey: string
  webhookSecrets: { sandbox: string; producao: string }
  credits: { KYC: number; AUTH: number }
}

/** A tenant with one sandbox key, one production key, both webhook secrets and its opening credits. */
export async function createTenant(
  svc: Pick<Services, 'db' | 'cipher'>,
  input: { name: string; kycCredits?: number; authCredits?: number; adminKeys?: boolean },
): Promise<CreatedTenant> {
  const name = input.name.trim()
  if (!name || name.length > 200) throw new AppError('invalid_request', 'tenant name must have 1 to 200 characters')
  const id = randomUUID()
  const secrets = { sandbox: newWebhookSecret(), producao: newWebhookSecret() }
  await svc.db.tenant.create({
    data: {
      id,
      name,
      webhookSecretSandbox: encryptWebhookSecret(svc, id, 'sandbox', secrets.sandbox),
      webhookSecretProducao: encryptWebhookSecret(svc, id, 'producao', secrets.producao),
      balances: { create: [{ kind: 'KYC', balance: 0 }, { kind: 'AUTH', balance: 0 }] },
    },
  })
  const kyc = input.kycCredits ?? 0
  const auth = input.authCredits ?? 0
  if (kyc || auth) await addCredits(svc, { tenantId: id, kyc, auth })
  const sandbox = await createApiKey(svc, { tenantId: id, ambiente: 'sandbox', isAdmin: input.adminKeys ?? false })
  const production = await createApiKey(svc, { tenantId: id, ambiente: 'producao', isAdmin: input.adminKeys ?? false })
  return { tenantId: id, name, sandboxKey: sandbox.secret, productionKey: production.secret, webhookSecrets: secrets, credits: { KYC: kyc, AUTH: auth } }
}
