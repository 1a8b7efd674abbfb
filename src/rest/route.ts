import type { Context } from 'hono'
import type { z } from 'zod'
import type { ErrorCode } from '../errors.js'
import type { Services } from '../services.js'

/**
 * One REST route: its contract (for /v1/openapi.json) and its thin handler. The request schemas
 * are the very zod schemas the services validate with, so the document cannot drift from the code.
 */
export interface RouteDef {
  method: 'get' | 'post'
  /** OpenAPI style: /v1/verify/{verification_id} */
  path: string
  operationId: string
  summary: string
  description?: string
  tag: string
  auth: 'apiKey' | 'sessionToken' | 'none'
  params?: Record<string, string>
  body?: z.ZodType
  response: z.ZodType
  status?: number
  errors: ErrorCode[]
  handler(c: Context, svc: Services): Promise<Response>
}

export const defineRoute = (r: RouteDef): RouteDef => r

/** /v1/verify/{id} → /v1/verify/:id for Hono */
export const honoPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1')
