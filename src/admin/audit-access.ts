/**
 * @module What of the audit log a principal reads: entries inside its subtree; security events only with
 * `audit.security_events`; bodies and headers only with `audit.content` (a viewer sees who called what, when,
 * with which outcome and cost, never what was said).
 */
import type { AuditLogEntry, LogData } from '../audit/entry.ts'
import { type AdminGrant, hasPermission } from './roles.ts'
import { inAdminScope } from './scope.ts'

export interface AuditAccess {
  scope: string | null
  content: boolean
  securityEvents: boolean
}

export function auditAccessOf(grant: AdminGrant): AuditAccess {
  return { scope: grant.scope, content: hasPermission(grant, 'audit.content'), securityEvents: hasPermission(grant, 'audit.security_events') }
}

export function mayReadEntry(access: AuditAccess, entry: Pick<AuditLogEntry, 'user_path' | 'data'>): boolean {
  return inAdminScope(access.scope, entry.user_path) && (access.securityEvents || !entry.data.event_type)
}

/** The entry as the principal may read it: without bodies and headers unless it may read content. */
export function asReadBy(access: AuditAccess, entry: AuditLogEntry): AuditLogEntry {
  return access.content ? entry : { ...entry, data: withoutContent(entry.data) }
}

function withoutContent(data: LogData): LogData {
  const { request_headers: _rh, response_headers: _sh, request_body: _rb, response_body: _sb, ...rest } = data
  return {
    ...rest,
    ...(rest.attempts ? { attempts: rest.attempts.map(({ response_body: _b, response_headers: _h, ...attempt }) => attempt) } : {}),
    ...(rest.request_revisions ? { request_revisions: rest.request_revisions.map(({ body: _b, detail: _d, ...revision }) => revision) } : {}),
  }
}
