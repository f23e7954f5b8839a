/**
 * @module Azure OpenAI and Azure AI Foundry. Classic resources address a deployment per model
 * (`{base}/deployments/{model}/chat/completions?api-version=…`); a base URL ending in `/openai/v1` uses the v1
 * API with the model in the body; a base URL ending in `/models` is the Foundry models endpoint (Azure AI Model
 * Inference: `{base}/chat/completions?api-version=…`, the model in the body, no Responses API, no model list).
 * Requests carry `api-key`, or a Microsoft Entra ID bearer token when the instance has an Entra app (applied by
 * fetchUpstream, src/providers/upstream-auth.ts). Azure opens streams with a `choices: []` content-filter chunk
 * that crashes clients reading `choices[0]`, so such chunks are dropped (a usage chunk is kept).
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { SseParser, dataFrame } from '../../../src/pipeline/sse.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { fetchModelIds } from '../../../src/providers/model-list.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { modelListPage } from '../openai-compatible/adapter.ts'

const DEFAULT_API_VERSION = '2024-10-21'
/** Azure AI Model Inference's version (the Foundry models endpoint). */
const FOUNDRY_API_VERSION = '2024-05-01-preview'

function isV1(provider: ProviderInstance): boolean {
  return /\/openai\/v1$/.test(provider.baseUrl)
}

/** The Foundry models endpoint (`https://<resource>.services.ai.azure.com/models`). */
export function isFoundryModels(provider: ProviderInstance): boolean {
  return /\/models$/.test(provider.baseUrl)
}

type Operation = 'chat/completions' | 'responses' | 'embeddings' | 'completions'

export function azureUrl(provider: ProviderInstance, deployment: string, operation: Operation | 'models'): UpstreamUrl {
  if (isFoundryModels(provider)) {
    const foundry = upstreamUrl(provider.baseUrl, { 'api-version': provider.apiVersion ?? FOUNDRY_API_VERSION })
    return operation === 'embeddings' ? foundry`/embeddings` : foundry`/chat/completions`
  }
  const query = isV1(provider) ? undefined : { 'api-version': provider.apiVersion ?? DEFAULT_API_VERSION }
  const under = upstreamUrl(provider.baseUrl, query)
  if (operation === 'responses') return under`/responses`
  if (operation === 'models') return under`/models`
  if (operation === 'embeddings') return query ? under`/deployments/${deployment}/embeddings` : under`/embeddings`
  if (operation === 'completions') return query ? under`/deployments/${deployment}/completions` : under`/completions`
  return query ? under`/deployments/${deployment}/chat/completions` : under`/chat/completions`
}

/** `api-key` when the instance has one; an Entra ID token is added by fetchUpstream instead. */
function headers(provider: ProviderInstance, stream: boolean): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' }
  if (provider.apiKey) h['api-key'] = provider.apiKey
  return h
}

/** Drops `choices: []` chunks that carry no usage (Azure's prompt-filter preamble). */
export function dropEmptyChoiceChunks(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const parser = new SseParser()
  const forward = (events: ReturnType<SseParser['push']>, controller: TransformStreamDefaultController<Uint8Array>) => {
    for (const event of events) {
      if (event.data !== '[DONE]') {
        try {
          const chunk = JSON.parse(event.data)
          if (Array.isArray(chunk?.choices) && chunk.choices.length === 0 && !chunk.usage && !chunk.error) continue
        } catch {
          // not JSON: forward as it came
        }
      }
      controller.enqueue(dataFrame(event.data))
    }
  }
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => forward(parser.push(chunk), controller),
      flush: (controller) => forward(parser.end(), controller),
    }),
  )
}

async function post(call: AdapterCall, operation: Operation): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const modelInBody = isV1(call.provider) || isFoundryModels(call.provider) || operation === 'responses'
  const body = modelInBody ? call.body : withoutModel(call.body)
  const res = await fetchUpstream(call, { url: azureUrl(call.provider, call.target.model, operation), headers: headers(call.provider, stream), body: JSON.stringify(body) })
  if (res instanceof GatewayError || !stream || operation !== 'chat/completions' || !res.body) return res
  return new Response(dropEmptyChoiceChunks(res.body), { status: res.status, headers: res.headers })
}

function withoutModel(body: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, ...rest } = body
  return rest
}

export const azureOpenaiAdapter: ProviderAdapter = {
  id: 'azure-openai',
  chatCompletions: (call) => post(call, 'chat/completions'),
  responses: (call) => post(call, 'responses'),
  embeddings: (call) => post(call, 'embeddings'),
  completions: (call) => post(call, 'completions'),
  // The Foundry models endpoint (Azure AI Model Inference) has neither Responses nor legacy completions.
  speaksNatively: (api, provider) => (api === 'responses' || api === 'completions') && !isFoundryModels(provider),
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'api-key': provider.apiKey } : {}),
  listModels: async (provider, signal) => {
    // The Foundry models endpoint lists nothing: its models are the configured ones (AZURE_MODELS).
    if (isFoundryModels(provider)) return [...provider.staticModels]
    return fetchModelIds(
      { provider: provider.name, url: () => azureUrl(provider, '', 'models'), headers: headers(provider, false), auth: provider.auth, read: modelListPage },
      signal,
    )
  },
}
