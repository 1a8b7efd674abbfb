import type { Ambiente } from '../generated/prisma/enums.js'
import type { GraphqlContext } from './context.js'

export interface TenantScope {
  tenantId: string
  ambiente: Ambiente
}

/**
 * THE tenant and environment isolation of the GraphQL API: every root field that reads or changes
 * tenant-owned rows goes through `scoped()` (or `tenantScope()` for module calls), so the caller's
 * key decides tenant and environment and nothing in the arguments can widen it. Rows reached from a
 * scoped row through relations (a verification's session, its deliveries) belong to the same tenant.
 */
export async function tenantScope(ctx: GraphqlContext): Promise<TenantScope> {
  const p = await ctx.auth.principal()
  return { tenantId: p.tenantId, ambiente: p.ambiente }
}

/**
 * `where` AND the caller's scope. An AND (not a spread) so that a filter on `ambiente` or
 * `tenantId` can only narrow the result, never replace the scope.
 */
export async function scoped<W extends object>(ctx: GraphqlContext, where: W): Promise<{ AND: [W, TenantScope] }> {
  return { AND: [where, await tenantScope(ctx)] }
}

/** Tenant-level rows (credit balances): the tenant only, environment does not apply. */
export async function tenantOnly(ctx: GraphqlContext): Promise<{ tenantId: string }> {
  const p = await ctx.auth.principal()
  return { tenantId: p.tenantId }
}
