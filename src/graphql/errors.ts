import type { GraphQLError as GraphQLErrorType } from 'graphql'
import { createGraphQLError, maskError as yogaMaskError } from 'graphql-yoga'
import { isAppError } from '../errors.js'
import type { Logger } from '../lib/logger.js'
import { graphqlJs } from './graphql-js.js'

const { GraphQLError } = graphqlJs
type GraphQLError = GraphQLErrorType

/** Unexpected errors already logged (with their request id), so Yoga's own logging does not repeat them. */
const logged = new WeakSet<object>()
const requestIds = new WeakMap<object, string>()

const isUnexpected = (e: GraphQLError) => e.originalError !== undefined && !(e.originalError instanceof GraphQLError) && !isAppError(e.originalError)

/** Called with the raw errors of every phase, before masking: logs the unexpected ones with the request id. */
export function logUnexpected(logger: Logger, errors: readonly Error[], requestId: string | undefined, operationName?: string | null): void {
  for (const e of errors) {
    if (!(e instanceof GraphQLError) || !isUnexpected(e) || logged.has(e)) continue
    logged.add(e)
    if (requestId) requestIds.set(e, requestId)
    logger.error({ err: e.originalError, requestId, path: e.path?.join('.'), operationName }, 'graphql: unexpected error')
  }
}

/** Already logged with its request id, or an AppError (an answer, not a fault): Yoga need not log it again. */
export const wasLogged = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (logged.has(e) || isAppError((e as { originalError?: unknown }).originalError))

/**
 * AppError → its code in `extensions.code` (and the HTTP status Yoga uses for the response);
 * GraphQL's own errors (syntax, validation) pass; everything else is masked, quoting the request id.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error
  const located = error instanceof GraphQLError ? error : undefined
  if (isAppError(original)) {
    return createGraphQLError(original.message, {
      ...(located ? { nodes: located.nodes, source: located.source, positions: located.positions, path: located.path } : {}),
      extensions: {
        code: original.code,
        ...(typeof original.details?.['field'] === 'string' ? { field: original.details['field'] } : {}),
        http: { status: original.status, ...(original.code === 'unauthorized' ? { headers: { 'WWW-Authenticate': 'Bearer' } } : {}) },
      },
    })
  }
  const masked = yogaMaskError(error, message, isDev)
  if (masked === error) return masked
  const requestId = typeof error === 'object' && error !== null ? requestIds.get(error) : undefined
  const g = masked as GraphQLError
  return createGraphQLError(requestId ? `${message} Quote request_id ${requestId} when contacting support.` : message, {
    nodes: g.nodes,
    source: g.source,
    positions: g.positions,
    path: g.path,
    extensions: { ...g.extensions, code: 'internal_error', ...(requestId ? { request_id: requestId } : {}) },
  })
}
