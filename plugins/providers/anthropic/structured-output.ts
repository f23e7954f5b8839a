/**
 * @module Chat `response_format` → Anthropic structured output. `json_schema` becomes `output_config.format`
 * (constrained decoding, generally available without a beta header); `json_object` has no Anthropic counterpart
 * short of a schema, so it becomes an instruction in `system` (the closest equivalent: JSON is asked for, not
 * enforced). The schema is prepared as Anthropic's SDKs prepare it (anthropicSchema). Models released before
 * structured outputs cannot honour a schema: a 400 before any upstream call,
 * never a free-text 200. Facts: Anthropic's structured outputs guide (output_config.format; Opus/Sonnet 4.5 and
 * later, Haiku 4.5).
 */
import { type GatewayError, gatewayErrors } from '../../../src/errors/gateway-error.ts'

type Json = Record<string, unknown>

/** Model ids older than structured outputs: Claude 2, Instant and 3.x, Opus 4 / 4.1 and Sonnet 4. */
const WITHOUT_STRUCTURED_OUTPUT = /^claude-(2|instant|3|opus-4-0|opus-4-1|opus-4-2025|sonnet-4-0|sonnet-4-2025)/

export const JSON_OBJECT_INSTRUCTION = 'Respond with a single JSON object and nothing else: no prose, no Markdown code fences.'

/** `unsupported` is the 400 to answer instead of calling the upstream. */
export type StructuredOutput = { kind: 'none' } | { kind: 'schema'; outputConfig: Json } | { kind: 'instruction'; system: string } | { kind: 'unsupported'; error: GatewayError }

export function structuredOutputFor(responseFormat: unknown, model: string): StructuredOutput {
  if (typeof responseFormat !== 'object' || responseFormat === null) return { kind: 'none' }
  const format = responseFormat as Json
  if (format.type === 'json_object') return { kind: 'instruction', system: JSON_OBJECT_INSTRUCTION }
  if (format.type !== 'json_schema') return { kind: 'none' }
  const schema = (format.json_schema as Json | undefined)?.schema
  // OpenAI accepts json_schema without a schema (any JSON); the closest Anthropic equivalent is json_object's.
  if (typeof schema !== 'object' || schema === null) return { kind: 'instruction', system: JSON_OBJECT_INSTRUCTION }
  if (WITHOUT_STRUCTURED_OUTPUT.test(model)) {
    const error = gatewayErrors.invalidRequest(
      `response_format (text.format on /v1/responses): model '${model}' cannot follow a JSON schema (Anthropic structured outputs need Claude Opus/Sonnet 4.5, Haiku 4.5 or later). Use a newer model, or response_format {"type":"json_object"}.`,
      'response_format',
      'unsupported_parameter',
    )
    return { kind: 'unsupported', error }
  }
  return { kind: 'schema', outputConfig: { format: { type: 'json_schema', schema: anthropicSchema(schema as Json) } } }
}

/** Bounds Anthropic's constrained decoding does not take (minItems 0 and 1 it does). */
const UNSUPPORTED_BOUNDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]
const SUBSCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems']
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions']

/**
 * A JSON schema as Anthropic's structured outputs take it, the way Anthropic's own SDKs prepare one: every object
 * closed (`additionalProperties: false`; an answer without extra keys still matches the client's schema), and
 * numeric, length and count bounds moved into the description, where the model still reads them. The client's
 * own validation (e.g. openai-python `parse`) still checks the bounds on the answer.
 */
export function anthropicSchema(schema: Json): Json {
  const out: Json = {}
  const bounds: string[] = []
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED_BOUNDS.includes(key) && !(key === 'minItems' && (value === 0 || value === 1))) bounds.push(`${key}: ${JSON.stringify(value)}`)
    else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map((s) => (isSchema(s) ? anthropicSchema(s) : s))
    else if (SUBSCHEMA_MAPS.includes(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, isSchema(s) ? anthropicSchema(s) : s]))
    else if ((key === 'items' || key === 'not') && isSchema(value)) out[key] = anthropicSchema(value)
    else out[key] = value
  }
  const isObject = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object')) || isSchema(out.properties)
  if (isObject && out.additionalProperties === undefined) out.additionalProperties = false
  if (bounds.length > 0) out.description = `${typeof out.description === 'string' && out.description ? `${out.description} ` : ''}{${bounds.join(', ')}}`
  return out
}

const isSchema = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
