/**
 * @module The Responses API served over chat for upstreams without a native Responses API.
 */
import type { IngressProtocol } from '../types.ts'
import { customToolNames, responsesRequestToChat } from './request.ts'
import { chatCompletionToResponse } from './response.ts'
import { chatStreamToResponses } from './stream.ts'

export const responsesProtocol: IngressProtocol = {
  id: 'responses',
  toChatRequest: (body) => responsesRequestToChat(body),
  fromChatResponse: (completion, ctx) => chatCompletionToResponse(completion, ctx.body, customToolNames(ctx.body)),
  fromChatStream: (chunks, ctx) => chatStreamToResponses(chunks, ctx.body, customToolNames(ctx.body)),
}
