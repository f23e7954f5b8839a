/**
 * @module The tools a request offers the model, by the name `allowed_tools` knows each one by. A function or custom
 * tool (chat `tools[].function.name`, legacy chat `functions[].name`, Responses `{type:"function",name}`, Anthropic
 * `{name, input_schema}`) is known by its name. A built-in tool is known by its type: Responses' `web_search`,
 * `file_search`, `code_interpreter`, `mcp`…, Anthropic's versioned `web_search_20250305`, `bash_20250124`… (their
 * names are fixed by the type and could collide with a function's). Chat Completions' `web_search_options` is the
 * built-in `web_search`. A tool with neither is known by the empty name, which no list allows.
 */
type Json = Record<string, unknown>

const NAMED_TYPES = new Set(['function', 'custom'])

/** The name `allowed_tools` knows `tool` by (see the module comment). */
export function toolIdentity(tool: unknown): string {
  if (typeof tool !== 'object' || tool === null) return ''
  const { type, name, function: fn } = tool as Json
  if (typeof type === 'string' && !NAMED_TYPES.has(type)) return type
  const named = typeof fn === 'object' && fn !== null ? (fn as Json).name : name
  return typeof named === 'string' ? named : ''
}

/** Every tool the body offers, by identity (duplicates kept). */
export function offeredTools(body: Json): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : []
  const functions = Array.isArray(body.functions) ? body.functions : []
  const offered = [...tools, ...functions].map(toolIdentity)
  if (body.web_search_options !== undefined && body.web_search_options !== null) offered.push('web_search')
  return offered
}
