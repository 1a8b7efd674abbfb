/**
 * Token buckets per credential, in this process: `capacity` requests at once, refilled at `perMinute`.
 * With several API instances each enforces its own share (a shared store is the next step).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perMinute: number,
    private readonly capacity: number,
  ) {}

  /** Takes one token for `key`; when none is left, says after how many seconds one will be. */
  take(key: string, now = Date.now()): { ok: true } | { ok: false; retryAfter: number } {
    const rate = this.perMinute / 60_000 // tokens per ms
    const b = this.buckets.get(key) ?? { tokens: this.capacity, at: now }
    b.tokens = Math.min(this.capacity, b.tokens + (now - b.at) * rate)
    b.at = now
    if (this.buckets.size > 100_000) this.buckets.clear() // bounded memory under a flood of random keys
    this.buckets.set(key, b)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return { ok: true }
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)) }
  }
}
