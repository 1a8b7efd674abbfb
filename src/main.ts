import { ConfigError, loadConfig } from './config.js'
import { buildApp } from './app.js'
import { createLogger } from './lib/logger.js'

async function main(): Promise<void> {
  const config = loadConfig()
  const logger = createLogger(config)
  const app = await buildApp(config, { logger })
  const url = await app.start()
  logger.info({ url, database: app.services.dbKind, role: config.ROLE }, 'service started')
  if (app.demo?.sandboxKey) {
    // printed once: only its hash is stored
    process.stdout.write(
      `\n  Demo tenant created. Its sandbox API key (shown once, keep it):\n\n    ${app.demo.sandboxKey}\n\n` +
        `  Try it:\n    curl -s -X POST ${config.PUBLIC_URL}/v1/verify/session \\\n      -H 'Authorization: Bearer ${app.demo.sandboxKey}' \\\n` +
        `      -H 'Content-Type: application/json' -d '{"country":"BR","external_id":"user-1"}'\n\n` +
        `  API reference: ${config.PUBLIC_URL}/v1/docs\n\n`,
    )
  }
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'draining and stopping')
    const force = setTimeout(() => process.exit(1), 15_000)
    force.unref()
    await app.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(e.message)
  else console.error(e)
  process.exit(1)
})
