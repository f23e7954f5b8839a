/**
 * @module Entry point (also of the compiled binary): load config, start the gateway, stop cleanly on SIGTERM.
 * `gateway healthcheck` instead probes a running gateway's /health (for container HEALTHCHECKs).
 * `gateway copy-sqlite-to-postgres` copies an embedded database into PostgreSQL (src/cli/copy-sqlite-to-postgres.ts).
 */
import type { Gateway } from './app.ts'
import { COPY_COMMAND, runCopyCommand } from './cli/copy-sqlite-to-postgres.ts'
import { ConfigError, loadConfig } from './config/load.ts'
import { openModeRefusal } from './config/open-mode.ts'
import { gatewayErrors } from './errors/gateway-error.ts'
import { announce, createLogger, flushLog, stdoutDestination } from './log/logger.ts'
import { TracingConfigError, tracingSettingsFromEnv } from './observability/tracing-config.ts'
import { healthcheck } from './healthcheck.ts'
import { WorkerCountError, workerCount } from './workers/count.ts'
import { connectToPrimary } from './workers/link.ts'
import { runPrimary } from './workers/primary.ts'
import { workerIndex } from './workers/protocol.ts'
import { setCountThreadUrl } from './tokens/count-thread.ts'

if (process.argv[2] === 'healthcheck') await healthcheck()

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

if (process.argv[2] === COPY_COMMAND) process.exit(await runCopyCommand(process.argv.slice(3), config))

const openRefusal = openModeRefusal(config)
if (openRefusal) fail(openRefusal)

let tracing
try {
  tracing = tracingSettingsFromEnv(process.env)
} catch (error) {
  if (error instanceof TracingConfigError) fail(error.message)
  throw error
}

const log = createLogger(config.logging.level, stdoutDestination(config.logging.format))
const writeThreadUrl = new URL('./stores/write-thread-worker.ts', import.meta.url).href
setCountThreadUrl(new URL('./tokens/count-thread-worker.ts', import.meta.url).href)

// GATEWAY_WORKERS=N: this process becomes the primary (src/workers/primary.ts) and runs the same program N times.
let workers = 1
try {
  workers = workerCount(process.env.GATEWAY_WORKERS)
} catch (error) {
  if (error instanceof WorkerCountError) fail(error.message)
  throw error
}
const worker = workerIndex()
if (workers > 1 && worker === undefined) {
  if (config.server.port === 0) fail('GATEWAY_WORKERS needs a fixed PORT: with port 0 every worker would listen on a different port.')
  try {
    await runPrimary({ config, log, workers, writeThreadUrl })
  } catch (error) {
    fail(`Cannot start the workers: ${(error as Error).message}`)
  }
}
if (!config.master_key) {
  log.warn(
    { allow_open: true },
    'GATEWAY_MASTER_KEY is not set and GATEWAY_ALLOW_OPEN=true: /v1 is OPEN to anyone who can reach this port while no managed API key exists in the database, and the admin API (/admin) is CLOSED.',
  )
} else if (config.auth.allow_open) {
  log.warn('GATEWAY_ALLOW_OPEN has no effect: GATEWAY_MASTER_KEY is set, so every /v1 request needs a key.')
}
if (Object.keys(config.providers).length === 0) log.warn('No provider is configured; set e.g. OPENAI_API_KEY (see README).')

// Imported only here, past the primary's branch: the primary of GATEWAY_WORKERS serves no HTTP and never needs
// the HTTP shell, the plugins or the pipeline (tens of MiB resident otherwise).
const [{ Gateway: GatewayClass }, { createHttpApp }, { StoreConfigError }] = await Promise.all([import('./app.ts'), import('./http/server.ts'), import('./stores/open.ts')])
let gateway: Gateway
try {
  gateway = await GatewayClass.open({ config, log, tracing, writeThreadUrl, primary: worker === undefined ? undefined : connectToPrimary() })
} catch (error) {
  if (error instanceof StoreConfigError) fail(error.message)
  throw error
}
try {
  await gateway.init()
} catch (error) {
  fail(`Invalid workflow configuration: ${(error as Error).message}`)
}
const app = createHttpApp(gateway, { reusePort: worker !== undefined })
app.listen({ hostname: config.server.host, port: config.server.port })
const port = app.server?.port
const shownHost = ['0.0.0.0', '::', ''].includes(config.server.host) ? 'localhost' : config.server.host
const baseUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`
announce(
  log,
  {
    host: config.server.host,
    port,
    url: baseUrl,
    dashboard: `${baseUrl}/dashboard`,
    providers: Object.fromEntries(Object.entries(config.providers).map(([name, p]) => [name, p.type])),
    metrics: config.metrics.enabled ? (config.metrics.public ? 'public' : 'admin credential') : 'off',
    tracing: tracing ? tracing.url : 'off',
  },
  `gateway listening on ${baseUrl} (dashboard ${baseUrl}/dashboard)`,
)
void gateway.start().then(
  () => {
    const sources = gateway.catalog.listSources()
    const notFetched = Object.keys(sources).filter((p) => sources[p] !== 'upstream')
    const fields = { fetched: Object.keys(sources).filter((p) => sources[p] === 'upstream'), not_fetched: notFetched, models: gateway.catalog.list().length }
    if (notFetched.length > 0) log.warn(fields, `model lists loaded; could not fetch: ${notFetched.join(', ')} (their static lists are used)`)
    else announce(log, fields, 'model lists loaded')
  },
  (err) => log.error({ err }, 'start-up failed'),
)

const drainSeconds = config.server.drain_timeout_seconds
let stopping = false
async function stop(signal: string) {
  if (stopping) return
  stopping = true
  // In-flight requests and then the audit and usage writers share the drain timeout; what the writers cannot
  // store by then is spilled and stored at the next start.
  const stopBy = Date.now() + drainSeconds * 1000
  announce(log, { signal, drain_timeout_seconds: drainSeconds }, 'shutting down: finishing in-flight requests')
  // Requests still running at the drain deadline end with a 503 (streams with their error frame) and are audited
  // like any other; the queues are flushed below. A hung upstream cannot hold the process past the grace period.
  const deadline = setTimeout(() => {
    log.warn('drain deadline reached: ending the requests still running')
    gateway.endRequests.abort(gatewayErrors.shuttingDown())
    setTimeout(() => void app.server?.stop(true), 2000).unref()
  }, drainSeconds * 1000)
  await app.server?.stop(false)
  clearTimeout(deadline)
  await gateway.shutdown(stopBy)
  log.info('stopped')
  flushLog(log)
  process.exit(0)
}
process.on('SIGTERM', () => void stop('SIGTERM'))
process.on('SIGINT', () => void stop('SIGINT'))
