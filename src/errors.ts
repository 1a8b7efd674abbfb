/**
 * The one error type. Services throw AppError; REST turns it into
 * `{detail, message, request_id}` with `status`, GraphQL exposes `code` as `extensions.code`.
 * Anything that is not an AppError is unexpected: masked to the client, logged with its stack.
 */
export type ErrorCode =
  | 'unauthorized'
  | 'key_inactive'
  | 'wrong_ambiente'
  | 'forbidden'
  | 'insufficient_credits'
  | 'invalid_country'
  | 'invalid_ambiente'
  | 'invalid_external_id'
  | 'invalid_webhook_url'
  | 'invalid_documentos_aceitos'
  | 'invalid_redirect_uri'
  | 'invalid_cpf'
  | 'invalid_request'
  | 'invalid_json'
  | 'invalid_image'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'session_expired'
  | 'session_already_used'
  | 'invalid_state'
  | 'rate_limited'
  | 'sandbox_only'
  | 'no_embedding'
  | 'internal_error'

export const STATUS_OF: Record<ErrorCode, number> = {
  unauthorized: 401,
  key_inactive: 403,
  wrong_ambiente: 403,
  forbidden: 403,
  sandbox_only: 403,
  insufficient_credits: 402,
  invalid_country: 422,
  invalid_ambiente: 422,
  invalid_external_id: 422,
  invalid_webhook_url: 422,
  invalid_documentos_aceitos: 422,
  invalid_redirect_uri: 422,
  invalid_cpf: 422,
  invalid_request: 422,
  invalid_image: 422,
  no_embedding: 422,
  invalid_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  session_expired: 410,
  session_already_used: 409,
  invalid_state: 409,
  rate_limited: 429,
  internal_error: 500,
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly details: Record<string, unknown> | undefined

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.status = STATUS_OF[code]
    this.details = details
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError
