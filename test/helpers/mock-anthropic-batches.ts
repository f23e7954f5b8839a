/**
 * @module A mock of Anthropic's Message Batches API (facts from the public API reference): `POST /v1/messages/batches`
 * (`requests: [{custom_id, params}]`, custom_ids `^[a-zA-Z0-9_-]{1,64}$` and unique, params with `model`,
 * `max_tokens`, `messages`), `GET /v1/messages/batches/{id}` (`processing_status` in_progress → canceling → ended,
 * `request_counts` processing/succeeded/errored/canceled/expired, `results_url` once ended),
 * `POST …/{id}/cancel`, `DELETE …/{id}` (ended batches only), and `GET …/{id}/results`: JSONL of `{custom_id, result}` with result types succeeded
 * (a message), errored (`{type: 'error', error: {type, message}}`), canceled and expired. Requests run a few per
 * `advance()`; a request whose text mentions `FAIL` errors (`invalid_request_error`), `OVERLOAD` errors
 * (`overloaded_error`); `expire(id)` expires what has not run. Every request is recorded.
 */
import { anthropicMessage } from './mock-anthropic-upstream.ts'

type Json = Record<string, unknown>

export interface MockAnthropicBatchesOptions {
  apiKey: string
  /** Requests run per `advance()`. */
  requestsPerStep?: number
}

export interface MockAnthropicCall {
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
}

interface MockMessageBatch {
  id: string
  requests: { custom_id: string; params: Json }[]
  results: Json[]
  status: 'in_progress' | 'canceling' | 'ended'
  expireRequested: boolean
  created_at: string
  ended_at: string | null
  cancel_initiated_at: string | null
}

export interface MockAnthropicBatches {
  /** The base URL to configure (`…/v1`). */
  url: string
  calls: MockAnthropicCall[]
  /** Every batch made, deleted ones too (what was sent stays readable to tests). */
  batches: Map<string, MockMessageBatch>
  /** Ids of the batches deleted through the API: answered 404 since, as Anthropic does. */
  deleted: Set<string>
  advance(): void
  finishAll(): void
  expire(id: string): void
  stop(): void
}

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/

function anthropicError(status: number, type: string, message: string): Response {
  return Response.json({ type: 'error', error: { type, message }, request_id: 'req_mock_batches' }, { status })
}

export function mockAnthropicBatches(options: MockAnthropicBatchesOptions): MockAnthropicBatches {
  const perStep = options.requestsPerStep ?? 1_000_000
  const calls: MockAnthropicCall[] = []
  const batches = new Map<string, MockMessageBatch>()
  const deleted = new Set<string>()
  let origin = ''

  const count = (b: MockMessageBatch, type: string) => b.results.filter((r) => (r.result as Json).type === type).length
  const batchObject = (b: MockMessageBatch) => ({
    id: b.id,
    type: 'message_batch',
    processing_status: b.status,
    request_counts: {
      processing: b.requests.length - b.results.length,
      succeeded: count(b, 'succeeded'),
      errored: count(b, 'errored'),
      canceled: count(b, 'canceled'),
      expired: count(b, 'expired'),
    },
    ended_at: b.ended_at,
    created_at: b.created_at,
    expires_at: new Date(Date.parse(b.created_at) + 86_400_000).toISOString(),
    archived_at: null,
    cancel_initiated_at: b.cancel_initiated_at,
    results_url: b.status === 'ended' ? `${origin}/v1/messages/batches/${b.id}/results` : null,
  })

  function run(b: MockMessageBatch, request: { custom_id: string; params: Json }) {
    const text = JSON.stringify(request.params.messages)
    const model = String(request.params.model)
    if (text.includes('OVERLOAD'))
      b.results.push({ custom_id: request.custom_id, result: { type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } })
    else if (text.includes('FAIL'))
      b.results.push({
        custom_id: request.custom_id,
        result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'The request asked to fail.' } } },
      })
    else {
      const message = anthropicMessage(model, [{ type: 'text', text: `answer to ${request.custom_id}` }], 'end_turn', { input_tokens: 10, output_tokens: 4 })
      b.results.push({ custom_id: request.custom_id, result: { type: 'succeeded', message: { ...message, id: `msg_${request.custom_id}` } } })
    }
  }

  function end(b: MockMessageBatch, rest?: 'canceled' | 'expired') {
    if (rest) for (const request of b.requests.slice(b.results.length)) b.results.push({ custom_id: request.custom_id, result: { type: rest } })
    b.status = 'ended'
    b.ended_at = new Date().toISOString()
  }

  function step(b: MockMessageBatch) {
    if (b.status === 'ended') return
    if (b.status === 'canceling') return end(b, 'canceled')
    if (b.expireRequested) return end(b, 'expired')
    for (let i = 0; i < perStep && b.results.length < b.requests.length; i++) run(b, b.requests[b.results.length]!)
    if (b.results.length === b.requests.length) end(b)
  }

  async function answer(req: Request, url: URL): Promise<Response> {
    const call: MockAnthropicCall = { method: req.method, path: url.pathname, headers: Object.fromEntries(req.headers), body: undefined }
    calls.push(call)
    if (req.headers.get('x-api-key') !== options.apiKey) return anthropicError(401, 'authentication_error', 'invalid x-api-key')
    if (!req.headers.get('anthropic-version')) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
    let m: RegExpMatchArray | null
    if (req.method === 'POST' && url.pathname === '/v1/messages/batches') {
      const body = (await req.json().catch(() => undefined)) as Json | undefined
      call.body = body
      const requests = body?.requests
      if (!Array.isArray(requests) || requests.length === 0) return anthropicError(400, 'invalid_request_error', 'requests: field required')
      const seen = new Set<string>()
      for (const [i, r] of (requests as Json[]).entries()) {
        const params = (r.params ?? {}) as Json
        if (typeof r.custom_id !== 'string' || !CUSTOM_ID.test(r.custom_id))
          return anthropicError(400, 'invalid_request_error', `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`)
        if (seen.has(r.custom_id)) return anthropicError(400, 'invalid_request_error', `requests.${i}.custom_id: duplicate custom_id`)
        seen.add(r.custom_id)
        if (typeof params.model !== 'string' || typeof params.max_tokens !== 'number' || !Array.isArray(params.messages))
          return anthropicError(400, 'invalid_request_error', `requests.${i}.params: model, max_tokens and messages are required`)
        if ('stream' in params) return anthropicError(400, 'invalid_request_error', `requests.${i}.params.stream: streaming is not supported in batches`)
      }
      const batch: MockMessageBatch = {
        id: `msgbatch_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`,
        requests: requests as MockMessageBatch['requests'],
        results: [],
        status: 'in_progress',
        expireRequested: false,
        created_at: new Date().toISOString(),
        ended_at: null,
        cancel_initiated_at: null,
      }
      batches.set(batch.id, batch)
      return Response.json(batchObject(batch))
    }
    if ((m = url.pathname.match(/^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/))) {
      const id = decodeURIComponent(m[1]!)
      const b = deleted.has(id) ? undefined : batches.get(id)
      if (!b) return anthropicError(404, 'not_found_error', 'Not found')
      if (req.method === 'GET' && !m[2]) return Response.json(batchObject(b))
      if (req.method === 'DELETE' && !m[2]) {
        if (b.status !== 'ended') return anthropicError(400, 'invalid_request_error', 'Message Batches can only be deleted once they have finished processing.')
        deleted.add(b.id)
        return Response.json({ id: b.id, type: 'message_batch_deleted' })
      }
      if (req.method === 'POST' && m[2] === '/cancel') {
        if (b.status === 'in_progress') {
          b.status = 'canceling'
          b.cancel_initiated_at = new Date().toISOString()
        }
        return Response.json(batchObject(b))
      }
      if (req.method === 'GET' && m[2] === '/results') {
        if (b.status !== 'ended') return anthropicError(400, 'invalid_request_error', 'The batch has not ended; its results are not available yet.')
        return new Response(`${b.results.map((r) => JSON.stringify(r)).join('\n')}\n`, { headers: { 'content-type': 'application/binary' } })
      }
    }
    return anthropicError(404, 'not_found_error', `Unknown route ${req.method} ${url.pathname}`)
  }

  const server = Bun.serve({ port: 0, idleTimeout: 0, fetch: (req) => answer(req, new URL(req.url)) })
  origin = `http://127.0.0.1:${server.port}`
  return {
    url: `${origin}/v1`,
    calls,
    batches,
    deleted,
    advance: () => {
      for (const b of batches.values()) step(b)
    },
    finishAll: () => {
      for (let i = 0; i < 10_000 && [...batches.values()].some((b) => b.status !== 'ended'); i++) for (const b of batches.values()) step(b)
    },
    expire: (id) => {
      const b = batches.get(id)
      if (b) b.expireRequested = true
    },
    stop: () => server.stop(true),
  }
}
