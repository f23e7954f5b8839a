/**
 * @module The provider adapter contract. The canonical request is the OpenAI Chat Completions shape; an adapter
 * maps it to its upstream and answers in OpenAI wire format (JSON or `data:`-only SSE), so everything after the
 * route stage speaks one protocol.
 */
import type { ProviderType } from '../config/provider-catalog.ts'
import type { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { AttemptKind } from '../pipeline/snapshots.ts'
import type { UpstreamAuth } from './upstream-auth.ts'

/** One configured provider (several may share a type under different names). */
export interface ProviderInstance {
  name: string
  type: ProviderType
  baseUrl: string
  apiKey?: string
  /** Static models from config: always listed and resolvable. */
  staticModels: readonly string[]
  apiVersion?: string
  nativeResponses: boolean
  /** Bedrock's AWS region. */
  region?: string
  /** Vertex AI's Google Cloud project and location. */
  project?: string
  location?: string
  /** Cloud credentials used instead of `apiKey`, applied by fetchUpstream and fetchModelIds to every request. */
  auth?: UpstreamAuth
}

/** Where a request goes: `selector` is `<provider name>/<upstream model>`. */
export interface ResolvedTarget {
  providerName: string
  providerType: ProviderType
  model: string
  selector: string
}

export interface AdapterCall {
  provider: ProviderInstance
  target: ResolvedTarget
  /** Canonical body with `model` already set to the upstream model id. */
  body: Record<string, unknown>
  ctx: RequestContext
  attemptKind: AttemptKind
  limits: UpstreamLimits
}

export interface UpstreamLimits {
  /** Until the first body byte. */
  ttfbMs: number
  /** Between two body chunks. */
  idleMs: number
  /** Largest non-stream answer read from an upstream; past it the call fails with 502 upstream_response_too_large. */
  maxResponseBytes: number
  /** Provider credentials to scrub from anything that leaves the gateway. */
  secrets: readonly string[]
}

/**
 * What an upstream call ends with: the answer, or the GatewayError the upstream's failure became (its 4xx/5xx,
 * a timeout, an unreachable host, an unreadable or too-large answer), already recorded in the call's attempt.
 * Expected failures are returned, never thrown; a throw is a bug. A bare union, not a wrapper object, so the
 * happy path allocates nothing for it.
 */
export type UpstreamResult = Response | GatewayError

export interface ProviderAdapter {
  id: string
  /** Chat Completions; the returned Response is OpenAI wire format. */
  chatCompletions(call: AdapterCall): Promise<UpstreamResult>
  /** Native Responses API, for providers that speak it. */
  responses?(call: AdapterCall): Promise<UpstreamResult>
  /** Native Anthropic Messages API (the body is the client's Messages request), for providers that speak it. */
  messages?(call: AdapterCall): Promise<UpstreamResult>
  /**
   * Whether `responses` / `messages` serves this instance and model, for an adapter whose upstream speaks that API
   * for some only (Bedrock: Messages for Anthropic models; Azure: not on the Foundry models endpoint); the others go
   * through chat. Every instance and model when absent.
   */
  speaksNatively?(api: 'responses' | 'messages' | 'completions', provider: ProviderInstance, model: string): boolean
  /** OpenAI's legacy completions (`/v1/completions`), answered in OpenAI wire format (JSON or `data:`-only SSE). */
  completions?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI embeddings (`/v1/embeddings`), answered in OpenAI's list shape; without it the endpoint is refused. */
  embeddings?(call: AdapterCall): Promise<UpstreamResult>
  /** Native Anthropic token counting (`/v1/messages/count_tokens`); without it the gateway answers an estimate. */
  countMessageTokens?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI image generation (`/images/generations`), JSON or its event stream as the upstream sent it. */
  imagesGenerations?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI image edits (`/images/edits`): the client's multipart upload (images, mask) streamed through (`call.ctx.upload`). */
  imagesEdits?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI speech to text (`/audio/transcriptions`): the client's multipart upload streamed through (`call.ctx.upload`). */
  audioTranscriptions?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI speech translation into English (`/audio/translations`), an upload like transcriptions. */
  audioTranslations?(call: AdapterCall): Promise<UpstreamResult>
  /** The Responses API's stored responses and its token count, for providers that keep responses (OpenAI's own API). */
  responsesLifecycle?: ResponsesLifecycle
  /** OpenAI text to speech (`/audio/speech`): the audio as it arrives (fetchUpstream's `binaryAnswer`), or its SSE. */
  audioSpeech?(call: AdapterCall): Promise<UpstreamResult>
  /** Rerank in the shape Cohere, Jina and Voyage share (`/rerank`: Jina, vLLM). */
  rerank?(call: AdapterCall): Promise<UpstreamResult>
  /** OpenAI moderations (`/moderations`). */
  moderations?(call: AdapterCall): Promise<UpstreamResult>
  /** The chat translation on its own, for bodies carried in another envelope (the provider's batch API); adapters that translate chat have it. */
  chatTranslation?: ChatTranslation
  /** The headers that carry the instance's API key (cloud credentials are applied by fetchUpstream), for the pass-through. */
  credentialHeaders?(provider: ProviderInstance): Record<string, string>
  /** Model ids as the upstream names them, or why the list could not be had (`fetchModelIds`, src/providers/model-list.ts). */
  listModels(provider: ProviderInstance, signal: AbortSignal): Promise<string[] | GatewayError>
}

/**
 * An adapter's translation of chat requests to its upstream's requests and of its answers back, without a call:
 * src/batches/providers/ submits the translated bodies to the provider's batch API and translates its results.
 */
export interface ChatTranslation {
  /** The upstream's request body for a chat body (`model` the upstream id), or the 400 for what the model cannot do. */
  request(body: Record<string, unknown>, model: string): Record<string, unknown> | GatewayError
  /** An upstream answer as an OpenAI chat completion, or the error it stands for (a prompt the provider blocked). */
  answer(body: Record<string, unknown>, model: string, providerName: string): Record<string, unknown> | GatewayError
}

/** Query parameters passed on to the provider (each route's documented ones; the rest stay with the gateway). */
export type UpstreamQuery = Readonly<Record<string, string | undefined>>

/**
 * The provider's routes for a stored response (`id`: its id as the provider gave it) and the input token count.
 * Each answers in the provider's own wire format, which is the client's (OpenAI's Responses API).
 */
export interface ResponsesLifecycle {
  retrieve(call: AdapterCall, id: string, query: UpstreamQuery): Promise<UpstreamResult>
  delete(call: AdapterCall, id: string): Promise<UpstreamResult>
  cancel(call: AdapterCall, id: string): Promise<UpstreamResult>
  inputItems(call: AdapterCall, id: string, query: UpstreamQuery): Promise<UpstreamResult>
  inputTokens(call: AdapterCall): Promise<UpstreamResult>
}
