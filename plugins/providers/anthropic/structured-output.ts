/**
 * @module Chat `response_format` → Anthropic structured output. `json_schema` becomes `output_config.format`
 * (constrained decoding, generally available without a beta header); `json_object` has no Anthropic counterpart
 * short of a schema, so it becomes an instruction in `system` (the closest equivalent: JSON is asked for, not
 * enforced). Models released before structured outputs cannot honour a schema: a 400 before any upstream call,
 * never a free-text 200. Facts: Anthropic's structured outputs guide (output_config.format; Opus/Sonnet 4.5 and
 * later, Haiku 4.5).
 */
import { gatewayErrors } from '../../../src/errors/gateway-error.ts'

type Json = Record<string, unknown>

/** Model ids older than structured outputs: Claude 2, Instant and 3.x, Opus 4 / 4.1 and Sonnet 4. */
const WITHOUT_STRUCTURED_OUTPUT = /^claude-(2|instant|3|opus-4-0|opus-4-1|opus-4-2025|sonnet-4-0|sonnet-4-2025)/

export const JSON_OBJECT_INSTRUCTION = 'Respond with a single JSON object and nothing else: no prose, no Markdown code fences.'

export type StructuredOutput = { kind: 'none' } | { kind: 'schema'; outputConfig: Json } | { kind: 'instruction'; system: string }

export function structuredOutputFor(responseFormat: unknown, model: string): StructuredOutput {
  if (typeof responseFormat !== 'object' || responseFormat === null) return { kind: 'none' }
  const format = responseFormat as Json
  if (format.type === 'json_object') return { kind: 'instruction', system: JSON_OBJECT_INSTRUCTION }
  if (format.type !== 'json_schema') return { kind: 'none' }
  const schema = (format.json_schema as Json | undefined)?.schema
  // OpenAI accepts json_schema without a schema (any JSON); the closest Anthropic equivalent is json_object's.
  if (typeof schema !== 'object' || schema === null) return { kind: 'instruction', system: JSON_OBJECT_INSTRUCTION }
  if (WITHOUT_STRUCTURED_OUTPUT.test(model)) {
    throw gatewayErrors.invalidRequest(
      `response_format (text.format on /v1/responses): model '${model}' cannot follow a JSON schema (Anthropic structured outputs need Claude Opus/Sonnet 4.5, Haiku 4.5 or later). Use a newer model, or response_format {"type":"json_object"}.`,
      'response_format',
      'unsupported_parameter',
    )
  }
  return { kind: 'schema', outputConfig: { format: { type: 'json_schema', schema } } }
}
