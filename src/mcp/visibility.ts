/**
 * @module Which tools a caller may see and call. Rules (YAML `mcp.visibility` and the admin API) name who they
 * apply to (key id, user path subtree, role; none: everyone) and allow or deny `server/tool` patterns with `*`
 * wildcards. For one caller, among the rules that apply: a deny beats an allow; a tool no rule names follows its
 * server's `default_tool_visibility`. A server's prompts and resources go with its tools: they are offered to a
 * caller who may see at least one of its tools (or, for a server without tools, who is not denied `server/*`).
 *
 * The decision is made once per caller and kept (`ToolView`), so listing 500 tools costs map lookups; hidden
 * tools are refused by name exactly as unknown ones are.
 */
import { isWithinUserPath } from '../keys/user-path.ts'
import type { VisibilityRule } from './config.ts'

export interface Caller {
  keyId?: string
  userPath?: string
  roles: readonly string[]
}

type Matcher = (qualified: string) => boolean

interface CompiledRule {
  rule: VisibilityRule
  allow: Matcher[]
  deny: Matcher[]
}

/** `*` matches any run of characters (also `/`); everything else literally. */
export function globMatcher(pattern: string): Matcher {
  if (pattern === '*') return () => true
  if (!pattern.includes('*')) return (q) => q === pattern
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  const re = new RegExp(`^${source}$`)
  return (q) => re.test(q)
}

function applies(rule: VisibilityRule, caller: Caller): boolean {
  if (rule.key_id !== undefined && rule.key_id !== caller.keyId) return false
  if (rule.user_path !== undefined) {
    const root = rule.user_path.replace(/\/+$/, '') || '/'
    if (caller.userPath === undefined || !isWithinUserPath(caller.userPath, root)) return false
  }
  if (rule.role !== undefined && !caller.roles.includes(rule.role)) return false
  return true
}

const MAX_VIEWS = 10_000

/** What one caller may see. Made by `ToolVisibility.viewFor`; decisions are memoised per tool. */
export class ToolView {
  private readonly decided = new Map<string, boolean>()

  constructor(
    /** Same for every caller the same rules apply to: a cache key for lists built from this view. */
    readonly signature: string,
    private readonly rules: readonly CompiledRule[],
    private readonly defaultOf: (server: string) => 'visible' | 'hidden',
  ) {}

  canSeeTool(server: string, tool: string): boolean {
    const qualified = `${server}/${tool}`
    let seen = this.decided.get(qualified)
    if (seen === undefined) {
      seen = this.decide(server, qualified)
      // Bounded by the catalogue's size in practice; the cap guards against names a client invents.
      if (this.decided.size < 100_000) this.decided.set(qualified, seen)
    }
    return seen
  }

  /** Prompts and resources of the server; `tools` are the server's tool names. */
  canUseServer(server: string, tools: readonly string[]): boolean {
    if (tools.length === 0) return !this.rules.some((r) => r.deny.some((m) => m(`${server}/*`)))
    return tools.some((tool) => this.canSeeTool(server, tool))
  }

  private decide(server: string, qualified: string): boolean {
    let allowed = false
    for (const r of this.rules) {
      if (r.deny.some((m) => m(qualified))) return false
      if (!allowed && r.allow.some((m) => m(qualified))) allowed = true
    }
    return allowed || this.defaultOf(server) === 'visible'
  }
}

export class ToolVisibility {
  private readonly compiled: CompiledRule[]
  private readonly views = new Map<string, ToolView>()

  constructor(
    rules: readonly VisibilityRule[],
    private readonly defaultOf: (server: string) => 'visible' | 'hidden',
  ) {
    this.compiled = rules.map((rule) => ({ rule, allow: rule.allow.map(globMatcher), deny: rule.deny.map(globMatcher) }))
  }

  viewFor(caller: Caller): ToolView {
    const applying: CompiledRule[] = []
    let signature = ''
    for (let i = 0; i < this.compiled.length; i++) {
      if (applies(this.compiled[i]!.rule, caller)) {
        applying.push(this.compiled[i]!)
        signature += `${i},`
      }
    }
    let view = this.views.get(signature)
    if (!view) {
      if (this.views.size >= MAX_VIEWS) this.views.delete(this.views.keys().next().value!)
      view = new ToolView(signature, applying, this.defaultOf)
      this.views.set(signature, view)
    }
    return view
  }
}
