import type { Logger } from './logger.js'

export interface Loop {
  /** run now (tests, or after an event that makes work due) */
  kick(): void
  stop(): Promise<void>
}

/**
 * Runs `fn` every `intervalMs` (never two runs at once); `fn` returning true means "more work is
 * waiting", so it runs again at once. Errors are logged and the loop goes on.
 */
export function startLoop(name: string, intervalMs: number, fn: () => Promise<boolean | number | void>, logger: Logger): Loop {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  let again = false

  const schedule = (ms: number) => {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(run, ms)
    timer.unref?.()
  }
  const run = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      let more = false
      try {
        const r = await fn()
        more = r === true || (typeof r === 'number' && r > 0)
      } catch (err) {
        logger.error({ err, loop: name }, 'background loop failed')
      } finally {
        running = undefined
      }
      const now = more || again
      again = false
      schedule(now ? 0 : intervalMs)
    })()
  }
  schedule(0)
  return {
    kick: () => schedule(0),
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
