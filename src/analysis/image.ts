/**
 * Image intake: validate an uploaded buffer (JPEG / PNG / WebP only), decode it with sharp
 * (EXIF auto-rotation, alpha removed, sRGB) into the raw RGB buffer the models need,
 * and a 64-bit perceptual hash (dHash) for the anti-fraud "document image reused" check.
 *
 * Every failure is an AppError ('unsupported_media_type' for a type we do not accept,
 * 'invalid_image' for anything broken): callers never see a raw sharp/libvips error.
 */
import sharp, { type Metadata, type Sharp } from 'sharp'
import { AppError } from '../errors.js'

export type ImageFormat = 'jpeg' | 'png' | 'webp'

export interface DecodedImage {
  /** RGB, 3 bytes per pixel, row-major, top-left origin, already EXIF-rotated */
  data: Uint8Array
  width: number
  height: number
  channels: 3
  format: ImageFormat
}

export interface DecodeOptions {
  /** refuse images with more pixels than this (libvips `limitInputPixels` too). Default 40 MP */
  maxPixels?: number
  /** refuse images whose width or height exceeds this. Default 12 000 px */
  maxDimension?: number
  /** refuse images smaller than this on either side. Default 32 px */
  minDimension?: number
  /** downscale (keeping aspect) so the longer side is at most this many pixels. Default: no resize */
  maxSide?: number
}

export const DEFAULT_MAX_PIXELS = 40_000_000
const DEFAULT_MAX_DIMENSION = 12_000
const DEFAULT_MIN_DIMENSION = 32

/** Identify the container from its magic bytes; null when it is none of the accepted types. */
export function sniffFormat(buf: Uint8Array): ImageFormat | null {
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg'
  if (
    buf.length >= 8 &&
    buf[0] === 0x89 && buf[1] === 0x50 && buf[2] === 0x4e && buf[3] === 0x47 &&
    buf[4] === 0x0d && buf[5] === 0x0a && buf[6] === 0x1a && buf[7] === 0x0a
  ) return 'png'
  if (
    buf.length >= 12 &&
    buf[0] === 0x52 && buf[1] === 0x49 && buf[2] === 0x46 && buf[3] === 0x46 && // RIFF
    buf[8] === 0x57 && buf[9] === 0x45 && buf[10] === 0x42 && buf[11] === 0x50 // WEBP
  ) return 'webp'
  return null
}

const toBuffer = (buf: Uint8Array): Buffer =>
  Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)

export interface ImageInfo {
  format: ImageFormat
  /** dimensions after EXIF orientation */
  width: number
  height: number
}

/**
 * Cheap validation from the header only (no full decode): type, dimensions, pixel budget.
 * Throws AppError; returns the oriented size.
 */
export async function inspectImage(input: Uint8Array, opts: DecodeOptions = {}): Promise<ImageInfo> {
  if (!input || input.length === 0) throw new AppError('invalid_image', 'the image is empty')
  const format = sniffFormat(input)
  if (!format) {
    throw new AppError('unsupported_media_type', 'unsupported image type: only JPEG, PNG and WebP are accepted')
  }
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS
  const maxDim = opts.maxDimension ?? DEFAULT_MAX_DIMENSION
  const minDim = opts.minDimension ?? DEFAULT_MIN_DIMENSION
  let meta: Metadata
  try {
    meta = await sharp(toBuffer(input), { limitInputPixels: maxPixels, failOn: 'truncated' }).metadata()
  } catch (e) {
    throw new AppError('invalid_image', `the image could not be read (${format} header is corrupt)`, { cause: msg(e) })
  }
  if (meta.format !== format && !(format === 'jpeg' && meta.format === 'jpeg')) {
    throw new AppError('unsupported_media_type', `image content (${meta.format}) does not match its signature (${format})`)
  }
  const w0 = meta.width ?? 0
  const h0 = meta.height ?? 0
  if (!(w0 > 0 && h0 > 0)) throw new AppError('invalid_image', 'the image has no pixels (zero width or height)')
  if ((meta.pages ?? 1) > 1) throw new AppError('invalid_image', 'animated / multi-page images are not accepted')
  const swap = (meta.orientation ?? 1) >= 5
  const width = swap ? h0 : w0
  const height = swap ? w0 : h0
  if (width > maxDim || height > maxDim || width * height > maxPixels) {
    throw new AppError('invalid_image', `the image is too large (${width}x${height}); at most ${maxDim} px per side and ${Math.round(maxPixels / 1e6)} MP`)
  }
  if (width < minDim || height < minDim) {
    throw new AppError('invalid_image', `the image is too small (${width}x${height}); at least ${minDim} px per side`)
  }
  return { format, width, height }
}

/** Validate and decode to RGB (EXIF-rotated, alpha flattened on white, sRGB). Throws AppError. */
export async function decodeImage(input: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedImage> {
  const info = await inspectImage(input, opts)
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS
  try {
    let pipe = sharp(toBuffer(input), { limitInputPixels: maxPixels, failOn: 'truncated' }).rotate()
    if (opts.maxSide && Math.max(info.width, info.height) > opts.maxSide) {
      pipe = pipe.resize({ width: opts.maxSide, height: opts.maxSide, fit: 'inside', withoutEnlargement: true })
    }
    const { data, info: out } = await pipe
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
    if (out.channels !== 3 || data.length !== out.width * out.height * 3) {
      throw new Error(`unexpected raw layout ${out.width}x${out.height}x${out.channels}`)
    }
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: out.width, height: out.height, channels: 3, format: info.format }
  } catch (e) {
    if (e instanceof AppError) throw e
    throw new AppError('invalid_image', `the image is corrupt or truncated (${info.format})`, { cause: msg(e) })
  }
}

/** Raw RGB back to a sharp pipeline (for crops / re-encoding). */
export const rawToSharp = (img: DecodedImage): Sharp =>
  sharp(toBuffer(img.data), { raw: { width: img.width, height: img.height, channels: 3 } })

/** Crop a rectangle (clamped to the image) out of a decoded image. */
export async function cropImage(img: DecodedImage, box: { x: number; y: number; width: number; height: number }): Promise<DecodedImage> {
  const left = Math.max(0, Math.floor(box.x))
  const top = Math.max(0, Math.floor(box.y))
  const width = Math.max(1, Math.min(img.width - left, Math.ceil(box.width)))
  const height = Math.max(1, Math.min(img.height - top, Math.ceil(box.height)))
  const { data, info } = await rawToSharp(img).extract({ left, top, width, height }).raw().toBuffer({ resolveWithObject: true })
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, channels: 3, format: img.format }
}

/** Encode a decoded image as JPEG (e.g. the document portrait crop). */
export const encodeJpeg = (img: DecodedImage, quality = 90): Promise<Buffer> => rawToSharp(img).jpeg({ quality }).toBuffer()

/**
 * 64-bit difference hash (dHash) as 16 hex chars: grayscale, 9x8, one bit per horizontal gradient sign.
 * Robust to re-encoding, scaling and mild colour changes; compare with `hammingDistance` (≤ 10 of 64 ≈ same image).
 * Accepts an encoded upload (validated) or an already decoded image.
 */
export async function perceptualHash(input: Uint8Array | DecodedImage): Promise<string> {
  let pipe: Sharp
  if (input instanceof Uint8Array) {
    await inspectImage(input)
    pipe = sharp(toBuffer(input), { limitInputPixels: DEFAULT_MAX_PIXELS, failOn: 'truncated' }).rotate()
  } else {
    pipe = rawToSharp(input)
  }
  let px: Buffer
  try {
    px = await pipe.flatten({ background: '#ffffff' }).grayscale().resize(9, 8, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer()
  } catch (e) {
    throw new AppError('invalid_image', 'the image is corrupt or truncated', { cause: msg(e) })
  }
  return dhashFromGray9x8(px)
}

/** dHash from a 9x8 grayscale buffer (exported for tests). */
export function dhashFromGray9x8(px: Uint8Array): string {
  let hex = ''
  for (let row = 0; row < 8; row++) {
    let byte = 0
    for (let col = 0; col < 8; col++) {
      const a = px[row * 9 + col] ?? 0
      const b = px[row * 9 + col + 1] ?? 0
      byte = (byte << 1) | (a > b ? 1 : 0)
    }
    hex += byte.toString(16).padStart(2, '0')
  }
  return hex
}

/** Number of differing bits between two hex hashes of equal length. */
export function hammingDistance(a: string, b: string): number {
  if (a.length !== b.length) throw new Error('hash length mismatch')
  let d = 0
  for (let i = 0; i < a.length; i += 2) {
    let x = parseInt(a.slice(i, i + 2), 16) ^ parseInt(b.slice(i, i + 2), 16)
    while (x) { d += x & 1; x >>= 1 }
  }
  return d
}

/** Same picture (re-encoded / rescaled) by perceptual hash. */
export const isSameImage = (a: string, b: string, maxBits = 10): boolean => hammingDistance(a, b) <= maxBits

const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e))
