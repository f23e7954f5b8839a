/**
 * @module The recorder for non-request security lifecycle entries: every admin change (keys, workflows, limits,
 * prices) with its actor and the object's state before and after, and dashboard sign-ins and their failures. They
 * land in the audit log as entries with `data.event_type`, written through the audit writer's queue like request
 * entries, filed under the user path of what they are about, so a scoped auditor sees the events of its subtree.
 */
import type { Logger } from '../log/logger.ts'
import type { AuditLogEntry } from './entry.ts'
import type { AuditRecorder } from './recorder.ts'

export interface SecurityEvent {
  /** e.g. `key.created`, `key.updated`, `key.revoked`, `workflow.changed`, `budget.created`, `price.set`, `dashboard.sign_in`, `dashboard.sign_in_failed`. */
  event_type: string
  /** Who did it: `master`, a managed key id, or `anonymous`. */
  principal_id: string
  auth_method: string
  auth_key_id?: string
  /** The person's email when they signed in through the OpenID provider. */
  actor_email?: string
  /** The object acted on, e.g. the key id that was revoked. */
  subject_id?: string
  /** The user path the event is about (the subject's; `/` for what every tenant shares): who may read it. */
  user_path?: string
  /** The subject before and after the change, as the admin API shows it (never a secret); absent for a creation's before. */
  before?: unknown
  after?: unknown
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

/**
 * Writes each event as an audit entry (`data.event_type` set) through the same queue as request entries, and
 * logs it as before.
 */
export function auditSecurityEventRecorder(recorder: AuditRecorder, log: Logger): SecurityEventRecorder {
  return {
    record(event) {
      log.info({ security_event: event }, event.event_type)
      recorder.record(securityEventEntry(event))
    },
  }
}

export function securityEventEntry(event: SecurityEvent, now = new Date()): AuditLogEntry {
  const failed = event.status_code >= 400
  const id = Bun.randomUUIDv7()
  return {
    id,
    timestamp: now.toISOString(),
    duration_ns: 0,
    request_id: id,
    requested_model: '',
    resolved_model: '',
    provider: '',
    provider_name: '',
    method: event.method,
    path: event.path,
    status_code: event.status_code,
    stream: false,
    error_type: failed ? (event.status_code === 401 || event.status_code === 403 ? 'authentication_error' : 'invalid_request_error') : '',
    session_id: '',
    user_path: event.user_path ?? '/',
    principal_id: event.principal_id,
    auth_key_id: event.auth_key_id ?? '',
    auth_method: event.auth_method,
    client_ip: event.client_ip ?? '',
    cache_type: '',
    alias_used: false,
    workflow_version_id: '',
    data: {
      event_type: event.event_type,
      ...(event.user_agent ? { user_agent: event.user_agent } : {}),
      ...(event.actor_email ? { actor_email: event.actor_email } : {}),
      ...(event.subject_id ? { event_subject_id: event.subject_id } : {}),
      ...(event.message ? { event_message: event.message } : {}),
      ...(event.before !== undefined ? { event_before: event.before } : {}),
      ...(event.after !== undefined ? { event_after: event.after } : {}),
      ...(failed ? { error_message: event.message ?? '', error_provider: '' } : {}),
    },
  }
}
