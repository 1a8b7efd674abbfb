import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger, redactUrl } from '../../src/lib/logger.js'

describe('secrets never reach the logs', () => {
  it('redacts keys, tokens and secrets in log objects', () => {
    let text = ''
    const sink = new Writable({
      write(chunk, _enc, cb) {
        text += String(chunk)
        cb()
      },
    })
    const logger = createLogger({ LOG_LEVEL: 'info' }, sink)
    const key = `sk_live_${'A'.repeat(40)}`
    const token = 'f'.repeat(64)
    const secret = `whsec_${'B'.repeat(40)}`
    logger.info({ req: { headers: { authorization: `Bearer ${key}` } }, token, secret, apiKey: key, nested: { token, secret, sessionToken: token } }, 'request')
    expect(text).toContain('"msg":"request"')
    expect(text).toContain('[redacted]')
    for (const s of [key, token, secret]) expect(text).not.toContain(s)
  })

  it('strips session tokens from URLs', () => {
    expect(redactUrl(`/v1/verify/session/${'a'.repeat(64)}/status`)).toBe('/v1/verify/session/[redacted]/status')
    expect(redactUrl(`/widget?token=${'b'.repeat(64)}&lang=pt`)).toBe('/widget?token=[redacted]&lang=pt')
  })
})
