import type { Client } from 'graphql-ws'

export const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws') + '/graphql'

type Ev = Record<string, unknown>

/** One subscription on a graphql-ws client, with its events queued for `next()`. */
export class Stream {
  readonly received: Ev[] = []
  private waiters: ((e: Ev) => void)[] = []
  private errorP: Promise<unknown[]>
  private unsubscribe: () => void
  private cursor = 0

  constructor(client: Client, query: string, variables?: Record<string, unknown>) {
    let fail!: (e: unknown[]) => void
    this.errorP = new Promise((r) => (fail = r))
    this.unsubscribe = client.subscribe<Record<string, Ev>>(
      { query, ...(variables ? { variables } : {}) },
      {
        next: (r) => {
          if (r.errors) return fail(r.errors as unknown[])
          const e = Object.values(r.data ?? {})[0]!
          this.received.push(e)
          const ws = this.waiters
          this.waiters = []
          for (const w of ws) w(e)
        },
        error: (e) => fail(Array.isArray(e) ? e : [e]),
        complete: () => {},
      },
    )
  }

  /** The next event not yet taken. */
  async next(): Promise<Ev> {
    while (this.cursor >= this.received.length)
      await Promise.race([new Promise<Ev>((r) => this.waiters.push(r)), this.errorP.then((x) => Promise.reject(new Error(JSON.stringify(x))))])
    return this.received[this.cursor++]!
  }

  async take(n: number): Promise<Ev[]> {
    const out: Ev[] = []
    while (out.length < n) out.push(await this.next())
    return out
  }

  error(): Promise<unknown[]> {
    return this.errorP
  }

  stop(): void {
    this.unsubscribe()
  }

  /**
   * Repeats `act` until an event it caused arrives: the subscription is then live. (A subscription
   * starts listening a moment after the client sends it; graphql-ws has no acknowledgement.)
   */
  async untilLive<T>(act: () => Promise<T>): Promise<{ value: T; event: Ev }> {
    for (;;) {
      const before = this.received.length
      const value = await act()
      const e = await Promise.race([this.nextAfter(before), new Promise<null>((r) => setTimeout(() => r(null), 200))])
      if (e) {
        this.cursor = this.received.length
        return { value, event: e }
      }
    }
  }

  private async nextAfter(i: number): Promise<Ev> {
    while (this.received.length <= i) await new Promise<Ev>((r) => this.waiters.push(r))
    return this.received[i]!
  }

  /** Subscribes and resolves with the close event the server refused the connection with. */
  static refusal(client: Client, query: string): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) => {
      client.on('closed', (e) => {
        const c = e as { code: number; reason: string }
        resolve({ code: c.code, reason: c.reason })
      })
      client.subscribe({ query }, { next: () => {}, error: () => {}, complete: () => {} })
    })
  }
}
