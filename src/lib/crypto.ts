import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const sha256Hex = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex')

/** n random bytes as lowercase hex (2n characters). */
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex')

/** URL-safe random string from the base62 alphabet, without modulo bias. */
export function randomBase62(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  let out = ''
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += alphabet[b % 62]
    }
  }
  return out
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a)
  const bb = Buffer.from(b)
  return ba.length === bb.length && timingSafeEqual(ba, bb)
}

/** Parses a 32-byte key given as 64 hex characters or base64. */
export function parseKey(text: string): Buffer {
  const t = text.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64')
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)')
  return key
}

/**
 * AES-256-GCM for data at rest (webhook secrets, face embeddings, media).
 * Layout: version byte 1 | 12-byte IV | 16-byte tag | ciphertext. The associated data binds a
 * ciphertext to its owner (e.g. a tenant id), so a row copied to another tenant does not decrypt.
 */
export class Cipher {
  readonly #key: Buffer

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('AES-256-GCM key must be 32 bytes')
    this.#key = key
  }

  encrypt(plain: Buffer, aad = ''): Buffer {
    const iv = randomBytes(12)
    const c = createCipheriv('aes-256-gcm', this.#key, iv)
    c.setAAD(Buffer.from(aad))
    const body = Buffer.concat([c.update(plain), c.final()])
    return Buffer.concat([Buffer.from([1]), iv, c.getAuthTag(), body])
  }

  decrypt(blob: Buffer, aad = ''): Buffer {
    if (blob.length < 29 || blob[0] !== 1) throw new Error('not a version-1 ciphertext')
    const d = createDecipheriv('aes-256-gcm', this.#key, blob.subarray(1, 13))
    d.setAAD(Buffer.from(aad))
    d.setAuthTag(blob.subarray(13, 29))
    return Buffer.concat([d.update(blob.subarray(29)), d.final()])
  }

  encryptString(plain: string, aad = ''): string {
    return this.encrypt(Buffer.from(plain, 'utf8'), aad).toString('base64')
  }

  decryptString(b64: string, aad = ''): string {
    return this.decrypt(Buffer.from(b64, 'base64'), aad).toString('utf8')
  }
}
