import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import path from 'node:path'
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'
import { readdir } from 'node:fs/promises'
import { applyMigrations, MIGRATIONS_DIR } from '../prisma/migrate.js'
import type { Config } from './config.js'
import { PrismaClient } from './generated/prisma/client.js'

export type Db = PrismaClient
export type DbKind = 'pglite' | 'postgres'

export interface Database {
  prisma: PrismaClient
  kind: DbKind
  appliedMigrations: string[]
  close(): Promise<void>
}

export interface OpenOptions {
  migrate?: boolean
  /** log every SQL query to this callback (query-count tests) */
  onQuery?: (sql: string) => void
}

/**
 * @prisma/adapter-pg cannot read Postgres type "char" (OID 18), which the schema engine's catalog
 * queries return: report such columns as text. Harmless for the application, which has no "char" column.
 */
let charPatched = false
async function patchPgCharType(): Promise<void> {
  if (charPatched) return
  const { default: pg } = await import('pg')
  const proto = (pg as unknown as { Result: { prototype: { addFields(f: { dataTypeID: number }[]): void } } }).Result.prototype
  const orig = proto.addFields
  proto.addFields = function (fields) {
    for (const f of fields) if (f.dataTypeID === 18) f.dataTypeID = 25
    return orig.call(this, fields)
  }
  charPatched = true
}

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it.
 * A pid lock file refuses that with a clear message (a stale lock of a dead process is taken over).
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true })
  const lockPath = path.join(dir, 'service.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(lockPath, { force: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const pid = Number(readFileSync(lockPath, 'utf8').trim())
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `the embedded database in ${dir} is in use by process ${pid}. ` +
            'Stop that process first, or point DATA_DIR elsewhere, or use DATABASE_URL (PostgreSQL) for several processes.',
        )
      }
      rmSync(lockPath, { force: true })
    }
  }
  throw new Error(`could not lock ${dir}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * True when every migration folder is recorded as applied: then the (slow to load) wasm schema
 * engine is not needed at all, which keeps starts and CLI calls fast.
 */
async function migrationsPending(prisma: PrismaClient): Promise<boolean> {
  const wanted = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name)
  try {
    const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`
    const done = new Set(rows.map((r) => r.migration_name))
    return wanted.some((w) => !done.has(w))
  } catch {
    return true // no migrations table yet
  }
}

export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Database> {
  const log = opts.onQuery ? [{ emit: 'event' as const, level: 'query' as const }] : []
  if (config.DATABASE_URL) {
    await patchPgCharType()
    const { PrismaPg } = await import('@prisma/adapter-pg')
    const url = new URL(config.DATABASE_URL)
    const factory = new PrismaPg({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username) || undefined,
      password: decodeURIComponent(url.password) || undefined,
      database: url.pathname.slice(1) || 'postgres',
      max: config.DATABASE_POOL_SIZE,
    })
    const prisma = new PrismaClient({ adapter: factory, log })
    const applied =
      opts.migrate === false || !(await migrationsPending(prisma)) ? [] : await applyMigrations(factory as unknown as SqlMigrationAwareDriverAdapterFactory)
    if (opts.onQuery) prisma.$on('query' as never, (e: { query: string }) => opts.onQuery?.(e.query))
    return { prisma, kind: 'postgres', appliedMigrations: applied, close: () => prisma.$disconnect() }
  }

  const dir = path.join(config.DATA_DIR, 'pglite')
  const unlock = lockDataDir(config.DATA_DIR)
  try {
    const { PGlite } = await import('@electric-sql/pglite')
    const { PrismaPGlite } = await import('pglite-prisma-adapter')
    const fresh = !existsSync(dir)
    const pglite = await PGlite.create(dir)
    const factory = new PrismaPGlite(pglite)
    const prisma = new PrismaClient({ adapter: factory, log })
    let applied: string[] = []
    try {
      if ((opts.migrate !== false || fresh) && (await migrationsPending(prisma)))
        applied = await applyMigrations(factory as unknown as SqlMigrationAwareDriverAdapterFactory)
    } catch (e) {
      await pglite.close()
      throw e
    }
    if (opts.onQuery) prisma.$on('query' as never, (e: { query: string }) => opts.onQuery?.(e.query))
    return {
      prisma,
      kind: 'pglite',
      appliedMigrations: applied,
      async close() {
        await prisma.$disconnect()
        // $disconnect does not close PGlite; without this the process lingers
        await pglite.close()
        unlock()
      },
    }
  } catch (e) {
    unlock()
    throw e
  }
}
