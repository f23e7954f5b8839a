/**
 * @module A request body left unread by ingress (`body: 'stream'` rows): the row's own answer reads it as it needs,
 * chunk by chunk (a file upload streamed to the byte store). Knows whether it was read to its end, so that the
 * connection closes when it was not (its rest is never read).
 */
export class StreamedBody {
  private finishedReading = false
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined

  constructor(
    body: ReadableStream<Uint8Array> | null,
    /** The body's Content-Type header (null when none). */
    readonly contentType: string | null,
    /** The declared Content-Length, when the client sent one. */
    readonly declaredLength: number | undefined,
  ) {
    this.reader = body?.getReader()
    if (!this.reader) this.finishedReading = true
  }

  /** The next chunk; undefined at the end. Throws when the client's body could not be read (it went away). */
  async read(): Promise<Uint8Array | undefined> {
    if (this.finishedReading || !this.reader) return undefined
    const next = await this.reader.read()
    if (next.done) {
      this.finishedReading = true
      return undefined
    }
    return next.value
  }

  get finished(): boolean {
    return this.finishedReading
  }

  /** Stops reading: what is left of the body is never read. */
  discard(): void {
    if (this.finishedReading) return
    this.finishedReading = true
    this.reader?.cancel().catch(() => {})
  }

  /** Whether the body was left unread (then the connection must close); stops reading it. */
  leftUnread(): boolean {
    const unread = !this.finishedReading
    this.discard()
    return unread
  }
}
