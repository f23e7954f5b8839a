/**
 * @module The recorder for non-request security lifecycle entries (key created, updated, revoked, dashboard
 * sign-in). They land in the audit log as entries with `data.event_type`. The audit sink provides the real
 * recorder; until it is wired, events are only logged.
 */
import type { Logger } from '../log/logger.ts'

export interface SecurityEvent {
  /** e.g. `key.created`, `key.updated`, `key.revoked`, `dashboard.sign_in`, `dashboard.sign_in_failed`. */
  event_type: string
  /** Who did it: `master`, a managed key id, or `anonymous`. */
  principal_id: string
  auth_method: string
  auth_key_id?: string
  /** The object acted on, e.g. the key id that was revoked. */
  subject_id?: string
  method: string
  path: string
  status_code: number
  client_ip?: string
  user_agent?: string
  message?: string
}

export interface SecurityEventRecorder {
  record(event: SecurityEvent): void
}

export function loggingSecurityEventRecorder(log: Logger): SecurityEventRecorder {
  return { record: (event) => log.info({ security_event: event }, event.event_type) }
}
