/**
 * @module Reads a batch's input file (JSONL, one request a line: `custom_id`, `method`, `url`, `body`) and checks
 * every line as OpenAI does: each a JSON object, `custom_id` a string unique in the file, `method` POST, `url` the
 * batch's endpoint, `body` an object (not streamed). The problems are reported all together, in OpenAI's
 * `errors.data[]` shape, with their line numbers (1-based).
 */
import type { BatchInputError } from './batch-record.ts'

export interface BatchInputLine {
  customId: string
  body: Record<string, unknown>
}

export type BatchInput = { ok: true; lines: BatchInputLine[] } | { ok: false; errors: BatchInputError[] }

/** Reported problems stop at this many; the file is still read to its end to count its lines. */
const MAX_REPORTED_ERRORS = 100

export async function readBatchInput(body: ReadableStream<Uint8Array>, endpoint: string, maxLines: number): Promise<BatchInput> {
  const lines: BatchInputLine[] = []
  const errors: BatchInputError[] = []
  const seen = new Set<string>()
  let lineNumber = 0
  const report = (error: BatchInputError) => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(error)
  }
  let requests = 0
  const check = (text: string) => {
    lineNumber++
    if (text.trim() === '') return
    requests++
    if (requests > maxLines) {
      if (requests === maxLines + 1) report({ code: 'too_many_requests', message: `The input file has more than ${maxLines} requests.`, param: null, line: lineNumber })
      return
    }
    const problem = checkLine(text, endpoint, seen)
    if ('code' in problem) report({ ...problem, line: lineNumber })
    else lines.push(problem)
  }

  const decoder = new TextDecoder('utf-8', { fatal: true })
  let pending = ''
  try {
    for await (const chunk of body) {
      pending += decoder.decode(chunk, { stream: true })
      let newline = pending.indexOf('\n')
      while (newline !== -1) {
        check(pending.slice(0, newline))
        pending = pending.slice(newline + 1)
        newline = pending.indexOf('\n')
      }
    }
    pending += decoder.decode()
  } catch {
    return { ok: false, errors: [{ code: 'invalid_file_encoding', message: 'The input file is not UTF-8 text.', param: null, line: null }] }
  }
  if (pending.trim() !== '') check(pending)
  if (errors.length > 0) return { ok: false, errors }
  if (lines.length === 0) return { ok: false, errors: [{ code: 'empty_file', message: 'The input file has no requests.', param: null, line: null }] }
  return { ok: true, lines }
}

function checkLine(text: string, endpoint: string, seen: Set<string>): BatchInputLine | Omit<BatchInputError, 'line'> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { code: 'invalid_json_line', message: 'This line is not valid JSON.', param: null }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { code: 'invalid_json_line', message: 'This line is not a JSON object.', param: null }
  const line = parsed as Record<string, unknown>
  const customId = line.custom_id
  if (typeof customId !== 'string' || customId === '') return { code: 'missing_required_parameter', message: 'custom_id must be a non-empty string.', param: 'custom_id' }
  if (customId.length > 512) return { code: 'invalid_custom_id', message: 'custom_id is longer than 512 characters.', param: 'custom_id' }
  if (seen.has(customId))
    return { code: 'duplicate_custom_id', message: `The custom_id '${customId.slice(0, 64)}' is used by an earlier line; each must be unique.`, param: 'custom_id' }
  seen.add(customId)
  if (line.method !== 'POST') return { code: 'invalid_method', message: "method must be 'POST'.", param: 'method' }
  if (line.url !== endpoint) return { code: 'mismatched_endpoint', message: `url must be the batch's endpoint, ${endpoint}.`, param: 'url' }
  const body = line.body
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { code: 'invalid_body', message: 'body must be a JSON object.', param: 'body' }
  if ((body as Record<string, unknown>).stream === true)
    return { code: 'invalid_body', message: 'A batch request cannot stream: body.stream must not be true.', param: 'body.stream' }
  return { customId, body: body as Record<string, unknown> }
}
