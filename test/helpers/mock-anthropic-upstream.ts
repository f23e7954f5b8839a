/**
 * @module A mock Anthropic Messages upstream speaking the real wire format: JSON messages, SSE with `event:`
 * lines (pings included, trailing spaces after the JSON, multi-byte characters split across reads), a stream-borne
 * `error` event, and error bodies `{"type":"error","error":{type,message}}`. The model name picks a behaviour.
 */
import type { RecordedRequest } from './mock-openai-upstream.ts'

const encoder = new TextEncoder()

function message(model: string, content: unknown[], stopReason: string) {
  return {
    id: 'msg_mock01',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 12, service_tier: 'standard' },
  }
}

function sse(events: [string, unknown][], opts: { split?: boolean; breakAfter?: number } = {}): Response {
  // Real Anthropic streams sometimes carry spaces after the JSON; parsers must not mind.
  const frames = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}   \n\n`)
  const bytes = encoder.encode(frames.join(''))
  const pieces: Uint8Array[] = []
  if (opts.split) for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.slice(i, i + 7))
  else pieces.push(...frames.map((f) => encoder.encode(f)))
  let i = 0
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (opts.breakAfter !== undefined && i >= opts.breakAfter) return controller.error(new Error('connection reset'))
        if (i >= pieces.length) return controller.close()
        if (opts.breakAfter !== undefined) await Bun.sleep(10)
        controller.enqueue(pieces[i++]!)
      },
    }),
    { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_anthropic_1' } },
  )
}

export const ANTHROPIC_TEXT = 'Bonjour 🙂 — 你好'

export function startMockAnthropic(apiKey = 'sk-ant-test') {
  const requests: RecordedRequest[] = []
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const body = req.method === 'POST' ? await req.json() : undefined
      requests.push({ method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body })
      if (req.headers.get('x-api-key') !== apiKey) return Response.json({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, { status: 401 })
      if (req.method === 'GET' && url.pathname === '/v1/models') return Response.json({ data: [{ id: 'claude-sonnet-4-5', type: 'model' }], has_more: false })
      const model: string = body?.model ?? ''
      const stream = body?.stream === true
      if (model === 'overloaded') return Response.json({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { status: 529 })
      if (model === 'tool') {
        const content = [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ]
        if (!stream) return Response.json(message(model, content, 'tool_use'))
        return sse([
          ['message_start', { type: 'message_start', message: { ...message(model, [], ''), stop_reason: null, usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } }],
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check.' } }],
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} } }],
          ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } }],
          ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Pa' } }],
          ['ping', { type: 'ping' }],
          ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'ris"}' } }],
          ['content_block_stop', { type: 'content_block_stop', index: 1 }],
          ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }],
          ['message_stop', { type: 'message_stop' }],
        ])
      }
      if (model === 'stream-error') {
        return sse([
          ['message_start', { type: 'message_start', message: { ...message(model, [], ''), stop_reason: null } }],
          ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Par' } }],
          ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
        ])
      }
      if (!stream) return Response.json(message(model, [{ type: 'text', text: ANTHROPIC_TEXT }], 'end_turn'))
      const pieces = Array.from(ANTHROPIC_TEXT)
      return sse(
        [
          ['message_start', { type: 'message_start', message: { ...message(model, [], ''), stop_reason: null, usage: { input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 } } }],
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          ['ping', { type: 'ping' }],
          ...pieces.map((p): [string, unknown] => ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } }]),
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }],
          ['message_stop', { type: 'message_stop' }],
        ],
        { split: true, breakAfter: model === 'broken' ? 6 : undefined },
      )
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) }
}
