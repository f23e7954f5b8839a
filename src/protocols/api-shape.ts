/**
 * @module What the gateway knows about one API's bodies (Chat Completions, Responses, Anthropic Messages, …): one
 * `ApiShape` per API (`src/protocols/<api>/shape.ts`), named by every row of the endpoint table that speaks it.
 * Plugins and the pipeline ask the shape (`endpoint(ctx.endpoint).api.systemPrompt`) instead of keeping tables
 * keyed by endpoint ids, so a row added later is handled by what its shape declares.
 *
 * Every member is required and `null` means "this API has none of it": a new shape has to decide each one, and
 * the type checker refuses a shape that forgot one.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import type { StreamCodec } from '../pipeline/stream-codecs.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { TokenUsage } from '../pipeline/snapshots.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../providers/types.ts'
import type { UnitUsage, UsageUnit } from '../usage/units.ts'
import type { IngressProtocol } from './types.ts'

type Json = Record<string, unknown>

export interface ApiShape {
  /** Names the API in documents and tests (`chat`, `responses`, …); never compared by plugins. */
  readonly id: string
  /** How a request reaches a provider; null: never sent upstream (answered by the gateway, the row's `local`). */
  readonly upstream: UpstreamRoute | null
  /** Reads this API's event streams (what a fold keeps, the error frame that ends a broken stream); null: never streams. */
  readonly streamCodec: StreamCodec | null
  /** The JSON body of an error in this API's own shape; null: the gateway's `{"error": GatewayError}`. */
  readonly errorBody: ((error: GatewayError) => unknown) | null
  /** `gen_ai.operation.name` of its trace spans (OpenTelemetry GenAI conventions); null when no model generates. */
  readonly genAiOperation: 'chat' | 'text_completion' | 'embeddings' | null
  /** Where an operator's system prompt goes (the system-prompt rewriter); null: the API has no system prompt. */
  readonly systemPrompt: SystemPromptPlacement | null
  /** Where tool results are (the context slimmer); null: the API carries none. */
  readonly toolResults: ToolResultsRewrite | null
  /** The texts of a request and an answer that a model reads or wrote (guardrails read and mask them); null: none. */
  readonly guardedTexts: GuardedTexts | null
  /** The tools a request offers the model (guardrails' `allowed_tools` and the scan of their descriptions); null: none. */
  readonly tools: OfferedTools | null
  /**
   * Prompt tokens of a request: rate limits and budgets reserve them, guardrails' `max_input_tokens` compares them,
   * rewriters' savings and usage estimates are measured in them. null: the API's input is not text (audio).
   */
  readonly promptTokens: ((body: Json) => Promise<number>) | null
  /** The request's output-limit fields and whether the provider parameter rules are written for its fields; null: none. */
  readonly parameters: ParameterFields | null
  /** How an answer is cached and replayed; null: answers are not cached. */
  readonly cache: CachePolicy | null
  /** How usage is read from an answer and what units it carries besides tokens; null: the API reports no usage. */
  readonly usage: UsageReading | null
}

/** A provider method that answers one API call (an adapter's `chatCompletions`, `responses`, `messages`, …). */
export type AdapterMethod = (call: AdapterCall) => Promise<UpstreamResult>

/**
 * How `callTarget` (src/providers/call-target.ts) serves the API on a target, tried in this order: the provider's
 * own implementation, a translation over Chat Completions, the gateway's own answer. A provider that offers none of
 * them is refused with 400 `unsupported_endpoint`.
 */
export interface UpstreamRoute {
  /**
   * The adapter's method for this API when the provider speaks it natively for `model` (`speaksNatively` of the
   * adapter: Bedrock speaks Messages for Anthropic models only); undefined when it does not.
   */
  native(adapter: ProviderAdapter, provider: ProviderInstance, model: string): AdapterMethod | undefined
  /** Serves the API over the provider's Chat Completions, translating both ways; null: no translation exists. */
  overChat: IngressProtocol | null
  /**
   * The gateway's own answer when the provider cannot (count_tokens' estimate, a translated thread's stored
   * response); null: none.
   */
  fallback: ((body: Json, ctx: RequestContext) => Promise<UpstreamResult>) | null
}

export const SYSTEM_PROMPT_MODES = ['prepend', 'append', 'override'] as const
export type SystemPromptMode = (typeof SYSTEM_PROMPT_MODES)[number]

/** The body with the operator's prompt placed; undefined when the body has no place for one (chat without `messages`). */
export type SystemPromptPlacement = (body: Json, prompt: string, mode: SystemPromptMode) => Json | undefined

export type Slim = (text: string) => string
/** The body with every tool result's text slimmed and how many changed; undefined when the body has none of its structure. */
export type ToolResultsRewrite = (body: Json, slim: Slim) => { body: Json; slimmed: number } | undefined

/**
 * Top-level fields whose strings (and the text fields inside them: `content`, `text`, `arguments`, …) a model reads
 * or wrote. Names, ids, roles and enums are structure, not text, and stay as they are.
 */
export interface GuardedTexts {
  request: readonly string[]
  response: readonly string[]
}

export interface OfferedTools {
  /** Top-level fields holding tool definitions; every `description` in them is text the model reads. */
  roots: readonly string[]
  /** Every tool the request offers by the name `allowed_tools` knows it by (a built-in tool by its type). */
  offered(body: Json): string[]
}

export interface ParameterFields {
  /** Fields that cap the answer's tokens, the one that wins first; clamped to the target model's output limit, per attempt. */
  outputLimitFields: readonly string[]
  /** The provider types' parameter rules (`parameters` in their manifests) are written for this API's fields. */
  providerRules: boolean
}

export interface CachePolicy {
  /** Request fields that change only how the answer is delivered (`stream`): left out of the cache key. */
  deliveryFields: readonly string[]
  /** A stored answer replayed as this API's event stream for a streamed hit; null: streamed requests are not cached. */
  replayStream: ((answer: Json, request: Json) => ReadableStream<Uint8Array>) | null
}

export interface UsageReading {
  /** The units besides tokens that this API's usage may carry (images, audio seconds, …); empty when tokens only. */
  units: readonly UsageUnit[]
  /**
   * A stream reports usage only when the request asks (`stream_options.include_usage`), in a `choices: []` chunk of
   * its own: the usage meter asks and hides the chunk from a client that did not.
   */
  streamUsageOnRequest: boolean
  /**
   * The usage of an answer: `reported` is what the upstream reported (a JSON answer's `usage`, the usage a stream's
   * fold found), `request` the body as sent, `answer` a JSON answer whole (verbose_json's `duration`) or the text of a
   * `text/*` answer (an srt transcript). Undefined when neither says anything.
   */
  read(reported: unknown, request: Json, answer?: Json | string): TokenUsage | undefined
  /** Output tokens counted by the gateway when the upstream reported none (`answer`: the captured answer document). */
  countOutputTokens(answer: Json): Promise<number>
  /**
   * The units a request asks for, known before the call (n images of a size and quality, characters to speak):
   * budgets reserve their price and the usage record falls back on them. null: the API's units are known only from the answer.
   */
  requestedUnits: ((request: Json) => UnitUsage | undefined) | null
}
