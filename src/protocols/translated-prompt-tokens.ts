/**
 * @module Prompt tokens of a request in an API that is served over chat, counted as the chat request it translates
 * to, so limits, guardrails and what a rewriter saves measure the same way on every API.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { countChatPromptTokens } from '../tokens/count.ts'

type Json = Record<string, unknown>

/** A body the translation refuses (e.g. an input item no chat upstream takes) counts as empty: it is refused later with its own 400. */
export function countTranslatedPromptTokens(toChat: (body: Json) => Json | GatewayError): (body: Json) => Promise<number> {
  return (body) => {
    const chat = toChat(body)
    return countChatPromptTokens(chat instanceof GatewayError ? {} : chat)
  }
}
