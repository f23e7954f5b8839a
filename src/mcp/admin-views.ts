/**
 * @module What the admin API and the dashboard show of the MCP gateway: servers (how they are reached, never their
 * header values, environment values or arguments, which may hold secrets), their health, their tools and who may
 * see each (the rules that name it, and the server's default), the visibility rules, and callers' upstream
 * credentials (owner, scope, expiry; never a token). The zod schemas are the OpenAPI and the dashboard's parser.
 */
import { z } from 'zod'
import type { StoredMcpCredential } from '../stores/types.ts'
import type { ServerEntry } from './catalog.ts'
import { isStdioServer, type McpServerConfig, type VisibilityRule } from './config.ts'
import type { UpstreamStatus } from './upstream/connection.ts'
import { globMatcher } from './visibility.ts'

const ruleSchema = z.object({
  name: z.string().optional(),
  key_id: z.string().optional(),
  user_path: z.string().optional(),
  role: z.string().optional(),
  allow: z.array(z.string()),
  deny: z.array(z.string()),
})

export const visibilityRuleView = z.object({
  id: z.string().nullable().describe('Null for rules of the configuration file (read-only here)'),
  source: z.enum(['config', 'admin']),
  rule: ruleSchema,
  created_at: z.string().nullable(),
})

const statusSchema = z.object({
  state: z.string().describe('connecting, ready, down, stopped; `per_user` for servers reached with each caller’s token'),
  since: z.string().nullable(),
  last_error: z.string().nullable(),
  reconnects: z.number().int(),
  transport: z.string(),
  server_info: z.object({ name: z.string(), version: z.string() }).nullable(),
  protocol_version: z.string().nullable(),
  lists_fetched_at: z.string().nullable(),
  pid: z.number().int().nullable(),
  stderr_tail: z.string().nullable().describe('Only for principals that may change MCP servers'),
})

export const toolAccessView = z.object({
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  default: z.enum(['visible', 'hidden']),
  rules: z
    .array(z.object({ effect: z.enum(['allow', 'deny']), rule: ruleSchema, id: z.string().nullable() }))
    .describe('The rules that name this tool; for a caller they apply to, a deny beats an allow'),
})

export const mcpServerView = z.object({
  name: z.string(),
  source: z.enum(['config', 'admin']),
  description: z.string().nullable(),
  kind: z.enum(['http', 'stdio']),
  /** Scheme, host and path: no user info, no query. */
  url: z.string().nullable(),
  transport: z.string().nullable(),
  command: z.string().nullable(),
  args_count: z.number().int().nullable(),
  header_names: z.array(z.string()),
  env_names: z.array(z.string()),
  oauth: z.object({ per: z.enum(['key', 'user_path']) }).nullable(),
  default_tool_visibility: z.enum(['visible', 'hidden']),
  timeout_seconds: z.number().nullable(),
  price_per_call_usd: z.number().nullable(),
  forward_identity: z.boolean(),
  status: statusSchema,
  counts: z.object({ tools: z.number().int(), prompts: z.number().int(), resources: z.number().int() }),
  tools: z.array(toolAccessView).optional().describe('Only on the one-server route'),
})
export type McpServerView = z.infer<typeof mcpServerView>

export const mcpCredentialView = z.object({
  id: z.string(),
  server: z.string(),
  owner_kind: z.enum(['key', 'user_path']),
  owner_id: z.string(),
  user_path: z.string().nullable(),
  scope: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
})

export interface RuleWithOrigin {
  id: string | null
  source: 'config' | 'admin'
  rule: VisibilityRule
  created_at: string | null
}

function redactedUrl(url: string): string {
  const u = new URL(url)
  return `${u.protocol}//${u.host}${u.pathname}`
}

const PER_USER_STATUS = (transport: string) => ({
  state: 'per_user',
  since: null,
  last_error: null,
  reconnects: 0,
  transport,
  server_info: null,
  protocol_version: null,
  lists_fetched_at: null,
  pid: null,
  stderr_tail: null,
})

/** The configuration's non-secret parts: names of headers and variables, never their values. */
export function configView(config: McpServerConfig) {
  const stdio = isStdioServer(config)
  return {
    description: config.description ?? null,
    kind: stdio ? ('stdio' as const) : ('http' as const),
    url: stdio ? null : redactedUrl(config.url),
    transport: stdio ? null : config.transport,
    command: stdio ? config.command : null,
    args_count: stdio ? config.args.length : null,
    header_names: stdio ? [] : Object.keys(config.headers),
    env_names: stdio ? Object.keys(config.env) : [],
    oauth: !stdio && config.oauth ? { per: config.oauth.per } : null,
    default_tool_visibility: config.default_tool_visibility,
    timeout_seconds: config.timeout_seconds ?? null,
    price_per_call_usd: config.price_per_call_usd ?? null,
    forward_identity: config.forward_identity,
  }
}

export function serverView(entry: ServerEntry, options: { withTools: boolean; rules: readonly RuleWithOrigin[]; showStderr: boolean }): McpServerView {
  const status: UpstreamStatus | ReturnType<typeof PER_USER_STATUS> = entry.connection?.status() ?? PER_USER_STATUS('streamable-http')
  const view: McpServerView = {
    name: entry.name,
    source: entry.source,
    ...configView(entry.config),
    status: { ...status, stderr_tail: options.showStderr ? status.stderr_tail : null },
    counts: { tools: entry.tools.size, prompts: entry.prompts.size, resources: entry.resources.size },
  }
  if (options.withTools) view.tools = [...entry.tools.values()].map((tool) => toolAccess(entry, tool, options.rules))
  return view
}

function toolAccess(entry: ServerEntry, tool: Record<string, unknown>, rules: readonly RuleWithOrigin[]) {
  const qualified = `${entry.name}/${tool.name as string}`
  const naming: z.infer<typeof toolAccessView>['rules'] = []
  for (const r of rules) {
    if (r.rule.deny.some((p) => globMatcher(p)(qualified))) naming.push({ effect: 'deny', rule: r.rule, id: r.id })
    else if (r.rule.allow.some((p) => globMatcher(p)(qualified))) naming.push({ effect: 'allow', rule: r.rule, id: r.id })
  }
  return {
    name: tool.name as string,
    title: typeof tool.title === 'string' ? tool.title : null,
    description: typeof tool.description === 'string' ? tool.description.slice(0, 1000) : null,
    default: entry.config.default_tool_visibility,
    rules: naming,
  }
}

export function credentialView(c: StoredMcpCredential): z.infer<typeof mcpCredentialView> {
  return {
    id: c.id,
    server: c.server,
    owner_kind: c.ownerKind === 'user_path' ? 'user_path' : 'key',
    owner_id: c.ownerId,
    user_path: c.userPath,
    scope: c.scope,
    expires_at: c.expiresAt,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  }
}
