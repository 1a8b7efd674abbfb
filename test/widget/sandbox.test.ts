import { verify } from '@octokit/webhooks-methods'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setWebhookUrl } from '../../src/modules/tenants/set-webhook-url.js'
import { rotateWebhookSecret } from '../../src/modules/tenants/webhook-secrets.js'
import { call, newTenant, startTestApp, type TestApp } from '../helpers/harness.js'
import { startReceiver, waitUntil, type Receiver } from '../webhooks/receiver.js'
import { launchBrowser, shot, waitScreen, type TestBrowser } from './browser.js'

/**
 * The widget in Debian's Chromium against a real server: sandbox flows from the demo page (no
 * camera), the redirect flow, texts in three languages, camera denied, and destroy() cleanup.
 * Sandbox flows need no real images, so this file runs without ../shared/data.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let t: TestApp
let b: TestBrowser

beforeAll(async () => {
  t = await startTestApp({ DEMO_TENANT: 'true' })
  b = await launchBrowser()
})
afterAll(async () => {
  await b?.close()
  await t?.close()
})

type DemoEvent = { type: 'success' | 'cancel' | 'error'; result?: Record<string, unknown>; error?: { code: string; message: string } }
const events = (page: Page) => page.evaluate(() => ((globalThis as unknown as { __demoEvents?: DemoEvent[] }).__demoEvents ?? []) as DemoEvent[])
async function nextEvent(page: Page): Promise<DemoEvent> {
  await page.waitForFunction(() => ((globalThis as unknown as { __demoEvents?: unknown[] }).__demoEvents ?? []).length > 0, null, { timeout: 30_000 })
  return (await events(page))[0]!
}

/** Opens the widget on the demo page (the demo's server side creates a sandbox session of the demo tenant). */
async function openDemo(page: Page, mode: 'kyc' | 'auth') {
  await page.goto(`${t.url}/demo`)
  await page.click(`#${mode}`)
  await waitScreen(page, 'consent')
}

/** Initialises the widget on the demo page with a token of our own; events land in window.__demoEvents. */
async function initWith(page: Page, token: string, extra: Record<string, unknown> = {}) {
  await page.goto(`${t.url}/demo`)
  await page.evaluate(
    ([token, extra]) => {
      const w = globalThis as unknown as { __demoEvents: unknown[]; ServiceSec: { init(o: unknown): void } }
      w.__demoEvents = []
      w.ServiceSec.init({
        sessionToken: token,
        ...extra,
        onSuccess: (r: unknown) => w.__demoEvents.push({ type: 'success', result: r }),
        onCancel: () => w.__demoEvents.push({ type: 'cancel' }),
        onError: (e: unknown) => w.__demoEvents.push({ type: 'error', error: e }),
      })
    },
    [token, extra] as const,
  )
  await waitScreen(page, 'consent')
}

async function acceptConsent(page: Page) {
  // keyboard only: the checkbox and the button are reachable and operable without a mouse
  const box = page.getByRole('checkbox')
  await box.press('Space')
  if (!(await box.isChecked())) throw new Error('the consent checkbox did not toggle with the keyboard')
  await page.getByRole('button', { name: /^(Continue|Continuar)$/ }).press('Enter')
}

describe('sandbox KYC from the demo page', () => {
  let receiver: Receiver
  afterAll(() => receiver?.close())

  it('ends in onSuccess with a verification_id, the status pushed by the subscription, and a signed webhook', async () => {
    const demo = t.app.demo!
    receiver = await startReceiver()
    await setWebhookUrl(t.app.services, { tenantId: demo.tenantId, ambiente: 'sandbox', url: `${receiver.url}/hook` })
    const secret = await rotateWebhookSecret(t.app.services, demo.tenantId, 'sandbox')

    const ctx = await b.context({ locale: 'en-US' })
    const page = await ctx.newPage()
    const frames: string[] = []
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))))

    await openDemo(page, 'kyc')
    expect(await page.getByText('SANDBOX', { exact: true }).isVisible()).toBe(true)
    await shot(page, '01-consent')
    await acceptConsent(page)
    await waitScreen(page, 'sandbox')
    await page.getByRole('radio', { name: /Manual review/ }).check()
    await page.getByRole('radio', { name: /^Approved/ }).check()
    await shot(page, '02-sandbox-outcome')
    await page.getByRole('button', { name: 'Complete test' }).click()

    const ev = await nextEvent(page)
    expect(ev.type).toBe('success')
    expect(ev.result?.['verification_id']).toMatch(UUID)
    expect(ev.result?.['status']).toBe('approved')
    await waitScreen(page, 'done')
    await shot(page, '03-done')

    // the final status came over graphql-ws, not from polling
    const pushed = frames.filter((f) => f.includes('"sessionStatus"') && f.includes('"approved"'))
    expect(pushed.length).toBeGreaterThan(0)
    expect(pushed[0]).toContain(String(ev.result?.['verification_id']))
    expect(await page.locator('[data-servicesec-widget]').getAttribute('data-status-via')).toBe('subscription')

    // the customer's receiver got the signed webhook for this verification
    await waitUntil(() => receiver.at('/hook').length > 0, 'the sandbox webhook', 20_000)
    const hook = receiver.at('/hook')[0]!
    const raw = hook.raw.toString('utf8')
    expect(await verify(secret, raw, String(hook.headers['x-service-signature']))).toBe(true)
    expect(await verify('whsec_wrong', raw, String(hook.headers['x-service-signature']))).toBe(false)
    expect(JSON.parse(raw)).toMatchObject({ event: 'verification.completed', verification_id: ev.result?.['verification_id'], status: 'approved' })
    await ctx.close()
  })

  it('a sandbox Auth for the same user is authenticated (onSuccess carries the Auth payload)', async () => {
    const ctx = await b.context({ locale: 'en-US' })
    const page = await ctx.newPage()
    await openDemo(page, 'auth')
    await acceptConsent(page)
    await waitScreen(page, 'sandbox')
    await page.getByRole('button', { name: 'Complete test' }).click()
    const ev = await nextEvent(page)
    expect(ev.type).toBe('success')
    expect(ev.result).toMatchObject({ authenticated: true, status: 'authenticated' })
    expect(ev.result?.['auth_id']).toMatch(UUID)
    expect(Object.keys(ev.result!).sort()).toEqual(['auth_id', 'authenticated', 'score_facial', 'score_liveness', 'status'])
    await ctx.close()
  })
})

describe('texts', () => {
  const cases = [
    ['pt-BR', 'Antes de começar', 'Continuar', 'Verificação de identidade'],
    ['en-US', 'Before we start', 'Continue', 'Identity verification'],
    ['es-ES', 'Antes de empezar', 'Continuar', 'Verificación de identidad'],
  ] as const
  it.each(cases)('%s from navigator.language', async (locale, heading, button, title) => {
    const ctx = await b.context({ locale })
    const page = await ctx.newPage()
    await openDemo(page, 'kyc')
    expect(await page.locator('[data-servicesec-widget] h2').textContent()).toBe(heading)
    expect(await page.getByRole('button', { name: button, exact: true }).count()).toBe(1)
    expect(await page.locator('[data-servicesec-widget]').evaluate((el) => el.shadowRoot!.querySelector('#ss-title')!.textContent)).toBe(title)
    expect(await page.locator('[data-servicesec-widget]').evaluate((el) => el.shadowRoot!.querySelector('[role=dialog]')!.getAttribute('lang'))).toBe(locale === 'pt-BR' ? 'pt-BR' : locale.slice(0, 2))
    if (locale === 'pt-BR') await shot(page, '00-consent-pt')
    await ctx.close()
  })

  it('the locale option wins over the browser language', async () => {
    const ctx = await b.context({ locale: 'pt-BR' })
    const page = await ctx.newPage()
    await page.goto(`${t.url}/demo`)
    await page.selectOption('#locale', 'es')
    await page.click('#kyc')
    await waitScreen(page, 'consent')
    expect(await page.locator('[data-servicesec-widget] h2').textContent()).toBe('Antes de empezar')
    await ctx.close()
  })
})

describe('errors and cleanup', () => {
  async function productionAuthToken(): Promise<string> {
    const tenant = await newTenant(t, { auth: 5 })
    const r = await call(t.url, 'POST', '/v1/auth/session', { key: tenant.productionKey, json: { external_id: 'user-1', ambiente: 'producao' } })
    expect(r.status).toBe(201)
    return r.body.session_token
  }

  it('camera permission denied gives CAMERA_DENIED and a retry screen', async () => {
    const ctx = await b.context({ locale: 'en-US', camera: false })
    const page = await ctx.newPage()
    await initWith(page, await productionAuthToken())
    await acceptConsent(page)
    await waitScreen(page, 'selfie-intro')
    await page.getByRole('button', { name: 'Start' }).click()
    const ev = await nextEvent(page)
    expect(ev).toMatchObject({ type: 'error', error: { code: 'CAMERA_DENIED' } })
    await waitScreen(page, 'camera-error')
    expect(await page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true)
    await ctx.close()
  })

  it('an expired, used or unknown token is SESSION_EXPIRED', async () => {
    const ctx = await b.context({ locale: 'en-US' })
    const page = await ctx.newPage()
    await page.goto(`${t.url}/demo`)
    const got = await page.evaluate(async () => {
      const w = globalThis as unknown as { ServiceSec: { init(o: unknown): void } }
      return new Promise((resolve) => w.ServiceSec.init({ sessionToken: 'f'.repeat(64), onSuccess: () => resolve('success'), onCancel: () => resolve('cancel'), onError: (e: unknown) => resolve(e) }))
    })
    expect(got).toMatchObject({ code: 'SESSION_EXPIRED' })
    await waitScreen(page, 'error')
    // a bad call never throws into the host page
    const threw = await page.evaluate(() => {
      try {
        ;(globalThis as unknown as { ServiceSec: { init(o: unknown): void } }).ServiceSec.init(undefined)
        ;(globalThis as unknown as { ServiceSec: { destroy(): void } }).ServiceSec.destroy()
        ;(globalThis as unknown as { ServiceSec: { destroy(): void } }).ServiceSec.destroy()
        return false
      } catch {
        return true
      }
    })
    expect(threw).toBe(false)
    await ctx.close()
  })

  it('destroy() leaves no node, no listener on window/document, no live camera track and no open socket', async () => {
    const ctx = await b.context({ locale: 'en-US', camera: true })
    // count listeners on the page's globals and keep every camera track and socket the widget opens
    await ctx.addInitScript(() => {
      const g = globalThis as unknown as Record<string, unknown>
      const live = new Map<EventTarget, number>()
      const add = EventTarget.prototype.addEventListener
      const remove = EventTarget.prototype.removeEventListener
      // only what widget.js adds (Playwright's own injected script listens on window too)
      const watched = (x: EventTarget) =>
        (x === globalThis || x === document || x === document.documentElement || x === document.body) && /widget\.js/.test(new Error().stack ?? '')
      EventTarget.prototype.addEventListener = function (this: EventTarget, ...a: Parameters<EventTarget['addEventListener']>) {
        if (watched(this)) live.set(this, (live.get(this) ?? 0) + 1)
        return add.apply(this, a)
      }
      EventTarget.prototype.removeEventListener = function (this: EventTarget, ...a: Parameters<EventTarget['removeEventListener']>) {
        if (watched(this)) live.set(this, (live.get(this) ?? 0) - 1)
        return remove.apply(this, a)
      }
      g['__listeners'] = () => [...live.values()].reduce((x, y) => x + y, 0)
      const tracks: Array<{ readyState: string }> = []
      g['__tracks'] = tracks
      const gum = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices)
      navigator.mediaDevices.getUserMedia = async (c) => {
        const s = await gum(c)
        tracks.push(...s.getTracks())
        return s
      }
      const sockets: WebSocket[] = []
      g['__sockets'] = sockets
      const WS = WebSocket
      g['WebSocket'] = class extends WS {
        constructor(url: string | URL, p?: string | string[]) {
          super(url, p)
          sockets.push(this)
        }
      }
    })
    const page = await ctx.newPage()
    const token = await productionAuthToken()
    await page.goto(`${t.url}/demo`)
    const before = await page.evaluate(() => ({ html: document.body.innerHTML, listeners: (globalThis as any).__listeners(), overflow: document.body.style.overflow }))
    await initWith(page, token)
    await acceptConsent(page)
    await waitScreen(page, 'selfie-intro')
    await page.getByRole('button', { name: 'Start' }).click()
    await waitScreen(page, 'selfie-live')
    await page.waitForFunction(() => (globalThis as any).__tracks.some((tr: { readyState: string }) => tr.readyState === 'live'))
    expect(await page.evaluate(() => document.body.style.overflow)).toBe('hidden')

    await page.evaluate(() => (globalThis as any).ServiceSec.destroy())
    await page.waitForFunction(() => (globalThis as any).__sockets.every((s: WebSocket) => s.readyState >= 2))
    const after = await page.evaluate(() => ({
      html: document.body.innerHTML,
      listeners: (globalThis as any).__listeners(),
      overflow: document.body.style.overflow,
      nodes: document.querySelectorAll('[data-servicesec-widget]').length,
      tracks: (globalThis as any).__tracks.map((tr: { readyState: string }) => tr.readyState),
      sockets: (globalThis as any).__sockets.length,
    }))
    expect(after.nodes).toBe(0)
    expect(after.html).toBe(before.html)
    expect(after.listeners).toBe(before.listeners)
    expect(after.overflow).toBe(before.overflow)
    expect(after.tracks.length).toBeGreaterThan(0)
    expect(after.tracks.every((s: string) => s === 'ended')).toBe(true)
    expect(after.sockets).toBeGreaterThan(0)
    // nothing fires after destroy
    await page.waitForTimeout(300)
    expect((await events(page)).length).toBe(0)
    await ctx.close()
  })
})

describe('redirect flow (/widget?token=…)', () => {
  /** Records every navigation the page asks for, including custom schemes the browser cannot open. */
  async function watchNavigations(page: Page): Promise<string[]> {
    const urls: string[] = []
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Page.enable')
    cdp.on('Page.frameRequestedNavigation', (e: { url: string }) => urls.push(e.url))
    return urls
  }

  it('KYC lands on the deep link with verification_id and status=processing; Auth with auth_id and status; nothing else', async () => {
    const tenant = await newTenant(t)
    const kyc = await call(t.url, 'POST', '/v1/verify/session', { key: tenant.sandboxKey, json: { external_id: 'app-user', redirect_uri: 'myapp://kyc/done?from=widget' } })
    expect(kyc.status).toBe(201)
    expect(kyc.body.widget_url).toBe(`${t.url}/widget?token=${kyc.body.session_token}`)

    const ctx = await b.context({ locale: 'en-US', mobile: true })
    const page = await ctx.newPage()
    const navs = await watchNavigations(page)
    const res = await page.goto(kyc.body.widget_url)
    expect(res!.headers()['content-security-policy']).toContain('frame-ancestors *')
    expect(res!.headers()['permissions-policy']).toContain('camera=(self)')
    expect(res!.headers()['referrer-policy']).toBe('no-referrer')
    await waitScreen(page, 'consent')
    await shot(page, '04-redirect-page-mobile')
    await acceptConsent(page)
    await waitScreen(page, 'sandbox')
    await page.getByRole('button', { name: 'Complete test' }).click()
    await waitUntil(() => navs.some((u) => u.startsWith('myapp:')), 'the deep link navigation', 20_000)
    const deep = new URL(navs.find((u) => u.startsWith('myapp:'))!)
    expect(`${deep.protocol}//${deep.host}${deep.pathname}`).toBe('myapp://kyc/done')
    expect([...deep.searchParams.keys()].sort()).toEqual(['from', 'status', 'verification_id'])
    expect(deep.searchParams.get('status')).toBe('processing')
    expect(deep.searchParams.get('from')).toBe('widget')
    const status = await call(t.url, 'GET', `/v1/verify/session/${kyc.body.session_token}/status`)
    expect(deep.searchParams.get('verification_id')).toBe(status.body.verification_id)
    expect(deep.href).not.toContain(kyc.body.session_token)
    // the page also shows the link, for browsers that block the automatic jump
    expect(await page.locator('#back a').getAttribute('href')).toBe(deep.href)

    // the same link again: a clear "already used" page
    const again = await page.goto(kyc.body.widget_url)
    expect(again!.status()).toBe(409)
    expect(await page.locator('h1').textContent()).toBe('Link already used')
    const bad = await page.goto(`${t.url}/widget?token=${'0'.repeat(64)}`)
    expect(bad!.status()).toBe(401)

    // Auth of the same user: the KYC was approved in sandbox, so authenticated
    const auth = await call(t.url, 'POST', '/v1/auth/session', { key: tenant.sandboxKey, json: { external_id: 'app-user', redirect_uri: 'myapp://auth' } })
    expect(auth.status).toBe(201)
    // a new tab, as a native app opens one per flow (the external-protocol prompt of the first jump holds the old tab's keyboard)
    await page.close()
    const page2 = await ctx.newPage()
    const navs2 = await watchNavigations(page2)
    await page2.goto(auth.body.widget_url)
    await waitScreen(page2, 'consent')
    await acceptConsent(page2)
    await waitScreen(page2, 'sandbox')
    await page2.getByRole('button', { name: 'Complete test' }).click()
    await waitUntil(() => navs2.some((u) => u.startsWith('myapp:')), 'the Auth deep link navigation', 20_000)
    const back = new URL(navs2.find((u) => u.startsWith('myapp:'))!)
    expect([...back.searchParams.keys()].sort()).toEqual(['auth_id', 'status'])
    expect(back.searchParams.get('status')).toBe('authenticated')
    expect(back.searchParams.get('auth_id')).toMatch(UUID)
    await ctx.close()
  })
})
