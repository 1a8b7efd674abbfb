import type { CreditKind } from '../../generated/prisma/enums.js'
import type { Prisma } from '../../generated/prisma/client.js'
import { AppError } from '../../errors.js'

type Tx = Prisma.TransactionClient

/**
 * Takes one credit inside the caller's transaction. One conditional UPDATE … WHERE balance > 0:
 * under concurrency the row lock serialises takers and the condition is re-checked, so the balance
 * never goes below zero (and a CHECK constraint backs it).
 */
export async function reserveCredit(tx: Tx, tenantId: string, kind: CreditKind, sessionId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ balance: number }[]>`
    UPDATE credit_balances SET balance = balance - 1, updated_at = now()
    WHERE tenant_id = ${tenantId}::uuid AND kind = ${kind}::"CreditKind" AND balance > 0
    RETURNING balance`
  const row = rows[0]
  if (!row) throw new AppError('insufficient_credits', `no ${kind} credits left for production sessions`)
  await tx.creditLedgerEntry.create({ data: { tenantId, kind, delta: -1, balanceAfter: Number(row.balance), reason: 'session_reserved', sessionId } })
  return Number(row.balance)
}

/** Gives one credit back (inside the caller's transaction), with its ledger row. */
export async function refundCredit(tx: Tx, tenantId: string, kind: CreditKind, sessionId: string, reason: string): Promise<void> {
  const rows = await tx.$queryRaw<{ balance: number }[]>`
    UPDATE credit_balances SET balance = balance + 1, updated_at = now()
    WHERE tenant_id = ${tenantId}::uuid AND kind = ${kind}::"CreditKind"
    RETURNING balance`
  const row = rows[0]
  if (!row) throw new Error(`credit balance row missing for tenant ${tenantId} ${kind}`)
  await tx.creditLedgerEntry.create({ data: { tenantId, kind, delta: 1, balanceAfter: Number(row.balance), reason, sessionId } })
}
