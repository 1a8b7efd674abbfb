import { mkdir, readFile, rm, writeFile, rename } from 'node:fs/promises'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Cipher } from '../../lib/crypto.js'

/**
 * Where captured images live. Filesystem now; an S3-compatible store is the planned next
 * implementation of the same interface. Every object is AES-256-GCM encrypted, bound to its key.
 */
export interface MediaStore {
  put(key: string, data: Buffer): Promise<void>
  get(key: string): Promise<Buffer>
  delete(key: string): Promise<void>
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/

export class EncryptedFsMediaStore implements MediaStore {
  constructor(
    private readonly dir: string,
    private readonly cipher: Cipher,
  ) {}

  private file(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe media key ${JSON.stringify(key)}`)
    return path.join(this.dir, ...key.split('/'))
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.file(key)
    await mkdir(path.dirname(file), { recursive: true })
    // write-then-rename: a crash never leaves a half-written object under the final name
    const tmp = `${file}.${randomUUID()}.tmp`
    await writeFile(tmp, this.cipher.encrypt(data, `media:${key}`), { mode: 0o600 })
    await rename(tmp, file)
  }

  async get(key: string): Promise<Buffer> {
    return this.cipher.decrypt(await readFile(this.file(key)), `media:${key}`)
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true })
  }
}
