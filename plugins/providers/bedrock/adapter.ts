/**
 * @module Amazon Bedrock. Chat requests (and so every ingress) go through the Converse API (`/model/{id}/converse`,
 * and `/converse-stream`, whose binary event stream is decoded as it arrives and turned into chat chunks).
 * `/v1/messages` for an Anthropic model (`anthropic.claude-…`, or a cross-region profile such as
 * `us.anthropic.claude-…`) is forwarded natively through InvokeModel (`/invoke`, `/invoke-with-response-stream`) in
 * the Messages format, so thinking blocks and their signatures pass unchanged; other models take /v1/messages
 * translated over Converse. Embeddings go to Titan and Cohere Embed models through InvokeModel (./embeddings.ts).
 * Every request is signed with SigV4 (src/credentials/, applied by fetchUpstream). The
 * model list is the configured one (BEDROCK_MODELS): Bedrock's own list is on another host and names models the
 * account may not use; listing also warms the credentials, so a broken chain shows at start-up.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { isBinaryEventStream } from '../../../src/providers/upstream-fetch.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { asksForUsageChunk, replayCompletion } from '../../../src/protocols/chat-wire.ts'
import { isAnthropicModel } from './anthropic-models.ts'
import { chatToConverseRequest } from './converse-request.ts'
import { converseToChatCompletion } from './converse-response.ts'
import { ConverseStreamTranslator, converseStreamToChat } from './converse-stream.ts'
import { bedrockEmbeddings } from './embeddings.ts'
import { bedrockUpstreamError } from './errors.ts'
import { invokeStreamToMessages } from './invoke-stream.ts'

/** The Messages API version Bedrock takes in the body (its InvokeModel has no header for it). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31'

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }
const STREAM_HEADERS = { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' }

async function chatCompletions(call: AdapterCall): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const request = chatToConverseRequest(call.body, call.target.model)
  if (request instanceof GatewayError) return request
  const base = upstreamUrl(call.provider.baseUrl)
  const res = await fetchUpstream(call, {
    url: stream ? base`/model/${call.target.model}/converse-stream` : base`/model/${call.target.model}/converse`,
    headers: stream ? STREAM_HEADERS : JSON_HEADERS,
    body: JSON.stringify(request),
    toError: bedrockUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  const requestId = res.headers.get('x-amzn-requestid')
  if (stream && res.body && isBinaryEventStream(res)) {
    const translator = new ConverseStreamTranslator(asksForUsageChunk(call.body), call.target.model, requestId)
    return new Response(await converseStreamToChat(res.body, translator), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  }
  let answer: Record<string, unknown>
  try {
    answer = (await res.json()) as Record<string, unknown>
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  const completion = converseToChatCompletion(answer, call.target.model, requestId)
  if (!stream) return Response.json(completion)
  return new Response(replayCompletion(completion, asksForUsageChunk(call.body)), { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
}

/**
 * The client's Messages request for Claude on Bedrock: `model` and `stream` move into the URL, the version into
 * `anthropic_version`, the client's `anthropic-beta` flags into `anthropic_beta`; everything else as sent.
 */
function invokeBody(call: AdapterCall): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = call.body
  const body: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest }
  const beta = call.ctx.headers.get('anthropic-beta')
  if (beta && body.anthropic_beta === undefined)
    body.anthropic_beta = beta
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean)
  return body
}

async function messages(call: AdapterCall): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const base = upstreamUrl(call.provider.baseUrl)
  const res = await fetchUpstream(call, {
    url: stream ? base`/model/${call.target.model}/invoke-with-response-stream` : base`/model/${call.target.model}/invoke`,
    headers: stream ? STREAM_HEADERS : JSON_HEADERS,
    body: JSON.stringify(invokeBody(call)),
    toError: bedrockUpstreamError(call),
  })
  if (res instanceof GatewayError || !stream || !res.body || !isBinaryEventStream(res)) return res
  return new Response(await invokeStreamToMessages(res.body), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
}

/** The configured models; the credentials are fetched on the way, so a broken chain is reported at start-up. */
async function listModels(provider: ProviderInstance): Promise<string[] | GatewayError> {
  if (provider.auth?.kind === 'sigv4') {
    const signed = await provider.auth.sign({ method: 'GET', url: upstreamUrl(provider.baseUrl)`/`, headers: {} })
    if (signed instanceof GatewayError) return signed
  }
  return [...provider.staticModels]
}

export const bedrockAdapter: ProviderAdapter = {
  id: 'bedrock',
  chatCompletions,
  messages,
  embeddings: bedrockEmbeddings,
  speaksNatively: (api, _provider, model) => api === 'messages' && isAnthropicModel(model),
  listModels,
}
