import type { Services } from '../../services.js'
import { createTenant } from './create-tenant.js'

export const DEMO_TENANT_NAME = 'Demo (sandbox)'

/**
 * First start on the embedded default: a demo tenant so a newcomer can call the API at once.
 * Its sandbox key is returned only when it is created (printed once, stored only as a hash).
 */
export async function ensureDemoTenant(svc: Pick<Services, 'db' | 'cipher'>): Promise<{ tenantId: string; sandboxKey: string | null }> {
  const existing = await svc.db.tenant.findFirst({ where: { name: DEMO_TENANT_NAME }, select: { id: true } })
  if (existing) return { tenantId: existing.id, sandboxKey: null }
  const t = await createTenant(svc, { name: DEMO_TENANT_NAME })
  return { tenantId: t.tenantId, sandboxKey: t.sandboxKey }
}
