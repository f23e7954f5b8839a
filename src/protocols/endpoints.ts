/**
 * @module The endpoint table: every API the gateway serves under /v1, in one place. The HTTP shell registers a
 * route per row; the pipeline and the plugins ask the row what they need (is the body JSON, does it name a model
 * to route, which schema checks it, which protocol translates it onto Chat Completions, which codec reads its
 * stream, is its usage metered). Adding an endpoint is one row plus its translator (src/protocols/<name>/).
 */
import type { z } from 'zod'
import { chatStreamCodec, type StreamCodec } from '../pipeline/stream-codecs.ts'
import { anthropicMessagesProtocol } from './anthropic-messages/protocol.ts'
import { messagesStreamCodec } from './anthropic-messages/stream-codec.ts'
import { chatCompletionRequest, countTokensRequest, messagesRequest, responsesRequest } from './request-schemas.ts'
import { anthropicMessage, chatCompletion, countTokensResponse, model, modelList, responsesResponse } from './response-schemas.ts'
import { responsesProtocol } from './responses/protocol.ts'
import { responsesStreamCodec } from './responses/stream-codec.ts'
import type { IngressProtocol } from './types.ts'

export interface Endpoint {
  /** Stable: stored in audit entries (via the path) and named by plugins. */
  id: string
  method: 'GET' | 'POST' | 'ALL'
  /** Route pattern; `*` takes the rest of the path (handed to the pipeline as `ctx.pathParam`). */
  path: string
  /**
   * What the POST body is: a JSON request document, nothing the gateway reads, or bytes forwarded unchanged (read
   * within the size limit; parsed on the side when JSON, only to read the model and for the audit entry).
   */
  body: 'json' | 'none' | 'bytes'
  /** The body names a model that is resolved to a target (and checked against the key's allowed models). */
  routed: boolean
  /** A model generates an answer: usage is metered and priced, guardrails apply. */
  metered: boolean
  /** Checks the body after authentication; also the OpenAPI request body. */
  request?: z.ZodType
  /** The success body (not streamed), for the OpenAPI document. */
  response?: z.ZodType
  /** Translates the client's API onto Chat Completions and back; none for Chat Completions itself. */
  protocol?: IngressProtocol
  /** Reads the client's stream protocol (folds, error frames). */
  streamCodec: StreamCodec
  /** Answered by the gateway itself after authentication (src/models/local-endpoints.ts), never upstream. */
  local: boolean
  /**
   * The answer goes to the client byte for byte as the upstream sent it (no keep-alives, no error frames, no
   * rewriting hooks); usage is read from it on the way where its format is known (src/pipeline/verbatim.ts).
   */
  verbatim?: boolean
  /** `gen_ai.operation.name` of its trace spans (OpenTelemetry GenAI conventions); none when no model generates. */
  genAiOperation?: 'chat' | 'embeddings'
  openapi: { summary: string; tag: string; bodyDescription?: string; hide?: boolean }
}

export const ENDPOINTS = [
  {
    id: 'models.list',
    method: 'GET',
    path: '/v1/models',
    body: 'none',
    routed: false,
    metered: false,
    streamCodec: chatStreamCodec,
    local: true,
    response: modelList,
    openapi: { summary: 'List the models this key may use as <provider>/<model> selectors and virtual models', tag: 'openai' },
  },
  {
    id: 'models.get',
    method: 'GET',
    path: '/v1/models/*',
    body: 'none',
    routed: false,
    metered: false,
    streamCodec: chatStreamCodec,
    local: true,
    response: model,
    openapi: { summary: 'One model by selector', tag: 'openai' },
  },
  {
    id: 'chat.completions',
    method: 'POST',
    path: '/v1/chat/completions',
    body: 'json',
    routed: true,
    metered: true,
    request: chatCompletionRequest,
    response: chatCompletion,
    streamCodec: chatStreamCodec,
    local: false,
    genAiOperation: 'chat',
    openapi: { summary: 'Chat Completions (streaming with stream: true)', tag: 'openai', bodyDescription: 'OpenAI Chat Completions request; unknown fields pass through.' },
  },
  {
    id: 'responses',
    method: 'POST',
    path: '/v1/responses',
    body: 'json',
    routed: true,
    metered: true,
    request: responsesRequest,
    response: responsesResponse,
    protocol: responsesProtocol,
    streamCodec: responsesStreamCodec,
    local: false,
    genAiOperation: 'chat',
    openapi: { summary: 'Responses API', tag: 'openai', bodyDescription: 'OpenAI Responses request; unknown fields pass through.' },
  },
  {
    id: 'messages',
    method: 'POST',
    path: '/v1/messages',
    body: 'json',
    routed: true,
    metered: true,
    request: messagesRequest,
    response: anthropicMessage,
    protocol: anthropicMessagesProtocol,
    streamCodec: messagesStreamCodec,
    local: false,
    genAiOperation: 'chat',
    openapi: {
      summary: 'Anthropic Messages API (Claude Code, Anthropic SDKs), served from any provider',
      tag: 'anthropic',
      bodyDescription: 'Anthropic Messages request; unknown fields pass through.',
    },
  },
  {
    id: 'messages.count_tokens',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: 'json',
    routed: true,
    metered: false,
    request: countTokensRequest,
    response: countTokensResponse,
    // Answered natively or estimated (src/providers/call-target.ts), never translated; listed for its error shape.
    protocol: anthropicMessagesProtocol,
    streamCodec: chatStreamCodec,
    local: false,
    openapi: { summary: 'Anthropic token count: native on Anthropic, an estimate elsewhere', tag: 'anthropic', bodyDescription: 'Anthropic count_tokens request.' },
  },
  {
    // The governed pass-through: a provider's own API, bytes unchanged both ways but the credential, still under
    // keys, model access, limits, budgets, the audit log and usage (plugins/passthrough, docs/providers.md).
    id: 'passthrough',
    method: 'ALL',
    path: '/p/*',
    body: 'bytes',
    routed: true,
    metered: true,
    streamCodec: chatStreamCodec,
    local: false,
    verbatim: true,
    genAiOperation: 'chat',
    openapi: {
      summary: "Governed pass-through to a provider's own API: /p/{provider}/{the provider's path}, on its allow-list of inference paths",
      tag: 'passthrough',
    },
  },
  // Any other path under /v1: still authenticated and audited, then a clear 404. Registered last.
  {
    id: 'not_found',
    method: 'ALL',
    path: '/v1/*',
    body: 'none',
    routed: false,
    metered: false,
    streamCodec: chatStreamCodec,
    local: true,
    openapi: { summary: 'Unknown /v1 path', tag: 'openai', hide: true },
  },
] as const satisfies readonly Endpoint[]

/** The API a request came in on. `not_found` is any other path under /v1 (it still gets auth and an audit entry). */
export type EndpointId = (typeof ENDPOINTS)[number]['id']

const BY_ID = new Map<EndpointId, Endpoint>(ENDPOINTS.map((e) => [e.id, e]))

export function endpoint(id: EndpointId): Endpoint {
  return BY_ID.get(id)!
}
