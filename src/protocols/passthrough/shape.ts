/**
 * @module The governed pass-through (`/p/{provider}/…`): a provider's own API, its bytes forwarded unchanged both ways
 * but for the credential (src/providers/passthrough-call.ts), its answer delivered verbatim with the usage read on the
 * side (src/pipeline/verbatim.ts). Nothing may rewrite a body the gateway does not send (no system prompt, tool
 * results or cache; output limits are read for the limits' estimates, never clamped); guardrails read the parsed JSON body as they read the conversation APIs' (and
 * refuse instead of masking: the row is `verbatim`).
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { passthroughCall } from '../../providers/passthrough-call.ts'
import { countChatPromptTokens, countCompletionTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'
import { CONVERSATION_TEXTS, CONVERSATION_TOOLS } from '../conversation-texts.ts'

export const passthroughApi: ApiShape = {
  id: 'passthrough',
  upstream: { native: (adapter) => (call) => passthroughCall(call, adapter), overChat: null, fallback: null },
  // Delivered verbatim: no fold, no error frame.
  streamCodec: null,
  errorBody: null,
  genAiOperation: 'chat',
  systemPrompt: null,
  toolResults: null,
  guardedTexts: CONVERSATION_TEXTS,
  tools: CONVERSATION_TOOLS,
  // The provider's own format; counted as a chat request, which OpenAI- and Anthropic-shaped bodies come close to.
  promptTokens: countChatPromptTokens,
  // Read by the limits' estimates; never clamped (the row is verbatim: the parameter normaliser leaves it alone).
  parameters: { outputLimitFields: ['max_completion_tokens', 'max_tokens', 'max_output_tokens'], providerRules: false },
  cache: null,
  usage: { units: [], streamUsageOnRequest: false, read: (reported) => usageFromOpenAI(reported), countOutputTokens: countCompletionTokens, requestedUnits: null },
}
