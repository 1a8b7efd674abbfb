import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  path: string
  headers: IncomingMessage['headers']
  /** the exact bytes received */
  raw: Buffer
  /** Date.now() when the request arrived */
  at: number
}

export type Handler = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => void

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** receipts for one path */
  at(path: string): Received[]
  close(): Promise<void>
}

/** A local webhook receiver on 127.0.0.1:0 recording every request's exact bytes; answers 200 unless `handler` says otherwise. */
export async function startReceiver(handler?: Handler): Promise<Receiver> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const at = Date.now()
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      received.push({ path: req.url ?? '', headers: req.headers, raw, at })
      if (handler) handler(req, res, raw)
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    at: (p) => received.filter((r) => r.path === p),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  }
}

/** Polls `cond` until it holds; fails with `what` after `ms` (a generous bound, not a timing assertion). */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
