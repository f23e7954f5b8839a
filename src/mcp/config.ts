/**
 * @module The `mcp` section of the configuration: upstream MCP servers (`mcp.servers.<name>`), tool visibility
 * rules, sessions and the limits of the MCP gateway (docs/mcp.md). Server definitions added through the admin API
 * use the same schema (`mcpServerSchema`), so YAML and the API accept exactly the same things.
 */
import { z } from 'zod'

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max)

/**
 * Lower-case letters, digits and single hyphens: no `_` (so `<server>__<tool>` splits at its first `__`), no `.`
 * or `/` (so a name is one path segment of `/mcp/{server}`). `oauth` is the gateway's own path below /mcp.
 */
export const MCP_SERVER_NAME = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,39}$/
const RESERVED_SERVER_NAMES = new Set(['oauth'])

export const mcpServerNameSchema = z
  .string()
  .regex(MCP_SERVER_NAME, 'expected 1-40 lower-case letters, digits and single hyphens (no "_": names are joined to tool names with "__")')
  .refine((name) => !RESERVED_SERVER_NAMES.has(name), { message: 'this name is reserved' })

/** `server/tool` with `*` wildcards on either side, or `*` alone. */
export const toolPatternSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(\*|[a-z0-9*][a-z0-9*-]*\/[^\s/]+)$/, 'expected "<server>/<tool>" (wildcards "*" allowed on either side) or "*"')

const headerNameSchema = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name')
const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'accept', 'content-type'])

const oauthSchema = z.strictObject({
  /** Whose token a call uses: the calling key's own (`key`) or one shared by every key of the caller's user path (`user_path`). */
  per: z.enum(['key', 'user_path']).default('key'),
  /** Scopes asked for; default: what the server's metadata says it supports. */
  scopes: z.array(z.string().min(1).max(200)).max(50).optional(),
  /** A client registered by hand at the authorization server; without it the gateway registers itself (dynamic client registration). */
  client_id: z.string().min(1).max(500).optional(),
  client_secret: z.string().min(1).max(500).optional(),
})

const serverCommon = {
  /** Shown in the dashboard. */
  description: z.string().max(500).optional(),
  /**
   * `hidden`: a tool is offered only when a visibility rule allows it, so a tool the server adds later stays hidden
   * until allowed (allow exact names to keep that property). `visible`: every tool no rule denies.
   */
  default_tool_visibility: z.enum(['visible', 'hidden']).default('visible'),
  /** Deadline of one call to this server (tools/call, prompts/get, resources/read), in seconds. */
  timeout_seconds: integer(1, 3600).optional(),
  /** Largest answer read from this server; a larger one fails the call. */
  max_response_bytes: integer(1024, 256 * 1024 * 1024).optional(),
  /** USD charged to the caller's budgets per successful tools/call; a tool's own price overrides it. */
  price_per_call_usd: z.number().min(0).max(1000).optional(),
  tool_prices_usd: z.record(z.string().min(1).max(200), z.number().min(0).max(1000)).default({}),
  /** Argument fields (by name, at any depth; `*` wildcards) replaced by `[REDACTED]` in audit entries, on top of `mcp.redact_arguments`. */
  redact_arguments: z.array(z.string().min(1).max(100)).max(100).default([]),
  /** Tell the server who calls: `_meta["ai-gateway/principal"]` with the key id and user path (a client's own value is always removed). */
  forward_identity: z.boolean().default(false),
}

const httpServerSchema = z.strictObject({
  ...serverCommon,
  url: z.url({ protocol: /^https?$/ }),
  /** `streamable-http` (the current transport), `sse` (the 2024-11-05 HTTP+SSE transport), or `auto`: streamable first, then SSE. */
  transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
  /** Sent on every request to this server; never shown to clients. */
  headers: z
    .record(headerNameSchema, z.string().max(8192))
    .refine((h) => Object.keys(h).every((name) => !HOP_BY_HOP.has(name.toLowerCase())), {
      message: 'headers may not set transport headers (host, content-type, mcp-session-id, …)',
    })
    .default({}),
  /** The server wants each user's own OAuth token: the gateway is its OAuth client (docs/mcp.md, "Per-user credentials"). */
  oauth: oauthSchema.optional(),
})

const stdioServerSchema = z.strictObject({
  ...serverCommon,
  command: z.string().min(1).max(1000),
  args: z.array(z.string().max(10_000)).max(200).default([]),
  /** The process's whole environment besides PATH, HOME, LANG and similar basics: the gateway's own is never passed on. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'), z.string().max(32_768)).default({}),
  cwd: z.string().min(1).max(1000).optional(),
})

/** One upstream server: `url` (HTTP) or `command` (a process the gateway starts and supervises). */
export const mcpServerSchema = z.union([httpServerSchema, stdioServerSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'expected either `url` (an HTTP server) or `command` (a stdio server), with their own options' : undefined),
})
export type McpServerConfig = z.infer<typeof mcpServerSchema>
export type McpHttpServerConfig = z.infer<typeof httpServerSchema>
export type McpStdioServerConfig = z.infer<typeof stdioServerSchema>
export const isStdioServer = (server: McpServerConfig): server is McpStdioServerConfig => 'command' in server

/**
 * Who a rule applies to (every given field must match; none given: everyone) and which tools it allows or denies.
 * Among the rules that apply, a deny beats an allow.
 */
export const visibilityRuleSchema = z
  .strictObject({
    name: z.string().min(1).max(100).optional(),
    key_id: z.string().min(1).max(100).optional(),
    /** The caller's user path is this one or below it. */
    user_path: z
      .string()
      .regex(/^\/[A-Za-z0-9._\-/]*$/, 'expected a user path such as /team-a')
      .optional(),
    /** The caller's role (src/mcp/principal-roles.ts). */
    role: z.string().min(1).max(50).optional(),
    allow: z.array(toolPatternSchema).max(500).default([]),
    deny: z.array(toolPatternSchema).max(500).default([]),
  })
  .refine((r) => r.allow.length + r.deny.length > 0, { message: 'set allow, deny or both' })
export type VisibilityRule = z.infer<typeof visibilityRuleSchema>

export const mcpConfigSchema = z.strictObject({
  servers: z
    .record(z.string(), mcpServerSchema)
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        const parsed = mcpServerNameSchema.safeParse(name)
        if (!parsed.success) ctx.addIssue({ code: 'custom', path: [name], message: `server name: ${parsed.error.issues[0]!.message}` })
      }
    })
    .default({}),
  visibility: z.array(visibilityRuleSchema).default([]),
  /**
   * Key material (at least 32 characters, e.g. `openssl rand -hex 32`) from which the gateway derives the key that
   * encrypts stored upstream OAuth tokens and the key that signs session ids. Every replica needs the same value.
   * Without it both derive from the master key (tokens then become unreadable when the master key changes).
   */
  token_encryption_key: z.string().min(32, 'expected at least 32 characters').optional(),
  /** A session (`Mcp-Session-Id`) ends this long after it began; the client then starts a new one. */
  session_ttl_seconds: integer(60, 30 * 86_400).default(86_400),
  /** Largest JSON-RPC request body. */
  max_request_bytes: integer(1024, 64 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Default deadline of a call (per server: `timeout_seconds`). */
  call_timeout_seconds: integer(1, 3600).default(60),
  /** Default largest upstream answer (per server: `max_response_bytes`). */
  max_response_bytes: integer(1024, 256 * 1024 * 1024).default(16 * 1024 * 1024),
  /** Argument fields replaced by `[REDACTED]` in every audit entry (by name at any depth, `*` wildcards). */
  redact_arguments: z.array(z.string().min(1).max(100)).max(100).default(['password', 'secret', '*token*', 'api_key', 'apikey', 'authorization']),
  /** Largest tools/call arguments kept in an audit entry; larger ones are replaced by their size. */
  audit_max_argument_bytes: integer(0, 1024 * 1024).default(16 * 1024),
  /** How often each server is pinged, and its lists refreshed when a ping fails or a reconnect happens. */
  health_interval_seconds: integer(1, 3600).default(30),
  /** Lists are also fetched again this often, for servers that do not send `list_changed`. */
  refresh_seconds: integer(10, 86_400).default(300),
  /** Open GET streams (server-to-client notifications) one replica keeps at most; past it the oldest is closed. */
  max_notification_streams: integer(1, 100_000).default(1000),
  /** Browser origins allowed to call /mcp (the spec's DNS-rebinding defence); requests without an Origin header are not affected. */
  allowed_origins: z.array(z.string().url()).default([]),
  /** Authorization servers named in the protected-resource metadata (RFC 9728), for clients that discover how to sign in. */
  authorization_servers: z.array(z.url()).default([]),
  /** The gateway's public URL (`https://gateway.example.com`), for the metadata and OAuth redirects; default: from each request's Host. */
  public_url: z.url({ protocol: /^https?$/ }).optional(),
})
export type McpConfig = z.infer<typeof mcpConfigSchema>
