import { ApiError } from './errors.js'

/** GET /v1/widget/session: what the flow needs (never secrets). */
export interface WidgetSession {
  mode: 'KYC' | 'AUTH'
  sandbox: boolean
  state: string
  documentos_aceitos: string[]
  needs_back: string[]
  selfie_only: boolean
  has_redirect: boolean
  verification_id?: string | null
  auth_id?: string | null
  result_status?: string | null
  /** Auth only, once decided (0–1, or 0–100 from an older server) */
  score_liveness?: number | null
  score_facial?: number | null
  /** Auth only: LIVENESS_ERROR or NO_EMBEDDING when the attempt failed for that reason */
  error_code?: string | null
}

export interface Challenge {
  challenge: 'blink' | 'smile' | 'turn' | 'wave'
  burst: { min: number; max: number; durationMs: number }
}

export interface Submitted {
  verification_id?: string
  auth_id?: string
  status: string
  authenticated?: boolean
  error_code?: string | null
}

export interface SessionStatusView {
  status: string
  mode: 'KYC' | 'AUTH'
  verification_id?: string | null
  auth_id?: string | null
}

/** The widget's REST calls, authenticated by the session token header; every request can be aborted on destroy(). */
export class Api {
  private readonly xhrs = new Set<XMLHttpRequest>()

  constructor(
    readonly base: string,
    private readonly token: string,
    private readonly signal: AbortSignal,
  ) {}

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-session-token': this.token, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      signal: this.signal,
      credentials: 'omit',
      cache: 'no-store',
    })
    return parse<T>(res.status, await res.text())
  }

  session = () => this.json<WidgetSession>('GET', '/v1/widget/session')
  challenge = () => this.json<Challenge>('POST', '/v1/widget/challenge', {})
  submit = (documentType: string | null) => this.json<Submitted>('POST', '/v1/widget/submit', documentType ? { document_type: documentType } : {})
  sandboxComplete = (body: { outcome?: string }) => this.json<Submitted>('POST', '/v1/widget/sandbox/complete', body)
  /** the token-only status endpoint: the polling fallback of the subscription */
  status = () => this.json<SessionStatusView>('GET', `/v1/verify/session/${this.token}/status`)

  /** One image as a raw body; XHR because fetch reports no upload progress. */
  upload(kind: string, index: number, blob: Blob, onProgress: (sent: number) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest()
      this.xhrs.add(xhr)
      const done = () => this.xhrs.delete(xhr)
      xhr.open('POST', `${this.base}/v1/widget/captures/${kind}/${index}`)
      xhr.setRequestHeader('x-session-token', this.token)
      xhr.setRequestHeader('content-type', blob.type || 'image/jpeg')
      xhr.upload.onprogress = (e) => onProgress(e.loaded)
      xhr.onload = () => {
        done()
        try {
          parse(xhr.status, xhr.responseText)
          onProgress(blob.size)
          resolve()
        } catch (e) {
          reject(e)
        }
      }
      xhr.onerror = () => (done(), reject(new ApiError(0, 'network_error', 'the upload failed (network)')))
      xhr.onabort = () => (done(), reject(new ApiError(0, 'aborted', 'the upload was aborted')))
      xhr.send(blob)
    })
  }

  abortUploads(): void {
    for (const x of this.xhrs) x.abort()
    this.xhrs.clear()
  }
}

function parse<T>(status: number, text: string): T {
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    /* not JSON */
  }
  if (status >= 200 && status < 300) return body as T
  const b = (body ?? {}) as { detail?: string; message?: string }
  throw new ApiError(status, b.detail ?? 'http_error', b.message ?? `HTTP ${status}`)
}
