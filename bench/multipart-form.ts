/**
 * A multipart form generated as it is read, for the memory benches: one text field, then a file of `bytes` in 64 KiB
 * chunks whose bytes differ from chunk to chunk (so a chunk held or copied twice would not hash the same); resolves
 * the file's SHA-256 once the last chunk went out.
 */
const CHUNK = 64 * 1024

export interface GeneratedForm {
  boundary: string
  field: { name: string; value: string }
  file: { name: string; filename: string; contentType: string }
}

export function generatedForm(bytes: number, form: GeneratedForm): { body: ReadableStream<Uint8Array>; sha256: Promise<string> } {
  const { boundary, field, file } = form
  const encoder = new TextEncoder()
  const hash = new Bun.CryptoHasher('sha256')
  const chunk = new Uint8Array(CHUNK)
  let sent = 0
  let started = false
  let resolve!: (hex: string) => void
  const sha256 = new Promise<string>((r) => (resolve = r))
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true
        controller.enqueue(
          encoder.encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field.name}"\r\n\r\n${field.value}\r\n--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
          ),
        )
      }
      if (sent >= bytes) {
        controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`))
        resolve(hash.digest('hex'))
        return controller.close()
      }
      const piece = chunk.subarray(0, Math.min(CHUNK, bytes - sent))
      piece.fill(sent / CHUNK)
      hash.update(piece)
      controller.enqueue(piece.slice())
      sent += piece.byteLength
    },
  })
  return { body, sha256 }
}
