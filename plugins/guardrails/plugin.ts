/**
 * @module Guardrails (feature `guardrails`). Input rules run before the request leaves: a `block` rule answers
 * 400 `guardrail_blocked` naming the rule (never the matched text); a `mask` rule replaces the match (e.g.
 * `[EMAIL]`) and is recorded as a request revision, so the audit shows what changed. Output rules run on
 * non-streamed responses. Streams are not held back to be checked: output rules do not apply to them. They apply
 * to the rows whose `governance.guardrails` is set, on the texts and tools their API declares (`guardedTexts`,
 * `tools`: src/protocols/api-shape.ts).
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import type { RequestContext } from '../../src/pipeline/context.ts'
import { applyRewrite } from '../../src/pipeline/rewrite.ts'
import type { ApiShape } from '../../src/protocols/api-shape.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { countTextsTokens } from '../../src/tokens/count.ts'
import { detectors, maskSpans, patternDetector, type Detector } from './detectors.ts'
import { guardrailsManifest, type GuardrailRule, type GuardrailsConfig } from './manifest.ts'
import { collectTexts, type TextMap, textMapsOf } from './text-walk.ts'

type Json = Record<string, unknown>

interface CompiledRule {
  rule: GuardrailRule
  detect: Detector
  placeholder: string
}

const PLACEHOLDERS: Record<GuardrailRule['kind'], string> = { email: '[EMAIL]', phone: '[PHONE]', card: '[CARD]', secret: '[SECRET]', pattern: '[REDACTED]' }

function compile(rule: GuardrailRule): CompiledRule {
  const detect = rule.kind === 'pattern' ? patternDetector(rule.pattern, rule.words) : detectors[rule.kind]
  return { rule, detect, placeholder: PLACEHOLDERS[rule.kind] }
}

export function blocked(rule: string, where: 'input' | 'output'): GatewayError {
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    code: 'guardrail_blocked',
    param: where === 'input' ? 'messages' : null,
    message: `The ${where === 'input' ? 'request' : 'response'} was blocked by guardrail rule '${rule}'.`,
  })
}

/** Which rules fire on the texts, and the body with mask rules applied. */
export function evaluate(body: Json, rules: CompiledRule[], map: TextMap) {
  const texts = collectTexts(body, map)
  const blockedBy = rules.find((r) => r.rule.action === 'block' && texts.some((t) => r.detect(t).length > 0))
  if (blockedBy) return { blockedBy: blockedBy.rule.name, body, masked: {} as Record<string, number> }
  const masked: Record<string, number> = {}
  const maskRules = rules.filter((r) => r.rule.action === 'mask')
  if (maskRules.length === 0) return { body, masked }
  const out = map(body, (text) => {
    let t = text
    for (const r of maskRules) {
      const found = r.detect(t)
      if (found.length > 0) {
        masked[r.rule.name] = (masked[r.rule.name] ?? 0) + found.length
        t = maskSpans(t, found, r.placeholder)
      }
    }
    return t
  })
  return { body: out, masked }
}

/** The request's prompt tokens as its API counts them; an API that counts none, by the tokens of its texts. */
function inputTokens(ctx: RequestContext, api: ApiShape, requestTexts: TextMap): Promise<number> {
  return api.promptTokens ? api.promptTokens(ctx.body) : countTextsTokens(collectTexts(ctx.body, requestTexts))
}

/** The row's API when guardrails apply to it and it has texts to read. */
function guardedApi(ctx: RequestContext) {
  const row = endpoint(ctx.endpoint)
  const maps = row.governance.guardrails ? textMapsOf(row.api) : undefined
  return maps && { row, api: row.api, maps }
}

export function createGuardrails(config: GuardrailsConfig) {
  const input = config.rules.filter((r) => r.applies_to.includes('input')).map(compile)
  const output = config.rules.filter((r) => r.applies_to.includes('output')).map(compile)
  const allowedTools = config.allowed_tools ? new Set(config.allowed_tools) : undefined
  return {
    async before(ctx: RequestContext) {
      const guarded = guardedApi(ctx)
      if (!guarded) return CONTINUE
      const { row, api, maps } = guarded
      // `some`, not `find`: a nameless tool's identity is the empty string, which `find` would return as "none".
      if (allowedTools && (api.tools?.offered(ctx.body) ?? []).some((name) => !allowedTools.has(name))) return respondWithError(ctx, blocked('allowed_tools', 'input'))
      if (config.max_input_tokens !== undefined && (await inputTokens(ctx, api, maps.request)) > config.max_input_tokens)
        return respondWithError(ctx, blocked('max_input_tokens', 'input'))
      if (input.length === 0) return CONTINUE
      const result = evaluate(ctx.body, input, maps.request)
      if (result.blockedBy) return respondWithError(ctx, blocked(result.blockedBy, 'input'))
      // A verbatim row (the pass-through) forwards the client's bytes: what would be masked cannot be, so it is refused.
      const maskedBy = Object.keys(result.masked)[0]
      if (maskedBy !== undefined && row.verbatim) return respondWithError(ctx, blocked(maskedBy, 'input'))
      if (Object.keys(result.masked).length > 0) await applyRewrite(ctx, guardrailsManifest.id, () => ({ body: result.body, detail: { masked: result.masked } }))
      return CONTINUE
    },
    async onResponse(ctx: RequestContext, response: Response): Promise<Response | GatewayError> {
      if (output.length === 0 || response.status >= 300 || ctx.stream) return response
      const guarded = guardedApi(ctx)
      // A verbatim row's answer goes to the client as the upstream sent it: output rules do not apply.
      if (!guarded || guarded.row.verbatim || !(response.headers.get('content-type') ?? '').includes('json')) return response
      const body = (await response.json()) as Json
      const result = evaluate(body, output, guarded.maps.response)
      if (result.blockedBy) return blocked(result.blockedBy, 'output')
      return new Response(JSON.stringify(result.body), { status: response.status, headers: response.headers })
    },
  }
}

export const guardrails = definePlugin({
  manifest: guardrailsManifest,
  settings: (config) => createGuardrails(config),
  create: () => ({
    before: (ctx, guard) => guard.before(ctx),
    onResponse: (ctx, response, guard) => guard.onResponse(ctx, response),
  }),
})
