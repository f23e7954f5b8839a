/**
 * @module A mock of OpenAI's Files and Batches APIs (facts from the public API reference), as OpenAI, Groq and Azure
 * OpenAI serve them under their own prefixes: `POST /files` (multipart, `purpose`), `GET /files/{id}/content`,
 * `DELETE /files/{id}`, `POST /batches` (`input_file_id`, `endpoint`, `completion_window` 24h), `GET /batches/{id}`,
 * `POST /batches/{id}/cancel`. A batch moves one step per `advance()`: validating → in_progress (or failed when its
 * input breaks the rules: each line `custom_id` unique, `method` POST, `url` the batch's endpoint, a `body`), then a
 * few lines per step, then finalizing → completed. Lines whose body mentions `FAIL` get a 400 answer in the error
 * file; `expire(id)` and cancelling put the lines not yet run in the error file as `batch_expired` /
 * `batch_cancelled`. Every request is recorded (its headers and, for uploads, the file's text).
 */
import { chatCompletion, openaiError } from './mock-openai-upstream.ts'

type Json = Record<string, unknown>

export interface MockBatchesOptions {
  /** Path the APIs live under: `/v1` (OpenAI), `/openai/v1` (Groq), `/openai` (Azure's classic resource). */
  prefix?: string
  /** The credential: `authorization: Bearer <key>` (OpenAI, Groq) or `api-key: <key>` (Azure). */
  apiKey: string
  keyHeader?: 'authorization' | 'api-key'
  /** When set, every call must carry this `api-version` (Azure's classic resource). */
  apiVersion?: string
  /** Lines run per `advance()` once a batch is in progress. */
  linesPerStep?: number
  /** The endpoints a batch may name. */
  endpoints?: readonly string[]
  /** Whether an expired or cancelled batch lists the lines it did not run in its error file (default true). */
  listsLinesNotRun?: boolean
}

export interface MockBatchCall {
  method: string
  path: string
  search: string
  headers: Record<string, string>
  /** The uploaded file's text (POST /files), or the JSON body. */
  body: unknown
}

interface StoredFile {
  id: string
  purpose: string
  filename: string
  text: string
}

interface MockBatch {
  id: string
  status: string
  endpoint: string
  input_file_id: string
  lines: Json[]
  /** Index of the next line to run. */
  next: number
  output: string[]
  errors: string[]
  failed: number
  cancelRequested: boolean
  expireRequested: boolean
  errorsData: Json[]
  times: Record<string, number | null>
  output_file_id: string | null
  error_file_id: string | null
}

export interface MockOpenAIBatches {
  /** The base URL to configure: origin + prefix. */
  url: string
  calls: MockBatchCall[]
  files: Map<string, StoredFile>
  /** The ids of the files deleted (DELETE /files/{id} answered 200), in order. */
  deleted: string[]
  batches: Map<string, MockBatch>
  advance(): void
  /** Runs every batch to a final state. */
  finishAll(): void
  expire(batchId: string): void
  stop(): void
}

const DEFAULT_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/v1/completions', '/v1/moderations']
let sequence = 0
const newId = (prefix: string) => `${prefix}${(++sequence).toString(36).padStart(6, '0')}${crypto.randomUUID().slice(0, 8)}`
const now = () => Math.floor(Date.now() / 1000)

export function mockOpenAIBatches(options: MockBatchesOptions): MockOpenAIBatches {
  const prefix = options.prefix ?? '/v1'
  const endpoints = options.endpoints ?? DEFAULT_ENDPOINTS
  const perStep = options.linesPerStep ?? 1_000_000
  const calls: MockBatchCall[] = []
  const files = new Map<string, StoredFile>()
  const deleted: string[] = []
  const batches = new Map<string, MockBatch>()

  const fileObject = (f: StoredFile) => ({
    id: f.id,
    object: 'file',
    bytes: Buffer.byteLength(f.text),
    created_at: now(),
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  })
  const batchObject = (b: MockBatch) => ({
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errorsData.length > 0 ? { object: 'list', data: b.errorsData } : null,
    input_file_id: b.input_file_id,
    completion_window: '24h',
    status: b.status,
    output_file_id: b.output_file_id,
    error_file_id: b.error_file_id,
    ...b.times,
    request_counts: { total: b.lines.length, completed: b.next - b.failed, failed: b.failed + (['expired', 'cancelled'].includes(b.status) ? b.lines.length - b.next : 0) },
    metadata: null,
  })

  function authorized(req: Request): boolean {
    if ((options.keyHeader ?? 'authorization') === 'api-key') return req.headers.get('api-key') === options.apiKey
    return req.headers.get('authorization') === `Bearer ${options.apiKey}`
  }

  function answerLine(b: MockBatch, line: Json) {
    const body = (line.body ?? {}) as Json
    const model = String(body.model ?? '')
    const requestId = `req_${crypto.randomUUID().replaceAll('-', '')}`
    if (JSON.stringify(body).includes('FAIL')) {
      b.failed++
      b.errors.push(
        JSON.stringify({
          id: newId('batch_req_'),
          custom_id: line.custom_id,
          response: { status_code: 400, request_id: requestId, body: { error: { message: 'The line asked to fail.', type: 'invalid_request_error', param: null, code: null } } },
          error: null,
        }),
      )
      return
    }
    const answer = b.endpoint.endsWith('/embeddings')
      ? { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }], model, usage: { prompt_tokens: 4, total_tokens: 4 } }
      : chatCompletion(model, `answer to ${String(line.custom_id)}`)
    b.output.push(JSON.stringify({ id: newId('batch_req_'), custom_id: line.custom_id, response: { status_code: 200, request_id: requestId, body: answer }, error: null }))
  }

  /** The lines not run become error lines with `code`; the files are written; the batch ends in `status`. */
  function finish(b: MockBatch, status: string, code?: string) {
    if (code && options.listsLinesNotRun !== false) {
      for (const line of b.lines.slice(b.next)) {
        b.errors.push(JSON.stringify({ id: newId('batch_req_'), custom_id: line.custom_id, response: null, error: { code, message: `The line did not run (${code}).` } }))
      }
    }
    for (const [kind, list] of [
      ['output', b.output],
      ['error', b.errors],
    ] as const) {
      if (list.length === 0) continue
      const file = { id: newId('file-'), purpose: `batch_${kind}`, filename: `${b.id}_${kind}.jsonl`, text: `${list.join('\n')}\n` }
      files.set(file.id, file)
      if (kind === 'output') b.output_file_id = file.id
      else b.error_file_id = file.id
    }
    b.status = status
    b.times[`${status === 'completed' ? 'completed' : status}_at`] = now()
  }

  function validate(b: MockBatch): Json[] {
    const problems: Json[] = []
    const seen = new Set<string>()
    b.lines.forEach((line, i) => {
      const problem =
        typeof line.custom_id !== 'string'
          ? 'custom_id is required'
          : seen.has(line.custom_id)
            ? `custom_id ${line.custom_id} is not unique`
            : line.method !== 'POST'
              ? 'method must be POST'
              : line.url !== b.endpoint
                ? `url must be the batch's endpoint ${b.endpoint}`
                : typeof line.body !== 'object' || line.body === null || typeof (line.body as Json).model !== 'string'
                  ? 'body with a model is required'
                  : undefined
      if (typeof line.custom_id === 'string') seen.add(line.custom_id)
      if (problem) problems.push({ code: 'invalid_request', message: problem, param: null, line: i + 1 })
    })
    return problems
  }

  function step(b: MockBatch) {
    if (b.status === 'validating') {
      b.errorsData = validate(b)
      if (b.errorsData.length > 0) {
        b.status = 'failed'
        b.times.failed_at = now()
        return
      }
      b.status = 'in_progress'
      b.times.in_progress_at = now()
      return
    }
    if (b.status === 'cancelling') return finish(b, 'cancelled', 'batch_cancelled')
    if (b.status === 'in_progress') {
      if (b.expireRequested) return finish(b, 'expired', 'batch_expired')
      const end = Math.min(b.lines.length, b.next + perStep)
      for (; b.next < end; b.next++) answerLine(b, b.lines[b.next]!)
      if (b.next === b.lines.length) {
        b.status = 'finalizing'
        b.times.finalizing_at = now()
      }
      return
    }
    if (b.status === 'finalizing') finish(b, 'completed')
  }

  async function answer(req: Request, url: URL): Promise<Response> {
    const call: MockBatchCall = { method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body: undefined }
    calls.push(call)
    if (!url.pathname.startsWith(`${prefix}/`)) return openaiError(404, `Unknown path ${url.pathname}`, 'invalid_request_error', 'unknown_url')
    if (options.apiVersion && url.searchParams.get('api-version') !== options.apiVersion)
      return openaiError(404, 'Resource not found (api-version missing or unsupported).', 'invalid_request_error', '404')
    if (!authorized(req)) return openaiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
    const path = url.pathname.slice(prefix.length)
    let m: RegExpMatchArray | null
    if (req.method === 'POST' && path === '/files') {
      let form: FormData
      try {
        form = await req.formData()
      } catch {
        return openaiError(400, 'The body is not a multipart form.', 'invalid_request_error', null)
      }
      const purpose = form.get('purpose')
      const file = form.get('file')
      if (typeof purpose !== 'string' || !['batch', 'fine-tune', 'assistants', 'vision', 'user_data', 'evals'].includes(purpose))
        return openaiError(400, "'purpose' is required and must be one of the documented purposes.", 'invalid_request_error', null)
      if (!(file instanceof File)) return openaiError(400, "'file' is required.", 'invalid_request_error', null)
      const stored = { id: newId('file-'), purpose, filename: file.name, text: await file.text() }
      call.body = stored.text
      files.set(stored.id, stored)
      return Response.json(fileObject(stored))
    }
    if ((m = path.match(/^\/files\/([^/]+)\/content$/)) && req.method === 'GET') {
      const f = files.get(decodeURIComponent(m[1]!))
      if (!f) return openaiError(404, 'No such File object.', 'invalid_request_error', null)
      return new Response(f.text, { headers: { 'content-type': 'application/octet-stream' } })
    }
    if ((m = path.match(/^\/files\/([^/]+)$/)) && req.method === 'DELETE') {
      const id = decodeURIComponent(m[1]!)
      if (!files.delete(id)) return openaiError(404, 'No such File object.', 'invalid_request_error', null)
      deleted.push(id)
      return Response.json({ id, object: 'file', deleted: true })
    }
    if (req.method === 'POST' && path === '/batches') {
      const body = (await req.json().catch(() => undefined)) as Json | undefined
      call.body = body
      if (!body) return openaiError(400, 'The body is not JSON.', 'invalid_request_error', null)
      if (body.completion_window !== '24h') return openaiError(400, "completion_window must be '24h'.", 'invalid_request_error', null)
      if (typeof body.endpoint !== 'string' || !endpoints.includes(body.endpoint))
        return openaiError(400, `Unsupported endpoint ${String(body.endpoint)}.`, 'invalid_request_error', null)
      const input = files.get(String(body.input_file_id))
      if (!input) return openaiError(400, `No such File object: ${String(body.input_file_id)}`, 'invalid_request_error', null)
      if (input.purpose !== 'batch') return openaiError(400, "The input file's purpose must be 'batch'.", 'invalid_request_error', null)
      const lines = input.text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          try {
            return JSON.parse(l) as Json
          } catch {
            return {} as Json
          }
        })
      const batch: MockBatch = {
        id: newId('batch_'),
        status: 'validating',
        endpoint: body.endpoint,
        input_file_id: input.id,
        lines,
        next: 0,
        output: [],
        errors: [],
        failed: 0,
        cancelRequested: false,
        expireRequested: false,
        errorsData: [],
        times: {
          created_at: now(),
          in_progress_at: null,
          expires_at: now() + 86_400,
          finalizing_at: null,
          completed_at: null,
          failed_at: null,
          expired_at: null,
          cancelling_at: null,
          cancelled_at: null,
        },
        output_file_id: null,
        error_file_id: null,
      }
      batches.set(batch.id, batch)
      return Response.json(batchObject(batch))
    }
    if ((m = path.match(/^\/batches\/([^/]+)$/)) && req.method === 'GET') {
      const b = batches.get(decodeURIComponent(m[1]!))
      return b ? Response.json(batchObject(b)) : openaiError(404, 'No such Batch object.', 'invalid_request_error', null)
    }
    if ((m = path.match(/^\/batches\/([^/]+)\/cancel$/)) && req.method === 'POST') {
      const b = batches.get(decodeURIComponent(m[1]!))
      if (!b) return openaiError(404, 'No such Batch object.', 'invalid_request_error', null)
      if (!['validating', 'in_progress', 'finalizing'].includes(b.status)) return openaiError(409, `Cannot cancel a batch that is ${b.status}.`, 'invalid_request_error', null)
      b.status = 'cancelling'
      b.cancelRequested = true
      b.times.cancelling_at = now()
      return Response.json(batchObject(b))
    }
    return openaiError(404, `Unknown route ${req.method} ${url.pathname}`, 'invalid_request_error', 'unknown_url')
  }

  const server = Bun.serve({ port: 0, idleTimeout: 0, fetch: (req) => answer(req, new URL(req.url)) })
  const final = new Set(['completed', 'failed', 'expired', 'cancelled'])
  return {
    url: `http://127.0.0.1:${server.port}${prefix}`,
    calls,
    files,
    deleted,
    batches,
    advance: () => {
      for (const b of batches.values()) step(b)
    },
    finishAll: () => {
      for (let i = 0; i < 10_000 && [...batches.values()].some((b) => !final.has(b.status)); i++) for (const b of batches.values()) step(b)
    },
    expire: (batchId) => {
      const b = batches.get(batchId)
      if (b) b.expireRequested = true
    },
    stop: () => server.stop(true),
  }
}
