/**
 * @module Responses API tools → chat tools, and the way back for the calls. What Codex sends is the model here:
 * plain `function` and free-form `custom` tools; `namespace` tools (a named group of function/custom tools),
 * flattened into one chat tool each and reported back with their `namespace`; the `additional_tools` input item,
 * whose tools count like top-level ones; and hosted tools (`web_search`, `tool_search`, `file_search`, …) that
 * only OpenAI runs, which are dropped from a translated request and listed so the caller can say so.
 */
import { type GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What the client called a tool, for reporting its calls back. */
export interface ClientToolName {
  name: string
  namespace?: string
  /** Free-form tool: its calls are `custom_tool_call` items with raw `input`. */
  custom: boolean
}

/** Chat tool names (flattened) → the client's names. */
export type ToolNames = ReadonlyMap<string, ClientToolName>

export interface TranslatedTools {
  tools: Json[]
  names: ToolNames
  /** Types of the hosted tools left out, in request order without repeats. */
  dropped: string[]
}

/**
 * One chat tool name for a namespaced tool. Codex's MCP namespaces end in `__` (`mcp__server__`), which makes
 * `mcp__server__tool`, the name older Codex versions used themselves; others get `__` between the two. Names
 * over 64 characters are shortened with a hash.
 */
export function flatToolName(namespace: string | undefined, name: string): string {
  if (!namespace) return name
  const flat = namespace.endsWith('__') ? `${namespace}${name}` : `${namespace}__${name}`
  return flat.length <= MAX_TOOL_NAME ? flat : shortened(flat)
}

/** OpenAI, Anthropic and Gemini all cap function names at 64 characters. */
const MAX_TOOL_NAME = 64

/** A long flat name as its first characters and a hash of the whole, the same every time (calls map back by it). */
function shortened(flat: string): string {
  const hash = new Bun.CryptoHasher('sha256').update(flat).digest('hex').slice(0, 10)
  return `${flat.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`
}

/** Every tool definition of the request: `tools`, then the tools of each `additional_tools` input item. */
function declaredTools(body: Json): unknown[] {
  const out: unknown[] = Array.isArray(body.tools) ? [...body.tools] : []
  if (Array.isArray(body.input)) for (const item of body.input) if (isObject(item) && item.type === 'additional_tools' && Array.isArray(item.tools)) out.push(...item.tools)
  return out
}

function functionTool(tool: Json, name: string): Json {
  const fn: Json = { name }
  if (tool.description !== undefined && tool.description !== '') fn.description = tool.description
  if (tool.parameters !== undefined) fn.parameters = tool.parameters
  if (tool.strict !== undefined && tool.strict !== null) fn.strict = tool.strict
  return { type: 'function', function: fn }
}

/** A free-form tool: the model answers with raw text, carried as one string argument. */
function customTool(tool: Json, name: string): Json {
  return {
    type: 'function',
    function: {
      name,
      description: `${String(tool.description ?? '')}\nReturn the raw tool input as the "input" string.`.trim(),
      parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
    },
  }
}

/** The request's tools in chat form, or the 400 for a tool that is not an object. */
export function translateTools(body: Json): TranslatedTools | GatewayError {
  const tools: Json[] = []
  const names = new Map<string, ClientToolName>()
  const dropped: string[] = []
  const add = (tool: unknown, namespace: string | undefined, where: string): GatewayError | undefined => {
    if (!isObject(tool)) return gatewayErrors.invalidRequest(`${where}: expected an object`, where)
    if (tool.type === 'function' && isObject(tool.function)) {
      tools.push(tool) // already chat-shaped (clients mix both)
      return undefined
    }
    if ((tool.type === 'function' || tool.type === 'custom') && typeof tool.name === 'string') {
      const flat = flatToolName(namespace, tool.name)
      const custom = tool.type === 'custom'
      tools.push(custom ? customTool(tool, flat) : functionTool(tool, flat))
      names.set(flat, { name: tool.name, ...(namespace ? { namespace } : {}), custom })
      return undefined
    }
    if (tool.type === 'namespace' && typeof tool.name === 'string' && !namespace) {
      const members = Array.isArray(tool.tools) ? tool.tools : []
      for (const [j, member] of members.entries()) {
        const refused = add(member, tool.name, `${where}.tools[${j}]`)
        if (refused) return refused
      }
      return undefined
    }
    // Hosted tools run inside OpenAI's service; a translated target has nothing to run them with.
    const type = String(tool.type ?? 'unknown')
    if (!dropped.includes(type)) dropped.push(type)
    return undefined
  }
  for (const [i, tool] of declaredTools(body).entries()) {
    const refused = add(tool, undefined, `tools[${i}]`)
    if (refused) return refused
  }
  return { tools, names, dropped }
}

/** The chat `tool_choice` for a Responses one; a choice naming a dropped hosted tool becomes `auto`. */
export function toolChoiceToChat(choice: unknown, names: ToolNames): unknown {
  if (typeof choice === 'string') return choice
  if (isObject(choice) && (choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    const flat = flatToolName(typeof choice.namespace === 'string' ? choice.namespace : undefined, choice.name)
    return { type: 'function', function: { name: flat } }
  }
  if (isObject(choice) && choice.type === 'allowed_tools') return choice.mode === 'required' ? 'required' : 'auto'
  if (isObject(choice) && !names.has(String(choice.name ?? ''))) return 'auto'
  return choice
}

/** The client's name for a chat tool call's name; unknown names come back as they are. */
export function clientToolName(flat: string, names: ToolNames): ClientToolName {
  return names.get(flat) ?? { name: flat, custom: false }
}
