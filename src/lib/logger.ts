import { pino, type DestinationStream, type Logger } from 'pino'
import type { Config } from '../config.js'

export type { Logger }

/** Paths that may carry secrets; pino replaces them before anything is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-session-token"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  'secret',
  'webhookSecret',
  'sessionToken',
  'session_token',
  'token',
  '*.secret',
  '*.apiKey',
  '*.sessionToken',
  '*.session_token',
  '*.token',
]

/** JSON logs on stdout (or `destination`, for tests), with every secret-bearing path redacted. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const opts = { level: config.LOG_LEVEL, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined }
  return destination ? pino(opts, destination) : pino(opts)
}

/** Strips the token out of URLs like /v1/verify/session/<token>/status or /widget?token=… before logging. */
export function redactUrl(url: string): string {
  return url
    .replace(/([?&]token=)[^&]*/gi, '$1[redacted]')
    .replace(/(\/session\/)[0-9a-f]{16,}/gi, '$1[redacted]')
}
