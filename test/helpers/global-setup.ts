import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import type { TestProject } from 'vitest/node'

/** Migrations run in a child process: the wasm schema engine misbehaves inside vitest's module runner. */
function migrate(env: Record<string, string>): void {
  execFileSync(process.execPath, ['--import', 'tsx', 'prisma/migrate.ts', 'deploy'], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

/**
 * Migrates one template database per run (a PGlite directory, and a PostgreSQL database when
 * DATABASE_URL is set); each test file then starts from a copy, which is much faster than
 * applying the migrations again.
 */
export default async function setup(project: TestProject) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-test-'))
  // names every PostgreSQL database of this run, so teardown drops exactly those (test files run in other processes)
  const runId = `${process.pid}_${Date.now()}`
  project.provide('runId', runId)
  const pgliteTemplate = path.join(root, 'template')
  migrate({ DATA_DIR: pgliteTemplate, DATABASE_URL: '' })
  project.provide('pgliteTemplate', pgliteTemplate)
  project.provide('testRoot', root)

  let pgTemplate = ''
  let admin: import('pg').Client | undefined
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    pgTemplate = `svc_tpl_${runId}`
    await admin.query(`CREATE DATABASE "${pgTemplate}"`)
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${pgTemplate}`
    migrate({ DATABASE_URL: url.toString(), DATA_DIR: root })
  }
  project.provide('pgTemplate', pgTemplate)

  return async () => {
    await rm(root, { recursive: true, force: true })
    if (admin) {
      const left = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`svc_t_${runId}_%`])
      for (const { datname } of left.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {})
      await admin.query(`DROP DATABASE IF EXISTS "${pgTemplate}" WITH (FORCE)`).catch(() => {})
      await admin.end()
    }
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string
    pgTemplate: string
    testRoot: string
    runId: string
  }
}
