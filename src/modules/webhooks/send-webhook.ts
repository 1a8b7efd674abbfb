import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import type { Config } from '../../config.js'
import type { Ambiente } from '../../generated/prisma/enums.js'
import { resolveDeliveryAddress } from './validate-webhook-url.js'

export interface SendResult {
  /** any 2xx */
  ok: boolean
  status: number | null
  latencyMs: number
  error: string | null
  /** cut short by our own shutdown: not an attempt, the claim is given back */
  aborted: boolean
}

/** The receiver's answer is read only this far (and then discarded): a webhook response carries no meaning beyond its status. */
const RESPONSE_CAP = 16 * 1024

function outcomeOf(s: number): Omit<SendResult, 'latencyMs' | 'aborted'> {
  if (s >= 200 && s < 300) return { ok: true, status: s, error: null }
  if (s >= 300 && s < 400) return { ok: false, status: s, error: `redirect (${s}) not followed` }
  return { ok: false, status: s, error: `HTTP ${s}` }
}

export interface SendInput {
  url: string
  ambiente: Ambiente
  body: string
  headers: Record<string, string>
  signal?: AbortSignal
}

/**
 * POSTs one webhook. The host is resolved and checked here (production: no loopback, private,
 * link-local or metadata address), and the socket connects to exactly the checked address through
 * a pinned `lookup`, so a DNS answer that changes between check and connect (rebinding) cannot
 * redirect it; the Host header and TLS SNI still carry the URL's name. Redirects are never
 * followed (a 3xx is a failure), and one deadline covers connect, headers and body.
 */
export async function sendWebhook(
  config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_SANDBOX' | 'WEBHOOK_DEV_INSECURE_PRODUCTION' | 'WEBHOOK_TIMEOUT_MS'>,
  input: SendInput,
): Promise<SendResult> {
  const started = performance.now()
  const done = (r: Omit<SendResult, 'latencyMs' | 'aborted'> & { aborted?: boolean }): SendResult => ({
    aborted: false,
    ...r,
    latencyMs: Math.round(performance.now() - started),
  })
  let url: URL
  try {
    url = new URL(input.url)
  } catch {
    return done({ ok: false, status: null, error: 'invalid URL' })
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return done({ ok: false, status: null, error: 'unsupported scheme' })
  if (input.ambiente === 'producao' && url.protocol !== 'https:' && !config.WEBHOOK_DEV_INSECURE_PRODUCTION)
    return done({ ok: false, status: null, error: 'refused: production webhooks must use https' })

  let pinned: { address: string; family: 4 | 6 }
  try {
    // the deadline covers name resolution too: a resolver that hangs must not hold the claim
    let t: NodeJS.Timeout | undefined
    pinned = await Promise.race([
      resolveDeliveryAddress(config, url, input.ambiente),
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new Error(`timeout resolving ${url.hostname}`)), config.WEBHOOK_TIMEOUT_MS)
      }),
    ]).finally(() => clearTimeout(t))
  } catch (e) {
    return done({ ok: false, status: null, error: String((e as Error).message ?? e).slice(0, 300) })
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const lookup = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: pinned.address, family: pinned.family }])
    else cb(null, pinned.address, pinned.family)
  }) as unknown as LookupFunction

  return new Promise<SendResult>((resolve) => {
    let settled = false
    let status: number | null = null
    const finish = (r: Omit<SendResult, 'latencyMs' | 'aborted'> & { aborted?: boolean }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      input.signal?.removeEventListener('abort', onAbort)
      resolve(done(r))
    }
    const mod = url.protocol === 'https:' ? https : http
    const req = mod.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
      // a fresh connection per attempt: a pooled socket the receiver closes as we reuse it would turn
      // into a spurious failure (or, retried, into a duplicate of a request it did process)
      agent: false,
      lookup,
      // the name, not the pinned address, must be verified against the certificate
      // (SNI takes names only: for an IP-literal URL the certificate is checked against the IP)
      ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
    })
    const timer = setTimeout(() => {
      // Timers run before I/O in an event-loop turn: if our own process was busy (embedded PGlite
      // blocks the loop), an answer that arrived in time may still be unread. setImmediate lets
      // that pending I/O be handled first, so only a receiver that really is late times out.
      setImmediate(() => {
        if (settled) return
        // headers already in: the receiver answered in time, only its body is slow
        if (status !== null) finish(outcomeOf(status))
        else finish({ ok: false, status: null, error: `timeout after ${config.WEBHOOK_TIMEOUT_MS} ms` })
        req.destroy()
      })
    }, config.WEBHOOK_TIMEOUT_MS)
    const onAbort = () => {
      finish({ ok: false, status: null, error: 'aborted: dispatcher stopping', aborted: true })
      req.destroy()
    }
    input.signal?.addEventListener('abort', onAbort, { once: true })
    req.on('response', (res) => {
      status = res.statusCode ?? 0
      const s = status
      const outcome = () => outcomeOf(s)
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > RESPONSE_CAP) {
          finish(outcome())
          res.destroy()
        }
      })
      res.on('end', () => finish(outcome()))
      res.on('error', () => finish(outcome()))
      res.on('close', () => finish(outcome()))
    })
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? ''
      const msg = code === 'ECONNRESET' ? 'connection reset (ECONNRESET)' : `${code ? `${code}: ` : ''}${e.message}`.slice(0, 300)
      finish({ ok: false, status: null, error: msg })
    })
    req.end(input.body)
  })
}
