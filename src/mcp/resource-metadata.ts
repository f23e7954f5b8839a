/**
 * @module OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoints, as the MCP authorization spec
 * asks: a client that gets 401 reads `resource_metadata` from `WWW-Authenticate` and learns what the resource is
 * and which authorization servers issue tokens for it (`mcp.authorization_servers`; JWT issuers once identity
 * tokens are accepted). Managed gateway keys are bearer tokens too: clients that cannot sign in through an
 * authorization server send one in `Authorization: Bearer`.
 */
import type { McpConfig } from './config.ts'

export const METADATA_PATH = '/.well-known/oauth-protected-resource'

/** The gateway's public origin: `mcp.public_url`, else the request's own scheme and host. */
export function publicOrigin(config: Pick<McpConfig, 'public_url'>, request: Request): string {
  if (config.public_url) return config.public_url.replace(/\/+$/, '')
  const url = new URL(request.url)
  return `${url.protocol}//${url.host}`
}

/** `resourcePath`: `/mcp` or `/mcp/{server}`. */
export function resourceMetadata(config: Pick<McpConfig, 'public_url' | 'authorization_servers'>, request: Request, resourcePath: string) {
  const origin = publicOrigin(config, request)
  return {
    resource: `${origin}${resourcePath}`,
    authorization_servers: config.authorization_servers,
    bearer_methods_supported: ['header'],
    resource_name: 'AI gateway MCP endpoint',
    resource_documentation: `${origin}/openapi/json`,
  }
}

/** The `WWW-Authenticate` value of a 401 on `resourcePath`. */
export function bearerChallenge(config: Pick<McpConfig, 'public_url'>, request: Request, resourcePath: string): string {
  return `Bearer resource_metadata="${publicOrigin(config, request)}${METADATA_PATH}${resourcePath}"`
}
