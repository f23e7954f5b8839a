/**
 * @module What rate limits and budgets reserve for a request before it is sent, as its API counts: prompt tokens
 * (`promptTokens` of the shape), the output tokens it may produce (its output-limit fields, in order, else an
 * estimate; none for an API that generates nothing), and the units of work it asks for (images, characters).
 */
import type { ApiShape } from '../protocols/api-shape.ts'

type Json = Record<string, unknown>

export function estimatedPromptTokens(api: ApiShape, body: Json): Promise<number> {
  return api.promptTokens ? api.promptTokens(body) : Promise.resolve(0)
}

/** The first output-limit field the request sets, else `fallback`; 0 for an API that reports no usage (nothing is generated). */
export function requestedOutputTokens(api: ApiShape, body: Json, fallback: number): number {
  if (!api.usage) return 0
  for (const field of api.parameters?.outputLimitFields ?? []) {
    const value = body[field]
    if (typeof value === 'number') return value
  }
  return fallback
}
