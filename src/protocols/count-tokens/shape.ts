/**
 * @module Anthropic token counting (`/v1/messages/count_tokens`): a Messages request, answered with its input token
 * count natively by providers that count (Anthropic), else estimated by the gateway
 * (src/protocols/anthropic-messages/count-tokens.ts). The system prompt and the slimmed tool results count as
 * they would be sent; the answer is a count, not generated text.
 */
import type { ApiShape } from '../api-shape.ts'
import { countTokensResponse } from '../anthropic-messages/count-tokens.ts'
import { anthropicErrorBody } from '../anthropic-messages/errors.ts'
import { messagesRequestToChat } from '../anthropic-messages/request.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'
import { messagesWithSystemPrompt } from '../system-prompt-placement.ts'
import { messagesToolResults } from '../tool-results.ts'
import { countTranslatedPromptTokens } from '../translated-prompt-tokens.ts'

export const countTokensApi: ApiShape = {
  id: 'count_tokens',
  upstream: { native: (adapter) => adapter.countMessageTokens, overChat: null, fallback: countTokensResponse },
  streamCodec: null,
  errorBody: anthropicErrorBody,
  genAiOperation: null,
  systemPrompt: messagesWithSystemPrompt,
  toolResults: messagesToolResults,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  promptTokens: countTranslatedPromptTokens(messagesRequestToChat),
  parameters: null,
  cache: null,
  usage: null,
}
