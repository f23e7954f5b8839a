/**
 * @module A line's body as the chat request a translating adapter (Anthropic, Gemini) translates further, and its
 * answer back in the line's own API. Chat lines are taken as they are (never streamed in a batch). Responses lines
 * go over chat as a live Responses request to such a provider does (src/protocols/responses): the request
 * translated to chat, the chat completion back to a Response document that echoes the request's fields. For that
 * the job keeps each distinct request envelope (the request without its `input`: a batch's lines mostly share
 * instructions and tools) and which lines use which. A line whose hosted tools (web search, file search, …) the
 * provider cannot run is refused with a 400 naming them, since a batch line has no answer header to tell that they
 * were dropped.
 */
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { chatApi } from '../../protocols/chat/shape.ts'
import { translateResponsesRequest } from '../../protocols/responses/request.ts'
import { chatCompletionToResponse } from '../../protocols/responses/response.ts'
import { responsesApi } from '../../protocols/responses/shape.ts'
import { translateTools } from '../../protocols/responses/tools.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchJob } from '../provider-batch-api.ts'
import { rowOf } from './line-row.ts'

type Json = Record<string, unknown>

/** Whether a translating adapter takes lines of this endpoint row: Chat Completions and Responses lines. */
export function takesLinesOf(endpointId: string): boolean {
  const api = rowOf(endpointId)?.api
  return api === chatApi || api === responsesApi
}

export class LineBodies {
  private readonly envelopes: string[] = []
  private readonly envelopeIndex = new Map<string, number>()
  /** custom_id → index into `envelopes`, for responses lines. */
  private readonly responsesLines: Record<string, number> = {}

  private constructor(envelopes: string[] = [], lines: Record<string, number> = {}) {
    this.envelopes = envelopes
    envelopes.forEach((e, i) => this.envelopeIndex.set(e, i))
    this.responsesLines = lines
  }

  static forSubmit(): LineBodies {
    return new LineBodies()
  }

  static ofJob(job: ProviderBatchJob): LineBodies {
    const { responsesEnvelopes, responsesLines } = job.detail
    if (responsesEnvelopes === undefined || responsesLines === undefined) return new LineBodies()
    return new LineBodies(JSON.parse(responsesEnvelopes) as string[], JSON.parse(responsesLines) as Record<string, number>)
  }

  /** The chat request for the line (`model` kept), or the 400 a live call of it gets. */
  chatBody(line: PreparedBatchLine): Json | GatewayError {
    const { stream: _stream, stream_options: _options, ...body } = line.body
    const api = rowOf(line.endpointId)?.api
    if (api === chatApi) return body
    if (api !== responsesApi) throw new Error(`a translating batch API was given a ${line.endpointId} line, which it does not support`)
    const translated = translateResponsesRequest(body)
    if (translated instanceof GatewayError) return translated
    if (translated.droppedTools.length > 0) {
      return gatewayErrors.invalidRequest(
        `tools: ${translated.droppedTools.join(', ')} run only on a provider's native Responses API; this line's model is served over chat, and a batch line cannot say that they were dropped. Remove them, or send the line live.`,
        'tools',
        'unsupported_tool',
      )
    }
    const { input: _input, ...envelope } = body
    const text = JSON.stringify(envelope)
    let index = this.envelopeIndex.get(text)
    if (index === undefined) {
      index = this.envelopes.push(text) - 1
      this.envelopeIndex.set(text, index)
    }
    this.responsesLines[line.customId] = index
    const { stream: _s, stream_options: _o, ...chat } = translated.chat
    return chat
  }

  detail(): Record<string, string> {
    if (this.envelopes.length === 0) return {}
    return { responsesEnvelopes: JSON.stringify(this.envelopes), responsesLines: JSON.stringify(this.responsesLines) }
  }

  /** A responses line's chat completion as a Response document; every other result as it is. */
  answer(result: BatchResultLine, model: string): BatchResultLine {
    const index = this.responsesLines[result.customId]
    if (index === undefined || result.response?.statusCode !== 200) return result
    const envelope = JSON.parse(this.envelopes[index]!) as Json
    const tools = translateTools(envelope)
    const names = tools instanceof GatewayError ? new Map() : tools.names
    return { ...result, response: { statusCode: 200, body: chatCompletionToResponse(result.response.body as Json, envelope, names, model) } }
  }
}
