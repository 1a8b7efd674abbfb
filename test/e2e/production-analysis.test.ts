import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { verify } from '@octokit/webhooks-methods'
import sharp from 'sharp'
import { print } from 'graphql'
import { createClient } from 'graphql-ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { SessionStatusDocument } from '../../src/graphql/generated/graphql.js'
import { Stream, wsUrl } from '../graphql/ws-client.js'
import { setWebhookUrl } from '../../src/modules/tenants/set-webhook-url.js'
import type { CreatedTenant } from '../../src/modules/tenants/create-tenant.js'
import { call, expectError, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { startReceiver, waitUntil, type Receiver } from '../webhooks/receiver.js'

/**
 * The production path end to end through the public API, with the real models: sessions with
 * credits, uploads, the server's liveness challenge, the analysis worker, the decision by signed
 * webhook and by GET, then Auth 1:1 against the stored embedding.
 */
const DATA = new URL('../../../shared/data/', import.meta.url).pathname
const haveData = existsSync(`${DATA}faces/emoa1.jpg`) && existsSync(`${DATA}documents/uto_td3_passport.jpg`)
if (!haveData) console.warn(`[skip] production analysis e2e: ../shared/data not found at ${DATA}`)
const MRZ_MODEL = `${DATA}models/mrz.traineddata.gz`

const face = (name: string) => readFile(`${DATA}faces/${name}.jpg`)
/** emoa1…emoa8: one person going from neutral to a broad smile (the smile challenge). */
const smileBurst = () => Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => face(`emoa${i}`)))

/** The ICAO specimen passport with emoa1's face pasted over the portrait (its MRZ, expired in 2012, kept). */
async function passportWithPortrait(): Promise<Buffer> {
  const portrait = await sharp(await face('emoa1'))
    .extract({ left: 40, top: 110, width: 895, height: 895 })
    .resize(330, 330)
    .jpeg()
    .toBuffer()
  return sharp(await readFile(`${DATA}documents/uto_td3_passport.jpg`)).composite([{ input: portrait, left: 118, top: 255 }]).jpeg({ quality: 92 }).toBuffer()
}

describe.skipIf(!haveData)('production analysis, end to end (real models)', () => {
  let t: TestApp
  let tenant: CreatedTenant
  let receiver: Receiver

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_DEV_INSECURE_PRODUCTION: 'true',
      WEBHOOK_POLL_MS: '50',
      ...(existsSync(MRZ_MODEL) ? { MRZ_MODEL_PATH: MRZ_MODEL } : {}),
    })
    tenant = await newTenant(t, { kyc: 3, auth: 4 })
    receiver = await startReceiver()
    await setWebhookUrl(t.app.services, { tenantId: tenant.tenantId, ambiente: 'producao', url: `${receiver.url}/hook` })
  })
  afterAll(async () => {
    await receiver?.close()
    await t?.close()
  })

  const widget = (token: string) => ({ 'x-session-token': token })

  async function newSession(path: string, json: Record<string, unknown>): Promise<string> {
    const r = await call(t.url, 'POST', path, { key: tenant.productionKey, json: { ambiente: 'producao', ...json } })
    expect(r.status).toBe(201)
    return r.body.session_token
  }

  /** Starts the selfie step until the server's random draw is `smile` (the burst we have); each draw is the public API's. */
  async function drawSmile(token: string): Promise<void> {
    for (let i = 0; i < 80; i++) {
      const r = await call(t.url, 'POST', '/v1/widget/challenge', { headers: widget(token) })
      expect(r.status).toBe(200)
      if (r.body.challenge === 'smile') return
    }
    throw new Error('the server never drew smile in 80 draws')
  }

  async function upload(token: string, kind: string, index: number, bytes: Buffer) {
    const r = await call(t.url, 'POST', `/v1/widget/captures/${kind}/${index}`, { headers: { ...widget(token), 'content-type': 'image/jpeg' }, body: new Blob([new Uint8Array(bytes)]) })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
  }

  async function webhookFor(field: 'verification_id' | 'auth_id', id: string) {
    let found: { body: any; raw: Buffer; headers: Record<string, unknown> } | undefined
    await waitUntil(
      () => {
        const r = receiver.received.find((x) => JSON.parse(x.raw.toString())[field] === id)
        if (r) found = { body: JSON.parse(r.raw.toString()), raw: r.raw, headers: r.headers }
        return !!found
      },
      `the webhook of ${id}`,
      240_000,
    )
    const signature = String(found!.headers['x-service-signature'])
    expect(await verify(tenant.webhookSecrets.producao, found!.raw.toString(), signature)).toBe(true)
    return found!.body
  }

  it('selfie-only KYC (SEM_DOC): liveness passes, approved (by subscription and by signed webhook), embedding stored', { timeout: 300_000 }, async () => {
    const token = await newSession('/v1/verify/session', { documentos_aceitos: [], external_id: 'anna' })
    // the widget's live status: graphql-ws with the session token
    const ws = createClient({ url: wsUrl(t.url), webSocketImpl: WebSocket, connectionParams: { sessionToken: token }, retryAttempts: 0, lazy: true })
    const status = new Stream(ws, print(SessionStatusDocument))
    expect((await status.next())['status']).toBe('created')
    await drawSmile(token)
    const frames = await smileBurst()
    for (const [i, f] of frames.entries()) await upload(token, 'selfie', i, f)
    const sub = await call(t.url, 'POST', '/v1/widget/submit', { headers: widget(token), json: {} })
    expect(sub.status).toBe(202)
    expect(sub.body.status).toBe('processing')
    // the token is dead now
    expectError(await call(t.url, 'POST', '/v1/widget/submit', { headers: widget(token), json: {} }), 409, 'session_already_used')

    // the API keeps answering while the analysis runs (it runs in the worker-thread pool)
    let answeredWhileProcessing = 0
    for (;;) {
      const v = await t.app.services.db.verification.findUniqueOrThrow({ where: { id: sub.body.verification_id } })
      if (v.status !== 'processing') break
      const h = await fetch(`${t.url}/healthz`)
      if (h.status === 200) answeredWhileProcessing++
    }
    expect(answeredWhileProcessing).toBeGreaterThanOrEqual(5)
    const hook = await webhookFor('verification_id', sub.body.verification_id)
    expect(hook).toMatchObject({ event: 'verification.completed', status: 'approved', modo: 'SEM_DOC', external_id: 'anna' })
    const pushed: string[] = []
    while (pushed.at(-1) !== 'approved') pushed.push(String((await status.next())['status']))
    expect(pushed.filter((x) => x !== 'in_progress')).toEqual(['processing', 'approved'])
    status.stop()
    await ws.dispose()
    expect(hook.scores.liveness).toBeGreaterThanOrEqual(50)
    const got = await call(t.url, 'GET', `/v1/verify/${sub.body.verification_id}`, { key: tenant.productionKey })
    expect(got.body).toMatchObject({ status: 'approved', final_status: 'approved', modo: 'SEM_DOC' })
    const emb = await t.app.services.db.faceEmbedding.findFirstOrThrow({ where: { tenantId: tenant.tenantId, externalId: 'anna' } })
    expect(emb.ciphertext).not.toMatch(/^\[/) // encrypted, not a JSON array of floats
  })

  it('document + selfie KYC: MRZ read, face matched to the portrait, rejected as expired (2012) with the reason', { timeout: 300_000 }, async () => {
    const token = await newSession('/v1/verify/session', { documentos_aceitos: ['passport'], external_id: 'anna-passport' })
    await upload(token, 'document_front', 0, await passportWithPortrait())
    await drawSmile(token)
    for (const [i, f] of (await smileBurst()).entries()) await upload(token, 'selfie', i, f)
    const sub = await call(t.url, 'POST', '/v1/widget/submit', { headers: widget(token), json: { document_type: 'passport' } })
    expect(sub.status).toBe(202)
    const hook = await webhookFor('verification_id', sub.body.verification_id)
    expect(hook).toMatchObject({ event: 'verification.completed', status: 'rejected', modo: 'FULL_KYC' })
    expect(hook.motivos_rejeicao).toContain('document_expired')
    expect(hook.scores.face_match).toBeGreaterThanOrEqual(60)
    expect(hook.ocr).toEqual({ nome: 'ANNA MARIA ERIKSSON', documento_numero: '******2C3', data_nascimento: '1974-08-12' })
    const v = await t.app.services.db.verification.findUniqueOrThrow({ where: { id: sub.body.verification_id } })
    expect((v.signals as { document: { mrz_valid: boolean } }).document.mrz_valid).toBe(true)
  })

  it('Auth 1:1: the same person is authenticated, another person rejected, a still replay fails liveness, no KYC → NO_EMBEDDING', { timeout: 400_000 }, async () => {
    const attempt = async (externalId: string, frames: Buffer[]) => {
      const token = await newSession('/v1/auth/session', { external_id: externalId })
      await drawSmile(token)
      for (const [i, f] of frames.entries()) await upload(token, 'selfie', i, f)
      const sub = await call(t.url, 'POST', '/v1/widget/submit', { headers: widget(token), json: {} })
      expect(sub.status).toBe(202)
      return webhookFor('auth_id', sub.body.auth_id)
    }
    const same = await attempt('anna', await smileBurst())
    expect(same).toMatchObject({ event: 'auth.completed', status: 'authenticated', external_id: 'anna' })
    expect(same.score_facial).toBeGreaterThanOrEqual(60)

    const other = await attempt('anna', await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => face(`emob${i}`))))
    expect(other.status).toBe('rejected')
    expect(other.score_facial).toBeLessThan(60)

    const still = await face('emoa1')
    const replay = await attempt('anna', await Promise.all(Array.from({ length: 8 }, (_, i) => sharp(still).jpeg({ quality: 90 - i }).toBuffer())))
    expect(replay.status).toBe('rejected')
    const a = await t.app.services.db.authAttempt.findUniqueOrThrow({ where: { id: replay.auth_id } })
    expect(a.errorCode).toBe('LIVENESS_ERROR')

    const nobody = await attempt('never-enrolled', await smileBurst())
    expect(nobody.status).toBe('rejected')
    expect((await t.app.services.db.authAttempt.findUniqueOrThrow({ where: { id: nobody.auth_id } })).errorCode).toBe('NO_EMBEDDING')
  })

  it('bad uploads are clear 4xx and lose nothing', async () => {
    const token = await newSession('/v1/verify/session', { documentos_aceitos: ['passport'] })
    const up = (kind: string, index: number | string, body: Blob, type = 'image/jpeg') =>
      call(t.url, 'POST', `/v1/widget/captures/${kind}/${index}`, { headers: { ...widget(token), 'content-type': type }, body })
    expectError(await up('document_front', 0, new Blob([Buffer.from('not an image at all')])), 415, 'unsupported_media_type')
    const jpeg = await face('emoa1')
    expectError(await up('document_front', 0, new Blob([jpeg.subarray(0, 600)])), 422, 'invalid_image')
    expectError(await up('document_front', 0, new Blob([])), 422, 'invalid_image')
    expectError(await up('passport_photo', 0, new Blob([jpeg])), 422, 'invalid_request')
    expectError(await up('selfie', 0, new Blob([jpeg])), 409, 'invalid_state') // no challenge issued yet
    expectError(await up('selfie', 99, new Blob([jpeg])), 422, 'invalid_request')
    expectError(await up('document_front', 0, new Blob([Buffer.alloc(11 * 1024 * 1024, 1)])), 413, 'payload_too_large')
    const giant = await sharp({ create: { width: 13_000, height: 100, channels: 3, background: '#888' } }).png().toBuffer()
    expectError(await up('document_front', 0, new Blob([giant]), 'image/png'), 422, 'invalid_image')
    expectError(await call(t.url, 'POST', '/v1/widget/submit', { headers: widget(token), json: { document_type: 'passport' } }), 409, 'invalid_state')
    expectError(await call(t.url, 'POST', '/v1/widget/submit', { headers: widget('f'.repeat(64)), json: {} }), 401, 'unauthorized')
    expect(await t.app.services.db.capture.count({ where: { session: { tenantId: tenant.tenantId, verification: null, authAttempt: null } } })).toBe(0)
  })
})
