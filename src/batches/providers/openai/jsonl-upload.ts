/**
 * @module A JSONL file as a `multipart/form-data` upload (OpenAI's `POST /files`: a `purpose` field and a `file`),
 * produced as it is sent: the lines are encoded a bounded run at a time, never joined into one string.
 */

const RUN_BYTES = 256 * 1024

export function jsonlUpload(lines: readonly string[], purpose: string): { contentType: string; body: ReadableStream<Uint8Array> } {
  const boundary = `gateway-${crypto.randomUUID()}`
  const encoder = new TextEncoder()
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="batch.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`
  const tail = `\r\n--${boundary}--\r\n`
  let next = -1
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === -1) {
        controller.enqueue(encoder.encode(head))
        next = 0
        return
      }
      if (next >= lines.length) {
        controller.enqueue(encoder.encode(tail))
        controller.close()
        return
      }
      let run = ''
      while (next < lines.length && run.length < RUN_BYTES) run += `${lines[next++]}\n`
      controller.enqueue(encoder.encode(run))
    },
  })
  return { contentType: `multipart/form-data; boundary=${boundary}`, body }
}
