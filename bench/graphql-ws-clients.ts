/**
 * Child process of bench/graphql.ts: N graphql-ws clients (one WebSocket each) subscribed to
 * verificationEvents with one API key. Protocol over IPC:
 *   → {connect:true}        ← {connected:N, failed}
 *   → {await:sessionId}     ← {latencies:[ms…]} (receipt time of that session's 'created' event
 *                             by every client, from the moment the parent says it sent the change)
 * The parent sends {t0} right before it makes the change; clock differences do not matter as both
 * times are read here.
 */
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'

const [url = '', key = '', nArg = '0'] = process.argv.slice(2)
const n = Number(nArg)
const clients: Client[] = []
const seen = new Map<string, number[]>() // sessionId → receipt times
let t0 = 0
let probe: ((id: string) => void) | null = null

async function connectAll(): Promise<{ connected: number; failed: number }> {
  let failed = 0
  const batch = 200
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => {
        const c = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0, keepAlive: 0 })
        clients.push(c)
        return new Promise<void>((resolve) => {
          let first = true
          c.subscribe<{ verificationEvents: { sessionId: string; status: string } }>(
            { query: 'subscription { verificationEvents { sessionId status } }' },
            {
              next: (r) => {
                const at = performance.now()
                const e = r.data?.verificationEvents
                if (!e) return
                const list = seen.get(e.sessionId) ?? []
                list.push(at)
                seen.set(e.sessionId, list)
                probe?.(e.sessionId)
                if (first) {
                  first = false
                }
              },
              error: () => {
                failed++
                resolve()
              },
              complete: () => resolve(),
            },
          )
          c.on('connected', () => resolve())
        })
      }),
    )
  }
  return { connected: clients.length - failed, failed }
}

process.on('message', async (msg: { connect?: boolean; t0?: boolean; await?: string; count?: string; exit?: boolean }) => {
  if (msg.connect) process.send!(await connectAll())
  if (msg.t0) t0 = performance.now()
  if (msg.count) process.send!({ count: seen.get(msg.count)?.length ?? 0 })
  if (msg.await) {
    const id = msg.await
    while ((seen.get(id)?.length ?? 0) < clients.length) await new Promise((r) => setTimeout(r, 5))
    process.send!({ latencies: seen.get(id)!.map((x) => x - t0) })
  }
  if (msg.exit) {
    await Promise.all(clients.map((c) => c.dispose()))
    process.exit(0)
  }
})
process.send!({ ready: true })
