/**
 * @module Benchmark upstream: a tiny OpenAI-shaped server that costs as little as possible, so what the load
 * generator sees is the proxy in front of it. Non-stream chat completions are answered at once from a prebuilt
 * body; `stream: true` gets a paced SSE stream (first frame at once, then one frame every interval, then
 * `data: [DONE]`). The same answers are served in Anthropic's (`/v1/messages`) and Gemini's
 * (`/v1beta/models/*:generateContent`, `:streamGenerateContent`) wire formats for the translated-provider rows. GET /v1/models lists one model. GET /__bench/stats counts what arrived, so the harness can
 * check that a proxy really forwarded its requests here.
 *
 * Usage: bun bench/mock-upstream.ts [port]   (or MOCK_PORT; 0 picks a free port, printed as `listening <port>`)
 * MOCK_HOST: the address to listen on (default 127.0.0.1; deploy/compose-check.sh uses a container bridge's address).
 * Pacing: MOCK_STREAM_CHUNKS (default 20 content frames), MOCK_STREAM_INTERVAL_MS (default 10).
 * MOCK_STATIC_CHAT=1: every POST /v1/chat/completions gets the non-stream answer as a static route, which Bun
 * serves without running JavaScript (no body parsed, not counted in the stats, no stream): the cheapest upstream
 * for benchmarks where the mock shares the cores with the gateway (bench/workers.sh).
 */
import { runUntilStopped } from './serve.ts'

const port = Number(process.argv[2] ?? process.env.MOCK_PORT ?? 0)
const chunks = Number(process.env.MOCK_STREAM_CHUNKS ?? 20)
const intervalMs = Number(process.env.MOCK_STREAM_INTERVAL_MS ?? 10)
const MODEL = 'gpt-4o-mini'
const CREATED = 1769093783

const stats = { chat: 0, stream: 0, models: 0, other: 0, streamsCancelled: 0, badRequests: 0 }

const completionBody = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 19, completion_tokens: 9, total_tokens: 28, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
})
const modelsBody = JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', created: CREATED, owned_by: 'bench' }] })

const encoder = new TextEncoder()
const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
  encoder.encode(
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
  )
/** Frame 0 is sent at once; every later frame after `intervalMs`. */
const streamFrames: Uint8Array[] = [
  frame({ role: 'assistant', content: '' }),
  ...Array.from({ length: chunks }, (_, i) => frame({ content: `word${i} ` })),
  frame({}, 'stop'),
  encoder.encode('data: [DONE]\n\n'),
]
/** With `stream_options.include_usage`, OpenAI sends one more chunk before [DONE]: `choices: []` and the usage. */
const usageFrame = encoder.encode(
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [], usage: { prompt_tokens: 19, completion_tokens: chunks, total_tokens: 19 + chunks } })}\n\n`,
)
const streamFramesWithUsage: Uint8Array[] = [...streamFrames.slice(0, -1), usageFrame, streamFrames.at(-1)!]

/** The same answer in Anthropic's and Gemini's wire formats, for the translated-provider rows. */
const TEXT = 'Hello! How can I help you today?'
const anthropicBody = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: TEXT }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 19, output_tokens: 9 },
})
const anthropicEvent = (name: string, data: Record<string, unknown>) => encoder.encode(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`)
const anthropicFrames: Uint8Array[] = [
  anthropicEvent('message_start', {
    message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-bench', content: [], stop_reason: null, usage: { input_tokens: 19, output_tokens: 1 } },
  }),
  ...Array.from({ length: chunks }, (_, i) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i} ` } })),
  anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
  anthropicEvent('message_stop', {}),
]
const geminiAnswer = (parts: unknown[], finish?: string) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
  usageMetadata: { promptTokenCount: 19, candidatesTokenCount: 9, totalTokenCount: 28 },
  modelVersion: 'gemini-bench',
  responseId: 'bench',
})
const geminiBody = JSON.stringify(geminiAnswer([{ text: TEXT }], 'STOP'))
const geminiFrame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\r\n\r\n`)
const geminiFrames: Uint8Array[] = [
  geminiFrame(geminiAnswer([{ text: '' }])),
  ...Array.from({ length: chunks }, (_, i) => geminiFrame(geminiAnswer([{ text: `word${i} ` }]))),
  geminiFrame(geminiAnswer([{ text: '' }], 'STOP')),
]
const geminiModelsBody = JSON.stringify({ models: [{ name: 'models/gemini-bench', supportedGenerationMethods: ['generateContent'] }] })

const jsonHeaders = { 'content-type': 'application/json', 'x-request-id': 'req_bench' }
const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' }

function pacedStream(frames: Uint8Array[] = streamFrames): Response {
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i >= frames.length) {
        controller.close()
        return
      }
      // Content frames are paced; the role frame goes out at once and the closing frames follow the last word.
      if (i > 0 && i <= chunks && intervalMs > 0) await Bun.sleep(intervalMs)
      controller.enqueue(frames[i++]!)
    },
    cancel() {
      stats.streamsCancelled++
    },
  })
  return new Response(body, { headers: sseHeaders })
}

const server = Bun.serve({
  hostname: process.env.MOCK_HOST ?? '127.0.0.1',
  port,
  idleTimeout: 60,
  ...(process.env.MOCK_STATIC_CHAT === '1' ? { routes: { '/v1/chat/completions': { POST: new Response(completionBody, { headers: jsonHeaders }) } } } : {}),
  async fetch(req) {
    const path = new URL(req.url).pathname
    const gemini = /:(generateContent|streamGenerateContent)$/.exec(path)
    if (req.method === 'POST' && (path.endsWith('/chat/completions') || path.endsWith('/messages') || gemini)) {
      let body: { stream?: unknown; stream_options?: { include_usage?: unknown }; messages?: unknown; contents?: unknown } | undefined
      try {
        body = JSON.parse(await req.text())
      } catch {
        body = undefined
      }
      if (!body || !Array.isArray(gemini ? body.contents : body.messages)) {
        stats.badRequests++
        return Response.json({ error: { message: 'messages is required', type: 'invalid_request_error', param: 'messages', code: null } }, { status: 400 })
      }
      stats.chat++
      const stream = gemini ? gemini[1] === 'streamGenerateContent' : body.stream === true
      if (stream) stats.stream++
      if (gemini) return stream ? pacedStream(geminiFrames) : new Response(geminiBody, { headers: jsonHeaders })
      if (path.endsWith('/messages')) return stream ? pacedStream(anthropicFrames) : new Response(anthropicBody, { headers: jsonHeaders })
      return stream ? pacedStream(body.stream_options?.include_usage === true ? streamFramesWithUsage : streamFrames) : new Response(completionBody, { headers: jsonHeaders })
    }
    if (req.method === 'GET' && path.endsWith('/v1beta/models')) {
      stats.models++
      return new Response(geminiModelsBody, { headers: jsonHeaders })
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      stats.models++
      return new Response(modelsBody, { headers: jsonHeaders })
    }
    if (path === '/__bench/stats') return Response.json(stats)
    stats.other++
    return Response.json({ error: { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error', param: null, code: null } }, { status: 404 })
  },
})

runUntilStopped(server)
