import { randomUUID } from 'node:crypto'
import { inspectImage, perceptualHash } from '../../analysis/image.js'
import { AppError } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import type { Services } from '../../services.js'
import { requireActiveSession } from '../sessions/resolve-session.js'
import { BURST, CAPTURE_KINDS, type CaptureKind } from './capture-rules.js'
import { mediaStore } from './media.js'

export interface UploadInput {
  kind: string
  index: number
  bytes: Buffer
}

/**
 * One image of the flow (a document side or a selfie frame), authenticated by the session token.
 * The image is validated (type, size, pixel budget) before anything is stored; it is stored
 * encrypted; uploading the same slot again replaces it (retry without a new session).
 */
export async function uploadCapture(svc: Pick<Services, 'db' | 'now' | 'config' | 'cipher'>, token: string, input: UploadInput) {
  const s = await requireActiveSession(svc, token)
  if (!(CAPTURE_KINDS as readonly string[]).includes(input.kind)) throw new AppError('invalid_request', `kind must be one of ${CAPTURE_KINDS.join(', ')}`)
  const kind = input.kind as CaptureKind
  if (kind !== 'selfie' && (s.kind === 'AUTH' || s.documentosAceitos.length === 0)) throw new AppError('invalid_request', 'this session takes a selfie only')
  if (!Number.isInteger(input.index) || input.index < 0 || input.index >= (kind === 'selfie' ? BURST.max : 1))
    throw new AppError('invalid_request', kind === 'selfie' ? `selfie frame index must be 0 to ${BURST.max - 1}` : 'document captures have index 0')
  if (kind === 'selfie' && !s.challenge) throw new AppError('invalid_state', 'start the selfie step first: the server issues the liveness challenge')
  if (input.bytes.length > svc.config.UPLOAD_LIMIT_BYTES) throw new AppError('payload_too_large', `an image may have at most ${svc.config.UPLOAD_LIMIT_BYTES} bytes`)

  const info = await inspectImage(input.bytes)
  const phash = kind === 'selfie' ? null : await perceptualHash(input.bytes)
  const id = randomUUID()
  const storageKey = `${s.tenantId}/${s.id}/${kind}-${input.index}-${id}`
  await mediaStore(svc).put(storageKey, input.bytes)
  const now = svc.now()
  const deleteAfter = new Date(now.getTime() + svc.config.MEDIA_RETENTION_DAYS * 86_400_000)
  const data = {
    mime: `image/${info.format}`,
    bytes: input.bytes.length,
    width: info.width,
    height: info.height,
    storageKey,
    sha256: sha256Hex(input.bytes),
    phash,
    createdAt: now,
    deleteAfter,
  }
  const previous = await svc.db.capture.findUnique({ where: { sessionId_kind_frameIndex: { sessionId: s.id, kind, frameIndex: input.index } } })
  const row = await svc.db.capture.upsert({
    where: { sessionId_kind_frameIndex: { sessionId: s.id, kind, frameIndex: input.index } },
    create: { id, sessionId: s.id, kind, frameIndex: input.index, ...data },
    update: data,
  })
  if (previous) await mediaStore(svc).delete(previous.storageKey)
  if (s.status === 'created') await svc.db.session.updateMany({ where: { id: s.id, status: 'created' }, data: { status: 'in_progress' } })
  return { capture_id: row.id, kind, index: input.index, width: info.width, height: info.height }
}
