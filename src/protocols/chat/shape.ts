/**
 * @module Chat Completions (`/v1/chat/completions`): the canonical API every adapter speaks, so a provider always
 * serves it natively. Streams report usage only when asked; answers are cached and replayed as streams.
 */
import { chatStreamCodec } from '../../pipeline/stream-codecs.ts'
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countChatPromptTokens, countCompletionTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'
import { asksForUsageChunk, replayCompletion } from '../chat-wire.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'
import { chatWithSystemPrompt } from '../system-prompt-placement.ts'
import { chatToolResults } from '../tool-results.ts'

export const chatApi: ApiShape = {
  id: 'chat',
  upstream: { native: (adapter) => adapter.chatCompletions, overChat: null, fallback: null },
  streamCodec: chatStreamCodec,
  errorBody: null,
  genAiOperation: 'chat',
  systemPrompt: chatWithSystemPrompt,
  toolResults: chatToolResults,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  promptTokens: countChatPromptTokens,
  parameters: { outputLimitFields: ['max_completion_tokens', 'max_tokens'], providerRules: true },
  cache: {
    deliveryFields: ['stream', 'stream_options'],
    replayStream: (answer, request) => replayCompletion(answer, asksForUsageChunk(request)),
  },
  usage: {
    units: [],
    streamUsageOnRequest: true,
    read: (reported) => usageFromOpenAI(reported),
    countOutputTokens: countCompletionTokens,
    requestedUnits: null,
  },
}
