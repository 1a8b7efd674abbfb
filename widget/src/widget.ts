import { Api, type Challenge, type WidgetSession } from './api.js'
import { assessFrame, grabJpeg, openCamera, playInto, stopStream, type Guidance } from './camera.js'
import { Disposer } from './disposer.js'
import { toWidgetError, WidgetError, type WidgetErrorCode } from './errors.js'
import { pickLocale, translator, type Locale, type TextKey } from './i18n.js'
import { isFinal, StatusFollower, type StatusUpdate } from './status.js'
import { CSS } from './styles.js'

export interface KycResult {
  verification_id: string
  status: string
}
export interface AuthResult {
  auth_id: string
  authenticated: boolean
  status: string
  score_liveness: number | null
  score_facial: number | null
}

export interface InitOptions {
  sessionToken: string
  onSuccess: (result: KycResult | AuthResult) => void
  onCancel: () => void
  onError: (error: { code: WidgetErrorCode; message: string }) => void
  locale?: Locale
  containerId?: string
  apiUrl?: string
  /**
   * KYC only: false calls onSuccess right after submission with `status: 'processing'` instead of
   * waiting for the decision (the /widget page of the redirect flow does this). Default true.
   */
  waitForResult?: boolean
  /** how long to wait for the decision before STATUS_TIMEOUT (default 60 s for Auth, 180 s for KYC) */
  statusTimeoutMs?: number
}

type El = HTMLElement
type Child = Node | string | null | undefined | false

const SANDBOX_OUTCOMES = ['approved', 'rejected', 'manual_review', 'document_expired'] as const
const BURST_FRAMES = 10

/** One open widget. All state lives here; destroy() undoes everything it added. */
export class Widget {
  private readonly life = new Disposer()
  private readonly abort = new AbortController()
  private readonly host: El
  private readonly root: ShadowRoot
  private readonly body: El
  private readonly live: El
  private readonly badge: El
  private readonly titleEl: El
  private readonly t: ReturnType<typeof translator>
  private readonly locale: Locale
  private readonly api: Api
  private readonly status: StatusFollower
  private readonly overlay: boolean
  private readonly previousFocus: Element | null
  private finished = false
  private session: WidgetSession | null = null
  private stream: MediaStream | null = null

  constructor(
    private readonly opts: InitOptions,
    defaultApiUrl: string,
    private readonly onClosed: () => void,
  ) {
    this.locale = pickLocale(opts.locale, typeof navigator !== 'undefined' ? (navigator.languages ?? [navigator.language]) : [])
    this.t = translator(this.locale)
    const base = (opts.apiUrl || defaultApiUrl).replace(/\/+$/, '')
    this.api = new Api(base, opts.sessionToken, this.abort.signal)
    this.life.add(() => this.abort.abort())
    this.life.add(() => this.api.abortUploads())
    this.status = new StatusFollower(this.api, opts.sessionToken, this.life)
    this.previousFocus = document.activeElement

    const container = opts.containerId ? document.getElementById(opts.containerId) : null
    if (opts.containerId && !container) throw new WidgetError('WIDGET_ERROR', `no element with id "${opts.containerId}"`)
    this.overlay = !container
    this.host = document.createElement('div')
    this.host.setAttribute('data-servicesec-widget', '')
    this.root = this.host.attachShadow({ mode: 'open' })
    const style = document.createElement('style')
    style.textContent = CSS
    this.titleEl = h('span', { class: 'ss-brand', id: 'ss-title' })
    this.badge = h('span', { class: 'ss-badge', hidden: '' }, this.t('sandbox_badge'))
    const close = h('button', { type: 'button', class: 'ss-close', 'aria-label': this.t('close') }, '×')
    this.life.listen(close, 'click', () => this.close())
    this.body = h('main', { class: 'ss-body' })
    this.live = h('div', { class: 'ss-sr', role: 'status', 'aria-live': 'polite' })
    const panel = h(
      'div',
      { class: 'ss-panel', role: this.overlay ? 'dialog' : 'region', 'aria-modal': this.overlay ? 'true' : null, 'aria-labelledby': 'ss-title', lang: langTag(this.locale) },
      h('header', { class: 'ss-head' }, this.titleEl, this.badge, close),
      this.body,
      this.live,
    )
    const wrap = h('div', { class: `ss-root ${this.overlay ? 'ss-overlay' : 'ss-embed'}` }, panel)
    this.root.append(style, wrap)
    this.life.listen(this.root, 'keydown', (e) => this.onKey(e as KeyboardEvent))
    ;(container ?? document.body).appendChild(this.host)
    this.life.add(() => this.host.remove())
    if (this.overlay) {
      // the page behind an overlay must not scroll; restored exactly as it was
      const prev = document.body.style.overflow
      document.body.style.overflow = 'hidden'
      this.life.add(() => void (document.body.style.overflow = prev))
    }
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────

  start(): void {
    this.screen('loading', this.t('loading'), h('div', { class: 'ss-spin', 'aria-hidden': 'true' }))
    this.run().catch((e) => this.fail(toWidgetError(e)))
  }

  /** destroy(): every track stopped, every listener and timer removed, every request aborted, the node gone. */
  destroy(): void {
    if (this.life.disposed) return
    this.stopCamera()
    this.life.dispose()
    const f = this.previousFocus as HTMLElement | null
    if (f && typeof f.focus === 'function' && f.isConnected) f.focus()
  }

  private get alive(): boolean {
    return !this.life.disposed
  }

  private close(): void {
    const cancelled = !this.finished
    this.onClosed()
    if (cancelled) this.callback(() => this.opts.onCancel())
  }

  /** The host's callbacks run outside our error handling: a throwing callback is logged, never rethrown into our flow. */
  private callback(fn: () => void): void {
    try {
      fn()
    } catch (e) {
      console.error('[ServiceSec] a callback threw', e)
    }
  }

  private emitError(e: WidgetError): void {
    if (!this.alive) return
    this.callback(() => this.opts.onError({ code: e.code, message: e.message }))
  }

  /** A fatal error: reported once, shown with a close button. */
  private fail(e: WidgetError): void {
    if (!this.alive || this.finished) return
    this.finished = true
    this.stopCamera()
    const key: TextKey =
      e.code === 'SESSION_EXPIRED'
        ? 'err_session_expired'
        : e.code === 'CAMERA_DENIED'
          ? 'err_camera_denied'
          : e.code === 'NO_CAMERA'
            ? 'err_no_camera'
            : e.code === 'LIVENESS_ERROR'
              ? 'err_liveness'
              : e.code === 'NO_EMBEDDING'
                ? 'err_no_embedding'
                : e.code === 'STATUS_TIMEOUT'
                  ? 'err_timeout'
                  : 'err_generic'
    const btn = this.button(this.t('close'), () => this.close())
    this.screen('error', this.t('error_title'), h('p', { 'data-error-code': e.code }, this.t(key)), btn)
    this.emitError(e)
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape' && this.overlay) {
      e.stopPropagation()
      this.close()
      return
    }
    if (e.key !== 'Tab' || !this.overlay) return
    // keep the focus inside the dialog
    const items = [...this.root.querySelectorAll<HTMLElement>('button:not([disabled]),input:not([disabled]),[tabindex="0"]')].filter((x) => !x.hidden && x.offsetParent !== null)
    if (!items.length) return
    const first = items[0]!
    const last = items[items.length - 1]!
    const active = this.root.activeElement
    if (e.shiftKey && (active === first || !active)) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && active === last) {
      e.preventDefault()
      first.focus()
    }
  }

  // ── the flow ─────────────────────────────────────────────────────────────────

  private async run(): Promise<void> {
    const s = await this.api.session()
    if (!this.alive) return
    this.session = s
    this.titleEl.textContent = this.t(s.mode === 'KYC' ? 'title_kyc' : 'title_auth')
    this.badge.hidden = !s.sandbox
    if (s.state === 'expired' || s.state === 'completed' || s.state === 'used')
      throw new WidgetError('SESSION_EXPIRED', s.state === 'expired' ? 'this session has expired' : 'this session was already used')
    // subscribe before anything can change the status, so no event is missed
    this.status.start()
    await this.consent(s)

    let submitted: { id: string; status: string; error_code?: string | null }
    if (s.sandbox) {
      submitted = await this.sandboxStep(s)
    } else {
      let documentType: string | null = null
      const docs: Array<{ kind: string; blob: Blob }> = []
      if (s.mode === 'KYC' && !s.selfie_only) {
        documentType = await this.chooseDocument(s)
        docs.push({ kind: 'document_front', blob: await this.captureDocument('front') })
        if (s.needs_back.includes(documentType)) docs.push({ kind: 'document_back', blob: await this.captureDocument('back') })
      }
      submitted = await this.selfieUploadSubmit(docs, documentType)
    }
    await this.finish(s, submitted)
  }

  private async finish(s: WidgetSession, submitted: { id: string; status: string; error_code?: string | null }): Promise<void> {
    if (s.mode === 'KYC' && this.opts.waitForResult === false) {
      return this.succeed({ verification_id: submitted.id, status: 'processing' })
    }
    this.screen('processing', this.t('processing'), h('div', { class: 'ss-spin', 'aria-hidden': 'true' }), h('p', { class: 'ss-muted' }, this.t('processing_hint')))
    const timeout = this.opts.statusTimeoutMs ?? (s.mode === 'AUTH' ? 60_000 : 180_000)
    const final: StatusUpdate = isFinal(submitted.status)
      ? await this.status.waitForFinal(3000, 1000).catch(() => ({ status: submitted.status, verificationId: null, authAttemptId: null, via: 'polling' as const }))
      : await this.status.waitForFinal(timeout)
    if (!this.alive) return
    this.host.setAttribute('data-status-via', final.via)
    if (s.mode === 'KYC') return this.succeed({ verification_id: final.verificationId ?? submitted.id, status: final.status })

    // Auth: scores and the reason of a technical rejection come from the widget session view
    const view = await this.api.session().catch(() => null)
    const code = view?.error_code ?? submitted.error_code ?? null
    if (code === 'LIVENESS_ERROR' || code === 'NO_EMBEDDING') {
      throw new WidgetError(code, code === 'LIVENESS_ERROR' ? 'the liveness check failed' : 'no KYC face embedding is stored for this user')
    }
    return this.succeed({
      auth_id: final.authAttemptId ?? submitted.id,
      authenticated: final.status === 'authenticated',
      status: final.status,
      score_liveness: unit(view?.score_liveness),
      score_facial: unit(view?.score_facial),
    })
  }

  private succeed(result: KycResult | AuthResult): void {
    if (!this.alive || this.finished) return
    this.finished = true
    this.stopCamera()
    const s = this.session
    const text =
      s?.mode === 'AUTH' ? this.t((result as AuthResult).authenticated ? 'done_auth_ok' : 'done_auth_fail') : this.t('done_kyc')
    this.screen('done', this.t('done_title'), h('p', {}, text), this.button(this.t('close'), () => this.close()))
    this.callback(() => this.opts.onSuccess(result))
  }

  private consent(s: WidgetSession): Promise<void> {
    return new Promise((resolve) => {
      const check = h('input', { type: 'checkbox', id: 'ss-consent' }) as HTMLInputElement
      const go = this.button(this.t('continue'), () => resolve())
      ;(go as HTMLButtonElement).disabled = true
      this.life.listen(check, 'change', () => ((go as HTMLButtonElement).disabled = !check.checked))
      this.screen(
        'consent',
        this.t('consent_title'),
        s.sandbox ? h('p', { class: 'ss-note' }, this.t('sandbox_note')) : null,
        h('p', {}, this.t(s.mode === 'KYC' ? 'consent_kyc' : 'consent_auth')),
        h('label', { class: 'ss-check', for: 'ss-consent' }, check, h('span', {}, this.t('consent_check'))),
        h('div', { class: 'ss-row' }, go, this.button(this.t('cancel'), () => this.close(), true)),
      )
    })
  }

  /** Sandbox: no camera; the user picks the magic-CPF outcome (KYC) or just completes (Auth). */
  private sandboxStep(s: WidgetSession): Promise<{ id: string; status: string; error_code?: string | null }> {
    return new Promise((resolve, reject) => {
      let outcome: string = 'approved'
      const choices =
        s.mode === 'KYC'
          ? h(
              'fieldset',
              { class: 'ss-row', style: 'border:0;padding:0;margin:0' },
              h('legend', { class: 'ss-muted', style: 'margin-bottom:8px' }, this.t('sandbox_pick')),
              ...SANDBOX_OUTCOMES.map((o, i) => {
                const input = h('input', { type: 'radio', name: 'ss-outcome', value: o, ...(i === 0 ? { checked: '' } : {}) }) as HTMLInputElement
                this.life.listen(input, 'change', () => input.checked && (outcome = o))
                return h('label', { class: 'ss-choice' }, input, h('span', {}, this.t(`sandbox_${o}` as TextKey)))
              }),
            )
          : h('p', { class: 'ss-muted' }, this.t('sandbox_auth_note'))
      const go = this.button(this.t('sandbox_complete'), () => {
        ;(go as HTMLButtonElement).disabled = true
        this.announce(this.t('processing'))
        this.api
          .sandboxComplete(s.mode === 'KYC' ? { outcome } : {})
          .then((r) => resolve({ id: (r.verification_id ?? r.auth_id)!, status: r.status, error_code: r.error_code ?? null }))
          .catch(reject)
      })
      this.screen('sandbox', this.t('sandbox_pick'), h('p', { class: 'ss-note' }, this.t('sandbox_note')), choices, go)
    })
  }

  private chooseDocument(s: WidgetSession): Promise<string> {
    const types = s.documentos_aceitos
    if (types.length === 1) return Promise.resolve(types[0]!)
    return new Promise((resolve) => {
      let chosen = ''
      const go = this.button(this.t('continue'), () => resolve(chosen))
      ;(go as HTMLButtonElement).disabled = true
      const list = types.map((d) => {
        const input = h('input', { type: 'radio', name: 'ss-doc', value: d }) as HTMLInputElement
        this.life.listen(input, 'change', () => {
          if (!input.checked) return
          chosen = d
          ;(go as HTMLButtonElement).disabled = false
        })
        return h('label', { class: 'ss-choice' }, input, h('span', {}, docLabel(this.t, d)))
      })
      this.screen('document-type', this.t('doc_title'), h('fieldset', { class: 'ss-row', style: 'border:0;padding:0;margin:0' }, h('legend', { class: 'ss-sr' }, this.t('doc_title')), ...list), go)
    })
  }

  /** One side of the document: the rear camera from a button press, or a file when there is no camera. */
  private captureDocument(side: 'front' | 'back'): Promise<Blob> {
    const title = this.t(side === 'front' ? 'front_title' : 'back_title')
    const screenName = side === 'front' ? 'document-front' : 'document-back'
    return new Promise((resolve) => {
      const file = h('input', { type: 'file', accept: 'image/jpeg,image/png,image/webp,image/*', class: 'ss-file', tabindex: '-1', 'aria-hidden': 'true', 'data-role': `file-${side}` }) as HTMLInputElement
      const preview = (blob: Blob) => {
        this.stopCamera()
        const url = URL.createObjectURL(blob)
        this.life.add(() => URL.revokeObjectURL(url))
        this.screen(
          `${screenName}-preview`,
          title,
          h('div', { class: 'ss-stage' }, h('img', { src: url, alt: title })),
          h('div', { class: 'ss-row' }, this.button(this.t('use_photo'), () => resolve(blob)), this.button(this.t('retake'), () => ask(), true)),
        )
      }
      this.life.listen(file, 'change', () => {
        const f = file.files?.[0]
        if (f) void normalizeImage(f).then(preview, (e) => this.fail(toWidgetError(e)))
      })
      const pick = this.button(this.t('choose_file'), () => file.click(), true)
      const ask = (note?: string) => {
        this.screen(
          screenName,
          title,
          note ? h('p', { class: 'ss-note', role: 'alert' }, note) : null,
          h('p', { class: 'ss-muted' }, this.t('doc_hint')),
          h('div', { class: 'ss-row' }, note ? null : this.button(this.t('open_camera'), () => void live()), pick, file),
        )
      }
      const live = async () => {
        try {
          this.stream = await openCamera(this.life, 'environment')
        } catch (e) {
          // documents have a fallback: a file; the flow goes on without reporting an error
          const we = toWidgetError(e)
          return ask(we.code === 'CAMERA_DENIED' ? this.t('err_camera_denied') + ' ' + this.t('err_camera_doc') : this.t('err_camera_doc'))
        }
        const video = videoEl(false)
        const snap = this.button(this.t('take_photo'), () => {
          void grabJpeg(video, document.createElement('canvas'), 2000, 0.92).then(preview, (e) => this.fail(toWidgetError(e)))
        })
        this.screen(screenName, title, h('div', { class: 'ss-stage' }, video, h('div', { class: 'ss-frame', 'aria-hidden': 'true' })), h('div', { class: 'ss-row' }, snap, pick, file))
        await playInto(video, this.stream)
      }
      ask()
    })
  }

  /**
   * Selfie with the server's challenge, then the upload of everything and the submission. A failed
   * capture or upload is retried in place (the server draws a new challenge and drops the old frames),
   * without a new session.
   */
  private async selfieUploadSubmit(docs: Array<{ kind: string; blob: Blob }>, documentType: string | null): Promise<{ id: string; status: string }> {
    for (;;) {
      const challenge = await this.api.challenge()
      const frames = await this.captureSelfie(challenge)
      if (!this.alive) throw new WidgetError('WIDGET_ERROR', 'closed')
      if (!frames) continue
      try {
        await this.uploadAll([...docs, ...frames.map((blob) => ({ kind: 'selfie', blob }))])
        const r = await this.api.submit(documentType)
        return { id: (r.verification_id ?? r.auth_id)!, status: r.status }
      } catch (e) {
        const we = toWidgetError(e)
        if (we.code === 'SESSION_EXPIRED' || !this.alive) throw we
        await this.retryScreen('upload-error', this.t('err_upload'))
      }
    }
  }

  private retryScreen(name: string, message: string): Promise<void> {
    this.stopCamera()
    return new Promise((resolve) => {
      this.screen(name, this.t('error_title'), h('p', { role: 'alert' }, message), h('div', { class: 'ss-row' }, this.button(this.t('retry'), () => resolve()), this.button(this.t('cancel'), () => this.close(), true)))
    })
  }

  /** Resolves with the burst, or null when the user must retry (face never well seen). Camera errors are fatal. */
  private captureSelfie(ch: Challenge): Promise<Blob[] | null> {
    const challengeText = this.t(`challenge_${ch.challenge}` as TextKey)
    return new Promise((resolve, reject) => {
      const begin = async () => {
        try {
          this.stream = await openCamera(this.life, 'user')
        } catch (e) {
          const we = toWidgetError(e)
          if (we.code !== 'CAMERA_DENIED' && we.code !== 'NO_CAMERA') return reject(we)
          // reported at once; the user may still fix the permission and try again
          this.emitError(we)
          this.screen('camera-error', this.t('error_title'), h('p', { role: 'alert', 'data-error-code': we.code }, this.t(we.code === 'CAMERA_DENIED' ? 'err_camera_denied' : 'err_no_camera')), h('div', { class: 'ss-row' }, this.button(this.t('retry'), () => void begin()), this.button(this.t('cancel'), () => this.close(), true)))
          return
        }
        try {
          resolve(await this.runBurst(ch, challengeText))
        } catch (e) {
          reject(e)
        }
      }
      this.screen(
        'selfie-intro',
        this.t('selfie_title'),
        h('p', { class: 'ss-muted' }, this.t('selfie_hint')),
        h('p', { class: 'ss-challenge', 'data-challenge': ch.challenge }, challengeText),
        this.button(this.t('start_selfie'), () => void begin()),
      )
    })
  }

  private async runBurst(ch: Challenge, challengeText: string): Promise<Blob[] | null> {
    const video = videoEl(true)
    const oval = h('div', { class: 'ss-oval', 'aria-hidden': 'true' })
    const guide = h('p', { class: 'ss-guide', 'aria-live': 'polite' })
    const prompt = h('p', { class: 'ss-challenge' }, challengeText)
    const bar = h('div', {})
    this.screen('selfie-live', this.t('selfie_title'), h('div', { class: 'ss-stage' }, video, oval), prompt, guide, h('div', { class: 'ss-bar', role: 'progressbar', 'aria-label': this.t('capturing'), 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, bar))
    await playInto(video, this.stream!)
    const canvas = document.createElement('canvas')

    // guidance: good light and structure in the oval for ~0.6 s before the burst starts
    let good = 0
    let last: Guidance | null = null
    const deadline = Date.now() + 12_000
    while (good < 3) {
      if (!this.alive) return null
      if (Date.now() > deadline) {
        this.stopCamera()
        await this.retryScreen('selfie-retry', this.t('err_capture') + ' ' + this.t(last === 'dark' ? 'guide_dark' : last === 'bright' ? 'guide_bright' : 'guide_face'))
        return null
      }
      const g = assessFrame(video, canvas)
      good = g === 'ok' ? good + 1 : 0
      oval.classList.toggle('ss-good', g === 'ok')
      if (g !== last) guide.textContent = this.t(g === 'ok' ? 'guide_ok' : g === 'dark' ? 'guide_dark' : g === 'bright' ? 'guide_bright' : 'guide_face')
      last = g
      await this.life.sleep(200)
    }

    // the burst: frames evenly spread over the server's duration while the user performs the challenge
    this.announce(challengeText)
    guide.textContent = this.t('capturing')
    const n = Math.min(ch.burst.max, Math.max(ch.burst.min, BURST_FRAMES))
    const step = ch.burst.durationMs / (n - 1)
    const t0 = performance.now()
    const frames: Blob[] = []
    for (let i = 0; i < n; i++) {
      const wait = t0 + i * step - performance.now()
      if (wait > 0) await this.life.sleep(wait)
      if (!this.alive) return null
      frames.push(await grabJpeg(video, canvas, 960, 0.88))
      const pct = Math.round(((i + 1) / n) * 100)
      bar.style.width = `${pct}%`
      bar.parentElement?.setAttribute('aria-valuenow', String(pct))
    }
    this.host.setAttribute('data-capture-ended', String(Date.now()))
    this.stopCamera()
    return frames
  }

  private async uploadAll(items: Array<{ kind: string; blob: Blob }>): Promise<void> {
    const total = items.reduce((a, x) => a + x.blob.size, 0) || 1
    const bar = h('div', {})
    const label = h('p', { class: 'ss-muted' }, '0%')
    const track = h('div', { class: 'ss-bar', role: 'progressbar', 'aria-label': this.t('progress'), 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, bar)
    this.screen('uploading', this.t('uploading'), track, label)
    let done = 0
    let selfieIndex = 0
    for (const it of items) {
      const index = it.kind === 'selfie' ? selfieIndex++ : 0
      await this.api.upload(it.kind, index, it.blob, (sent) => {
        const pct = Math.min(100, Math.round(((done + sent) / total) * 100))
        bar.style.width = `${pct}%`
        track.setAttribute('aria-valuenow', String(pct))
        label.textContent = `${pct}%`
      })
      done += it.blob.size
    }
  }

  // ── DOM helpers ──────────────────────────────────────────────────────────────

  private stopCamera(): void {
    stopStream(this.stream)
    this.stream = null
  }

  private button(label: string, onClick: () => void, secondary = false): El {
    const b = h('button', { type: 'button', class: secondary ? 'ss-btn ss-secondary' : 'ss-btn' }, label)
    this.life.listen(b, 'click', () => {
      try {
        onClick()
      } catch (e) {
        this.fail(toWidgetError(e))
      }
    })
    return b
  }

  private announce(text: string): void {
    this.live.textContent = ''
    // a fresh text node is what makes screen readers read the same message again
    this.life.timeout(() => (this.live.textContent = text), 50)
  }

  /** Replaces the screen: a heading that takes the focus (keyboard and screen-reader users land on it) and its content. */
  private screen(name: string, title: string, ...children: Child[]): void {
    if (!this.alive) return
    const heading = h('h2', { tabindex: '-1' }, title)
    this.body.replaceChildren(heading, ...(children.filter(Boolean) as Node[]))
    this.body.setAttribute('data-screen', name)
    this.host.setAttribute('data-screen', name)
    heading.focus({ preventScroll: true })
    this.announce(title)
  }

}

function videoEl(mirror: boolean): HTMLVideoElement {
  const v = h('video', { playsinline: '', 'webkit-playsinline': '', muted: '', autoplay: '', class: mirror ? 'ss-mirror' : null, 'aria-hidden': 'true' }) as HTMLVideoElement
  v.muted = true
  v.playsInline = true
  return v
}

function h(tag: string, attrs: Record<string, string | null>, ...children: Child[]): El {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) if (v !== null) el.setAttribute(k, v)
  for (const c of children) if (c) el.append(c)
  return el
}

function docLabel(t: ReturnType<typeof translator>, d: string): string {
  const key = `doc_${d}` as TextKey
  try {
    return t(key) ?? d
  } catch {
    return d
  }
}

function langTag(l: Locale): string {
  return l === 'pt' ? 'pt-BR' : l
}

/** Scores reach the callback on the spec's 0–1 scale (stored 0–100). */
function unit(v: number | null | undefined): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return null
  return v > 1 ? Math.round(v * 10) / 1000 : v
}

/**
 * A chosen file goes up as is when the server takes it (JPEG, PNG, WebP under 6 MB); anything
 * else (a huge photo, another format the browser can decode) is re-encoded as a JPEG of at most 2000 px.
 */
async function normalizeImage(f: File): Promise<Blob> {
  if (['image/jpeg', 'image/png', 'image/webp'].includes(f.type) && f.size < 6 * 1024 * 1024) return f
  const bmp = await createImageBitmap(f).catch(() => {
    throw new WidgetError('WIDGET_ERROR', 'this image format cannot be read; use a JPEG or PNG photo')
  })
  const k = Math.min(1, 2000 / Math.max(bmp.width, bmp.height))
  const c = document.createElement('canvas')
  c.width = Math.round(bmp.width * k)
  c.height = Math.round(bmp.height * k)
  c.getContext('2d')?.drawImage(bmp, 0, 0, c.width, c.height)
  bmp.close()
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new WidgetError('WIDGET_ERROR', 'could not encode the image'))), 'image/jpeg', 0.9))
}
