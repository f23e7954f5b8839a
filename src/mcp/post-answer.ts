/**
 * @module The answer to one POSTed request: JSON when nothing comes before the result (the usual case, and the
 * cheapest), an event stream as soon as something must reach the client first (the server's progress or log
 * notifications, its sampling or elicitation requests about the call). The stream then carries those messages as
 * they arrive and ends with the result, as MCP's Streamable HTTP transport has it. A client whose Accept has no
 * `text/event-stream` gets no stream: nothing is relayed to it, and the server's requests are answered for it.
 */

const encoder = new TextEncoder()
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' }

export class PostAnswer {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined
  private open: ((response: Response) => void) | undefined
  private ended = false

  constructor(
    readonly canStream: boolean,
    private readonly requestId: string,
    /** The client went away while the stream was open. */
    private readonly onClientGone: () => void,
  ) {}

  /** The first of: `answer` settling, and the stream's Response once a message went out before the answer. */
  firstOf<T>(answer: Promise<T>): Promise<T | Response> {
    return new Promise((resolve, reject) => {
      this.open = resolve
      answer.then(resolve, reject)
    })
  }

  /** Writes one JSON-RPC message before the result, opening the stream first; false when it cannot be sent. */
  send(json: string): boolean {
    if (!this.canStream || this.ended) return false
    if (!this.controller) this.start()
    return this.write(json)
  }

  /** Whether the stream is open (the result must go on it). */
  get streaming(): boolean {
    return this.controller !== undefined
  }

  /** Writes the result and ends the stream. */
  end(json: string): void {
    if (this.ended) return
    this.write(json)
    this.ended = true
    try {
      this.controller?.close()
    } catch {
      // the client is gone
    }
  }

  private start(): void {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller
      },
      cancel: () => {
        if (this.ended) return
        this.ended = true
        this.onClientGone()
      },
    })
    this.open?.(new Response(body, { headers: { ...SSE_HEADERS, 'x-request-id': this.requestId } }))
  }

  private write(json: string): boolean {
    try {
      this.controller?.enqueue(encoder.encode(`event: message\ndata: ${json}\n\n`))
      return true
    } catch {
      return false
    }
  }
}
