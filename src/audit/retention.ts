/**
 * @module Audit retention (LOGGING_RETENTION_DAYS; 0 keeps everything): entries older than the window are
 * deleted by the stores' retention job (src/stores/retention.ts), under the lease `audit-retention`.
 */
import type { Logger } from '../log/logger.ts'
import { Retention, type RetentionOptions } from '../stores/retention.ts'
import type { AuditReader } from '../stores/types.ts'

export class AuditRetention extends Retention {
  constructor(store: Pick<AuditReader, 'deleteOlderThan'>, options: Omit<RetentionOptions, 'job' | 'rows'>, log: Logger) {
    super(store, { job: 'audit-retention', rows: 'audit entries', ...options }, log)
  }
}
