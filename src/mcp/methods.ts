/**
 * @module The JSON-RPC methods the gateway answers inside a session: lists from the catalogue (filtered by the
 * caller's view, ./listings.ts), and tools/call, prompts/get, resources/read and completion/complete forwarded to
 * the one server the name points at. A name the caller may not see is answered exactly as a name that does not
 * exist. What is sent upstream is built here and nowhere else: the params the client sent, renamed to the
 * server's own names, with the gateway's `_meta` keys (`ai-gateway/…`) removed from what the client sent and, for
 * servers with `forward_identity`, set by the gateway; no header of the client's ever reaches a server.
 */
import type { McpExchange } from './audit-entry.ts'
import type { ToolCallLimits } from './call-limits.ts'
import type { McpCatalog, ServerEntry } from './catalog.ts'
import { asMcpError, mcpErrors } from './errors.ts'
import { resultJson, type JsonRpcId } from './jsonrpc.ts'
import type { ListKind, McpListings } from './listings.ts'
import { exposedUri, upstreamName, upstreamUri, type EndpointScope } from './names.ts'
import type { ArgumentRedactor } from './redact.ts'
import type { Principal } from '../pipeline/context.ts'
import type { ToolView } from './visibility.ts'
import type { UpstreamResult } from './upstream/connection.ts'
import type { CallRelay, ClientChannel } from './upstream/call-relay.ts'
import type { CredentialOwner } from './oauth/credentials.ts'
import type { OwnerConnections } from './oauth/owner-connections.ts'
import type { UpstreamAuthorization } from './oauth/authorization.ts'
import { McpRequestError, RPC } from './errors.ts'
import { toolCallUsage, type UsageSink } from './call-usage.ts'

export const GATEWAY_META_PREFIX = 'ai-gateway/'
export const IDENTITY_META_KEY = `${GATEWAY_META_PREFIX}principal`
/** The tool every per-user OAuth server offers besides its own: it answers the caller's link to connect its account. */
export const CONNECT_TOOL = 'connect_account'

export function connectToolFor(server: string): Record<string, unknown> {
  return {
    name: CONNECT_TOOL,
    description: `Connect your own account at ${server} to the AI gateway: answers a link to open in a browser. Call it when a ${server} tool says your account is not connected.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }
}

export interface MethodContext {
  id: JsonRpcId
  method: string
  params: Record<string, unknown>
  scope: EndpointScope
  view: ToolView
  principal: Principal
  userPath: string | undefined
  /** The gateway's public origin, for links it gives the caller. */
  origin: string
  /** The session's client declared URL-mode elicitation. */
  urlElicitation: boolean
  /** Where the server's messages about the call reach the client; absent when the client takes no event stream. */
  client?: ClientChannel
  signal: AbortSignal
  /** Filled in for the audit entry. */
  exchange: McpExchange
}

export type MethodAnswer = { ok: true; json: string } | { ok: false; error: McpRequestError }

const LISTS: Record<string, ListKind> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
}

export interface McpMethodsDeps {
  catalog: McpCatalog
  listings: McpListings
  limits: ToolCallLimits
  redactArguments: (server: ServerEntry | undefined) => ArgumentRedactor
  owners: OwnerConnections
  authorization: UpstreamAuthorization
  /** Where priced calls are recorded as usage; absent when usage is not kept (FEATURE_USAGE=false). */
  usage?: UsageSink
}

export class McpMethods {
  private readonly catalog: McpCatalog
  private readonly listings: McpListings
  private readonly limits: ToolCallLimits

  constructor(private readonly deps: McpMethodsDeps) {
    this.catalog = deps.catalog
    this.listings = deps.listings
    this.limits = deps.limits
  }

  async answer(c: MethodContext): Promise<MethodAnswer> {
    const list = LISTS[c.method]
    if (list) {
      const listing = this.listings.list(list, c.scope, c.view)
      c.exchange.items = listing.items
      return { ok: true, json: resultJson(c.id, listing.json) }
    }
    switch (c.method) {
      case 'ping':
      case 'logging/setLevel':
        return { ok: true, json: resultJson(c.id, '{}') }
      case 'tools/call':
        return this.callTool(c)
      case 'prompts/get':
        return this.getPrompt(c)
      case 'resources/read':
        return this.readResource(c)
      case 'completion/complete':
        return this.complete(c)
      default:
        return { ok: false, error: mcpErrors.methodNotFound(c.method) }
    }
  }

  private async callTool(c: MethodContext): Promise<MethodAnswer> {
    const name = c.params.name
    if (typeof name !== 'string') return { ok: false, error: mcpErrors.invalidParams('tools/call needs "name", a string.', 'name') }
    const args = c.params.arguments
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return { ok: false, error: mcpErrors.invalidParams('tools/call: "arguments" must be an object.', 'arguments') }
    }
    c.exchange.exposedName = name
    const target = upstreamName(c.scope, name)
    const entry = target && this.catalog.get(target.server)
    const redacted = this.deps.redactArguments(entry ?? undefined)(args ?? {})
    c.exchange.params = { name, arguments: redacted.kept }
    if (redacted.json !== undefined) c.exchange.paramsJson = `{"name":${JSON.stringify(name)},"arguments":${redacted.json}}`
    c.exchange.argumentBytes = redacted.bytes
    // Unknown and hidden tools get the same answer: a hidden tool's existence is not revealed.
    if (!target || !entry || !entry.tools.has(target.name) || !c.view.canSeeTool(target.server, target.name)) return { ok: false, error: mcpErrors.unknownTool(name) }
    c.exchange.server = entry.name
    c.exchange.upstreamName = target.name
    if (entry.oauth && target.name === CONNECT_TOOL) {
      const link = this.deps.authorization.connectLink(c.origin, entry.name, ownerOf(entry, c))
      return this.relay(c, entry, { content: [{ type: 'text', text: `Open this link in a browser to connect your account at ${entry.name} (valid 10 minutes): ${link}` }] })
    }
    const price = entry.config.tool_prices_usd[target.name] ?? entry.config.price_per_call_usd ?? 0
    // Without a tool-call limit or a price there is nothing to reserve, and no await for it.
    const reserved = price > 0 || this.limits.limitsToolCalls ? await this.limits.reserve(c.principal.keyId, c.userPath, price) : undefined
    if (reserved && !reserved.ok) return { ok: false, error: asMcpError(reserved.error) }
    if (price > 0) c.exchange.priceUsd = price
    const outcome = await this.send(c, entry, 'tools/call', 'name', target.name)
    const reached = outcome.ok || outcome.error.code === 'mcp_upstream_rpc_error'
    if (reserved?.ok) await reserved.reservation.settle(reached)
    if (reached && price > 0) this.deps.usage?.record(toolCallUsage(c.exchange, price))
    if (!outcome.ok) return { ok: false, error: outcome.error }
    c.exchange.isError = outcome.result.isError === true
    return this.relay(c, entry, outcome.result)
  }

  private async getPrompt(c: MethodContext): Promise<MethodAnswer> {
    const name = c.params.name
    if (typeof name !== 'string') return { ok: false, error: mcpErrors.invalidParams('prompts/get needs "name", a string.', 'name') }
    c.exchange.exposedName = name
    c.exchange.params = c.params
    const target = upstreamName(c.scope, name)
    const entry = target && this.catalog.get(target.server)
    if (!target || !entry || !entry.prompts.has(target.name) || !c.view.canUseServer(entry.name, entry.toolNames)) return { ok: false, error: mcpErrors.unknownPrompt(name) }
    c.exchange.server = entry.name
    c.exchange.upstreamName = target.name
    const outcome = await this.send(c, entry, 'prompts/get', 'name', target.name)
    if (!outcome.ok) return { ok: false, error: outcome.error }
    return this.relay(c, entry, outcome.result)
  }

  private async readResource(c: MethodContext): Promise<MethodAnswer> {
    const uri = c.params.uri
    if (typeof uri !== 'string') return { ok: false, error: mcpErrors.invalidParams('resources/read needs "uri", a string.', 'uri') }
    c.exchange.exposedName = uri
    c.exchange.params = c.params
    const target = upstreamUri(c.scope, uri)
    const entry = target && this.catalog.get(target.server)
    // Any URI of a server the caller may use: template-made URIs are in no list.
    if (!target || !entry || !c.view.canUseServer(entry.name, entry.toolNames)) return { ok: false, error: mcpErrors.unknownResource(uri) }
    c.exchange.server = entry.name
    c.exchange.upstreamName = target.name
    const outcome = await this.send(c, entry, 'resources/read', 'uri', target.name)
    if (!outcome.ok) return { ok: false, error: outcome.error }
    return this.relay(c, entry, outcome.result)
  }

  private async complete(c: MethodContext): Promise<MethodAnswer> {
    const ref = c.params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined
    c.exchange.params = c.params
    const byName = ref?.type === 'ref/prompt' && typeof ref.name === 'string'
    const byUri = ref?.type === 'ref/resource' && typeof ref.uri === 'string'
    if (!byName && !byUri) return { ok: false, error: mcpErrors.invalidParams('completion/complete needs "ref" naming a prompt (ref/prompt) or a resource (ref/resource).', 'ref') }
    const target = byName ? upstreamName(c.scope, ref.name as string) : upstreamUri(c.scope, ref.uri as string)
    const entry = target && this.catalog.get(target.server)
    if (!target || !entry || !c.view.canUseServer(entry.name, entry.toolNames))
      return { ok: false, error: byName ? mcpErrors.unknownPrompt(ref.name as string) : mcpErrors.unknownResource(ref.uri as string) }
    c.exchange.server = entry.name
    c.exchange.upstreamName = target.name
    const upstreamRef = byName ? { ...ref, name: target.name } : { ...ref, uri: target.name }
    const outcome = await this.send(c, entry, 'completion/complete', 'ref', upstreamRef)
    if (!outcome.ok) return { ok: false, error: outcome.error }
    return this.relay(c, entry, outcome.result)
  }

  /**
   * Sends one request on the server's shared connection, or on the caller's own for a per-user OAuth server: the
   * client's params with `renamed` (the name, URI or ref) set to the server's own.
   */
  private async send(c: MethodContext, entry: ServerEntry, method: string, renamed: string, value: unknown): Promise<UpstreamResult> {
    const forwarded = this.forwardParams(c, entry, renamed, value)
    const options = { signal: c.signal, relay: relayFor(c) }
    if (entry.connection) return entry.connection.request(method, forwarded, options)
    const owner = ownerOf(entry, c)
    const connection = await this.deps.owners.get(entry, owner)
    const outcome = connection ? await connection.request(method, forwarded, options) : undefined
    if (outcome && (outcome.ok || outcome.error.code !== 'mcp_authorization_required')) return outcome
    return { ok: false, error: this.authorizationNeeded(c, entry, owner) }
  }

  /** The caller must connect its account: a URL elicitation when its client takes one, else the link in the message. */
  private authorizationNeeded(c: MethodContext, entry: ServerEntry, owner: CredentialOwner): McpRequestError {
    const url = this.deps.authorization.connectLink(c.origin, entry.name, owner)
    const message = `Your account at ${entry.name} is not connected to the AI gateway. Open this link in a browser to connect it, then try again: ${url}`
    const extraData = c.urlElicitation
      ? { elicitations: [{ mode: 'url', elicitationId: crypto.randomUUID(), url, message: `Connect your account at ${entry.name}` }] }
      : { connect_url: url }
    return new McpRequestError({
      status: 401,
      type: 'authentication_error',
      code: 'mcp_authorization_required',
      rpcCode: c.urlElicitation ? RPC.urlElicitationRequired : RPC.serverError,
      provider: entry.name,
      message,
      extraData,
    })
  }

  /** The params as the server gets them (one copy of the client's): the gateway's `_meta` keys are the gateway's alone. */
  private forwardParams(c: MethodContext, entry: ServerEntry, renamed: string, value: unknown): Record<string, unknown> {
    const out = { ...c.params }
    out[renamed] = value
    const meta = c.params._meta
    let kept: Record<string, unknown> | undefined
    if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
      for (const key in meta) {
        // The client's progress token is the gateway's to map: the connection sends the server its own (./upstream/).
        if (!Object.hasOwn(meta, key) || key.startsWith(GATEWAY_META_PREFIX) || key === 'progressToken') continue
        kept ??= {}
        kept[key] = (meta as Record<string, unknown>)[key]
      }
    }
    if (entry.config.forward_identity) {
      kept ??= {}
      kept[IDENTITY_META_KEY] = { principal_id: c.principal.id, key_id: c.principal.keyId ?? null, user_path: c.userPath ?? null }
    }
    if (kept) out._meta = kept
    else delete out._meta
    return out
  }

  /** The server's result for the client: resource URIs in it renamed for the endpoint, sizes noted for the audit. */
  private relay(c: MethodContext, entry: ServerEntry, result: Record<string, unknown>): MethodAnswer {
    const renamed = c.scope.kind === 'all' ? renameUris(result, c.scope, entry.name) : result
    const text = JSON.stringify(renamed)
    c.exchange.result = renamed
    c.exchange.resultJson = text
    c.exchange.resultBytes = Buffer.byteLength(text)
    return { ok: true, json: resultJson(c.id, text) }
  }
}

/**
 * The call's relay to its client: the server's progress under the client's own progress token (only when it sent
 * one), its log messages, and its requests (sampling, elicitation), which the client answers.
 */
function relayFor(c: MethodContext): CallRelay | undefined {
  const client = c.client
  if (!client) return undefined
  const token = (c.params._meta as { progressToken?: unknown } | undefined)?.progressToken
  const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined
  // Without a progress token the client's channel is the relay as it is.
  if (progressToken === undefined) return client
  return {
    progress: (progress) => client.notify('notifications/progress', { ...progress, progressToken }),
    notify: (method, params) => client.notify(method, params),
    ask: (method, params, signal) => client.ask(method, params, signal),
  }
}

/** Whose credential a call to a per-user OAuth server uses: the calling key's, or its user path's. */
function ownerOf(entry: ServerEntry, c: MethodContext): CredentialOwner {
  const per = 'oauth' in entry.config ? entry.config.oauth?.per : undefined
  if (per === 'user_path' && c.userPath) return { kind: 'user_path', id: c.userPath, userPath: c.userPath }
  return { kind: 'key', id: c.principal.keyId ?? c.principal.id, userPath: c.userPath ?? null }
}

/** `content[].resource.uri`, `content[].uri` (resource links) and `contents[].uri` (resources/read). */
function renameUris(result: Record<string, unknown>, scope: EndpointScope, server: string): Record<string, unknown> {
  const fix = (item: unknown): unknown => {
    if (!item || typeof item !== 'object') return item
    const o = item as Record<string, unknown>
    let out = o
    if (typeof o.uri === 'string') out = { ...out, uri: exposedUri(scope, server, o.uri) }
    const resource = o.resource as Record<string, unknown> | undefined
    if (resource && typeof resource.uri === 'string') out = { ...out, resource: { ...resource, uri: exposedUri(scope, server, resource.uri) } }
    return out
  }
  let out = result
  if (Array.isArray(result.content)) out = { ...out, content: result.content.map(fix) }
  if (Array.isArray(result.contents)) out = { ...out, contents: result.contents.map(fix) }
  return out
}
