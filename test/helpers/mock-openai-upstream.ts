/**
 * @module A mock OpenAI upstream speaking the real wire format (JSON, `data:`-only SSE with `[DONE]`, Responses
 * `event:` framing, error bodies), started on port 0. The model name picks a behaviour, so one mock serves
 * every scenario; every request it receives is recorded for assertions.
 */
import { gzipSync } from 'node:zlib'
import { mediaAnswer, recordedForm } from './mock-openai-media.ts'
import { schemaInstance } from './schema-instance.ts'

export interface RecordedRequest {
  method: string
  path: string
  search: string
  headers: Record<string, string>
  body: any
}

/** What a mock records of a request: its line, headers and body (parsed JSON, else the text; undefined when empty). */
export async function recordedRequest(req: Request, url: URL): Promise<RecordedRequest> {
  const record = (body: any) => ({ method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body })
  if (req.method === 'POST' && /^multipart\/form-data/i.test(req.headers.get('content-type') ?? '')) return record(await recordedForm(req))
  const text = req.method === 'POST' ? await req.text() : ''
  let body: any
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  return { method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body }
}

/** A loopback mock on port 0: records every request (see recordedRequest), then lets `answer` reply to it. */
export function serveRecording(answer: (req: Request, url: URL, recorded: RecordedRequest) => Response | Promise<Response>) {
  const requests: RecordedRequest[] = []
  const server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const recorded = await recordedRequest(req, url)
      requests.push(recorded)
      return answer(req, url, recorded)
    },
  })
  return { requests, port: server.port!, origin: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

export interface MockUpstream {
  url: string
  port: number
  requests: RecordedRequest[]
  /** Streams whose body was cancelled by the gateway (client went away). */
  cancelledStreams: number
  stop(): void
}

import { AGENT_MODEL, resultText, scriptedTurn, type Turn } from './scripted-agent.ts'

const encoder = new TextEncoder()
const CREATED = 1769093783
export const MOCK_MODELS = ['gpt-4o-mini', 'gpt-4o', 'shared-model']

export interface MockOptions {
  /** Model ids listed at /models; `listStatus` other than 200 makes the list fail. */
  models?: string[]
  listStatus?: number
  /** Expected bearer key; other keys get 401 like OpenAI. */
  apiKey?: string
  ownedBy?: string
}

export function chatCompletion(model: string, content: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-mock123',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 } },
    ...extra,
  }
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) {
  return { id: 'chatcmpl-mockstream', object: 'chat.completion.chunk', created: CREATED, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra }
}

/** Text that stresses UTF-8 boundaries: CJK, emoji (4-byte) and combining characters. */
export const TRICKY_TEXT = 'Hello 你好 🙂🚀 café — ünïcödé ✓'

function textStreamFrames(model: string, text: string, includeUsage: boolean): string[] {
  const frames = [chunk(model, { role: 'assistant', content: '', refusal: null })]
  for (const piece of Array.from(text)) frames.push(chunk(model, { content: piece }))
  frames.push(chunk(model, {}, 'stop'))
  const out = frames.map((f) => `data: ${JSON.stringify(f)}\n\n`)
  if (includeUsage)
    out.push(
      `data: ${JSON.stringify({ ...chunk(model, {}), choices: [], usage: { prompt_tokens: 9, completion_tokens: Array.from(text).length, total_tokens: 9 + Array.from(text).length } })}\n\n`,
    )
  out.push('data: [DONE]\n\n')
  return out
}

function toolStreamFrames(model: string): string[] {
  const frames = [
    chunk(model, { role: 'assistant', content: null }),
    chunk(model, { tool_calls: [{ index: 0, id: 'call_weather1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk(model, { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
    chunk(model, { tool_calls: [{ index: 0, function: { arguments: 'ty": "Paris"}' } }] }),
    chunk(model, { tool_calls: [{ index: 1, id: 'call_time2', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
    chunk(model, { tool_calls: [{ index: 1, function: { arguments: '{"tz":"CET"}' } }] }),
    chunk(model, {}, 'tool_calls'),
  ]
  return [...frames.map((f) => `data: ${JSON.stringify(f)}\n\n`), 'data: [DONE]\n\n']
}

/** Splits bytes at awkward places: inside multi-byte characters and inside `data:` lines. */
function awkwardSplit(bytes: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = []
  let i = 0
  const sizes = [1, 3, 2, 7, 5, 11, 4]
  let k = 0
  while (i < bytes.length) {
    const n = sizes[k++ % sizes.length]!
    parts.push(bytes.slice(i, i + n))
    i += n
  }
  return parts
}

function sseResponse(frames: string[], opts: { split?: boolean; delayMs?: number; breakAfter?: number; onCancel?: () => void } = {}): Response {
  const bytes = encoder.encode(frames.join(''))
  const pieces = opts.split ? awkwardSplit(bytes) : frames.map((f) => encoder.encode(f))
  let i = 0
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (opts.breakAfter !== undefined && i >= opts.breakAfter) {
        controller.error(new Error('upstream connection reset'))
        return
      }
      if (i >= pieces.length) {
        controller.close()
        return
      }
      if (opts.delayMs) await Bun.sleep(opts.delayMs)
      controller.enqueue(pieces[i++]!)
    },
    cancel() {
      opts.onCancel?.()
    },
  })
  return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_upstream_1' } })
}

/** The answer to `response_format` (chat) or `text.format` (Responses) asking for JSON; undefined for plain text. */
function structuredText(format: any): string | undefined {
  if (format?.type === 'json_object') return '{"answer":"Paris"}'
  if (format?.type !== 'json_schema') return undefined
  const schema = format.json_schema?.schema ?? format.schema
  return JSON.stringify(schema ? schemaInstance(schema) : {})
}

export const MOCK_EMBEDDING_DIMENSIONS = 8

/**
 * The mock's embedding of one input: float32 values derived from the input (so two inputs differ), with values whose
 * decimal text is long (a float re-printed by JSON would not match the base64 bytes).
 */
export function mockEmbedding(input: unknown, dimensions: number): Float32Array {
  const seed = Array.from(JSON.stringify(input)).reduce((h, c) => (h * 31 + c.codePointAt(0)!) % 1_000_003, 7)
  return Float32Array.from({ length: dimensions }, (_, i) => Math.sin(seed + i) / 3)
}

export function openaiError(status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) {
  return Response.json({ error: { message, type, param: null, code } }, { status, headers })
}

export const RESPONSES_TEXT = 'Hello from responses 🙂'
/** What the mock's `/responses/input_tokens` counts for any request: a number the gateway's estimate never gives. */
export const MOCK_INPUT_TOKENS = 4242
const FUNCTION_CALL_ITEM = { type: 'function_call', id: 'fc_mock1', call_id: 'call_weather1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' }

function responseObject(model: string, text: string, output?: Record<string, unknown>[], id = 'resp_mock1') {
  return {
    id,
    object: 'response',
    created_at: CREATED,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output: output ?? [{ type: 'message', id: 'msg_mock1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    temperature: 1,
    top_p: 1,
    metadata: {},
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 13 },
  }
}

function responsesStreamFrames(model: string, text: string, id?: string): string[] {
  return responsesEventFrames(responsesStreamEvents(responseObject(model, text, undefined, id)))
}

/** The events of a streamed text answer whose final response is `done`. */
function responsesStreamEvents(done: ReturnType<typeof responseObject>): Record<string, unknown>[] {
  const text = (done.output[0] as { content?: { text: string }[] })?.content?.[0]?.text ?? ''
  const inProgress = { ...done, status: 'in_progress', output: [], usage: null }
  const item = { id: 'msg_mock1', type: 'message', status: 'in_progress', content: [], role: 'assistant' }
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.content_part.added', item_id: 'msg_mock1', output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } },
    ...Array.from(text).map((d) => ({ type: 'response.output_text.delta', item_id: 'msg_mock1', output_index: 0, content_index: 0, delta: d, logprobs: [] })),
    { type: 'response.output_text.done', item_id: 'msg_mock1', output_index: 0, content_index: 0, text, logprobs: [] },
    { type: 'response.content_part.done', item_id: 'msg_mock1', output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text } },
    { type: 'response.output_item.done', output_index: 0, item: done.output[0] },
    { type: 'response.completed', response: done },
  ]
  return events
}

/** A function call streamed the way the Responses API does: the item, argument deltas, then the item done. */
function functionCallEvents(model: string, call: typeof FUNCTION_CALL_ITEM = FUNCTION_CALL_ITEM, id?: string): Record<string, unknown>[] {
  const done = responseObject(model, '', [call], id)
  const inProgress = { ...done, status: 'in_progress', output: [], usage: null }
  const args = call.arguments
  return [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    { type: 'response.output_item.added', output_index: 0, item: { ...call, arguments: '', status: 'in_progress' } },
    { type: 'response.function_call_arguments.delta', item_id: call.id, output_index: 0, delta: args.slice(0, 6) },
    { type: 'response.function_call_arguments.delta', item_id: call.id, output_index: 0, delta: args.slice(6) },
    { type: 'response.function_call_arguments.done', item_id: call.id, output_index: 0, arguments: args },
    { type: 'response.output_item.done', output_index: 0, item: call },
    { type: 'response.completed', response: done },
  ]
}

function responsesEventFrames(events: Record<string, unknown>[]): string[] {
  return events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`)
}

/** A non-streamed chat completion whose one choice calls one function. */
function toolCallCompletion(model: string, id: string, name: string, args: string) {
  const message = { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }], refusal: null }
  return chatCompletion(model, '', { choices: [{ index: 0, message, logprobs: null, finish_reason: 'tool_calls' }] })
}

export function startMockOpenAI(options: MockOptions = {}): MockUpstream {
  const state = { cancelledStreams: 0, responseCount: 0 }
  const storedResponses = new Map<string, { response: ReturnType<typeof responseObject>; items: Record<string, unknown>[]; background: boolean; cancelled: boolean }>()
  const flakyCalls = new Map<string, number>()
  const models = options.models ?? MOCK_MODELS

  const server = serveRecording(async (req, url, recorded) => {
    const body = recorded.body

    const auth = req.headers.get('authorization') ?? ''
    if (options.apiKey && auth !== `Bearer ${options.apiKey}`) {
      return openaiError(
        401,
        `Incorrect API key provided: ${auth.replace('Bearer ', '').slice(0, 6)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      )
    }
    const path = url.pathname.replace(/^\/v1/, '')
    if (req.method === 'GET' && path === '/models') {
      if (options.listStatus && options.listStatus !== 200) return openaiError(options.listStatus, 'list failed', 'server_error', null)
      return Response.json({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: CREATED, owned_by: options.ownedBy ?? 'openai' })) })
    }
    if (req.method === 'POST' && path === '/chat/completions') return chat(body)
    if (req.method === 'POST' && path === '/responses') return responses(body)
    const media = mediaAnswer(req.method, path, body)
    if (media) return media
    if (req.method === 'POST' && path === '/embeddings') return embeddings(body)
    if (req.method === 'POST' && path === '/completions') return completions(body)
    if (req.method === 'POST' && path === '/responses/input_tokens') return Response.json({ object: 'response.input_tokens', input_tokens: MOCK_INPUT_TOKENS })
    const stored = /^\/responses\/([^/]+)(\/cancel|\/input_items)?$/.exec(path)
    if (stored) return storedResponseRoute(req.method, decodeURIComponent(stored[1]!), stored[2] ?? '', url.searchParams)
    return openaiError(404, `Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error', null)
  })

  function chat(body: any): Response | Promise<Response> {
    const model: string = body?.model ?? ''
    const stream = body?.stream === true
    const includeUsage = body?.stream_options?.include_usage === true
    if (model === AGENT_MODEL) return chatAgent(body, stream, includeUsage)
    const onCancel = () => {
      state.cancelledStreams++
    }
    switch (model) {
      case 'error-401':
        return openaiError(
          401,
          'Incorrect API key provided: sk-proj-abcdef1234567890. You can find your API key at https://platform.openai.com.',
          'invalid_request_error',
          'invalid_api_key',
        )
      case 'error-429':
        return openaiError(429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded', { 'retry-after': '1', 'retry-after-ms': '20' })
      case 'error-503':
        return openaiError(503, 'The engine is currently overloaded, please try again later.', 'server_error', null)
      case 'flaky': {
        // Fails with 429 (Retry-After in ms) for the first `failures` calls of one `key`, then answers.
        const key = String(body?.metadata?.key ?? '')
        const seen = (flakyCalls.get(key) ?? 0) + 1
        flakyCalls.set(key, seen)
        if (seen <= Number(body?.metadata?.failures ?? 1))
          return openaiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded', { 'retry-after-ms': String(body?.metadata?.retry_after_ms ?? 30) })
        return Response.json(chatCompletion(model, `answered after ${seen - 1} failures`))
      }
      case 'error-500':
        return openaiError(500, 'The server had an error while processing your request.', 'server_error', null)
      case 'error-400':
        return Response.json(
          {
            error: {
              message: "Unsupported parameter: 'max_tokens' is not supported with this model.",
              type: 'invalid_request_error',
              param: 'max_tokens',
              code: 'unsupported_parameter',
            },
          },
          { status: 400 },
        )
      case 'error-html':
        return new Response('<html><body>502 Bad Gateway</body></html>', { status: 502, headers: { 'content-type': 'text/html' } })
      case 'gzip': {
        const json = JSON.stringify(chatCompletion(model, 'compressed hello'))
        return new Response(gzipSync(json), { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
      }
      case 'tools':
        // After the tool's result the model answers in text, as the other mocks do (agent loops end).
        if (body?.messages?.at(-1)?.role === 'tool') {
          const answer = `Result: ${body.messages.at(-1).content}`
          return stream ? sseResponse(textStreamFrames(model, answer, includeUsage)) : Response.json(chatCompletion(model, answer))
        }
        if (stream) return sseResponse(toolStreamFrames(model))
        return Response.json(toolCallCompletion(model, 'call_weather1', 'get_weather', '{"city":"Paris"}'))
      case 'apply-patch': {
        const args = JSON.stringify({ input: '*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch' })
        if (!stream) {
          return Response.json(toolCallCompletion(model, 'call_patch1', 'ApplyPatch', args))
        }
        const frames = [
          chunk(model, { role: 'assistant', content: null }),
          chunk(model, { tool_calls: [{ index: 0, id: 'call_patch1', type: 'function', function: { name: 'ApplyPatch', arguments: '' } }] }),
          chunk(model, { tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] }),
          chunk(model, { tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] }),
          chunk(model, {}, 'tool_calls'),
        ]
        return sseResponse([...frames.map((f) => `data: ${JSON.stringify(f)}\n\n`), 'data: [DONE]\n\n'])
      }
      case 'slow-first-byte':
        return Bun.sleep(Number(body?.metadata?.delay_ms ?? 400)).then(() =>
          stream ? sseResponse(textStreamFrames(model, 'late', includeUsage)) : Response.json(chatCompletion(model, 'late')),
        )
      case 'slow-stream':
        return sseResponse(textStreamFrames(model, 'slow answer', includeUsage), { delayMs: Number(body?.metadata?.delay_ms ?? 50), onCancel })
      case 'pause-stream': {
        const frames = textStreamFrames(model, 'after a pause', includeUsage)
        const pauseMs = Number(body?.metadata?.pause_ms ?? 1500)
        let i = 0
        const paused = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (i >= frames.length) return controller.close()
            if (i === 1) await Bun.sleep(pauseMs)
            controller.enqueue(encoder.encode(frames[i++]!))
          },
          cancel: onCancel,
        })
        return new Response(paused, { headers: { 'content-type': 'text/event-stream' } })
      }
      case 'broken-stream':
        return sseResponse(textStreamFrames(model, 'this will break off', false), { breakAfter: 4, delayMs: 15, onCancel })
      case 'stream-error-event':
        return sseResponse([
          `data: ${JSON.stringify(chunk(model, { role: 'assistant', content: 'par' }))}\n\n`,
          `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } })}\n\n`,
        ])
      default: {
        const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined
        const structured = structuredText(body?.response_format)
        const echo =
          structured ??
          (last?.role === 'tool' ? `Result: ${last.content}` : typeof last?.content === 'string' && last.content.startsWith('echo:') ? last.content.slice(5) : TRICKY_TEXT)
        if (stream) return sseResponse(textStreamFrames(model, echo, includeUsage), { split: true, onCancel })
        return Response.json(chatCompletion(model, echo))
      }
    }
  }

  function responses(body: any): Response {
    const model: string = body?.model ?? ''
    if (model === AGENT_MODEL) return responsesAgent(body)
    if (model === 'error-429') return openaiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' })
    const id = `resp_mock${++state.responseCount}`
    const toolOutput = Array.isArray(body?.input) ? body.input.findLast((i: any) => i?.type === 'function_call_output') : undefined
    if (model === 'tools' && !toolOutput) {
      keep(body, responseObject(model, '', [FUNCTION_CALL_ITEM], id))
      if (body?.stream === true) return sseResponse(responsesEventFrames(functionCallEvents(model, FUNCTION_CALL_ITEM, id)), { split: true })
      return Response.json(responseObject(model, '', [FUNCTION_CALL_ITEM], id))
    }
    const text = structuredText(body?.text?.format) ?? (toolOutput ? `Result: ${toolOutput.output}` : RESPONSES_TEXT)
    const done = responseObject(model, text, undefined, id)
    keep(body, done)
    // A background response answers at once, queued; it is the finished one when retrieved (or resumed) later.
    if (body?.background === true) return Response.json({ ...done, status: 'queued', output: [], usage: null, background: true })
    if (body?.stream === true) return sseResponse(responsesStreamFrames(model, text, id), { split: true })
    return Response.json(done)
  }

  /** Kept as OpenAI keeps responses unless `store: false`, with their input items. */
  function keep(body: any, response: ReturnType<typeof responseObject>) {
    if (body?.store === false) return
    const input: any[] = typeof body?.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body?.input) ? body.input : []
    const items = input.map((item, i) => {
      if (item?.type !== undefined && item.type !== 'message') return { id: `item_${response.id}_${i}`, ...item }
      const content = typeof item?.content === 'string' ? [{ type: 'input_text', text: item.content }] : item?.content
      return { id: `msg_${response.id}_${i}`, type: 'message', role: item?.role ?? 'user', content, status: 'completed' }
    })
    storedResponses.set(response.id, { response, items, background: body?.background === true, cancelled: false })
  }

  /** `/responses/{id}`, `…/cancel`, `…/input_items` as OpenAI answers them (errors included). */
  function storedResponseRoute(method: string, id: string, rest: string, query: URLSearchParams): Response {
    const kept = storedResponses.get(id)
    if (!kept) return openaiError(404, `Response with id '${id}' not found.`, 'invalid_request_error', null)
    const current = () => (kept.cancelled ? { ...kept.response, status: 'cancelled', output: [], background: true } : { ...kept.response, background: kept.background })
    if (method === 'GET' && rest === '') {
      if (query.get('stream') !== 'true') return Response.json(current())
      if (!kept.background) return openaiError(400, 'This response cannot be streamed because it was not created with background=true.', 'invalid_request_error', null)
      const after = Number(query.get('starting_after') ?? -1)
      const events = responsesStreamEvents(kept.response)
      return sseResponse(responsesEventFrames(events).slice(after + 1))
    }
    if (method === 'DELETE' && rest === '') {
      storedResponses.delete(id)
      return Response.json({ id, object: 'response', deleted: true })
    }
    if (method === 'POST' && rest === '/cancel') {
      if (!kept.background) return openaiError(400, 'Only responses created with background=true can be cancelled.', 'invalid_request_error', null)
      kept.cancelled = true
      return Response.json(current())
    }
    if (method === 'GET' && rest === '/input_items') {
      const limit = Number(query.get('limit') ?? 20)
      const items = query.get('order') === 'asc' ? [...kept.items] : [...kept.items].reverse()
      const after = query.get('after')
      const start = after ? items.findIndex((i) => i.id === after) + 1 : 0
      const data = items.slice(start, start + limit)
      return Response.json({ object: 'list', data, first_id: data.at(0)?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < items.length })
    }
    return openaiError(404, `Invalid URL (${method} /v1/responses/${id}${rest})`, 'invalid_request_error', null)
  }

  /**
   * Legacy completions: `echo:<text>` answers `<text>`; with a `suffix` the answer is what fills the middle
   * (`<fill>` between the prompt's and the suffix's last words); streamed as `text_completion` chunks, the usage in
   * a `choices: []` chunk when asked.
   */
  function completions(body: any): Response {
    const model: string = body?.model ?? ''
    if (model === 'error-429') return openaiError(429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' })
    if (model === 'error-503') return openaiError(503, 'The engine is currently overloaded, please try again later.', 'server_error', null)
    const prompt = typeof body?.prompt === 'string' ? body.prompt : ''
    const text =
      typeof body?.suffix === 'string'
        ? `<fill after ${JSON.stringify(prompt.slice(-8))} before ${JSON.stringify(body.suffix.slice(0, 8))}>`
        : prompt.startsWith('echo:')
          ? prompt.slice(5)
          : TRICKY_TEXT
    const usage = { prompt_tokens: 7, completion_tokens: Array.from(text).length, total_tokens: 7 + Array.from(text).length }
    const base = { id: 'cmpl-mock1', object: 'text_completion', created: CREATED, model }
    if (body?.stream !== true) return Response.json({ ...base, choices: [{ text, index: 0, logprobs: null, finish_reason: 'stop' }], usage })
    const frames: Record<string, unknown>[] = Array.from(text).map((piece) => ({ ...base, choices: [{ text: piece, index: 0, logprobs: null, finish_reason: null }] }))
    frames.push({ ...base, choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }] })
    if (body?.stream_options?.include_usage === true) frames.push({ ...base, choices: [], usage })
    return sseResponse([...frames.map((f) => `data: ${JSON.stringify(f)}\n\n`), 'data: [DONE]\n\n'], { split: true })
  }

  function embeddings(body: any): Response {
    const model: string = body?.model ?? ''
    if (model === 'error-429') return openaiError(429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' })
    if (model === 'error-503') return openaiError(503, 'The engine is currently overloaded, please try again later.', 'server_error', null)
    const input = body?.input
    const inputs: unknown[] = typeof input === 'string' || (Array.isArray(input) && typeof input[0] === 'number') ? [input] : Array.isArray(input) ? input : []
    if (inputs.length === 0)
      return openaiError(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'invalid_request_error', null)
    const base64 = body?.encoding_format === 'base64'
    const data = inputs.map((item, index) => {
      const vector = mockEmbedding(item, body?.dimensions ?? MOCK_EMBEDDING_DIMENSIONS)
      return { object: 'embedding', index, embedding: base64 ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector) }
    })
    const tokens = inputs.reduce<number>((sum, item) => sum + (Array.isArray(item) ? item.length : Math.ceil(String(item).length / 4)), 0)
    return Response.json({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } })
  }

  function chatAgent(body: any, stream: boolean, includeUsage: boolean): Response {
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
    const toolMessage = messages.findLast((m) => m?.role === 'tool')
    const turn = scriptedTurn({
      texts: messages.filter((m) => m?.role === 'user').map((m) => resultText(m.content)),
      tools: (body?.tools ?? []).map((t: any) => t?.function?.name).filter(Boolean),
      toolResult: toolMessage ? resultText(toolMessage.content) : undefined,
    })
    if (turn.kind === 'text') {
      if (stream) return sseResponse(textStreamFrames(AGENT_MODEL, turn.text, includeUsage), { split: true })
      return Response.json(chatCompletion(AGENT_MODEL, turn.text))
    }
    const call = { id: `call_agent${messages.length}`, type: 'function', function: { name: turn.name, arguments: turn.arguments } }
    if (!stream) {
      return Response.json(
        chatCompletion(AGENT_MODEL, '', {
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call], refusal: null }, logprobs: null, finish_reason: 'tool_calls' }],
        }),
      )
    }
    const frames = [
      chunk(AGENT_MODEL, { role: 'assistant', content: null }),
      chunk(AGENT_MODEL, { tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: turn.name, arguments: '' } }] }),
      chunk(AGENT_MODEL, { tool_calls: [{ index: 0, function: { arguments: turn.arguments.slice(0, 5) } }] }),
      chunk(AGENT_MODEL, { tool_calls: [{ index: 0, function: { arguments: turn.arguments.slice(5) } }] }),
      chunk(AGENT_MODEL, {}, 'tool_calls'),
    ].map((f) => `data: ${JSON.stringify(f)}\n\n`)
    if (includeUsage) frames.push(`data: ${JSON.stringify({ ...chunk(AGENT_MODEL, {}), choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })}\n\n`)
    return sseResponse([...frames, 'data: [DONE]\n\n'])
  }

  function responsesAgent(body: any): Response {
    const input: any[] = Array.isArray(body?.input) ? body.input : [{ role: 'user', content: body?.input }]
    const output = input.findLast((i) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output')
    const turn: Turn = scriptedTurn({
      texts: input.filter((i) => i?.role === 'user').map((i) => resultText(i.content)),
      tools: (body?.tools ?? []).filter((t: any) => t?.type === 'function').map((t: any) => t.name),
      toolResult: output ? resultText(output.output) : undefined,
    })
    if (turn.kind === 'text') {
      if (body?.stream === true) return sseResponse(responsesStreamFrames(AGENT_MODEL, turn.text), { split: true })
      return Response.json(responseObject(AGENT_MODEL, turn.text))
    }
    const item = { type: 'function_call', id: 'fc_agent1', call_id: `call_agent${input.length}`, name: turn.name, arguments: turn.arguments, status: 'completed' }
    if (body?.stream === true) return sseResponse(responsesEventFrames(functionCallEvents(AGENT_MODEL, item)), { split: true })
    return Response.json(responseObject(AGENT_MODEL, '', [item]))
  }

  return {
    url: `${server.origin}/v1`,
    port: server.port,
    requests: server.requests,
    get cancelledStreams() {
      return state.cancelledStreams
    },
    stop: server.stop,
  }
}
