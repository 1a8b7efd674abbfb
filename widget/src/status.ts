import { createClient, type Client } from 'graphql-ws'
import type { SessionStatusSubscription } from '../../src/graphql/generated/graphql.js'
import type { Api } from './api.js'
import type { Disposer } from './disposer.js'
import { WidgetError } from './errors.js'

/**
 * The typed `SessionStatus` subscription document of codegen (src/graphql/documents/subscriptions.graphql),
 * printed at build time by widget/build.ts so that the bundle carries no GraphQL printer.
 */
declare const __SESSION_STATUS_QUERY__: string

export interface StatusUpdate {
  status: string
  verificationId: string | null
  authAttemptId: string | null
  via: 'subscription' | 'polling'
}

const FINAL = new Set(['approved', 'rejected', 'manual_review', 'webhook_failed', 'authenticated', 'expired'])
export const isFinal = (status: string) => FINAL.has(status)

/**
 * Follows one session's status: the graphql-ws subscription is opened as soon as the widget starts
 * (so that no change made later is missed), and the token-only status endpoint is polled when the
 * socket is unavailable or stays silent after submission.
 */
export class StatusFollower {
  private client: Client | null = null
  private latest: StatusUpdate | null = null
  private waiters = new Set<(u: StatusUpdate) => void>()
  private subscriptionFailed = false
  /** every status seen, in order, with its source (for diagnostics and tests) */
  readonly seen: StatusUpdate[] = []

  constructor(
    private readonly api: Api,
    private readonly token: string,
    private readonly life: Disposer,
  ) {}

  start(): void {
    try {
      const url = this.api.base.replace(/^http/, 'ws') + '/graphql'
      this.client = createClient({ url, connectionParams: { sessionToken: this.token }, lazy: false, retryAttempts: 3, shouldRetry: () => true })
      this.life.add(() => void this.client?.dispose())
      const unsubscribe = this.client.subscribe<SessionStatusSubscription>(
        { query: __SESSION_STATUS_QUERY__, variables: {} },
        {
          next: (r) => {
            const e = r.data?.sessionStatus
            if (e) this.push({ status: e.status, verificationId: e.verificationId ?? null, authAttemptId: e.authAttemptId ?? null, via: 'subscription' })
          },
          error: () => (this.subscriptionFailed = true),
          complete: () => {},
        },
      )
      this.life.add(unsubscribe)
    } catch {
      this.subscriptionFailed = true
    }
  }

  private push(u: StatusUpdate): void {
    this.seen.push(u)
    if (!isFinal(u.status)) return
    this.latest ??= u
    for (const w of this.waiters) w(u)
    this.waiters.clear()
  }

  private async poll(): Promise<void> {
    try {
      const s = await this.api.status()
      this.push({ status: s.status, verificationId: s.verification_id ?? null, authAttemptId: s.auth_id ?? null, via: 'polling' })
    } catch {
      /* the next poll may succeed; the overall timeout decides */
    }
  }

  /**
   * The first final status. Polling starts at once when the subscription failed, otherwise only
   * after `graceMs` of silence (an event published before the subscription was active is not lost).
   */
  waitForFinal(timeoutMs: number, graceMs = 4000, pollMs = 2500): Promise<StatusUpdate> {
    if (this.latest) return Promise.resolve(this.latest)
    return new Promise((resolve, reject) => {
      const stops: Array<() => void> = []
      const finish = (u: StatusUpdate) => {
        stops.forEach((s) => s())
        resolve(u)
      }
      this.waiters.add(finish)
      stops.push(() => this.waiters.delete(finish))
      const startPolling = () => {
        void this.poll()
        stops.push(this.life.interval(() => void this.poll(), pollMs))
      }
      if (this.subscriptionFailed) startPolling()
      else stops.push(this.life.timeout(startPolling, graceMs))
      stops.push(
        this.life.timeout(() => {
          stops.forEach((s) => s())
          reject(new WidgetError('STATUS_TIMEOUT', `no result from the server after ${Math.round(timeoutMs / 1000)} s`))
        }, timeoutMs),
      )
    })
  }
}
