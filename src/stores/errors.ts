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

/**
 * Whether a failed write may succeed later unchanged: a full or failing disk, a busy or locked database, an
 * unreachable server. The one place the audit and usage writers ask before giving up on an entry: a transient
 * error keeps the entry queued (or spilled, or held in memory) and retried with backoff; anything else is the
 * entry's own fault and only then may it be dead-lettered.
 */
export function isTransientWriteError(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true
  const e = err as { code?: unknown; errno?: unknown; message?: unknown } | null
  const text = `${String(e?.code ?? '')} ${String(e?.errno ?? '')} ${String(e?.message ?? err)}`
  return TRANSIENT.test(text)
}

const TRANSIENT = new RegExp(
  [
    // The file system: full, over quota, failing, read-only for now, out of descriptors.
    'ENOSPC',
    'EDQUOT',
    'EIO',
    'EROFS',
    'EMFILE',
    'ENFILE',
    'EAGAIN',
    'EBUSY',
    'no space left',
    'disk quota',
    'i/o error',
    // SQLite (codes and their messages): full, I/O, busy, locked, cannot open.
    'SQLITE_(FULL|IOERR|BUSY|LOCKED|CANTOPEN|PROTOCOL|NOMEM)',
    'database or disk is full',
    'database (table )?is locked',
    'unable to open database',
    // PostgreSQL and the network: refused, reset, closed, timed out, shutting down; SQLSTATE classes 08 (connection),
    // 53 (insufficient resources: disk full, out of memory, too many connections), 57P (shutdown), 40001/40P01.
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'ERR_POSTGRES_CONNECTION',
    'ERR_POSTGRES_(IDLE|CONNECTION)_TIMEOUT',
    'connection (closed|refused|terminated|reset)',
    '\\b08[0-9A-Z]{3}\\b',
    '\\b53[0-9A-Z]{3}\\b',
    '\\b57P0[1-4]\\b',
    '\\b40001\\b',
    '\\b40P01\\b',
    'timed? ?out',
    'write thread unavailable',
  ].join('|'),
  'i',
)
