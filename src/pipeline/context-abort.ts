/**
 * @module How a request's work is ended from outside: the client going away (the request's own signal) or the
 * gateway ending every request at its drain deadline (`RequestsEnd`). Joining the two into one signal per request
 * (`AbortSignal.any`) cost more than anything else the request path allocated, so a request listens to both
 * directly (`RequestContext.onAbort`) and builds a joined signal only when asked for one.
 */

/** A listener waiting for the request's work to end (`RequestContext.onAbort`); `offAbort` takes it back. */
export interface AbortListener {
  readonly call: () => void
  /** Neighbours in the list of `RequestsEnd`; both unset when it is not (or no longer) listening there. */
  prev: AbortListener | undefined
  next: AbortListener | undefined
}

/** A listener that listens to nothing but the request's own signal. */
export function abortListener(call: () => void): AbortListener {
  return { call, prev: undefined, next: undefined }
}

/** Ends every request still running (src/main.ts, at the drain deadline); one per process. */
export class RequestsEnd {
  private readonly controller = new AbortController()
  /**
   * The listeners, as a list threaded through their own nodes: adding or removing one writes only that node, its
   * neighbour and `head`. A Set of them (a long-lived table written twice per request) was rescanned by every
   * young-generation collection and tripled the garbage collector's time per request (bench/features.sh core row).
   */
  private head: AbortListener | undefined

  /** Aborted when the requests end; its reason is the error they end with. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  abort(reason: unknown): void {
    if (this.controller.signal.aborted) return
    this.controller.abort(reason)
    const calls: (() => void)[] = []
    for (let node = this.head; node; ) {
      const next = node.next
      node.prev = undefined
      node.next = undefined
      calls.push(node.call)
      node = next
    }
    this.head = undefined
    for (const call of calls) call()
  }

  /** Calls `listener.call` once when the requests end. */
  listen(listener: AbortListener): void {
    if (this.controller.signal.aborted) return
    listener.prev = undefined
    listener.next = this.head
    if (this.head) this.head.prev = listener
    this.head = listener
  }

  /** Takes a listener back; nothing happens when it is not listening. */
  unlisten(listener: AbortListener): void {
    const { prev, next } = listener
    if (prev) prev.next = next
    else if (this.head === listener) this.head = next
    else return
    if (next) next.prev = prev
    listener.prev = undefined
    listener.next = undefined
  }
}
