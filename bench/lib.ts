import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export const here = path.dirname(fileURLToPath(import.meta.url))

/** Starts a bench child process (run through tsx) and waits for its one-line JSON readiness message. */
export async function startChild<T>(script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<{ child: ChildProcess; info: T }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const rl = createInterface({ input: child.stdout! })
  const info = await new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    rl.once('line', (line) => resolve(JSON.parse(line) as T))
  })
  return { child, info }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
  })
}

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
}

export async function load(opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: 50, duration: 10, ...opts })
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }
}

export const fmt = (n: number, d = 1) => n.toFixed(d)
