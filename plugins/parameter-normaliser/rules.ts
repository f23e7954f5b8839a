/**
 * @module The parameter rules, applied as each provider type's row declares (`parameters` in
 * `plugins/providers/<id>/manifest.ts`). OpenAI reasoning models (o-series, gpt-5) reject `max_tokens` and
 * non-default sampling; most OpenAI-compatible providers know `max_tokens` but not `max_completion_tokens` and
 * reject OpenAI-only fields. Translated providers (Anthropic, Gemini) are adapted by their adapters.
 */
import { PROVIDER_TYPES, type ProviderType } from '../../src/config/provider-catalog.ts'

export interface NormaliseOutcome {
  body: Record<string, unknown>
  changes: string[]
}

/** Fields only OpenAI's own API accepts. */
const OPENAI_ONLY = ['store', 'metadata', 'service_tier', 'prediction', 'modalities', 'audio', 'web_search_options', 'prompt_cache_key', 'safety_identifier', 'verbosity']

export function isOpenAIReasoningModel(model: string): boolean {
  return REASONING_MODEL.test(model.slice(model.lastIndexOf('/') + 1))
}

const REASONING_MODEL = /^(o\d|gpt-5)/

export function normaliseParameters(body: Record<string, unknown>, providerType: ProviderType, model: string, dropUnsupported: boolean): NormaliseOutcome {
  const rules = PROVIDER_TYPES[providerType].parameters
  // Most requests (every one to OpenAI but a reasoning model's) have no rule to apply: no copy of the body for them.
  const reasoning = rules.style === 'openai' && isOpenAIReasoningModel(model)
  if (rules.style === 'translated' || (rules.style === 'openai' && !reasoning)) return { body, changes: [] }
  const out = { ...body }
  const changes: string[] = []

  if (rules.style === 'openai') {
    if (reasoning) {
      if (out.max_tokens !== undefined && out.max_completion_tokens === undefined) {
        out.max_completion_tokens = out.max_tokens
        delete out.max_tokens
        changes.push('max_tokens renamed to max_completion_tokens (reasoning model)')
      }
      for (const field of ['temperature', 'top_p']) {
        if (out[field] !== undefined && out[field] !== 1 && dropUnsupported) {
          delete out[field]
          changes.push(`${field} dropped: reasoning models accept only the default`)
        }
      }
    }
    return { body: out, changes }
  }

  if (out.max_completion_tokens !== undefined) {
    if (out.max_tokens === undefined) out.max_tokens = out.max_completion_tokens
    delete out.max_completion_tokens
    changes.push('max_completion_tokens renamed to max_tokens')
  }
  if (dropUnsupported) {
    for (const field of OPENAI_ONLY) {
      if (out[field] !== undefined && !rules.acceptsOpenAIOnly.includes(field)) {
        delete out[field]
        changes.push(`${field} dropped: not supported by ${providerType}`)
      }
    }
  }
  return { body: out, changes }
}

/**
 * Every field these rules or the clamp may set, rename or drop: what differs between two targets' bodies. The
 * output-token fields of every API are here (an API's own are its shape's `outputLimitFields`).
 */
export const GOVERNED_FIELDS: readonly string[] = ['max_tokens', 'max_completion_tokens', 'max_output_tokens', 'temperature', 'top_p', ...OPENAI_ONLY]

/** Lowers every one of `fields` above `limit` to it; each change names the field, both values and the model. */
export function clampOutputTokens(body: Record<string, unknown>, fields: readonly string[], limit: number, selector: string): NormaliseOutcome {
  const changes: string[] = []
  let out = body
  for (const field of fields) {
    const value = body[field]
    if (typeof value === 'number' && value > limit) {
      if (out === body) out = { ...body }
      out[field] = limit
      changes.push(`${field} clamped from ${value} to ${limit} (output limit of ${selector})`)
    }
  }
  return { body: out, changes }
}
