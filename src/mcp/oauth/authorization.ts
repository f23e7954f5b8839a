/**
 * @module How a caller connects its own account at an upstream MCP server that wants per-user OAuth (OAuth 2.1:
 * authorization code with PKCE, the server's authorization server discovered from its protected-resource
 * metadata, the gateway registered as a client by dynamic client registration unless one is configured):
 * 1. A call without a credential is answered with a link, `/mcp/oauth/authorize?ticket=…`: the ticket is sealed
 *    (server, owner, ten minutes), so the browser that opens it needs no gateway key.
 * 2. That page discovers the authorization server, registers the gateway once, makes the PKCE pair, and redirects
 *    there; `state` is sealed too and carries the verifier, so the callback can land on any replica and nothing is
 *    kept in between.
 * 3. `/mcp/oauth/callback` exchanges the code (with the verifier and the resource indicator) and stores the tokens
 *    sealed, for that owner only.
 * The link binds whoever completes it to the ticket's owner: it is handed only to that caller, and expires.
 */
import { loadMcpSdk } from '../upstream/sdk.ts'
import type { Logger } from '../../log/logger.ts'
import type { McpHttpServerConfig } from '../config.ts'
import type { McpSecrets } from '../secrets.ts'
import type { CredentialOwner, UpstreamCredentials } from './credentials.ts'
import { clientInformationFor, clientMetadataFor } from './token-provider.ts'

export const AUTHORIZE_PATH = '/mcp/oauth/authorize'
export const CALLBACK_PATH = '/mcp/oauth/callback'
const TICKET_MS = 10 * 60_000
const TICKET_BINDING = 'mcp-oauth-ticket'
const STATE_BINDING = 'mcp-oauth-state'

interface Ticket {
  server: string
  owner: CredentialOwner
  expires: number
}

interface State extends Ticket {
  verifier: string
  authorizationServer: string
  resource: string | undefined
}

export interface AuthorizationDeps {
  secrets: McpSecrets
  credentials: UpstreamCredentials
  serverConfig: (server: string) => McpHttpServerConfig | undefined
  /** The owner's tokens changed: its connections must pick the new ones up. */
  connected: (server: string, owner: CredentialOwner) => void
  log: Logger
  now?: () => number
}

export class UpstreamAuthorization {
  private readonly now: () => number

  constructor(private readonly deps: AuthorizationDeps) {
    this.now = deps.now ?? Date.now
  }

  /** The link a caller opens in a browser to connect its account at `server`. */
  connectLink(origin: string, server: string, owner: CredentialOwner): string {
    const ticket: Ticket = { server, owner, expires: this.now() + TICKET_MS }
    return `${origin}${AUTHORIZE_PATH}?ticket=${encodeURIComponent(this.deps.secrets.seal(JSON.stringify(ticket), TICKET_BINDING))}`
  }

  /** GET /mcp/oauth/authorize: redirects the browser to the server's authorization server. */
  async start(origin: string, ticketParam: string | null): Promise<Response> {
    const ticket = this.open<Ticket>(ticketParam, TICKET_BINDING)
    if (!ticket) return page(400, 'This link is not valid or has expired', 'Ask your MCP client for a new one (call the tool again).')
    const config = this.deps.serverConfig(ticket.server)
    if (!config?.oauth) return page(404, 'Unknown server', `The MCP server '${ticket.server}' does not take per-user authorization.`)
    try {
      const redirectUrl = `${origin}${CALLBACK_PATH}`
      const { discoverOAuthServerInfo, registerClient, startAuthorization } = await loadMcpSdk()
      const info = await discoverOAuthServerInfo(config.url)
      let client = await clientInformationFor(ticket.server, config, this.deps.credentials)
      if (!client) {
        client = await registerClient(info.authorizationServerUrl, { metadata: info.authorizationServerMetadata, clientMetadata: clientMetadataFor(redirectUrl, config) })
        await this.deps.credentials.saveClientInformation(ticket.server, client)
      }
      const scope = config.oauth.scopes?.join(' ') ?? info.resourceMetadata?.scopes_supported?.join(' ')
      const resource = info.resourceMetadata?.resource ?? config.url
      const { authorizationUrl, codeVerifier } = await startAuthorization(info.authorizationServerUrl, {
        metadata: info.authorizationServerMetadata,
        clientInformation: client,
        redirectUrl,
        scope,
        resource: new URL(resource),
      })
      const state: State = { ...ticket, expires: this.now() + TICKET_MS, verifier: codeVerifier, authorizationServer: info.authorizationServerUrl, resource }
      authorizationUrl.searchParams.set('state', this.deps.secrets.seal(JSON.stringify(state), STATE_BINDING))
      return new Response(null, { status: 302, headers: { location: authorizationUrl.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })
    } catch (error) {
      this.deps.log.warn({ mcp_server: ticket.server, err: (error as Error).message }, 'MCP authorization could not start')
      return page(502, 'The server’s authorization could not start', (error as Error).message)
    }
  }

  /** GET /mcp/oauth/callback: exchanges the code and stores the owner's tokens. */
  async callback(origin: string, url: URL): Promise<Response> {
    const state = this.open<State>(url.searchParams.get('state'), STATE_BINDING)
    if (!state) return page(400, 'This sign-in is not valid or has expired', 'Start again from your MCP client.')
    const denied = url.searchParams.get('error')
    if (denied) return page(400, 'Authorization was not granted', `${denied}: ${url.searchParams.get('error_description') ?? ''}`)
    const code = url.searchParams.get('code')
    const config = this.deps.serverConfig(state.server)
    if (!code || !config?.oauth) return page(400, 'Authorization failed', 'The authorization server sent no code.')
    try {
      const client = await clientInformationFor(state.server, config, this.deps.credentials)
      if (!client) return page(400, 'Authorization failed', 'The gateway is not registered at this server any more; start again.')
      const { discoverAuthorizationServerMetadata, exchangeAuthorization } = await loadMcpSdk()
      const metadata = await discoverAuthorizationServerMetadata(state.authorizationServer)
      const tokens = await exchangeAuthorization(state.authorizationServer, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier: state.verifier,
        redirectUri: `${origin}${CALLBACK_PATH}`,
        resource: state.resource ? new URL(state.resource) : undefined,
      })
      await this.deps.credentials.saveTokens(state.server, state.owner, tokens)
      this.deps.connected(state.server, state.owner)
      this.deps.log.info({ mcp_server: state.server, owner_kind: state.owner.kind, owner_id: state.owner.id }, 'MCP upstream authorization stored')
      return page(200, `Connected to ${state.server}`, 'You can close this window and call the tool again.')
    } catch (error) {
      this.deps.log.warn({ mcp_server: state.server, err: (error as Error).message }, 'MCP authorization code exchange failed')
      return page(502, 'Authorization failed', (error as Error).message)
    }
  }

  private open<T extends Ticket>(sealed: string | null, binding: string): T | undefined {
    if (!sealed || sealed.length > 8192) return undefined
    const text = this.deps.secrets.open(sealed, binding)
    if (!text) return undefined
    const value = JSON.parse(text) as T
    return value.expires > this.now() ? value : undefined
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(status: number, title: string, detail: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail.slice(0, 500))}</p></body></html>`
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  })
}
