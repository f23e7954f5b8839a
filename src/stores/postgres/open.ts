/**
 * @module The PostgreSQL backend as one unit (`DATABASE_URL`): every store on one shared database, so several
 * replicas can run. Filled in by issue #15 §3–§5; until then start-up stops with a clear message.
 */
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import { StoreConfigError } from '../errors.ts'
import type { StoreOptions } from '../open.ts'
import type { Stores } from '../types.ts'

export async function openPostgresStores(_config: GatewayConfig, _log: Logger, _options: StoreOptions = {}): Promise<Stores> {
  throw new StoreConfigError('DATABASE_URL is set, but this build has no PostgreSQL backend yet; unset DATABASE_URL to use the embedded SQLite database (GATEWAY_DB_PATH).')
}
