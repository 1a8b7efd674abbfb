import type { Services } from '../../services.js'
import { mediaStore } from './media.js'

/** Removes capture rows and their encrypted files (a retried step, or the retention sweep). */
export async function deleteCaptures(
  svc: Pick<Services, 'db' | 'config' | 'cipher' | 'logger'>,
  where: { sessionId?: string; kind?: string; expiredBefore?: Date },
): Promise<number> {
  const rows = await svc.db.capture.findMany({
    where: {
      ...(where.sessionId ? { sessionId: where.sessionId } : {}),
      ...(where.kind ? { kind: where.kind } : {}),
      ...(where.expiredBefore ? { deleteAfter: { lte: where.expiredBefore } } : {}),
    },
    select: { id: true, storageKey: true },
    take: 1000,
  })
  const store = mediaStore(svc)
  for (const r of rows) {
    await store.delete(r.storageKey).catch((err: unknown) => svc.logger.warn({ err, capture: r.id }, 'could not delete media'))
  }
  if (rows.length) await svc.db.capture.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } })
  return rows.length
}

/** Retention: captures past their delete_after date are erased (MEDIA_RETENTION_DAYS). */
export const purgeExpiredCaptures = (svc: Pick<Services, 'db' | 'config' | 'cipher' | 'logger' | 'now'>) =>
  deleteCaptures(svc, { expiredBefore: svc.now() })
