/**
 * @module How the aggregated endpoint (/mcp) names what each server offers, so two servers can never collide:
 * tools and prompts are `<server>__<name>`, resources `mcp-gateway://<server>/<the server's own URI>`. Server
 * names never contain `_` (src/mcp/config.ts), so a name splits at its first `__` without ambiguity. On
 * `/mcp/{server}` nothing is renamed.
 */

export const NAME_SEPARATOR = '__'
const RESOURCE_SCHEME = 'mcp-gateway://'

/** What a request on one endpoint is about: every visible server (`/mcp`) or one (`/mcp/{server}`). */
export type EndpointScope = { kind: 'all' } | { kind: 'server'; server: string }

export interface QualifiedName {
  server: string
  name: string
}

export function exposedName(scope: EndpointScope, server: string, name: string): string {
  return scope.kind === 'all' ? `${server}${NAME_SEPARATOR}${name}` : name
}

/** The server and its own name behind a name the client sent; undefined when it names no server. */
export function upstreamName(scope: EndpointScope, exposed: string): QualifiedName | undefined {
  if (scope.kind === 'server') return { server: scope.server, name: exposed }
  const at = exposed.indexOf(NAME_SEPARATOR)
  if (at <= 0) return undefined
  return { server: exposed.slice(0, at), name: exposed.slice(at + NAME_SEPARATOR.length) }
}

/** Also used for URI templates: the server's template follows the prefix unchanged, so its variables still expand. */
export function exposedUri(scope: EndpointScope, server: string, uri: string): string {
  return scope.kind === 'all' ? `${RESOURCE_SCHEME}${server}/${uri}` : uri
}

export function upstreamUri(scope: EndpointScope, exposed: string): QualifiedName | undefined {
  if (scope.kind === 'server') return { server: scope.server, name: exposed }
  if (!exposed.startsWith(RESOURCE_SCHEME)) return undefined
  const rest = exposed.slice(RESOURCE_SCHEME.length)
  const slash = rest.indexOf('/')
  if (slash <= 0) return undefined
  return { server: rest.slice(0, slash), name: rest.slice(slash + 1) }
}
