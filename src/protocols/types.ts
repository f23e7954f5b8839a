/**
 * @module Ingress protocols: how a client API other than Chat Completions (Responses, Anthropic Messages) is
 * served over the canonical chat shape (an API shape's `upstream.overChat`, src/protocols/api-shape.ts). A protocol turns the client's request into a chat request, and the
 * chat answer (JSON or `data:`-only SSE) back into the client's format. Adapters never see ingress formats.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'

export interface IngressProtocol {
  id: string
  /**
   * The client's body as a Chat Completions request (`model` is kept as the client sent it), or the 400 for what
   * chat cannot carry (returned, not thrown: the caller passes it on as the request's error).
   */
  toChatRequest(body: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown> | GatewayError> | Record<string, unknown> | GatewayError
  /** A non-stream `chat.completion` as the client's response document. */
  fromChatResponse(completion: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> | Record<string, unknown>
  /** A chat chunk stream (SSE bytes) as the client's stream (SSE bytes); must end well-formed on upstream errors. */
  fromChatStream(chunks: ReadableStream<Uint8Array>, ctx: RequestContext): ReadableStream<Uint8Array>
  /** Headers the translated answer carries (e.g. what the translation had to leave out). */
  responseHeaders?(ctx: RequestContext): Record<string, string>
}
