/**
 * Everything the widget starts (listeners, timers, streams, sockets) is registered here, so that
 * destroy() can undo all of it in one place and leave nothing behind in the host page.
 */
export class Disposer {
  private readonly cleanups = new Set<() => void>()
  disposed = false

  add(fn: () => void): () => void {
    if (this.disposed) {
      safe(fn)
      return () => {}
    }
    this.cleanups.add(fn)
    return () => {
      if (this.cleanups.delete(fn)) safe(fn)
    }
  }

  listen<K extends string>(target: EventTarget, type: K, fn: (e: Event) => void, opts?: AddEventListenerOptions): () => void {
    target.addEventListener(type, fn, opts)
    return this.add(() => target.removeEventListener(type, fn, opts))
  }

  timeout(fn: () => void, ms: number): () => void {
    let remove = () => {}
    const id = setTimeout(() => {
      remove()
      fn()
    }, ms)
    remove = this.add(() => clearTimeout(id))
    return remove
  }

  interval(fn: () => void, ms: number): () => void {
    const id = setInterval(fn, ms)
    return this.add(() => clearInterval(id))
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timeout(resolve, ms))
  }

  dispose(): void {
    this.disposed = true
    const all = [...this.cleanups].reverse()
    this.cleanups.clear()
    for (const fn of all) safe(fn)
  }
}

function safe(fn: () => void): void {
  try {
    fn()
  } catch {
    /* a failing cleanup must not stop the others */
  }
}
