import type { Disposer } from './disposer.js'
import { WidgetError } from './errors.js'

/**
 * Opens a camera. Must be called from a user gesture (iOS Safari refuses otherwise). Every track is
 * registered with the disposer, so destroy() always turns the camera light off.
 */
export async function openCamera(life: Disposer, facing: 'user' | 'environment'): Promise<MediaStream> {
  const md = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined
  if (!md?.getUserMedia) throw new WidgetError('NO_CAMERA', 'this browser offers no camera access (getUserMedia missing, or the page is not served over HTTPS)')
  let stream: MediaStream
  try {
    stream = await md.getUserMedia({ audio: false, video: { facingMode: { ideal: facing }, width: { ideal: 1280 }, height: { ideal: 720 } } })
  } catch (e) {
    const name = (e as { name?: string })?.name ?? ''
    if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError')
      throw new WidgetError('CAMERA_DENIED', 'camera permission was denied')
    if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'DevicesNotFoundError')
      throw new WidgetError('NO_CAMERA', 'no camera was found')
    if (name === 'NotReadableError' || name === 'TrackStartError') throw new WidgetError('NO_CAMERA', 'the camera is in use by another application')
    throw new WidgetError('WIDGET_ERROR', `camera error: ${name || String(e)}`)
  }
  if (life.disposed) {
    stopStream(stream)
    throw new WidgetError('WIDGET_ERROR', 'closed')
  }
  life.add(() => stopStream(stream))
  return stream
}

export function stopStream(stream: MediaStream | null): void {
  stream?.getTracks().forEach((t) => t.stop())
}

/** Attaches a stream to a video element and waits until it shows frames. */
export async function playInto(video: HTMLVideoElement, stream: MediaStream): Promise<void> {
  video.srcObject = stream
  await video.play().catch(() => {})
  if (video.readyState < 2 || !video.videoWidth) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 3000)
      video.onloadeddata = () => {
        clearTimeout(t)
        video.onloadeddata = null
        resolve()
      }
    })
  }
}

/** The current frame as a JPEG, scaled down to at most `maxSide` pixels on its long side. */
export function grabJpeg(video: HTMLVideoElement, canvas: HTMLCanvasElement, maxSide = 1280, quality = 0.88): Promise<Blob> {
  const w = video.videoWidth || 640
  const h = video.videoHeight || 480
  const k = Math.min(1, maxSide / Math.max(w, h))
  canvas.width = Math.round(w * k)
  canvas.height = Math.round(h * k)
  const ctx = canvas.getContext('2d')
  if (!ctx) return Promise.reject(new WidgetError('WIDGET_ERROR', 'no 2D canvas'))
  ctx.drawImage(video, 0, 0, canvas.width, canvas.height)
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new WidgetError('WIDGET_ERROR', 'could not encode the frame'))), 'image/jpeg', quality),
  )
}

export type Guidance = 'dark' | 'bright' | 'face' | 'ok'

/**
 * A light on-device check (no model download): the brightness and the contrast of the oval where
 * the face should be, on a 64×48 thumbnail. A face in good light gives a mid-range mean and clear
 * structure; a covered lens, a dark room, a blown-out frame or an empty flat wall do not.
 * The server still decides liveness from the uploaded burst; this only guides the user.
 */
export function assessFrame(video: HTMLVideoElement, canvas: HTMLCanvasElement): Guidance {
  const W = 64
  const H = 48
  canvas.width = W
  canvas.height = H
  const ctx = canvas.getContext('2d', { willReadFrequently: true })
  if (!ctx || !video.videoWidth) return 'face'
  ctx.drawImage(video, 0, 0, W, H)
  const px = ctx.getImageData(0, 0, W, H).data
  let n = 0
  let sum = 0
  let sumSq = 0
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      // inside the central ellipse (the oval drawn over the video)
      const dx = (x - W / 2) / (W * 0.3)
      const dy = (y - H / 2) / (H * 0.45)
      if (dx * dx + dy * dy > 1) continue
      const i = (y * W + x) * 4
      const l = 0.299 * px[i]! + 0.587 * px[i + 1]! + 0.114 * px[i + 2]!
      sum += l
      sumSq += l * l
      n++
    }
  }
  const mean = sum / n
  const sd = Math.sqrt(Math.max(0, sumSq / n - mean * mean))
  if (mean < 45) return 'dark'
  if (mean > 225) return 'bright'
  if (sd < 12) return 'face'
  return 'ok'
}
