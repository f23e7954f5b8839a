/**
 * @module What a mock upstream answers when a request asks for structured output: a small instance of the JSON
 * schema it was given (every property, the first enum value or alternative), deterministic so tests can compare,
 * the way a real model's constrained output always matches the schema.
 */
type Schema = Record<string, any>

const EXAMPLE_STRING = 'Paris'

export function schemaInstance(schema: Schema, root: Schema = schema, depth = 0): unknown {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return null
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key: string) => node?.[key], root)
    return schemaInstance(target ?? {}, root, depth + 1)
  }
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const alternatives = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alternatives)) {
    const chosen = alternatives.find((s: Schema) => s?.type !== 'null') ?? alternatives[0]
    return schemaInstance(chosen, root, depth + 1)
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => schemaInstance(s, root, depth + 1)))
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type
  switch (type) {
    case 'object':
    case undefined: {
      if (!schema.properties && type === undefined) return null
      const out: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = schemaInstance(value as Schema, root, depth + 1)
      return out
    }
    case 'array':
      return [schemaInstance(schema.items ?? {}, root, depth + 1)]
    case 'string':
      return EXAMPLE_STRING
    case 'integer':
      return 21
    case 'number':
      return 21.5
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return null
  }
}
