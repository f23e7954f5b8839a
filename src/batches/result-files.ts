/**
 * @module The batch's output and error files, in OpenAI's batch output format, written through the Files API for
 * the batch's owner as the lines are read from the store (never the whole file in memory). A line answered with a
 * 2xx goes to the output file; one answered with an error status goes to the error file with that answer as its
 * `response`; one that got no answer (expired, cancelled, interrupted) goes there with an `error` instead.
 */
import type { FileAccess } from '../files/file-access.ts'
import type { BatchStore } from '../stores/types.ts'
import type { BatchLine, BatchRecord } from './batch-record.ts'

const PAGE = 200

export async function writeResultFiles(store: BatchStore, files: FileAccess, batch: BatchRecord): Promise<{ outputFileId: string | null; errorFileId: string | null }> {
  const write = async (kind: 'output' | 'error', wanted: (line: BatchLine) => boolean): Promise<string | null> => {
    // Made only when some line goes there, as OpenAI does (a batch with no failure has no error file).
    const first = await firstMatching(store, batch.id, wanted)
    if (first === undefined) return null
    const file = await files.create({
      owner: batch.owner.principalId,
      userPath: batch.owner.userPath,
      purpose: 'batch_output',
      filename: `${batch.id}_${kind}.jsonl`,
      body: resultStream(store, batch.id, first, wanted),
      expiresAfterSeconds: batch.outputExpiresAfter,
    })
    return file.id
  }
  const outputFileId = await write('output', isSuccess)
  const errorFileId = await write('error', (line) => !isSuccess(line))
  return { outputFileId, errorFileId }
}

const isSuccess = (line: BatchLine) => line.result?.kind === 'response' && line.result.statusCode >= 200 && line.result.statusCode < 300

async function firstMatching(store: BatchStore, batchId: string, wanted: (line: BatchLine) => boolean): Promise<number | undefined> {
  let from = 0
  for (;;) {
    const page = await store.lines(batchId, { states: ['succeeded', 'failed'], fromIndex: from, limit: PAGE })
    const found = page.find(wanted)
    if (found) return found.index
    if (page.length < PAGE) return undefined
    from = page.at(-1)!.index + 1
  }
}

function resultStream(store: BatchStore, batchId: string, fromIndex: number, wanted: (line: BatchLine) => boolean): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let from = fromIndex
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close()
      const page = await store.lines(batchId, { states: ['succeeded', 'failed'], fromIndex: from, limit: PAGE })
      if (page.length < PAGE) done = true
      else from = page.at(-1)!.index + 1
      const text = page
        .filter(wanted)
        .map((line) => `${JSON.stringify(resultLine(batchId, line))}\n`)
        .join('')
      if (text) controller.enqueue(encoder.encode(text))
      if (done) controller.close()
    },
  })
}

/** One line of the output or error file, as OpenAI writes it. */
export function resultLine(batchId: string, line: BatchLine) {
  const id = `batch_req_${batchId.slice('batch_'.length)}_${line.index}`
  const result = line.result
  if (result?.kind === 'response') {
    return { id, custom_id: line.customId, response: { status_code: result.statusCode, request_id: result.requestId, body: result.body }, error: null }
  }
  return { id, custom_id: line.customId, response: null, error: result ? { code: result.code, message: result.message } : null }
}
