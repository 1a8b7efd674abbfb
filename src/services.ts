import type { Config } from './config.js'
import type { Db, DbKind } from './db.js'
import type { Cipher } from './lib/crypto.js'
import type { Logger } from './lib/logger.js'
import type { AppPubSub } from './lib/pubsub.js'

/**
 * What every feature module receives: built once in buildApp() and passed down explicitly,
 * so tests can build their own (another database, a fixed clock).
 */
export interface Services {
  config: Config
  db: Db
  dbKind: DbKind
  logger: Logger
  cipher: Cipher
  pubsub: AppPubSub
  now(): Date
}
