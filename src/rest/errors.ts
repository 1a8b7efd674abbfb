import type { Context } from 'hono'
import { AppError, isAppError } from '../errors.js'
import { redactUrl, type Logger } from '../lib/logger.js'

export interface ErrorBody {
  detail: string
  message: string
  request_id: string
}

/** The one place where errors become `/v1` responses; anything unexpected is masked and logged. */
export function errorResponse(c: Context, err: unknown, logger: Logger): Response {
  const requestId = (c.get('requestId' as never) as string | undefined) ?? 'unknown'
  const e = isAppError(err) ? err : null
  if (!e) logger.error({ err, requestId, method: c.req.method, path: redactUrl(c.req.path) }, 'unexpected error')
  const status = e?.status ?? 500
  const body: ErrorBody = {
    detail: e?.code ?? 'internal_error',
    message: e?.message ?? 'internal error; quote the request_id when contacting support',
    request_id: requestId,
  }
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId }
  if (e?.code === 'rate_limited') headers['retry-after'] = String(e.details?.['retryAfter'] ?? 1)
  if (e?.code === 'unauthorized') headers['www-authenticate'] = 'Bearer'
  return new Response(JSON.stringify(body), { status, headers })
}

export const notFound = (what = 'route') => new AppError('not_found', `${what} not found`)
