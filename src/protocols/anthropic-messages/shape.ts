/**
 * @module The Anthropic Messages API (`/v1/messages`): native on Anthropic, translated over chat elsewhere
 * (./protocol.ts); errors in Anthropic's shape.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'
import { messagesWithSystemPrompt } from '../system-prompt-placement.ts'
import { messagesToolResults } from '../tool-results.ts'
import { countTranslatedPromptTokens } from '../translated-prompt-tokens.ts'
import { anthropicErrorBody } from './errors.ts'
import { anthropicMessagesProtocol } from './protocol.ts'
import { messagesRequestToChat } from './request.ts'
import { messagesStreamCodec } from './stream-codec.ts'

type Json = Record<string, unknown>

/** Output tokens of a message: its text and thinking blocks and its tool calls' input. */
function countOutputTokens(answer: Json): Promise<number> {
  const texts: string[] = []
  for (const block of (Array.isArray(answer.content) ? answer.content : []) as Json[]) {
    if (typeof block?.text === 'string') texts.push(block.text)
    else if (typeof block?.thinking === 'string') texts.push(block.thinking)
    else if (block?.type === 'tool_use') texts.push(JSON.stringify(block.input ?? {}))
  }
  return countTextsTokens(texts)
}

export const messagesApi: ApiShape = {
  id: 'messages',
  upstream: {
    native: (adapter, provider, model) => ((adapter.speaksNatively?.('messages', provider, model) ?? true) ? adapter.messages : undefined),
    overChat: anthropicMessagesProtocol,
    fallback: null,
  },
  streamCodec: messagesStreamCodec,
  errorBody: anthropicErrorBody,
  genAiOperation: 'chat',
  systemPrompt: messagesWithSystemPrompt,
  toolResults: messagesToolResults,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  promptTokens: countTranslatedPromptTokens(messagesRequestToChat),
  parameters: { outputLimitFields: ['max_tokens'], providerRules: false },
  cache: null,
  usage: { units: [], streamUsageOnRequest: false, read: (reported) => usageFromOpenAI(reported), countOutputTokens, requestedUnits: null },
}
