import type { Context } from 'hono'
import { AppError } from '../errors.js'

/**
 * Reads a JSON request body within `limit` bytes. Empty body → undefined (every field optional).
 * Oversized → 413, not JSON content type → 415, malformed → 400 invalid_json.
 */
export async function readJsonBody(c: Context, limit: number): Promise<unknown> {
  const raw = await readRawBody(c, limit)
  if (raw.length === 0) return undefined
  const type = (c.req.header('content-type') ?? '').toLowerCase()
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/.test(type))
    throw new AppError('unsupported_media_type', 'send the body as JSON with "Content-Type: application/json"')
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw))
  } catch (e) {
    throw new AppError('invalid_json', `malformed JSON body: ${(e as Error).message}`)
  }
}

/** The request body as bytes, refusing more than `limit` (413) before and while reading. */
export async function readRawBody(c: Context, limit: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? NaN)
  if (declared > limit) throw new AppError('payload_too_large', `request body is larger than ${limit} bytes`)
  const raw = c.req.raw.body
  if (!raw) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = raw.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new AppError('payload_too_large', `request body is larger than ${limit} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
