/**
 * @module What an upstream server says to the client while one of its calls runs, and how the client's answer
 * comes back: progress and log notifications about the call, and the server's own requests about it (sampling,
 * elicitation). The connection (./connection.ts) hands them to the call's relay; the methods (../methods.ts) map
 * them to the caller's names and check what its client supports; the transport (../post-answer.ts) writes them on
 * the POST's event stream and routes the client's answer back.
 */
import type { RpcErrorObject } from '../errors.ts'

/** A client's (or the gateway's) answer to a server's request. */
export type RelayedAnswer = { result: Record<string, unknown> } | { error: RpcErrorObject }

export interface CallRelay {
  /** `notifications/progress` params of the upstream, without its progress token; set when the client asked for progress. */
  progress?(params: Record<string, unknown>): void
  /** Any other notification of the server's about this call (`notifications/message`). */
  notify(method: string, params: Record<string, unknown>): void
  /** A request of the server's about this call; resolves with the answer to send back upstream. */
  ask(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RelayedAnswer>
}

/** The client's side of a call, as the transport offers it: its stream, within what its client supports. */
export interface ClientChannel {
  notify(method: string, params: Record<string, unknown>): void
  ask(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RelayedAnswer>
}
