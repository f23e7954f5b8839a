/**
 * @module The Anthropic Messages API (`/v1/messages`, what Claude Code and the Anthropic SDKs speak) served over
 * chat for upstreams that are not Anthropic; Anthropic upstreams are called natively (src/providers/call-target.ts).
 * Errors on these endpoints take Anthropic's shape (./shape.ts).
 */
import type { IngressProtocol } from '../types.ts'
import { messagesRequestToChat } from './request.ts'
import { chatCompletionToMessage } from './response.ts'
import { chatStreamToMessages } from './stream.ts'

/** The target's model id: what an answer reports when the upstream has not said (see docs/clients.md, "model"). */
const targetModel = (ctx: { target?: { model: string } }) => ctx.target?.model ?? ''

export const anthropicMessagesProtocol: IngressProtocol = {
  id: 'messages',
  toChatRequest: (body) => messagesRequestToChat(body),
  fromChatResponse: (completion, ctx) => chatCompletionToMessage(completion, targetModel(ctx)),
  fromChatStream: (chunks, ctx) => chatStreamToMessages(chunks, targetModel(ctx)),
}
