import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

/** ../shared/data relative to the checkout: real images, never copied into the repository. */
export const DATA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data')
export const HAS_DATA = existsSync(path.join(DATA_DIR, 'faces'))
export const SKIP_DATA_MESSAGE = `widget e2e needs the real images of ${DATA_DIR} (absent): skipped`
export const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots')

export interface TestBrowser {
  browser: Browser
  dir: string
  /** the file the fake camera plays; replace it (useClip) before opening the camera */
  cameraFile: string
  /** a fresh context: camera permission granted or not (not granted = denied, headless shows no prompt) */
  context(opts?: { camera?: boolean; locale?: string; mobile?: boolean }): Promise<BrowserContext>
  /** converts an image or a clip of the data folder into the camera file (cached per source) */
  useClip(source: string, opts?: { still?: boolean }): void
  /** a "live" clip made of several photos of one person (expressions change from frame to frame) */
  useSequence(name: string, sources: string[], fps?: number): void
  close(): Promise<void>
}

/**
 * One headless Debian Chromium per test file (flags from RECIPES.md), with a fresh profile and a
 * fake camera fed from a file. Chromium reads the file each time a camera opens, so tests switch
 * clips by replacing it; the permission is per context, so a denied camera needs no second browser.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ss-widget-'))
  const cameraFile = path.join(dir, 'camera.mjpeg')
  const clips = path.join(dir, 'clips')
  mkdirSync(clips)
  // a neutral grey clip until a test picks its own (Chromium refuses to start without the file)
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=640x480:d=1', '-r', '10', '-q:v', '5', '-f', 'mjpeg', cameraFile])
  // chromium.launch always starts from a fresh temporary profile (Playwright refuses --user-data-dir here)
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${cameraFile}`,
    ],
  })
  return {
    browser,
    dir,
    cameraFile,
    async context(opts = {}) {
      const ctx = await browser.newContext({
        ...(opts.locale ? { locale: opts.locale } : {}),
        ...(opts.mobile ? { viewport: { width: 390, height: 780 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true } : { viewport: { width: 900, height: 760 } }),
      })
      if (opts.camera) await ctx.grantPermissions(['camera'])
      return ctx
    },
    useClip(source, o = {}) {
      const out = path.join(clips, `${path.basename(source)}${o.still ? '.still' : ''}.mjpeg`)
      if (!existsSync(out)) {
        const input = path.join(DATA_DIR, source)
        const vf = 'scale=640:480:force_original_aspect_ratio=decrease,pad=640:480:(ow-iw)/2:(oh-ih)/2,format=yuvj420p'
        const args = o.still || /\.(jpe?g|png)$/i.test(source) ? ['-loop', '1', '-i', input, '-t', '8'] : ['-stream_loop', '2', '-i', input, '-t', '12']
        execFileSync('ffmpeg', ['-v', 'error', ...args, '-vf', vf, '-r', '15', '-q:v', '4', '-an', '-f', 'mjpeg', out])
      }
      copyFileSync(out, cameraFile)
    },
    useSequence(name, sources, fps = 4) {
      const out = path.join(clips, `${name}.mjpeg`)
      if (!existsSync(out)) {
        const list = path.join(clips, `${name}.txt`)
        // the concat demuxer plays each photo for 1/fps s; looped so the clip outlasts guidance + burst
        const lines = Array.from({ length: 6 }, () => sources.map((f) => `file '${path.join(DATA_DIR, f)}'\nduration ${1 / fps}`).join('\n')).join('\n')
        writeFileSync(list, lines + '\n')
        const vf = 'scale=640:480:force_original_aspect_ratio=decrease,pad=640:480:(ow-iw)/2:(oh-ih)/2,format=yuvj420p'
        execFileSync('ffmpeg', ['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-vf', vf, '-r', '15', '-q:v', '4', '-an', '-f', 'mjpeg', out])
      }
      copyFileSync(out, cameraFile)
    },
    async close() {
      await browser.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** The widget's current screen name (data-screen on its host element). */
export const screenOf = (page: Page) => page.locator('[data-servicesec-widget]').getAttribute('data-screen')

export async function waitScreen(page: Page, name: string, timeout = 30_000): Promise<void> {
  await page.locator(`[data-servicesec-widget][data-screen="${name}"]`).waitFor({ state: 'attached', timeout })
}

/** A small PNG of the page for the README (docs/screenshots). */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled', scale: 'css' })
}
