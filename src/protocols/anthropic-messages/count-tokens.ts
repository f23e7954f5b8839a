/**
 * @module `/v1/messages/count_tokens` for upstreams that cannot count Anthropic requests themselves: the request
 * is translated to chat and counted with the gateway's tokenizer (o200k_base). This is an estimate: Claude's
 * tokenizer differs by some percent, and images and documents are not counted. Anthropic upstreams answer the
 * real count natively instead (see the Anthropic adapter).
 */
import { GatewayError } from '../../errors/gateway-error.ts'
import { countChatPromptTokens } from '../../tokens/count.ts'
import { messagesRequestToChat } from './request.ts'

/** The estimate, or the 400 for a request the translation refuses (it would be refused when sent, too). */
export async function estimateInputTokens(body: Record<string, unknown>): Promise<number | GatewayError> {
  const chat = messagesRequestToChat(body)
  return chat instanceof GatewayError ? chat : countChatPromptTokens(chat)
}

export async function countTokensResponse(body: Record<string, unknown>): Promise<Response | GatewayError> {
  const tokens = await estimateInputTokens(body)
  if (tokens instanceof GatewayError) return tokens
  return Response.json({ input_tokens: tokens }, { headers: { 'x-gateway-estimated': 'true' } })
}
