import { WidgetError } from './errors.js'
import { Widget, type InitOptions } from './widget.js'

/**
 * The global `ServiceSec` (esbuild IIFE). Public calls never throw into the host page: problems go
 * to onError (or to the console when there is no onError to call).
 */
declare const __WIDGET_VERSION__: string

// the API defaults to the server that served this script (captured while the script runs)
const scriptOrigin = (() => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src
    return src ? new URL(src).origin : location.origin
  } catch {
    return ''
  }
})()

let current: Widget | null = null

export const version = __WIDGET_VERSION__

export function init(options: InitOptions): void {
  try {
    destroy()
    const o = (options ?? {}) as Partial<InitOptions>
    const missing = (['sessionToken', 'onSuccess', 'onCancel', 'onError'] as const).filter((k) => !o[k] || (k !== 'sessionToken' && typeof o[k] !== 'function'))
    if (missing.length) throw new WidgetError('WIDGET_ERROR', `ServiceSec.init: missing or invalid option(s): ${missing.join(', ')}`)
    if (typeof o.sessionToken !== 'string' || !/^[0-9a-f]{64}$/.test(o.sessionToken)) throw new WidgetError('SESSION_EXPIRED', 'ServiceSec.init: sessionToken must be the 64-character token of a session')
    const w: Widget = new Widget(options, scriptOrigin || location.origin, () => {
      if (current === w) current = null
      w.destroy()
    })
    current = w
    w.start()
  } catch (e) {
    const err = e instanceof WidgetError ? e : new WidgetError('WIDGET_ERROR', e instanceof Error ? e.message : String(e))
    destroy()
    if (typeof options?.onError === 'function') {
      try {
        options.onError({ code: err.code, message: err.message })
      } catch (cbErr) {
        console.error('[ServiceSec] onError threw', cbErr)
      }
    } else console.error(`[ServiceSec] ${err.code}: ${err.message}`)
  }
}

/** Closes the widget: stops the camera, removes every node, listener, timer and connection it added. */
export function destroy(): void {
  const w = current
  current = null
  try {
    w?.destroy()
  } catch (e) {
    console.error('[ServiceSec] destroy failed', e)
  }
}
