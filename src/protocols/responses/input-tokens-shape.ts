/**
 * @module `POST /v1/responses/input_tokens`: a Responses request's input token count, native on providers that
 * count (OpenAI's own Responses API), else estimated by the gateway as the limits count the request
 * (`responsesApi.promptTokens`, answered with `x-gateway-estimated: true`). The system prompt and the slimmed tool
 * results count as they would be sent; the answer is a count, not generated text.
 */
import type { UpstreamResult } from '../../providers/types.ts'
import type { ApiShape } from '../api-shape.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'
import { responsesWithSystemPrompt } from '../system-prompt-placement.ts'
import { responsesToolResults } from '../tool-results.ts'
import { countTranslatedPromptTokens } from '../translated-prompt-tokens.ts'
import { responsesRequestToChat } from './request.ts'

const promptTokens = countTranslatedPromptTokens(responsesRequestToChat)

async function estimatedInputTokens(body: Record<string, unknown>): Promise<UpstreamResult> {
  return Response.json({ object: 'response.input_tokens', input_tokens: await promptTokens(body) }, { headers: { 'x-gateway-estimated': 'true' } })
}

export const responseInputTokensApi: ApiShape = {
  id: 'response_input_tokens',
  upstream: {
    native: (adapter, provider, model) =>
      provider.nativeResponses && (adapter.speaksNatively?.('responses', provider, model) ?? true) ? adapter.responsesLifecycle?.inputTokens : undefined,
    overChat: null,
    fallback: estimatedInputTokens,
  },
  streamCodec: null,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: responsesWithSystemPrompt,
  toolResults: responsesToolResults,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  promptTokens,
  parameters: null,
  cache: null,
  usage: null,
}
