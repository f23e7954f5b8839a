/**
 * @module A fault-injection upstream speaking OpenAI's wire format, started on port 0. The requested model picks
 * the fault, so one upstream serves every scenario of the fault suite:
 *
 * | model | fault |
 * |---|---|
 * | `long-word` | an answer (stream or not) that is one very long word, without usage (`metadata.bytes`, default 512 KiB) |
 * | `reset-mid-stream` | two SSE frames, then the connection is reset |
 * | `malformed-sse` | one good frame, then binary junk that is not SSE |
 * | `cut-sse` | one good frame, then half a frame and the end of the body |
 * | `hang` | headers never come (until the gateway gives up) |
 * | `trickle` | an SSE stream that sends one byte every `metadata.every_ms` (default 200) forever |
 * | `slow-stream-<every_ms>-<frames>` | a well-formed stream: one content frame (`tick `) every `every_ms`, `frames` of them, then the end (in the name, as providers other than OpenAI lose `metadata`) |
 * | `huge-error` | a 500 whose body is `metadata.bytes` (default 100 MiB) long, streamed |
 * | `huge-answer` | a 200 JSON answer of `metadata.bytes` (default 100 MiB), streamed |
 * | `non-json-200` | a 200 `application/json` answer that is HTML |
 * | `echo-key` | a 401 whose message, body and headers echo the credential the gateway sent |
 * | `huge-tool-index` | a streamed tool call whose chunks number it 4294967294 (2³²−2, the largest array index), then `tool_calls` |
 * | anything else | a normal short answer |
 */
import type { RecordedRequest } from './mock-openai-upstream.ts'
import { serveRecording } from './mock-openai-upstream.ts'

export interface FaultUpstream {
  url: string
  requests: RecordedRequest[]
  /** Bodies this upstream began to send and that the gateway stopped reading (cancelled) before the end. */
  readonly cancelled: number
  stop(): void
}

const encoder = new TextEncoder()
const CREATED = 1769093783

function chunkFrame(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-fault', object: 'chat.completion.chunk', created: CREATED, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
}

function completion(model: string, content: string, withUsage = true) {
  return {
    id: 'chatcmpl-fault',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    ...(withUsage ? { usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } } : {}),
  }
}

/** A body produced piece by piece from `next` (undefined ends it; an Error resets the connection). */
function pulled(next: () => Promise<Uint8Array | string | Error | undefined> | Uint8Array | string | Error | undefined, onCancel: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = await next()
      if (piece === undefined) return controller.close()
      if (piece instanceof Error) return controller.error(piece)
      controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece)
    },
    cancel: onCancel,
  })
}

/** `total` bytes of `fill`, 64 KiB at a time. */
function repeated(total: number, fill: string, onCancel: () => void, prefix = '', suffix = ''): ReadableStream<Uint8Array> {
  const block = encoder.encode(fill.repeat(Math.ceil(65536 / fill.length)).slice(0, 65536))
  let sent = -1
  return pulled(() => {
    if (sent === -1) {
      sent = 0
      return prefix
    }
    if (sent >= total) {
      if (sent === Infinity) return undefined
      sent = Infinity
      return suffix
    }
    const n = Math.min(block.length, total - sent)
    sent += n
    return n === block.length ? block : block.subarray(0, n)
  }, onCancel)
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }

export function startFaultUpstream(): FaultUpstream {
  const state = { cancelled: 0 }
  const onCancel = () => {
    state.cancelled++
  }

  const server = serveRecording(async (req, url, recorded) => {
    const path = url.pathname.replace(/^\/v1/, '')
    if (req.method === 'GET' && path === '/models') return Response.json({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: CREATED, owned_by: 'fault' }] })
    if (req.method !== 'POST' || path !== '/chat/completions') return Response.json({ error: { message: 'not found', type: 'invalid_request_error' } }, { status: 404 })
    return answer(req, recorded.body ?? {})
  })

  async function answer(req: Request, body: any): Promise<Response> {
    const model = String(body.model ?? '')
    const stream = body.stream === true
    const metadata = (body.metadata ?? {}) as Record<string, string>
    const bytes = Number(metadata.bytes ?? NaN)
    const slow = /^slow-stream-(\d+)-(\d+)$/.exec(model)
    switch (slow ? 'slow-stream' : model) {
      case 'long-word': {
        const size = Number.isFinite(bytes) ? bytes : 512 * 1024
        if (!stream) {
          const prefix = JSON.stringify(completion(model, '', false)).replace('"content":""', '"content":"')
          const [head, tail] = prefix.split('"content":"') as [string, string]
          return new Response(repeated(size, 'y', onCancel, `${head}"content":"`, `"${tail}`), { headers: { 'content-type': 'application/json' } })
        }
        const frame = chunkFrame(model, { content: 'y'.repeat(16 * 1024) })
        const frames = Math.ceil(size / (16 * 1024))
        let i = 0
        return new Response(
          pulled(() => (i < frames ? (i++, frame) : i === frames ? (i++, `${chunkFrame(model, {}, 'stop')}data: [DONE]\n\n`) : undefined), onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'reset-mid-stream': {
        const frames = [chunkFrame(model, { role: 'assistant', content: 'par' }), chunkFrame(model, { content: 'tial' })]
        let i = 0
        return new Response(
          pulled(async () => (i < frames.length ? frames[i++] : (await Bun.sleep(20), new Error('connection reset by fault upstream'))), onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'malformed-sse': {
        const junk = new Uint8Array(256).map((_, i) => (i * 37 + 11) % 256)
        const pieces: (string | Uint8Array)[] = [chunkFrame(model, { role: 'assistant', content: 'ok' }), junk, '\n\n', 'data: {not json at all\n\n', 'data: [DONE]\n\n']
        let i = 0
        return new Response(
          pulled(() => pieces[i++], onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'cut-sse': {
        const first = chunkFrame(model, { role: 'assistant', content: 'half' })
        const second = chunkFrame(model, { content: ' of an answer' })
        const pieces = [first, second.slice(0, Math.floor(second.length / 2))]
        let i = 0
        return new Response(
          pulled(() => pieces[i++], onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'hang':
        await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve(), { once: true }))
        return new Response(null, { status: 599 })
      case 'trickle': {
        const every = Number(metadata.every_ms ?? 200)
        let first = true
        return new Response(
          pulled(async () => {
            if (first) {
              first = false
              return chunkFrame(model, { role: 'assistant', content: '' })
            }
            await Bun.sleep(every)
            return ':'
          }, onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'slow-stream': {
        const every = Number(slow![1])
        const frames = Number(slow![2])
        let i = 0
        return new Response(
          pulled(async () => {
            if (i > 0 && i <= frames) await Bun.sleep(every)
            i++
            if (i === 1) return chunkFrame(model, { role: 'assistant', content: '' })
            if (i <= frames + 1) return chunkFrame(model, { content: 'tick ' })
            if (i === frames + 2) return `${chunkFrame(model, {}, 'stop')}data: [DONE]\n\n`
            return undefined
          }, onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'huge-error': {
        const size = Number.isFinite(bytes) ? bytes : 100 * 1024 * 1024
        return new Response(repeated(size, 'E', onCancel, '{"error":{"message":"', '","type":"server_error"}}'), { status: 500, headers: { 'content-type': 'application/json' } })
      }
      case 'huge-answer': {
        const size = Number.isFinite(bytes) ? bytes : 100 * 1024 * 1024
        const [head, tail] = JSON.stringify(completion(model, 'X')).split('"content":"X"') as [string, string]
        return new Response(repeated(size, 'a', onCancel, `${head}"content":"`, `"${tail}`), { headers: { 'content-type': 'application/json' } })
      }
      case 'huge-tool-index': {
        const index = 4_294_967_294
        const frames = [
          chunkFrame(model, { role: 'assistant', content: null }),
          chunkFrame(model, { tool_calls: [{ index, id: 'call_huge', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
          chunkFrame(model, { tool_calls: [{ index, function: { arguments: '"Paris"}' } }] }),
          `${chunkFrame(model, {}, 'tool_calls')}data: [DONE]\n\n`,
        ]
        if (!stream) return Response.json(completion(model, 'only streamed'))
        let i = 0
        return new Response(
          pulled(() => frames[i++], onCancel),
          { headers: SSE_HEADERS },
        )
      }
      case 'non-json-200':
        return new Response('<html><body><h1>Welcome to nginx!</h1></body></html>', { status: 200, headers: { 'content-type': 'application/json' } })
      case 'echo-key': {
        const auth = req.headers.get('authorization') ?? ''
        const key = auth.replace(/^Bearer /, '')
        return Response.json(
          { error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', code: 'invalid_api_key', param: key }, echoed: { authorization: auth } },
          { status: 401, headers: { 'x-echo-authorization': auth, 'x-upstream-key': key } },
        )
      }
      default:
        return stream
          ? new Response(`${chunkFrame(model, { role: 'assistant', content: 'fine' })}${chunkFrame(model, {}, 'stop')}data: [DONE]\n\n`, { headers: SSE_HEADERS })
          : Response.json(completion(model, 'fine'))
    }
  }

  return {
    url: `${server.origin}/v1`,
    requests: server.requests,
    get cancelled() {
      return state.cancelled
    },
    stop: server.stop,
  }
}

/**
 * Polls `/health` every `everyMs` until `work` settled `afterMs` ago (work that follows the answer, such as usage
 * accounting, counts too); returns the slowest answer time in ms (Infinity when one did not answer within
 * `timeoutMs`). Shows whether the gateway's event loop stayed free during `work`.
 */
export async function slowestHealthDuring(url: string, work: Promise<unknown>, { everyMs = 25, afterMs = 300, timeoutMs = 2000 } = {}): Promise<number> {
  let doneAt = Infinity
  void work.then(
    () => (doneAt = performance.now()),
    () => (doneAt = performance.now()),
  )
  let slowest = 0
  let probes = 0
  while (performance.now() < doneAt + afterMs || probes === 0) {
    const started = performance.now()
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) })
      await res.arrayBuffer()
      slowest = Math.max(slowest, performance.now() - started)
    } catch {
      return Infinity
    }
    probes++
    await Bun.sleep(everyMs)
  }
  return slowest
}

/**
 * Runs `work` up to `attempts` times and returns the best of the slowest `/health` answers seen during each run
 * (stopping early below `goodMs`). A machine shared with other jobs can deschedule the gateway for a moment during
 * any one run; a gateway whose event loop is really blocked is slow in every run.
 */
export async function healthDuringAttempts(url: string, work: () => Promise<unknown>, { attempts = 3, goodMs = 100, afterMs = 300 } = {}): Promise<number> {
  let best = Infinity
  for (let i = 0; i < attempts && best >= goodMs; i++) {
    const run = work()
    best = Math.min(best, await slowestHealthDuring(url, run, { afterMs }))
    await run.catch(() => {})
  }
  return best
}
