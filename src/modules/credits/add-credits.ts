import { AppError } from '../../errors.js'
import type { CreditKind } from '../../generated/prisma/enums.js'
import type { Services } from '../../services.js'
import { isUuid } from '../../lib/ids.js'

const MAX_GRANT = 10_000_000

/** Operator grant of KYC and/or Auth credits; each non-zero grant is one ledger row. */
export async function addCredits(
  svc: Pick<Services, 'db'>,
  input: { tenantId: string; kyc?: number; auth?: number },
): Promise<Record<CreditKind, number>> {
  const grants: [CreditKind, number][] = [
    ['KYC', input.kyc ?? 0],
    ['AUTH', input.auth ?? 0],
  ]
  for (const [, n] of grants)
    if (!Number.isInteger(n) || n < 0 || n > MAX_GRANT) throw new AppError('invalid_request', `credits must be whole numbers from 0 to ${MAX_GRANT}`)
  const tenant = isUuid(input.tenantId) ? await svc.db.tenant.findUnique({ where: { id: input.tenantId }, select: { id: true } }) : null
  if (!tenant) throw new AppError('not_found', `tenant ${input.tenantId} not found`)
  return svc.db.$transaction(async (tx) => {
    const out = { KYC: 0, AUTH: 0 } as Record<CreditKind, number>
    for (const [kind, n] of grants) {
      const row = await tx.creditBalance.upsert({
        where: { tenantId_kind: { tenantId: input.tenantId, kind } },
        create: { tenantId: input.tenantId, kind, balance: n },
        update: { balance: { increment: n } },
      })
      if (n > 0) await tx.creditLedgerEntry.create({ data: { tenantId: input.tenantId, kind, delta: n, balanceAfter: row.balance, reason: 'grant' } })
      out[kind] = row.balance
    }
    return out
  })
}

export async function getBalances(svc: Pick<Services, 'db'>, tenantId: string): Promise<Record<CreditKind, number>> {
  const rows = await svc.db.creditBalance.findMany({ where: { tenantId } })
  const out = { KYC: 0, AUTH: 0 } as Record<CreditKind, number>
  for (const r of rows) out[r.kind] = r.balance
  return out
}
