/**
 * Bundles the widget into one minified IIFE (`widget/dist/widget.js`, global `ServiceSec`).
 * `npx tsx widget/build.ts` builds and prints the sizes; the server calls buildWidget() on demand
 * when dist is missing or older than the sources (a fresh clone works without a build step).
 */
import { readdirSync, statSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const here = path.dirname(fileURLToPath(import.meta.url))
export const WIDGET_SRC = path.join(here, 'src')
export const WIDGET_OUT = path.join(here, 'dist', 'widget.js')
/** the typed document the widget subscribes with (codegen output) */
const GENERATED = path.join(here, '..', 'src', 'graphql', 'generated', 'graphql.ts')

export interface BuiltWidget {
  file: string
  bytes: number
  gzipBytes: number
}

/** Newest modification time of everything the bundle is made of. */
export function widgetSourcesMtime(): number {
  let newest = 0
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else newest = Math.max(newest, statSync(p).mtimeMs)
    }
  }
  walk(WIDGET_SRC)
  for (const f of [GENERATED, fileURLToPath(import.meta.url)]) {
    try {
      newest = Math.max(newest, statSync(f).mtimeMs)
    } catch {
      /* optional */
    }
  }
  return newest
}

export function widgetIsStale(): boolean {
  try {
    return statSync(WIDGET_OUT).mtimeMs < widgetSourcesMtime()
  } catch {
    return true
  }
}

export async function buildWidget(opts: { minify?: boolean } = {}): Promise<BuiltWidget> {
  const esbuild = await import('esbuild')
  const { print } = await import('graphql')
  const { SessionStatusDocument } = await import('../src/graphql/generated/graphql.js')
  const pkg = JSON.parse(await readFile(path.join(here, '..', 'package.json'), 'utf8')) as { version: string }
  const result = await esbuild.build({
    entryPoints: [path.join(WIDGET_SRC, 'index.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'ServiceSec',
    platform: 'browser',
    target: ['es2020'],
    minify: opts.minify ?? true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    // graphql-ws ships a browser build through its "browser" export
    mainFields: ['browser', 'module', 'main'],
    define: {
      __SESSION_STATUS_QUERY__: JSON.stringify(print(SessionStatusDocument).replace(/\s+/g, ' ')),
      __WIDGET_VERSION__: JSON.stringify(pkg.version),
    },
  })
  const code = result.outputFiles[0]!.contents
  await mkdir(path.dirname(WIDGET_OUT), { recursive: true })
  // write to a temporary name first so a concurrent reader never sees half a file
  const tmp = `${WIDGET_OUT}.${process.pid}.tmp`
  await writeFile(tmp, code)
  const { rename } = await import('node:fs/promises')
  await rename(tmp, WIDGET_OUT)
  return { file: WIDGET_OUT, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const b = await buildWidget()
  console.log(`${path.relative(process.cwd(), b.file)}: ${(b.bytes / 1024).toFixed(1)} KiB, ${(b.gzipBytes / 1024).toFixed(1)} KiB gzipped`)
}
