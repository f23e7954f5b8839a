/**
 * @module Which ingress protocol serves which endpoint over the canonical chat shape. Chat Completions itself
 * needs none.
 */
import type { EndpointId } from '../pipeline/context.ts'
import type { IngressProtocol } from './types.ts'
import { responsesProtocol } from './responses/protocol.ts'
import { anthropicMessagesProtocol } from './anthropic-messages/protocol.ts'

const PROTOCOLS: Partial<Record<EndpointId, IngressProtocol>> = {
  responses: responsesProtocol,
  messages: anthropicMessagesProtocol,
  // Answered natively or estimated (src/providers/call-target.ts), never translated; listed for its error shape.
  'messages.count_tokens': anthropicMessagesProtocol,
}

export function ingressProtocolFor(endpoint: EndpointId): IngressProtocol | undefined {
  return PROTOCOLS[endpoint]
}
