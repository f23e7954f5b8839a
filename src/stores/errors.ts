/** A configuration the stores cannot start with (e.g. a database URL given as a file path); start-up prints the message and stops. */
export class StoreConfigError extends Error {
  override name = 'StoreConfigError'
}
