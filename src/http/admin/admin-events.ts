/**
 * @module Records an admin change as a security event (src/audit/security-events.ts): who (principal id, method,
 * key id), what (event type, subject, its state before and after), where from (address, user agent).
 */
import type { Gateway } from '../../app.ts'
import type { SecurityEvent } from '../../audit/security-events.ts'
import type { Principal } from '../../pipeline/context.ts'

export interface RouteContext {
  request: Request
  server: { requestIP(r: Request): { address: string } | null } | null
}

export type AdminChange = Pick<SecurityEvent, 'event_type' | 'subject_id' | 'user_path' | 'before' | 'after' | 'message'> & { status_code?: number }

export function recordAdminChange(gateway: Gateway, context: RouteContext, actor: Principal, change: AdminChange): void {
  gateway.securityEvents.record({
    ...change,
    status_code: change.status_code ?? 200,
    principal_id: actor.id,
    auth_method: actor.method,
    auth_key_id: actor.keyId,
    actor_email: actor.email,
    method: context.request.method,
    path: new URL(context.request.url).pathname,
    client_ip: context.server?.requestIP(context.request)?.address ?? '',
    user_agent: context.request.headers.get('user-agent') ?? '',
  })
}
