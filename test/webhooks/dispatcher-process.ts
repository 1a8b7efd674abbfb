/**
 * A webhook dispatcher alone in its own process, on the database the environment names
 * (DATA_DIR for PGlite, DATABASE_URL for PostgreSQL): the crash test kills it with SIGKILL.
 *   node --import tsx test/webhooks/dispatcher-process.ts
 * EXIT_WHEN_DRAINED=1: exits 0 once no delivery is pending or in flight.
 */
import { startWebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js'
import { loadConfig } from '../../src/config.js'
import { openServices } from './fixtures.js'

const config = loadConfig(process.env)
const { svc, close } = await openServices(config)
const dispatcher = startWebhookDispatcher(svc)
// the loop's timers are unref'd (they never hold a server open): hold this process open ourselves
const keepAlive = setInterval(() => {}, 60_000)
process.stdout.write('ready\n')

const shutdown = async (code: number) => {
  clearInterval(keepAlive)
  await dispatcher.stop()
  await close()
  process.stdout.write(`stats ${JSON.stringify(dispatcher.stats)}\n`)
  process.exit(code)
}
process.on('SIGTERM', () => void shutdown(0))

if (process.env['EXIT_WHEN_DRAINED'] === '1') {
  for (;;) {
    await new Promise((r) => setTimeout(r, 100))
    const left = await svc.db.webhookDelivery.count({ where: { status: { in: ['pending', 'in_flight'] } } })
    if (left === 0) await shutdown(0)
  }
}
