import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
import sharp from 'sharp'
import { decodeImage, perceptualHash, hammingDistance, sniffFormat, dhashFromGray9x8 } from '../../src/analysis/image.js'
import { AppError } from '../../src/errors.js'

const gradient = (w: number, h: number, seed = 0): Promise<Buffer> => {
  const raw = Buffer.alloc(w * h * 3)
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 3
    raw[i] = (x * 255) / w; raw[i + 1] = (y * 255) / h; raw[i + 2] = ((x * y + seed * 97) % 256)
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
}

/** a PNG whose IHDR claims width x height (valid CRC), followed by a tiny IDAT and IEND */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length)
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const crc = Buffer.alloc(4); crc.writeUInt32BE(zlib.crc32(td) >>> 0)
    return Buffer.concat([len, td, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 2
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(10))), chunk('IEND', Buffer.alloc(0))])
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try { await p } catch (e) { return e instanceof AppError ? e.code : `not AppError: ${String(e)}` }
  return 'no error'
}

describe('image intake', () => {
  it('decodes a JPEG to RGB with the right size', async () => {
    const img = await decodeImage(await gradient(120, 80))
    expect(img.width).toBe(120)
    expect(img.height).toBe(80)
    expect(img.data.length).toBe(120 * 80 * 3)
    expect(img.format).toBe('jpeg')
  })

  it('applies EXIF orientation (6 = rotate 90°)', async () => {
    const rotated = await sharp(await gradient(120, 80)).withMetadata({ orientation: 6 }).jpeg().toBuffer()
    const img = await decodeImage(rotated)
    expect([img.width, img.height]).toEqual([80, 120])
  })

  it('flattens PNG alpha and accepts WebP', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer()
    const a = await decodeImage(png)
    expect(a.data[0]).toBe(255) // transparent -> white
    const webp = await sharp(await gradient(64, 48)).webp().toBuffer()
    expect((await decodeImage(webp)).format).toBe('webp')
  })

  it('resizes with maxSide', async () => {
    const img = await decodeImage(await gradient(400, 200), { maxSide: 100 })
    expect([img.width, img.height]).toEqual([100, 50])
  })

  it('rejects empty, wrong type, corrupt, truncated, zero-size-ish and giant images with AppError', async () => {
    const good = await gradient(200, 150)
    expect(await codeOf(decodeImage(Buffer.alloc(0)))).toBe('invalid_image')
    expect(await codeOf(decodeImage(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'binary')))).toBe('unsupported_media_type')
    expect(await codeOf(decodeImage(Buffer.from('%PDF-1.4 hello')))).toBe('unsupported_media_type')
    const corrupt = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 0x5a)])
    expect(await codeOf(decodeImage(corrupt))).toBe('invalid_image')
    expect(await codeOf(decodeImage(good.subarray(0, Math.floor(good.length / 2))))).toBe('invalid_image')
    expect(await codeOf(decodeImage(pngHeader(100_000, 100_000)))).toBe('invalid_image')
    expect(await codeOf(decodeImage(pngHeader(0, 10)))).toBe('invalid_image')
    expect(await codeOf(decodeImage(await sharp(await gradient(64, 64)).resize(8, 8).jpeg().toBuffer()))).toBe('invalid_image')
    expect(await codeOf(decodeImage(pngHeader(9000, 9000)))).toBe('invalid_image') // 81 MP > 40 MP
  })

  it('sniffs magic bytes', () => {
    expect(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xdb]))).toBe('jpeg')
    expect(sniffFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp')
    expect(sniffFormat(Buffer.from('BM'))).toBeNull()
  })

  it('perceptual hash: re-encoded copy is near, another image is far', async () => {
    const a = await gradient(300, 200, 1)
    const a2 = await sharp(a).resize(150).jpeg({ quality: 50 }).toBuffer()
    const b = await sharp(a).flop().jpeg().toBuffer()
    const ha = await perceptualHash(a)
    expect(ha).toMatch(/^[0-9a-f]{16}$/)
    expect(hammingDistance(ha, await perceptualHash(a2))).toBeLessThanOrEqual(6)
    expect(hammingDistance(ha, await perceptualHash(b))).toBeGreaterThan(20)
    expect(dhashFromGray9x8(new Uint8Array(72).map((_, i) => (i % 9) * 10))).toBe('0000000000000000')
    expect(await codeOf(perceptualHash(Buffer.from('nope')))).toBe('unsupported_media_type')
  })
})
