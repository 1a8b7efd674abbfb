import { createHmac } from 'node:crypto'

/**
 * The X-Service-Signature value: `sha256=` + hex HMAC-SHA256 of the exact bytes sent, keyed with
 * the tenant's webhook secret for that environment (the same format GitHub uses, so receivers can
 * reuse well-known verifiers).
 */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}
