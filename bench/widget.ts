/**
 * Widget figures, in headless Debian Chromium against a real server (embedded PGlite, fresh data dir):
 *  1. /widget.js size, raw and gzipped (level 9, as served by a compressing proxy);
 *  2. init() → first screen (consent drawn), median of BENCH_WIDGET_RUNS (default 7) cold page loads;
 *  3. end of capture → onSuccess: sandbox (the outcome button press is the "end of capture"), and
 *     production Auth (last selfie frame grabbed → onSuccess; upload + analysis + status push) when
 *     ../shared/data is present (the user's face is enrolled from a KYC-free seed: the real model's embedding
 *     of the same photos is not needed for timing, any stored embedding makes the pipeline run in full).
 *
 *   npx tsx bench/widget.ts
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Page } from 'playwright-core'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { storeEmbedding } from '../src/modules/analysis/face-embeddings.js'
import { createAuthSession, createKycSession } from '../src/modules/sessions/create-session.js'
import { createTenant } from '../src/modules/tenants/create-tenant.js'
import { buildWidget } from '../widget/build.js'
import { fmt, here } from './lib.js'

const RUNS = Number(process.env.BENCH_WIDGET_RUNS ?? 7)
const DATA = path.resolve(here, '../../shared/data')

export interface WidgetBenchResult {
  bytes: number
  gzipBytes: number
  firstScreenMs: { median: number; min: number; max: number }
  sandboxEndToSuccessMs: number
  productionEndToSuccessMs: number | null
}

/** tsx compiles with keepNames: functions passed to page.evaluate call a `__name` helper the page lacks */
const KEEP_NAMES_SHIM = 'globalThis.__name = (f) => f'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function initAndTime(page: Page, token: string): Promise<number> {
  return page.evaluate(
    (token) =>
      new Promise<number>((resolve) => {
        const w = globalThis as unknown as { __ev: unknown[]; ServiceSec: { init(o: unknown): void } }
        w.__ev = []
        const t0 = performance.now()
        const obs = new MutationObserver(() => {
          const host = document.querySelector('[data-servicesec-widget]')
          if (host?.getAttribute('data-screen') === 'consent') {
            obs.disconnect()
            // the consent screen is in the DOM; wait for the frame that paints it
            requestAnimationFrame(() => resolve(performance.now() - t0))
          }
        })
        obs.observe(document.body, { subtree: true, attributes: true, childList: true })
        w.ServiceSec.init({
          sessionToken: token,
          locale: 'en',
          statusTimeoutMs: 150_000,
          onSuccess: (r: unknown) => w.__ev.push({ type: 'success', r, at: performance.now() }),
          onCancel: () => {},
          onError: (e: unknown) => w.__ev.push({ type: 'error', e, at: performance.now() }),
        })
      }),
    token,
  )
}

async function consent(page: Page) {
  await page.getByRole('checkbox').check()
  await page.getByRole('button', { name: 'Continue', exact: true }).click()
}

const successAt = (page: Page) =>
  page
    .waitForFunction(() => (globalThis as unknown as { __ev: Array<{ at: number }> }).__ev[0]?.at, null, { timeout: 170_000, polling: 'raf' })
    .then((h) => h.jsonValue() as Promise<number>)

export async function run(): Promise<WidgetBenchResult> {
  const built = await buildWidget()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-widget-'))
  const config = loadConfig({ ...process.env, DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ENCRYPTION_KEY: randomBytes(32).toString('hex'), DEMO_TENANT: 'false' })
  const app = await buildApp(config)
  const url = await app.start(0, '127.0.0.1')
  const camera = path.join(dir, 'camera.mjpeg')
  const hasData = existsSync(path.join(DATA, 'faces'))
  if (hasData) {
    const list = path.join(dir, 'live.txt')
    const lines = Array.from({ length: 6 }, () => [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `file '${path.join(DATA, 'faces', `emoa${i}.jpg`)}'\nduration 0.25`).join('\n')).join('\n')
    await import('node:fs/promises').then((f) => f.writeFile(list, lines + '\n'))
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-vf', 'scale=640:480:force_original_aspect_ratio=decrease,pad=640:480:(ow-iw)/2:(oh-ih)/2,format=yuvj420p', '-r', '15', '-q:v', '4', '-f', 'mjpeg', camera])
  } else {
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=640x480:d=1', '-r', '10', '-f', 'mjpeg', camera])
  }
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${camera}`],
  })
  try {
    const tenant = await createTenant(app.services, { name: 'bench', kycCredits: 10, authCredits: 10 })
    const sandbox = { tenantId: tenant.tenantId, ambiente: 'sandbox' as const, keyId: 'bench', isAdmin: false }
    const producao = { ...sandbox, ambiente: 'producao' as const }

    // 2. init → first screen, cold page each time (the script comes from the HTTP cache after the first)
    const firsts: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const ctx = await browser.newContext()
      await ctx.addInitScript(KEEP_NAMES_SHIM)
      const page = await ctx.newPage()
      await page.goto(`${url}/`)
      await page.addScriptTag({ url: `${url}/widget.js` })
      const s = await createKycSession(app.services, sandbox, { ambiente: 'sandbox', external_id: 'bench-user' })
      firsts.push(await initAndTime(page, s.session_token))
      await ctx.close()
    }

    // 3a. sandbox: outcome pressed → onSuccess (sandbox completion + subscription push)
    const ctx = await browser.newContext()
    await ctx.addInitScript(KEEP_NAMES_SHIM)
    await ctx.grantPermissions(['camera'])
    const page = await ctx.newPage()
    await page.goto(`${url}/`)
    await page.addScriptTag({ url: `${url}/widget.js` })
    const s = await createKycSession(app.services, sandbox, { ambiente: 'sandbox', external_id: 'bench-user' })
    await initAndTime(page, s.session_token)
    await consent(page)
    const button = page.getByRole('button', { name: 'Complete test' })
    await button.waitFor()
    const pressedAt = await button.evaluate((el) => {
      const t = performance.now()
      ;(el as HTMLButtonElement).click()
      return t
    })
    const sandboxMs = (await successAt(page)) - pressedAt

    // 3b. production Auth: last frame grabbed → onSuccess (or the liveness onError: the flow ended either way)
    let productionMs: number | null = null
    if (hasData) {
      await storeEmbedding(app.services, { tenantId: tenant.tenantId, ambiente: 'producao', externalId: 'bench-prod', verificationId: randomBytes(16).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'), model: 'faceapi:faceapi', embedding: Array.from({ length: 128 }, (_, i) => Math.sin(i + 1) / 8) })
      const a = await createAuthSession(app.services, producao, { ambiente: 'producao', external_id: 'bench-prod' })
      const p2 = await ctx.newPage()
      await p2.goto(`${url}/`)
      await p2.addScriptTag({ url: `${url}/widget.js` })
      await initAndTime(p2, a.session_token)
      await consent(p2)
      await p2.getByRole('button', { name: 'Start', exact: true }).click()
      await p2.locator('[data-servicesec-widget][data-capture-ended]').waitFor({ state: 'attached', timeout: 60_000 })
      // data-capture-ended is Date.now(); onSuccess's `at` is performance.now(): convert on the page
      const endPerf = await p2.evaluate(() => {
        const v = Number(document.querySelector('[data-servicesec-widget]')!.getAttribute('data-capture-ended'))
        return performance.now() - (Date.now() - v)
      })
      productionMs = (await successAt(p2)) - endPerf
    }
    await ctx.close()
    return {
      bytes: built.bytes,
      gzipBytes: built.gzipBytes,
      firstScreenMs: { median: median(firsts), min: Math.min(...firsts), max: Math.max(...firsts) },
      sandboxEndToSuccessMs: sandboxMs,
      productionEndToSuccessMs: productionMs,
    }
  } finally {
    await browser.close()
    await app.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const r = await run()
  console.log(`widget.js: ${fmt(r.bytes / 1024)} KiB, ${fmt(r.gzipBytes / 1024)} KiB gzipped`)
  console.log(`init() → first screen: median ${fmt(r.firstScreenMs.median, 0)} ms (min ${fmt(r.firstScreenMs.min, 0)}, max ${fmt(r.firstScreenMs.max, 0)}, ${RUNS} cold loads)`)
  console.log(`end of capture → onSuccess, sandbox: ${fmt(r.sandboxEndToSuccessMs, 0)} ms`)
  console.log(`end of capture → onSuccess, production Auth: ${r.productionEndToSuccessMs === null ? 'skipped (no ../shared/data)' : `${fmt(r.productionEndToSuccessMs, 0)} ms (upload of 10 frames + analysis + status push)`}`)
}
