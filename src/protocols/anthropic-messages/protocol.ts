/**
 * @module The Anthropic Messages API (`/v1/messages`, what Claude Code and the Anthropic SDKs speak) served over
 * chat for upstreams that are not Anthropic; Anthropic upstreams are called natively (src/providers/call-target.ts).
 * Errors on these endpoints take Anthropic's shape.
 */
import type { IngressProtocol } from '../types.ts'
import { anthropicErrorBody } from './errors.ts'
import { messagesRequestToChat } from './request.ts'
import { chatCompletionToMessage } from './response.ts'
import { chatStreamToMessages } from './stream.ts'

const requestedModel = (body: Record<string, unknown>) => (typeof body.model === 'string' ? body.model : '')

export const anthropicMessagesProtocol: IngressProtocol = {
  id: 'messages',
  toChatRequest: (body) => messagesRequestToChat(body),
  fromChatResponse: (completion, ctx) => chatCompletionToMessage(completion, requestedModel(ctx.body)),
  fromChatStream: (chunks, ctx) => chatStreamToMessages(chunks, requestedModel(ctx.body)),
  errorBody: anthropicErrorBody,
}
