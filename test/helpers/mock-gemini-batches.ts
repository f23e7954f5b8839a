/**
 * @module A mock of the Gemini API's batch mode (facts from the public Batch API reference and guide):
 * `POST /v1beta/models/{model}:batchGenerateContent` with `batch.displayName` and inline requests
 * (`batch.inputConfig.requests.requests[]`: `{request: GenerateContentRequest, metadata: {key}}`), answered with a
 * long-running Operation named `batches/{id}` whose `metadata` is the GenerateContentBatch (`state`,
 * `batchStats` with int64 counts as strings); `GET /v1beta/batches/{id}` (done, `response.inlinedResponses.inlinedResponses[]`
 * with `response` or `error` (a google.rpc.Status) and the request's `metadata`); `POST /v1beta/batches/{id}:cancel`.
 * Requests run a few per `advance()`: text with `FAIL` ends in an INVALID_ARGUMENT error, text with `BLOCK` in a
 * prompt Gemini blocked; `expire(id)` expires the batch with the answers so far. States are spelled `BATCH_STATE_*`
 * as the reference's enum does, or `JOB_STATE_*` as the guide's examples do (`statePrefix`).
 */

type Json = Record<string, unknown>

export interface MockGeminiBatchesOptions {
  apiKey: string
  requestsPerStep?: number
  statePrefix?: 'BATCH_STATE_' | 'JOB_STATE_'
}

export interface MockGeminiCall {
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
}

interface MockGeminiBatch {
  id: string
  model: string
  displayName: string
  requests: { request: Json; metadata?: Json }[]
  responses: Json[]
  state: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'EXPIRED'
  expireRequested: boolean
  cancelRequested: boolean
  createTime: string
}

export interface MockGeminiBatches {
  /** The base URL to configure (`…/v1beta`). */
  url: string
  calls: MockGeminiCall[]
  batches: Map<string, MockGeminiBatch>
  advance(): void
  finishAll(): void
  expire(name: string): void
  /** While set, a running batch expires after answering its first request. */
  expireAfterFirst: boolean
  stop(): void
}

function googleError(status: number, code: number, statusName: string, message: string, details: Json[] = []): Response {
  return Response.json({ error: { code, message, status: statusName, details } }, { status })
}

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'])

export function mockGeminiBatches(options: MockGeminiBatchesOptions): MockGeminiBatches {
  const perStep = options.requestsPerStep ?? 1_000_000
  const prefix = options.statePrefix ?? 'BATCH_STATE_'
  const calls: MockGeminiCall[] = []
  const batches = new Map<string, MockGeminiBatch>()

  const count = (b: MockGeminiBatch, kind: 'response' | 'error') => b.responses.filter((r) => kind in r).length
  function operation(b: MockGeminiBatch): Json {
    const done = FINAL.has(b.state)
    const metadata = {
      '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch',
      model: `models/${b.model}`,
      displayName: b.displayName,
      createTime: b.createTime,
      updateTime: new Date().toISOString(),
      ...(done ? { endTime: new Date().toISOString() } : {}),
      batchStats: {
        requestCount: String(b.requests.length),
        successfulRequestCount: String(count(b, 'response')),
        failedRequestCount: String(count(b, 'error')),
        pendingRequestCount: String(b.requests.length - b.responses.length),
      },
      state: `${prefix}${b.state}`,
      name: b.id,
    }
    const op: Json = { name: b.id, metadata, done }
    if (done && b.state !== 'FAILED')
      op.response = { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput', inlinedResponses: { inlinedResponses: b.responses } }
    return op
  }

  function run(b: MockGeminiBatch, item: { request: Json; metadata?: Json }) {
    const text = JSON.stringify(item.request.contents)
    const key = (item.metadata ?? {}) as Json
    if (text.includes('FAIL')) return b.responses.push({ error: { code: 3, message: 'The request asked to fail.' }, metadata: key })
    if (text.includes('BLOCK'))
      return b.responses.push({ response: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }, metadata: key })
    b.responses.push({
      response: {
        candidates: [{ content: { parts: [{ text: `answer to ${String(key.key)}` }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 },
        modelVersion: b.model,
        responseId: `resp-${crypto.randomUUID().slice(0, 8)}`,
      },
      metadata: key,
    })
  }

  function step(b: MockGeminiBatch) {
    if (FINAL.has(b.state)) return
    if (b.cancelRequested) {
      b.state = 'CANCELLED'
      return
    }
    if (b.expireRequested) {
      b.state = 'EXPIRED'
      return
    }
    if (b.state === 'PENDING') {
      b.state = 'RUNNING'
      return
    }
    for (let i = 0; i < perStep && b.responses.length < b.requests.length; i++) {
      run(b, b.requests[b.responses.length]!)
      if (mock.expireAfterFirst && b.responses.length < b.requests.length) {
        b.state = 'EXPIRED'
        return
      }
    }
    if (b.responses.length === b.requests.length) b.state = 'SUCCEEDED'
  }

  async function answer(req: Request, url: URL): Promise<Response> {
    const call: MockGeminiCall = { method: req.method, path: url.pathname, headers: Object.fromEntries(req.headers), body: undefined }
    calls.push(call)
    if (req.headers.get('x-goog-api-key') !== options.apiKey)
      return googleError(400, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ])
    let m: RegExpMatchArray | null
    if (req.method === 'POST' && (m = url.pathname.match(/^\/v1beta\/models\/([^/:]+):batchGenerateContent$/))) {
      const body = (await req.json().catch(() => undefined)) as Json | undefined
      call.body = body
      const batch = (body?.batch ?? {}) as Json
      const requests = (((batch.inputConfig as Json | undefined)?.requests as Json | undefined)?.requests ?? undefined) as Json[] | undefined
      if (typeof batch.displayName !== 'string' || batch.displayName === '') return googleError(400, 400, 'INVALID_ARGUMENT', 'batch.display_name is required.')
      if (!Array.isArray(requests) || requests.length === 0) return googleError(400, 400, 'INVALID_ARGUMENT', 'batch.input_config is required.')
      for (const [i, r] of requests.entries()) {
        if (!Array.isArray((r.request as Json | undefined)?.contents)) return googleError(400, 400, 'INVALID_ARGUMENT', `requests[${i}].request.contents is required.`)
      }
      const b: MockGeminiBatch = {
        id: `batches/${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
        model: decodeURIComponent(m[1]!),
        displayName: batch.displayName,
        requests: requests as MockGeminiBatch['requests'],
        responses: [],
        state: 'PENDING',
        expireRequested: false,
        cancelRequested: false,
        createTime: new Date().toISOString(),
      }
      batches.set(b.id, b)
      return Response.json(operation(b))
    }
    if ((m = url.pathname.match(/^\/v1beta\/(batches\/[^/:]+)(:cancel)?$/))) {
      const b = batches.get(decodeURIComponent(m[1]!))
      if (!b) return googleError(404, 404, 'NOT_FOUND', `Batch ${m[1]} not found.`)
      if (req.method === 'GET' && !m[2]) return Response.json(operation(b))
      if (req.method === 'POST' && m[2]) {
        if (!FINAL.has(b.state)) b.cancelRequested = true
        return Response.json({})
      }
    }
    return googleError(404, 404, 'NOT_FOUND', `Unknown route ${req.method} ${url.pathname}`)
  }

  const server = Bun.serve({ port: 0, idleTimeout: 0, fetch: (req) => answer(req, new URL(req.url)) })
  const mock: MockGeminiBatches = {
    expireAfterFirst: false,
    url: `http://127.0.0.1:${server.port}/v1beta`,
    calls,
    batches,
    advance: () => {
      for (const b of batches.values()) step(b)
    },
    finishAll: () => {
      for (let i = 0; i < 10_000 && [...batches.values()].some((b) => !FINAL.has(b.state)); i++) for (const b of batches.values()) step(b)
    },
    expire: (name) => {
      const b = batches.get(name)
      if (b) b.expireRequested = true
    },
    stop: () => server.stop(true),
  }
  return mock
}
