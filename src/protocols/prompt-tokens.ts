/**
 * @module Prompt tokens of a request body in the protocol of its endpoint: a Responses or Messages body is counted
 * as the chat request it translates to, so what a rewriter saves is measured the same way on every ingress.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { EndpointId } from '../pipeline/context.ts'
import { countChatPromptTokens } from '../tokens/count.ts'
import { messagesRequestToChat } from './anthropic-messages/request.ts'
import { responsesRequestToChat } from './responses/request.ts'

type Json = Record<string, unknown>

export function countPromptTokens(endpoint: EndpointId, body: Json): Promise<number> {
  if (endpoint === 'responses') return countChatPromptTokens(orEmpty(responsesRequestToChat(body)))
  if (endpoint === 'messages' || endpoint === 'messages.count_tokens') return countChatPromptTokens(orEmpty(messagesRequestToChat(body)))
  return countChatPromptTokens(body)
}

/** A body the translation refuses (e.g. an input item no chat upstream takes) is refused later with its own 400. */
function orEmpty(translated: Json | GatewayError): Json {
  return translated instanceof GatewayError ? {} : translated
}
