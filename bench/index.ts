/**
 * npm run bench: every benchmark, one after the other, each in its own process so none disturbs
 * the next. BENCH_ONLY=rest,graphql picks some; DATABASE_URL adds the PostgreSQL runs; each bench
 * file documents its own settings (BENCH_SECONDS, BENCH_FANOUT, …).
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const all: Array<[name: string, file: string, what: string]> = [
  ['rest', 'rest.ts', 'POST /v1/verify/session vs bare node:http (issue: foundation)'],
  ['graphql', 'graphql.ts', 'verification(id) vs bare Yoga; subscription fan-out (issue: GraphQL)'],
  ['webhooks', 'webhooks.ts', 'deliveries/s and retry lateness (issue: webhooks)'],
  ['analysis', 'analysis.ts', 'decode, detection, embedding, OCR, MRZ, KYC and Auth analyses (issue: analysis engine)'],
  ['face-eer', 'face-eer.ts', 'equal error rate of the face models on ../shared/data/faces'],
  ['widget', 'widget.ts', 'widget.js size, init() to first screen, capture end to onSuccess (issue: widget)'],
]
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const chosen = all.filter(([name]) => !only || only.includes(name))

console.log(`benchmarks on ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}${process.env.DATABASE_URL ? ', with PostgreSQL' : ' (set DATABASE_URL for PostgreSQL too)'}`)
let failed = 0
for (const [name, file, what] of chosen) {
  console.log(`\n=== ${name}: ${what}`)
  const t0 = Date.now()
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, file)], { stdio: 'inherit', env: process.env })
  if (r.status !== 0) {
    failed++
    console.log(`=== ${name} FAILED (exit ${r.status})`)
  } else console.log(`=== ${name} done in ${Math.round((Date.now() - t0) / 1000)} s`)
}
process.exit(failed ? 1 : 0)
