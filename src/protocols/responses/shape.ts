/**
 * @module The Responses API (`/v1/responses`): native on providers that speak it (`native_responses`), translated
 * over chat elsewhere (./protocol.ts). Usage comes in the answer and in the stream's `response.completed`.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'
import { contentText } from '../content-text.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'
import { responsesWithSystemPrompt } from '../system-prompt-placement.ts'
import { responsesToolResults } from '../tool-results.ts'
import { countTranslatedPromptTokens } from '../translated-prompt-tokens.ts'
import { responsesProtocol } from './protocol.ts'
import { responsesRequestToChat } from './request.ts'
import { responsesStreamCodec } from './stream-codec.ts'

type Json = Record<string, unknown>

/** Output tokens of a Responses answer: message texts and tool call arguments of its output items. */
function countOutputTokens(answer: Json): Promise<number> {
  const texts: string[] = []
  for (const item of (Array.isArray(answer.output) ? answer.output : []) as Json[]) {
    if (item?.type === 'message') texts.push(contentText(item.content))
    else if (typeof item?.arguments === 'string') texts.push(item.arguments)
    else if (typeof item?.input === 'string') texts.push(item.input)
  }
  return countTextsTokens(texts)
}

export const responsesApi: ApiShape = {
  id: 'responses',
  upstream: {
    native: (adapter, provider, model) => (provider.nativeResponses && (adapter.speaksNatively?.('responses', provider, model) ?? true) ? adapter.responses : undefined),
    overChat: responsesProtocol,
    fallback: null,
  },
  streamCodec: responsesStreamCodec,
  errorBody: null,
  genAiOperation: 'chat',
  systemPrompt: responsesWithSystemPrompt,
  toolResults: responsesToolResults,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  promptTokens: countTranslatedPromptTokens(responsesRequestToChat),
  parameters: { outputLimitFields: ['max_output_tokens'], providerRules: false },
  cache: null,
  usage: { units: [], streamUsageOnRequest: false, read: (reported) => usageFromOpenAI(reported), countOutputTokens, requestedUnits: null },
}
