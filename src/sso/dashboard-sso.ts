/**
 * @module Dashboard sign-in through the OpenID provider: /auth/oidc/login sends the person to the provider
 * (state, nonce and PKCE verifier kept in a short-lived signed cookie), /auth/oidc/callback turns the code into a
 * verified ID token, maps its claims to a role (role-rules.ts) and starts a session (session-cookie.ts); the admin
 * guard accepts the session cookie like an admin key, with CSRF protection on every state-changing call, idle
 * and absolute timeouts, and a refresh after which the role is mapped again from a fresh sign-in. Sign-ins,
 * sign-outs and failures are security events with the person's subject and email.
 */
import type { AdminGrant } from '../admin/roles.ts'
import type { SecurityEventRecorder } from '../audit/security-events.ts'
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { AuthFailureLimiter } from '../keys/failure-limiter.ts'
import type { Logger } from '../log/logger.ts'
import type { Principal } from '../pipeline/context.ts'
import type { Counters } from '../stores/types.ts'
import type { OidcConfig } from './config.ts'
import { OidcClient, randomToken } from './oidc-client.ts'
import { grantFromClaims } from './role-rules.ts'
import { CookieSigner, cookieHeader, LOGIN_COOKIE, readCookie, SESSION_COOKIE, type SessionClaims } from './session-cookie.ts'

export const SSO_PATHS = { login: '/auth/oidc/login', callback: '/auth/oidc/callback', session: '/auth/oidc/session', logout: '/auth/oidc/logout' } as const
export const CSRF_HEADER = 'x-csrf-token'

const LOGIN_TTL_MS = 10 * 60_000
/** A session's last-use time is written back at most this often (each write is a new cookie). */
const SEEN_GRANULARITY_MS = 60_000
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

interface LoginState {
  state: string
  nonce: string
  verifier: string
  returnTo: string
  at: number
}

export type SessionAuth = { ok: true; principal: Principal; sid: string; setCookie?: string } | { ok: false; error: GatewayError; reason: string; clearCookie: boolean }

export interface DashboardSsoDeps {
  counters: Counters
  securityEvents: SecurityEventRecorder
  authFailures: AuthFailureLimiter
  log: Logger
  now?: () => number
}

interface RequestInfo {
  request: Request
  clientIp: string
}

const sessionError = (code: string, message: string) => new GatewayError({ status: 401, type: 'authentication_error', code, message })

export class DashboardSso {
  private readonly client: OidcClient
  private readonly sessions: CookieSigner
  private readonly logins: CookieSigner
  /** The session clock (ms); tests move it to reach the timeouts. */
  now: () => number

  constructor(
    private readonly config: OidcConfig & { issuer: string; client_id: string; client_secret: string; session_secret: string },
    private readonly deps: DashboardSsoDeps,
  ) {
    this.client = new OidcClient(config)
    this.sessions = new CookieSigner(config.session_secret, 'session')
    this.logins = new CookieSigner(config.session_secret, 'login')
    this.now = deps.now ?? Date.now
  }

  static fromConfig(config: OidcConfig, deps: DashboardSsoDeps): DashboardSso | undefined {
    const { issuer, client_id, client_secret, session_secret } = config
    if (!issuer || !client_id || !client_secret || !session_secret) return undefined
    return new DashboardSso({ ...config, issuer, client_id, client_secret, session_secret }, deps)
  }

  /** True when the request carries a session cookie (and no key, which takes precedence). */
  hasSession(headers: Headers): boolean {
    return readCookie(headers, SESSION_COOKIE) !== undefined
  }

  async login({ request }: RequestInfo): Promise<Response> {
    const provider = await this.client.provider()
    if (!provider.ok) {
      this.deps.log.warn({ reason: provider.reason }, 'dashboard sign-in: provider unavailable')
      return this.page(503, 'The identity provider cannot be reached right now; try again shortly.')
    }
    const returnTo = safeReturnPath(new URL(request.url).searchParams.get('return_to'))
    const login: LoginState = { state: randomToken(), nonce: randomToken(), verifier: randomToken(48), returnTo, at: this.now() }
    const location = this.client.authorizationUrl(provider.value, { ...login, redirectUri: this.redirectUri(request) })
    const headers = new Headers({ location, 'cache-control': 'no-store' })
    // Lax: it must come back with the provider's top-level redirect to the callback.
    headers.append(
      'set-cookie',
      cookieHeader(LOGIN_COOKIE, this.logins.sign(login), { secure: this.config.cookie_secure, maxAgeSeconds: LOGIN_TTL_MS / 1000, path: SSO_PATHS.callback, sameSite: 'Lax' }),
    )
    return new Response(null, { status: 302, headers })
  }

  async callback(info: RequestInfo): Promise<Response> {
    const { request } = info
    const params = new URL(request.url).searchParams
    const login = this.readLogin(request.headers)
    const clearLogin = cookieHeader(LOGIN_COOKIE, '', { secure: this.config.cookie_secure, maxAgeSeconds: 0, path: SSO_PATHS.callback, sameSite: 'Lax' })
    // A sign-in replaces the browser's session, and a failed one ends it: a renewal that no longer maps to a role
    // leaves no session behind, here or on another replica.
    await this.revokeExisting(request.headers)
    const fail = (status: number, reason: string, person?: { sub?: string; email?: string }, shown = 'Sign-in failed.') => {
      this.recordFailure(info, status, reason, person)
      const response = this.page(status, shown)
      response.headers.append('set-cookie', clearLogin)
      response.headers.append('set-cookie', this.clearedSession())
      return response
    }
    if (!login) return fail(400, 'no sign-in in progress (the login cookie is missing, expired or not this gateway’s)')
    if (params.get('state') !== login.state) return fail(400, 'the state does not match this sign-in')
    const providerError = params.get('error')
    if (providerError) return fail(401, `the provider refused: ${providerError} ${params.get('error_description') ?? ''}`.trim())
    const code = params.get('code')
    if (!code) return fail(400, 'the provider sent no code')

    const exchanged = await this.client.exchange(code, { nonce: login.nonce, verifier: login.verifier, redirectUri: this.redirectUri(request) })
    if (!exchanged.ok) return fail(401, exchanged.reason)
    const claims = exchanged.value.claims as Record<string, unknown>
    const person = { sub: String(claims.sub), email: typeof claims.email === 'string' ? claims.email : undefined }
    const grant = grantFromClaims(this.config.role_rules, claims, '')
    if (!grant)
      return fail(403, 'no role rule matches this person’s claims', person, 'Your account has no role on this gateway. Ask an administrator to add you to a group that has one.')

    const now = this.now()
    const session: SessionClaims = {
      sid: randomToken(18),
      sub: person.sub,
      email: person.email ?? null,
      role: grant.role,
      scope: grant.scope,
      iat: now,
      seen: now,
      refresh: now + this.config.refresh_minutes * 60_000,
    }
    const principal = this.principalOf(session)
    this.deps.securityEvents.record({
      ...this.eventBase(info),
      event_type: 'dashboard.sign_in',
      principal_id: principal.id,
      auth_method: principal.method,
      actor_email: person.email,
      user_path: grant.scope ?? '/',
      status_code: 200,
      message: `signed in through ${this.config.issuer} as ${grant.role}${grant.scope ? ` of ${grant.scope}` : ''}`,
    })
    const headers = new Headers({ location: login.returnTo, 'cache-control': 'no-store' })
    headers.append('set-cookie', clearLogin)
    headers.append('set-cookie', this.sessionCookie(session))
    return new Response(null, { status: 302, headers })
  }

  /**
   * The admin guard's check of a session cookie, through the credential throttle like every credential: a
   * throttled address is refused before its cookie is looked at, and a cookie this gateway did not sign counts.
   */
  async authenticate(request: Request, clientAddress: () => string = () => ''): Promise<SessionAuth> {
    const throttle = this.deps.authFailures.throttle
    const verdict = throttle.verdict(clientAddress)
    if (verdict.throttled) {
      return {
        ok: false,
        error: gatewayErrors.authThrottled(verdict.retryAfterSeconds),
        reason: 'too many failed authentications from this address; the session was not checked',
        clearCookie: false,
      }
    }
    const cookie = readCookie(request.headers, SESSION_COOKIE)
    const session = cookie ? this.sessions.verify<SessionClaims>(cookie) : undefined
    if (!session || typeof session.sid !== 'string') {
      throttle.recordFailure(
        clientAddress(),
        `session:${new Bun.CryptoHasher('sha256')
          .update(cookie ?? '')
          .digest('hex')
          .slice(0, 16)}`,
      )
      return {
        ok: false,
        error: sessionError('session_invalid', 'The session is not valid; sign in again.'),
        reason: 'session cookie not signed by this gateway',
        clearCookie: true,
      }
    }
    const now = this.now()
    if (now - session.iat > this.config.absolute_timeout_hours * 3_600_000) return this.ended('session_expired', 'the session reached its absolute timeout')
    if (now - session.seen > this.config.idle_timeout_minutes * 60_000) return this.ended('session_expired', 'the session was idle too long')
    if (now >= session.refresh)
      return {
        ok: false,
        error: sessionError('session_refresh_required', 'The session must be renewed: sign in again (silent while the identity provider’s session lasts).'),
        reason: 'the session is due for its role refresh',
        clearCookie: false,
      }
    if ((await this.deps.counters.get(revokedKey(session.sid))) > 0) return this.ended('session_ended', 'the session was signed out')
    if (!SAFE_METHODS.has(request.method)) {
      const csrf = request.headers.get(CSRF_HEADER)
      if (csrf !== this.sessions.csrfToken(session.sid)) {
        return {
          ok: false,
          error: new GatewayError({
            status: 403,
            type: 'authentication_error',
            code: 'csrf_token_invalid',
            message: `A state-changing call with the session cookie needs the ${CSRF_HEADER} header of GET ${SSO_PATHS.session}.`,
          }),
          reason: 'missing or wrong CSRF token',
          clearCookie: false,
        }
      }
      const origin = request.headers.get('origin')
      if (origin !== null && origin !== new URL(request.url).origin) {
        return {
          ok: false,
          error: new GatewayError({ status: 403, type: 'authentication_error', code: 'csrf_origin_invalid', message: 'The call comes from another origin.' }),
          reason: `cross-origin call from ${origin}`,
          clearCookie: false,
        }
      }
    }
    const setCookie = now - session.seen > SEEN_GRANULARITY_MS ? this.sessionCookie({ ...session, seen: now }) : undefined
    return { ok: true, principal: this.principalOf(session), sid: session.sid, setCookie }
  }

  csrfToken(sid: string): string {
    return this.sessions.csrfToken(sid)
  }

  /** Ends the session on every replica, clears its cookie and answers where the provider's own sign-out is. */
  async logout(info: RequestInfo, auth: Extract<SessionAuth, { ok: true }>): Promise<Response> {
    await this.revoke(auth.sid)
    this.deps.securityEvents.record({
      ...this.eventBase(info),
      event_type: 'dashboard.sign_out',
      principal_id: auth.principal.id,
      auth_method: auth.principal.method,
      actor_email: auth.principal.email,
      user_path: auth.principal.admin?.scope ?? '/',
      status_code: 200,
    })
    const origin = new URL(info.request.url).origin
    const endSession = await this.client.endSessionUrl(this.config.post_logout_redirect_uri ?? `${origin}/dashboard`)
    const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' })
    headers.append('set-cookie', this.clearedSession())
    return new Response(JSON.stringify({ signed_out: true, end_session_url: endSession ?? null }), { headers })
  }

  clearedSession(): string {
    return cookieHeader(SESSION_COOKIE, '', { secure: this.config.cookie_secure, maxAgeSeconds: 0, sameSite: 'Strict' })
  }

  /** Kept until the longest a session can live, so a copied cookie is refused on every replica. */
  private async revoke(sid: string): Promise<void> {
    await this.deps.counters.add(revokedKey(sid), 1, this.config.absolute_timeout_hours * 3_600_000)
  }

  private async revokeExisting(headers: Headers): Promise<void> {
    const cookie = readCookie(headers, SESSION_COOKIE)
    const session = cookie ? this.sessions.verify<SessionClaims>(cookie) : undefined
    if (session && typeof session.sid === 'string') await this.revoke(session.sid)
  }

  private ended(code: string, reason: string): SessionAuth {
    return { ok: false, error: sessionError(code, 'The session has ended; sign in again.'), reason, clearCookie: true }
  }

  private principalOf(session: SessionClaims): Principal {
    const admin: AdminGrant = { role: session.role, scope: session.scope, expiresAt: null }
    return { method: 'oidc_session', id: `oidc:${session.sub}`, admin, email: session.email ?? undefined }
  }

  private sessionCookie(session: SessionClaims): string {
    const remaining = session.iat + this.config.absolute_timeout_hours * 3_600_000 - this.now()
    // Strict: no other site can make the browser send it, on top of the CSRF token.
    return cookieHeader(SESSION_COOKIE, this.sessions.sign(session), { secure: this.config.cookie_secure, maxAgeSeconds: remaining / 1000, sameSite: 'Strict' })
  }

  private readLogin(headers: Headers): LoginState | undefined {
    const cookie = readCookie(headers, LOGIN_COOKIE)
    const login = cookie ? this.logins.verify<LoginState>(cookie) : undefined
    if (!login || this.now() - login.at > LOGIN_TTL_MS) return undefined
    return login
  }

  private redirectUri(request: Request): string {
    return this.config.redirect_uri ?? `${new URL(request.url).origin}${SSO_PATHS.callback}`
  }

  private recordFailure(info: RequestInfo, status: number, reason: string, person?: { sub?: string; email?: string }) {
    if (!this.deps.authFailures.shouldAudit(info.clientIp, `sso:${status}`)) return
    this.deps.securityEvents.record({
      ...this.eventBase(info),
      event_type: 'dashboard.sign_in_failed',
      principal_id: person?.sub ? `oidc:${person.sub}` : 'anonymous',
      auth_method: 'oidc_session',
      actor_email: person?.email,
      status_code: status,
      message: reason,
    })
  }

  private eventBase({ request, clientIp }: RequestInfo) {
    return { method: request.method, path: new URL(request.url).pathname, client_ip: clientIp, user_agent: request.headers.get('user-agent') ?? '' }
  }

  private page(status: number, text: string): Response {
    const html = `<!doctype html><meta charset="utf-8"><title>Sign-in</title><p>${escapeHtml(text)}</p><p><a href="/dashboard">Back to the dashboard</a></p>`
    return new Response(html, { status, headers: { 'content-type': 'text/html;charset=utf-8', 'cache-control': 'no-store' } })
  }
}

const revokedKey = (sid: string) => `sso:revoked:${sid}`

/** Only a path of this gateway's dashboard: an open redirect after sign-in would hand the session's user to anyone. */
function safeReturnPath(value: string | null): string {
  return value && /^\/dashboard(?:[/?#][^\\\s]*)?$/.test(value) && !value.startsWith('//') ? value : '/dashboard'
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
