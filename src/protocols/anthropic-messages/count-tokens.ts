/**
 * @module `/v1/messages/count_tokens` for upstreams that cannot count Anthropic requests themselves: the request
 * is translated to chat and counted with the gateway's tokenizer (o200k_base). This is an estimate: Claude's
 * tokenizer differs by some percent, and images and documents are not counted. Anthropic upstreams answer the
 * real count natively instead (see the Anthropic adapter).
 */
import { countChatPromptTokens } from '../../tokens/count.ts'
import { messagesRequestToChat } from './request.ts'

export function estimateInputTokens(body: Record<string, unknown>): Promise<number> {
  return countChatPromptTokens(messagesRequestToChat(body))
}

export async function countTokensResponse(body: Record<string, unknown>): Promise<Response> {
  return Response.json({ input_tokens: await estimateInputTokens(body) }, { headers: { 'x-gateway-estimated': 'true' } })
}
