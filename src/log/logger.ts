/**
 * @module The root pino logger. JSON to stdout through an in-process async destination (pino transports run in
 * worker threads and break inside `bun build --compile`), or human-readable lines through pino-pretty (also in
 * process) when stdout is a terminal. Request-path lines are buffered (4 KiB) to keep writes off the hot path;
 * warnings, errors and the lifecycle lines written with `announce` are flushed at once. Credentials are redacted
 * by path; prompt and completion bodies are never logged: the audit log is their system of record.
 */
import pino, { type Logger } from 'pino'

export type { Logger }

export type LogFormat = 'auto' | 'json' | 'pretty'

const REDACT_PATHS = [
  'config.master_key',
  'config.providers.*.api_key',
  'config.providers.*.aws.secret_access_key',
  'config.providers.*.aws.session_token',
  'config.providers.*.entra.client_secret',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  '*.apiKey',
  '*.api_key',
  '*.secretAccessKey',
  '*.sessionToken',
  '*.clientSecret',
]

/** pino's numeric level of `warn`: lines at this level or above are flushed as they are written. */
const FLUSH_FROM_LEVEL = 40

/** Where a logger of this format writes: pretty (synchronous, for people) or buffered JSON. */
export function stdoutDestination(format: LogFormat = 'auto'): pino.DestinationStream {
  const wantsPretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true)
  // Loaded only when chosen: pino-pretty and its dependencies cost about 3 MiB resident in a JSON-logging server.
  if (wantsPretty) {
    const pretty = require('pino-pretty') as typeof import('pino-pretty').PinoPretty
    return pretty({ destination: 1, sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', singleLine: true })
  }
  return pino.destination({ dest: 1, sync: false, minLength: 4096 })
}

export function createLogger(level: string, destination: pino.DestinationStream = stdoutDestination()): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args as Parameters<typeof method>)
          if (levelValue >= FLUSH_FROM_LEVEL) flushNow(destination)
        },
      },
    },
    destination,
  )
}

/** A lifecycle line (listening, shutting down, stopped): written and flushed at once, whatever its level. */
export function announce(log: Logger, fields: Record<string, unknown>, message: string): void {
  log.info(fields, message)
  flushLog(log)
}

/** Writes out what the logger buffered, synchronously (before `process.exit`, after a lifecycle line). */
export function flushLog(log: Logger): void {
  flushNow((log as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym])
}

function flushNow(destination: pino.DestinationStream | undefined): void {
  // SonicBoom throws when flushed before its file descriptor is open; the line is then written on open anyway.
  try {
    ;(destination as { flushSync?: () => void } | undefined)?.flushSync?.()
  } catch {}
}

/** A logger that discards everything; for unit tests. */
export const silentLogger: Logger = pino({ level: 'silent' })
