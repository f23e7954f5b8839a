/**
 * @module Entry point (also of the compiled binary): load config, start the gateway, stop cleanly on SIGTERM.
 */
import { Gateway } from './app.ts'
import { ConfigError, loadConfig } from './config/load.ts'
import { createHttpApp } from './http/server.ts'
import { createLogger } from './log/logger.ts'
import { StoreConfigError } from './stores/open.ts'

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

let config
try {
  config = loadConfig()
} catch (error) {
  if (error instanceof ConfigError) fail(error.message)
  throw error
}

const log = createLogger(config.logging.level)
if (!config.master_key) {
  log.warn(
    'GATEWAY_MASTER_KEY is not set: the admin API (/admin) is CLOSED, and /v1 is OPEN to anyone who can reach this port unless managed API keys exist in the database. Set GATEWAY_MASTER_KEY before exposing the gateway.',
  )
}
if (Object.keys(config.providers).length === 0) log.warn('No provider is configured; set e.g. OPENAI_API_KEY (see README).')

let gateway: Gateway
try {
  gateway = await Gateway.open({ config, log, writeThreadUrl: new URL('./stores/sqlite/write-thread-worker.ts', import.meta.url).href })
} catch (error) {
  if (error instanceof StoreConfigError) fail(error.message)
  throw error
}
try {
  await gateway.init()
} catch (error) {
  fail(`Invalid workflow configuration: ${(error as Error).message}`)
}
const app = createHttpApp(gateway)
app.listen({ hostname: config.server.host, port: config.server.port })
const port = app.server?.port
log.info({ host: config.server.host, port, providers: Object.keys(config.providers) }, 'gateway listening')
void gateway.start()

let stopping = false
async function stop(signal: string) {
  if (stopping) return
  stopping = true
  log.info({ signal }, 'shutting down: finishing in-flight requests')
  await app.server?.stop(false)
  await gateway.shutdown()
  log.info('stopped')
  log.flush()
  process.exit(0)
}
process.on('SIGTERM', () => void stop('SIGTERM'))
process.on('SIGINT', () => void stop('SIGINT'))
