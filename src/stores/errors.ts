import { GatewayError } from '../errors/gateway-error.ts'

/** A configuration the stores cannot start with (e.g. a database URL given as a file path); start-up prints the message and stops. */
export class StoreConfigError extends Error {
  override name = 'StoreConfigError'
}

/**
 * The shared database cannot be reached (connection refused, dropped, timed out). Requests keep being served from
 * the snapshots; an admin call that needs the database answers 503 with this message.
 */
export class StoreUnavailableError extends GatewayError {
  constructor(backend: string, cause: unknown) {
    super({ status: 503, type: 'provider_error', code: 'store_unavailable', message: `The ${backend} database is unreachable; try again shortly (requests are still served).` })
    this.cause = cause
  }
}
