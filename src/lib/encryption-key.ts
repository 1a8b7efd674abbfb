import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { Config } from '../config.js'
import { parseKey } from './crypto.js'

/**
 * ENCRYPTION_KEY when set. Otherwise, outside production, a key generated once into
 * DATA_DIR/encryption.key (mode 0600), so the embedded default works out of the box.
 */
export function resolveEncryptionKey(config: Config): Buffer {
  if (config.ENCRYPTION_KEY) return parseKey(config.ENCRYPTION_KEY)
  if (config.NODE_ENV === 'production') throw new Error('ENCRYPTION_KEY is required in production (32 bytes as 64 hex characters or base64)')
  const file = path.join(config.DATA_DIR, 'encryption.key')
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true })
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  }
  chmodSync(file, 0o600)
  return parseKey(readFileSync(file, 'utf8'))
}
