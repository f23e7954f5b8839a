/**
 * @module The root pino logger. JSON to stdout through an in-process async destination (pino transports run in
 * worker threads and break inside `bun build --compile`). Credentials are redacted by path; prompt and completion
 * bodies are never logged: the audit log is their system of record.
 */
import pino, { type Logger } from 'pino'

export type { Logger }

const REDACT_PATHS = [
  'config.master_key',
  'config.providers.*.api_key',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  '*.apiKey',
  '*.api_key',
]

export function createLogger(level: string, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false, minLength: 4096 })): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    },
    destination,
  )
}

/** A logger that discards everything; for unit tests. */
export const silentLogger: Logger = pino({ level: 'silent' })
