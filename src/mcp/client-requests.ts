/**
 * @module Requests the gateway relays to a client (an upstream server's sampling or elicitation about a call),
 * written on the call's event stream, and the client's answers, which it POSTs back: each is matched by the
 * gateway's own id and the session that was asked, so no other session can answer it. A request waits at most
 * as long as the call it belongs to (its signal). Answers are matched in this process: the client's answer must
 * reach the replica that holds the call's stream (its keep-alive connection normally does).
 */
import { randomBytes } from 'node:crypto'
import { RPC } from './errors.ts'
import type { PostAnswer } from './post-answer.ts'
import type { RelayedAnswer } from './upstream/call-relay.ts'

interface Waiting {
  sessionNonce: string
  resolve: (answer: RelayedAnswer) => void
}

export class ClientRequests {
  private readonly waiting = new Map<string, Waiting>()
  private readonly prefix = `gw-${randomBytes(6).toString('base64url')}-`
  private next = 0

  get size(): number {
    return this.waiting.size
  }

  ask(stream: PostAnswer, sessionNonce: string, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RelayedAnswer> {
    if (signal.aborted) return Promise.resolve(gone())
    const id = `${this.prefix}${++this.next}`
    return new Promise<RelayedAnswer>((resolve) => {
      const done = (answer: RelayedAnswer) => {
        if (!this.waiting.delete(id)) return
        signal.removeEventListener('abort', onAbort)
        resolve(answer)
      }
      const onAbort = () => done(gone())
      this.waiting.set(id, { sessionNonce, resolve: done })
      signal.addEventListener('abort', onAbort, { once: true })
      if (!stream.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) done(gone())
    })
  }

  /** A client's answer; false when no request of that session waits for it (unknown, answered, or another's). */
  answered(sessionNonce: string, id: unknown, answer: RelayedAnswer): boolean {
    if (typeof id !== 'string') return false
    const waiting = this.waiting.get(id)
    if (!waiting || waiting.sessionNonce !== sessionNonce) return false
    waiting.resolve(answer)
    return true
  }
}

const gone = (): RelayedAnswer => ({ error: { code: RPC.requestTimeout, message: 'The call ended before the client answered.' } })
