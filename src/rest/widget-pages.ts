import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Context, Hono } from 'hono'
import { AppError, isAppError } from '../errors.js'
import { getWidgetSession } from '../modules/captures/widget-session.js'
import { createAuthSession, createKycSession } from '../modules/sessions/create-session.js'
import { findSessionByToken } from '../modules/sessions/resolve-session.js'
import type { Services } from '../services.js'
import { buildWidget, WIDGET_OUT, widgetIsStale } from '../../widget/build.js'
import { readJsonBody } from './body.js'

/**
 * Browser-facing pages and assets: /widget.js (the bundle, built on demand), /widget?token=… (the
 * full-page widget of the redirect flow for native apps), /widget/return (where that page learns
 * the deep link), and the demo customer page at / and /demo.
 */
export function mountWidgetPages(app: Hono<any>, svc: Services, demo: { tenantId: string } | null): void {
  const bundle = widgetBundle(svc)

  app.get('/widget.js', async (c) => {
    const b = await bundle()
    if (!b) return c.text('// the widget bundle is not built and cannot be built here (run: npx tsx widget/build.ts)\n', 503, { 'content-type': 'text/javascript; charset=utf-8' })
    const headers = {
      'content-type': 'text/javascript; charset=utf-8',
      // short cache: the script is updated without any customer release (spec), revalidated by ETag
      'cache-control': 'public, max-age=300, stale-while-revalidate=3600',
      etag: b.etag,
      'x-content-type-options': 'nosniff',
      // customers load it from their own origin, also under COEP
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': '*',
    }
    if (c.req.header('if-none-match') === b.etag) return c.body(null, 304, headers)
    return c.body(b.code, 200, headers)
  })

  app.get('/widget', async (c) => {
    const token = c.req.query('token') ?? ''
    const lang = pageLang(c.req.header('accept-language'))
    const T = PAGE_TEXT[lang]
    let problem: { status: 401 | 409 | 410; title: string; text: string } | null = null
    try {
      const s = await getWidgetSession(svc, token)
      if (s.state === 'expired') problem = { status: 410, title: T.expiredTitle, text: T.expired }
      else if (s.state === 'completed') problem = { status: 409, title: T.usedTitle, text: T.used }
    } catch (e) {
      if (!isAppError(e)) throw e
      problem = { status: 401, title: T.invalidTitle, text: T.invalid }
    }
    const nonce = randomBytes(16).toString('base64')
    setPageHeaders(c, nonce, { embeddable: true })
    if (problem) return c.html(page(lang, problem.title, `<main class="card"><h1>${esc(problem.title)}</h1><p>${esc(problem.text)}</p></main>`, ''), problem.status)
    const script = `
(function(){
  var token = new URLSearchParams(location.search).get('token');
  var box = document.getElementById('back');
  function back(q){
    fetch('/widget/return?' + new URLSearchParams(q), { headers: { 'x-session-token': token }, cache: 'no-store' })
      .then(function(r){ return r.ok ? r.json() : null })
      .then(function(r){
        if (!r || !r.redirect_url) return;
        var a = document.createElement('a'); a.href = r.redirect_url; a.textContent = ${JSON.stringify(T.back)}; a.className = 'btn';
        box.replaceChildren(a); box.hidden = false;
        location.href = r.redirect_url;
      });
  }
  ServiceSec.init({
    sessionToken: token, containerId: 'app', locale: ${JSON.stringify(lang)}, waitForResult: false,
    onSuccess: function(){ back({}) },
    onCancel: function(){ back({ outcome: 'cancelled' }) },
    onError: function(e){ if (e.code !== 'CAMERA_DENIED' && e.code !== 'NO_CAMERA') back({ outcome: 'error', code: e.code }) }
  });
})();`
    const html = `<main class="wide"><div id="app"></div><p id="back" class="card" hidden></p></main>
<script src="/widget.js"></script><script nonce="${nonce}">${script}</script>`
    return c.html(page(lang, T.title, html, ''), 200)
  })

  // the deep link of the redirect flow, built on the server from the session's stored redirect_uri
  app.get('/widget/return', async (c) => {
    c.header('cache-control', 'no-store')
    c.header('referrer-policy', 'no-referrer')
    const url = await redirectTarget(svc, c.req.header('x-session-token') ?? '', { outcome: c.req.query('outcome'), code: c.req.query('code') })
    return c.json({ redirect_url: url })
  })

  app.get('/', (c) => demoPage(c, demo))
  app.get('/demo', (c) => demoPage(c, demo))

  // the demo's "customer backend": a sandbox session of the demo tenant, created on the server
  app.post('/demo/session', async (c) => {
    if (!demo) throw new AppError('not_found', 'the demo is disabled (DEMO_TENANT=false)')
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) throw new AppError('invalid_request', 'send a JSON body')
    const body = ((await readJsonBody(c, 1024)) ?? {}) as { mode?: unknown; redirect_uri?: unknown }
    const principal = { tenantId: demo.tenantId, ambiente: 'sandbox' as const, keyId: 'demo', isAdmin: false }
    const input: Record<string, unknown> = { ambiente: 'sandbox', external_id: 'demo-user' }
    if (typeof body.redirect_uri === 'string') input['redirect_uri'] = body.redirect_uri
    const created = body.mode === 'auth' ? await createAuthSession(svc, principal, input) : await createKycSession(svc, principal, input)
    c.header('cache-control', 'no-store')
    return c.json(created, 201)
  })
}

// ── /widget.js ───────────────────────────────────────────────────────────────

interface Bundle {
  code: string
  etag: string
}

/**
 * The bundle in memory; rebuilt with esbuild when widget/dist is missing or older than the widget
 * sources (checked at most every 2 s), so a fresh clone works without a build step. When esbuild
 * is not installed (production without dev dependencies) the built file is served as it is.
 */
function widgetBundle(svc: Services): () => Promise<Bundle | null> {
  let cached: Bundle | null = null
  let checkedAt = 0
  let pending: Promise<Bundle | null> | null = null
  const load = async (): Promise<Bundle | null> => {
    if (widgetIsStale()) {
      try {
        const b = await buildWidget()
        svc.logger.info({ bytes: b.bytes, gzipBytes: b.gzipBytes }, 'widget.js built')
      } catch (err) {
        svc.logger.warn({ err }, 'widget.js could not be built; serving the existing bundle if any')
      }
    }
    if (!existsSync(WIDGET_OUT)) return null
    const code = await readFile(WIDGET_OUT, 'utf8')
    return { code, etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"` }
  }
  return async () => {
    if (cached && Date.now() - checkedAt < 2000) return cached
    pending ??= load().finally(() => {
      checkedAt = Date.now()
      pending = null
    })
    cached = (await pending) ?? cached
    return cached
  }
}

// ── redirect flow ────────────────────────────────────────────────────────────

const ERROR_CODES = new Set(['LIVENESS_ERROR', 'NO_EMBEDDING', 'STATUS_TIMEOUT', 'WIDGET_ERROR', 'CAMERA_DENIED', 'NO_CAMERA', 'SESSION_EXPIRED'])

/**
 * The session's stored redirect_uri with the spec's parameters and nothing else: KYC
 * `verification_id` + `status=processing`; Auth `auth_id` + `status`. Never the token, scores or
 * OCR. A flow that ended without a result returns `status=cancelled` or `status=error&error=<CODE>`.
 */
async function redirectTarget(svc: Services, token: string, q: { outcome?: string | undefined; code?: string | undefined }): Promise<string> {
  const s = await findSessionByToken(svc, token)
  if (!s.redirectUri) throw new AppError('not_found', 'this session has no redirect_uri')
  const url = new URL(s.redirectUri)
  const params: Array<[string, string]> = []
  if (s.kind === 'KYC') {
    const v = await svc.db.verification.findUnique({ where: { sessionId: s.id }, select: { id: true } })
    if (v) params.push(['verification_id', v.id], ['status', 'processing'])
  } else {
    const a = await svc.db.authAttempt.findUnique({ where: { sessionId: s.id }, select: { id: true, status: true } })
    if (a) params.push(['auth_id', a.id], ['status', a.status])
  }
  if (!params.length) {
    if (q.outcome === 'cancelled') params.push(['status', 'cancelled'])
    else if (q.outcome === 'error') params.push(['status', 'error'], ['error', q.code && ERROR_CODES.has(q.code) ? q.code : 'WIDGET_ERROR'])
    else throw new AppError('invalid_state', 'the flow of this session has not finished')
  }
  for (const [k, v] of params) url.searchParams.set(k, v)
  return url.toString()
}

// ── pages ────────────────────────────────────────────────────────────────────

type Lang = 'pt' | 'en' | 'es'

const PAGE_TEXT: Record<Lang, Record<'title' | 'back' | 'expiredTitle' | 'expired' | 'usedTitle' | 'used' | 'invalidTitle' | 'invalid', string>> = {
  pt: {
    title: 'Verificação de identidade',
    back: 'Voltar ao aplicativo',
    expiredTitle: 'Link expirado',
    expired: 'Este link de verificação expirou. Volte ao aplicativo e comece de novo.',
    usedTitle: 'Link já utilizado',
    used: 'Este link de verificação já foi usado. Volte ao aplicativo para ver o resultado.',
    invalidTitle: 'Link inválido',
    invalid: 'Este link de verificação não é válido. Volte ao aplicativo e comece de novo.',
  },
  en: {
    title: 'Identity verification',
    back: 'Back to the app',
    expiredTitle: 'Link expired',
    expired: 'This verification link has expired. Go back to the app and start again.',
    usedTitle: 'Link already used',
    used: 'This verification link was already used. Go back to the app to see the result.',
    invalidTitle: 'Invalid link',
    invalid: 'This verification link is not valid. Go back to the app and start again.',
  },
  es: {
    title: 'Verificación de identidad',
    back: 'Volver a la aplicación',
    expiredTitle: 'Enlace expirado',
    expired: 'Este enlace de verificación expiró. Vuelve a la aplicación y empieza de nuevo.',
    usedTitle: 'Enlace ya utilizado',
    used: 'Este enlace de verificación ya fue usado. Vuelve a la aplicación para ver el resultado.',
    invalidTitle: 'Enlace no válido',
    invalid: 'Este enlace de verificación no es válido. Vuelve a la aplicación y empieza de nuevo.',
  },
}

function pageLang(acceptLanguage: string | undefined): Lang {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const p = part.trim().slice(0, 2).toLowerCase()
    if (p === 'pt' || p === 'en' || p === 'es') return p
  }
  return 'en'
}

/**
 * Headers of every page: scripts only from us (plus one nonce'd bootstrap), connections only to us
 * (HTTP and WebSocket), the camera for this origin only, no referrer (the /widget URL holds the token).
 * The /widget page may be framed by any customer (with allow="camera"); the demo only by itself.
 */
function setPageHeaders(c: Context, nonce: string, opts: { embeddable: boolean }): void {
  const host = c.req.header('host') ?? ''
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    // the widget's styles live in its shadow root (a <style> element and a few style attributes)
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    `connect-src 'self'${host ? ` ws://${host} wss://${host}` : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${opts.embeddable ? '*' : "'self'"}`,
  ].join('; ')
  c.header('content-security-policy', csp)
  c.header('permissions-policy', 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()')
  c.header('referrer-policy', 'no-referrer')
  c.header('x-content-type-options', 'nosniff')
  c.header('cache-control', 'no-store')
  c.header('cross-origin-opener-policy', 'same-origin')
  if (!opts.embeddable) c.header('x-frame-options', 'SAMEORIGIN')
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

function page(lang: Lang, title: string, body: string, head: string): string {
  return `<!doctype html>
<html lang="${lang === 'pt' ? 'pt-BR' : lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f3f5f9}
main{max-width:560px;margin:0 auto;padding:16px}
main.wide{max-width:520px}
.card{background:#fff;border-radius:14px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:22px;margin:0 0 8px}
.btn{display:inline-block;appearance:none;border:0;border-radius:10px;padding:12px 16px;font:600 16px/1.2 inherit;font-family:inherit;background:#0b57d0;color:#fff;text-decoration:none;cursor:pointer;min-height:48px}
.btn.secondary{background:#eef1f6;color:#0b3d91}
.row{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
code,pre{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#eef1f6;border-radius:6px}
code{padding:1px 4px}
pre{padding:10px;white-space:pre-wrap;word-break:break-all;max-height:260px;overflow:auto}
label{font-size:14px}
select{font:inherit;padding:6px}
:focus-visible{outline:3px solid #f2a900;outline-offset:2px}
</style>
${head}
</head>
<body>
${body}
</body>
</html>`
}

function demoPage(c: Context, demo: { tenantId: string } | null): Response {
  const nonce = randomBytes(16).toString('base64')
  setPageHeaders(c, nonce, { embeddable: false })
  if (!demo) {
    return c.html(
      page(
        'en',
        'ServiceSec',
        `<main class="card"><h1>ServiceSec identity verification</h1>
<p>The API is at <a href="/v1/docs"><code>/v1/docs</code></a>, GraphQL at <a href="/graphql"><code>/graphql</code></a>.</p>
<p>The demo page (a sandbox customer that opens the widget) is off. Start the server with <code>DEMO_TENANT=true</code>
(the default on the embedded database outside tests) to see the whole widget flow here.</p></main>`,
        '',
      ),
    )
  }
  const script = `
(function(){
  var log = document.getElementById('log');
  function show(name, payload){ log.textContent = name + ' ' + JSON.stringify(payload, null, 2) + '\\n' + log.textContent; }
  function start(mode){
    var locale = document.getElementById('locale').value || undefined;
    fetch('/demo/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: mode }) })
      .then(function(r){ return r.json() })
      .then(function(s){
        if (!s.session_token) { show('session error', s); return; }
        window.__demoEvents = [];
        ServiceSec.init({
          sessionToken: s.session_token, locale: locale,
          onSuccess: function(r){ window.__demoEvents.push({ type: 'success', result: r }); show('onSuccess', r); },
          onCancel: function(){ window.__demoEvents.push({ type: 'cancel' }); show('onCancel', {}); },
          onError: function(e){ window.__demoEvents.push({ type: 'error', error: e }); show('onError', e); }
        });
      });
  }
  document.getElementById('kyc').addEventListener('click', function(){ start('kyc') });
  document.getElementById('auth').addEventListener('click', function(){ start('auth') });
})();`
  return c.html(
    page(
      'en',
      'ServiceSec demo store',
      `<main><div class="card">
<h1>Demo store</h1>
<p>This page plays a customer: its server creates a <strong>sandbox</strong> session for the demo tenant and opens the widget
(<code>&lt;script src="/widget.js"&gt;</code> + <code>ServiceSec.init</code>). Sandbox sessions pick their outcome without a camera;
the user is <code>demo-user</code>, so Auth succeeds once a demo KYC was approved.</p>
<div class="row">
<button id="kyc" class="btn" type="button">Verify my identity (KYC)</button>
<button id="auth" class="btn secondary" type="button">Log in with my face (Auth)</button>
</div>
<label for="locale">Language</label>
<select id="locale"><option value="">auto (browser)</option><option value="pt">Português</option><option value="en">English</option><option value="es">Español</option></select>
<h2 style="font-size:16px">Callbacks</h2>
<pre id="log" aria-live="polite"></pre>
</div></main>
<script src="/widget.js"></script><script nonce="${nonce}">${script}</script>`,
      '',
    ),
  )
}
