/** The codes the widget reports through onError (documented in docs/widget.md). */
export type WidgetErrorCode =
  | 'LIVENESS_ERROR'
  | 'NO_EMBEDDING'
  | 'STATUS_TIMEOUT'
  | 'WIDGET_ERROR'
  | 'CAMERA_DENIED'
  | 'NO_CAMERA'
  | 'SESSION_EXPIRED'

export class WidgetError extends Error {
  constructor(
    readonly code: WidgetErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** An error answered by the API: its HTTP status and `detail` code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    message: string,
  ) {
    super(message)
  }
}

/** Expired, used and unknown tokens all mean the same to the end user: this session cannot go on. */
export function toWidgetError(e: unknown): WidgetError {
  if (e instanceof WidgetError) return e
  if (e instanceof ApiError) {
    if (e.status === 401 || e.status === 409 || e.status === 410 || e.detail === 'session_expired' || e.detail === 'session_already_used')
      return new WidgetError('SESSION_EXPIRED', `${e.detail}: ${e.message}`)
    return new WidgetError('WIDGET_ERROR', `${e.status} ${e.detail}: ${e.message}`)
  }
  return new WidgetError('WIDGET_ERROR', e instanceof Error ? e.message : String(e))
}
