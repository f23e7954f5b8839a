/**
 * @module How a request's work is ended from outside: the client going away (the request's own signal) or the
 * gateway ending every request at its drain deadline (`RequestsEnd`). Joining the two into one signal per request
 * (`AbortSignal.any`) cost more than anything else the request path allocated, so a request listens to both
 * directly (`RequestContext.onAbort`) and builds a joined signal only when asked for one.
 */

/** Ends every request still running (src/main.ts, at the drain deadline); one per process. */
export class RequestsEnd {
  private readonly controller = new AbortController()
  private readonly listeners = new Set<() => void>()

  /** Aborted when the requests end; its reason is the error they end with. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  abort(reason: unknown): void {
    if (this.controller.signal.aborted) return
    this.controller.abort(reason)
    const listeners = [...this.listeners]
    this.listeners.clear()
    for (const listener of listeners) listener()
  }

  /** Calls `listener` once when the requests end (a set entry: cheaper than an event listener per request). */
  listen(listener: () => void): void {
    this.listeners.add(listener)
  }

  unlisten(listener: () => void): void {
    this.listeners.delete(listener)
  }
}
