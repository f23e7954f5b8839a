/**
 * @module An MCP server that wants each user's own OAuth token, with the authorization server beside it (one
 * origin, as small deployments do): protected-resource metadata (RFC 9728), authorization-server metadata
 * (RFC 8414), dynamic client registration (RFC 7591), the authorization endpoint (approves at once for the user the
 * test names, checking the PKCE challenge, the redirect URI and the resource indicator), the token endpoint
 * (authorization code with the PKCE verifier, refresh), and the MCP endpoint, which accepts only live access tokens
 * and whose `whoami` tool answers the token's user.
 */
import { createHash, randomBytes } from 'node:crypto'
import { startMockMcpServer, type MockMcpServer } from './mock-mcp-server.ts'

export interface MockOAuthMcpServer {
  mcp: MockMcpServer
  url: string
  origin: string
  /** Who the authorization endpoint approves next (the person at the browser). */
  approveAs: string
  /** Lifetime of the access tokens it issues. */
  accessTokenSeconds: number
  /** Access tokens issued, by user. */
  issued: { user: string; token: string; refresh: string; resource: string | null }[]
  registrations: number
  refreshes: number
  /** Every token of the user stops working (as a user revoking the app at the provider). */
  revokeUser(user: string): void
  stop(): Promise<void>
}

interface Code {
  user: string
  clientId: string
  redirectUri: string
  challenge: string
  resource: string | null
}

export async function startMockOAuthMcpServer(): Promise<MockOAuthMcpServer> {
  const clients = new Map<string, { redirectUris: string[] }>()
  const codes = new Map<string, Code>()
  const access = new Map<string, { user: string; expires: number }>()
  const refresh = new Map<string, { user: string; clientId: string; resource: string | null }>()
  let origin = ''
  const state: Omit<MockOAuthMcpServer, 'mcp' | 'url' | 'origin' | 'revokeUser' | 'stop'> = {
    approveAs: 'alice',
    accessTokenSeconds: 3600,
    issued: [],
    registrations: 0,
    refreshes: 0,
  }
  // The tool answers for the token of the request it serves (recorded by the HTTP layer just before).
  let currentUser = ''

  const issue = (user: string, resource: string | null) => {
    const token = `at-${user}-${randomBytes(6).toString('hex')}`
    const refreshToken = `rt-${user}-${randomBytes(6).toString('hex')}`
    access.set(token, { user, expires: Date.now() + state.accessTokenSeconds * 1000 })
    refresh.set(refreshToken, { user, clientId: '', resource })
    state.issued.push({ user, token, refresh: refreshToken, resource })
    return { access_token: token, token_type: 'Bearer', expires_in: state.accessTokenSeconds, refresh_token: refreshToken, scope: 'tools' }
  }

  const routes = async (request: Request, url: URL): Promise<Response | undefined> => {
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp' || url.pathname === '/.well-known/oauth-protected-resource') {
      return Response.json({ resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ['tools'], bearer_methods_supported: ['header'] })
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return Response.json({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      })
    }
    if (url.pathname === '/register' && request.method === 'POST') {
      const body = (await request.json()) as { redirect_uris: string[] }
      const clientId = `client-${randomBytes(4).toString('hex')}`
      clients.set(clientId, { redirectUris: body.redirect_uris })
      state.registrations++
      return Response.json({ ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) }, { status: 201 })
    }
    if (url.pathname === '/authorize') {
      const p = url.searchParams
      const client = clients.get(p.get('client_id') ?? '')
      const redirectUri = p.get('redirect_uri') ?? ''
      if (!client || !client.redirectUris.includes(redirectUri)) return new Response('unknown client or redirect_uri', { status: 400 })
      if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) return new Response('PKCE required', { status: 400 })
      const code = `code-${randomBytes(6).toString('hex')}`
      codes.set(code, { user: state.approveAs, clientId: p.get('client_id')!, redirectUri, challenge: p.get('code_challenge')!, resource: p.get('resource') })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', p.get('state') ?? '')
      return new Response(null, { status: 302, headers: { location: back.href } })
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      const form = new URLSearchParams(await request.text())
      if (form.get('grant_type') === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const challenge = createHash('sha256').update(verifier).digest('base64url')
        if (!code || code.clientId !== form.get('client_id') || code.redirectUri !== form.get('redirect_uri') || code.challenge !== challenge) {
          return Response.json({ error: 'invalid_grant' }, { status: 400 })
        }
        return Response.json(issue(code.user, form.get('resource') ?? code.resource))
      }
      if (form.get('grant_type') === 'refresh_token') {
        const entry = refresh.get(form.get('refresh_token') ?? '')
        if (!entry) return Response.json({ error: 'invalid_grant' }, { status: 400 })
        refresh.delete(form.get('refresh_token') ?? '')
        state.refreshes++
        return Response.json(issue(entry.user, form.get('resource') ?? entry.resource))
      }
      return Response.json({ error: 'unsupported_grant_type' }, { status: 400 })
    }
    // The MCP endpoint: only a live access token.
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
    const live = token ? access.get(token) : undefined
    if (!live || live.expires <= Date.now()) {
      return new Response(JSON.stringify({ error: 'invalid_token' }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` },
      })
    }
    currentUser = live.user
    return undefined
  }

  const mcp = await startMockMcpServer({ name: 'oauth-mock', tools: [{ name: 'whoami', answer: () => currentUser }], routes })
  origin = `http://127.0.0.1:${mcp.port}`
  return Object.assign(state, {
    mcp,
    url: mcp.url,
    origin,
    revokeUser(user: string) {
      for (const [token, entry] of access) if (entry.user === user) access.delete(token)
      for (const [token, entry] of refresh) if (entry.user === user) refresh.delete(token)
    },
    stop: () => mcp.stop(),
  })
}
