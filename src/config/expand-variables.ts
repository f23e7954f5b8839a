/**
 * @module `${VAR}` references in the parsed YAML config, expanded value by value after parsing, so a variable's
 * content is never read as YAML: a secret with ` #` stays whole, `: ` and newlines cannot add or change keys.
 *
 * - `${VAR}` is the variable's content; unset is an error naming the variable and the field (set-but-empty is '').
 * - `${VAR:-default}` is the default when VAR is unset or empty.
 * - `$${` is a literal `${`. Names are upper-case letters, digits and `_`; anything else stays as written.
 * - Only values are expanded (strings inside mappings and lists at any depth), never keys or comments.
 * Expanded values are strings; numeric and boolean settings accept strings.
 */

type Env = Record<string, string | undefined>

export interface Expansion {
  /** The document with every string value expanded. */
  value: unknown
  /** One line per unset variable: `<field path>: environment variable X is not set`. */
  problems: string[]
  /** Field path (`a.0.b`, as in zod issues) → the variables its value was built from; never the values. */
  sources: Map<string, string[]>
}

const REFERENCE = /\$\$\{|\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g

export function expandVariables(doc: unknown, env: Env): Expansion {
  const problems: string[] = []
  const sources = new Map<string, string[]>()

  const expandString = (text: string, path: (string | number)[]): string => {
    const used: string[] = []
    const result = text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
      if (name === undefined) return '${' // the `$${` escape
      used.push(name)
      const value = env[name]
      if (fallback !== undefined) return value ? value : fallback
      if (value === undefined) {
        problems.push(`${displayPath(path)}: environment variable ${name} is not set (write \${${name}:-default} for an optional value)`)
        return match
      }
      return value
    })
    if (used.length > 0) sources.set(path.join('.'), used)
    return result
  }

  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return expandString(node, path)
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]))
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(node)) out[key] = walk(item, [...path, key])
      return out
    }
    return node
  }

  return { value: walk(doc, []), problems, sources }
}

/** `virtual_models[0].target`, the way config errors name fields. */
function displayPath(path: (string | number)[]): string {
  if (path.length === 0) return '(top level)'
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('')
}
