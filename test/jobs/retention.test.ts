import { existsSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { purgeExpiredCaptures } from '../../src/modules/captures/delete-captures.js'
import { mediaStore } from '../../src/modules/captures/media.js'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'

/** Captures are stored encrypted and erased after MEDIA_RETENTION_DAYS (here: a fake clock moves past it). */
let clock = Date.now()
let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ MEDIA_RETENTION_DAYS: '1', ROLE: 'api' }, { now: () => new Date(clock) })
})
afterAll(() => t.close())

describe('media retention', () => {
  it('stores the image encrypted, then deletes file and row once the retention period is over', async () => {
    const tenant = await newTenant(t)
    const token = (await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: { documentos_aceitos: ['passport'] } })).body.session_token
    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3366aa' } }).png().toBuffer()
    const up = await call(t.url, 'POST', '/v1/widget/captures/document_front/0', { headers: { 'x-session-token': token, 'content-type': 'image/png' }, body: new Blob([new Uint8Array(png)]) })
    expect(up.status).toBe(201)
    const svc = t.app.services
    const row = await svc.db.capture.findUniqueOrThrow({ where: { id: up.body.capture_id } })
    const file = path.join(svc.config.MEDIA_DIR, ...row.storageKey.split('/'))
    expect(existsSync(file)).toBe(true)
    expect(Buffer.from(await (await import('node:fs/promises')).readFile(file)).includes(png.subarray(0, 64))).toBe(false) // not the plain image
    expect(Buffer.compare(await mediaStore(svc).get(row.storageKey), png)).toBe(0) // decrypts to the exact upload

    expect(await purgeExpiredCaptures(svc)).toBe(0) // not yet
    clock += 86_400_000 + 1000
    expect(await purgeExpiredCaptures(svc)).toBe(1)
    expect(existsSync(file)).toBe(false)
    expect(await svc.db.capture.count({ where: { id: row.id } })).toBe(0)
  })
})
