/**
 * @module IDE and agent request shapes on /v1/chat/completions (core). Agent modes of some IDEs send
 * Responses-style bodies to the chat endpoint (`input` instead of `messages`, flat `{type:"function",name}`
 * tools, custom grammar tools such as ApplyPatch) and still expect chat completions back. Such bodies are
 * normalised to chat before validation; custom tool calls come back as function calls whose `arguments` are
 * the raw tool input.
 */
import { requestSlot } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { chatApi } from '../../src/protocols/chat/shape.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { customToolNames, translateResponsesRequest } from '../../src/protocols/responses/request.ts'
import { unwrapCompletion, unwrapStream } from './custom-tool-calls.ts'
import { ideRequestShapesManifest } from './manifest.ts'
import { isEventStream } from '../../src/pipeline/sse.ts'
import { GatewayError } from '../../src/errors/gateway-error.ts'

type Json = Record<string, unknown>

/** Names of the request's custom tools, whose calls are unwrapped in the answer. */
const customToolsSlot = requestSlot<Set<string>>('ide-request-shapes')

const RESPONSES_STYLE_FIELDS = ['input', 'instructions', 'max_output_tokens', 'text', 'reasoning']

function isFlatTool(tool: unknown): boolean {
  const t = tool as Json
  return (t?.type === 'function' && t.function === undefined && typeof t.name === 'string') || t?.type === 'custom'
}

export function needsNormalising(body: Json): boolean {
  return (body.messages === undefined && body.input !== undefined) || (Array.isArray(body.tools) && body.tools.some(isFlatTool))
}

export interface NormalisedChatBody {
  body: Json
  /** Chat names of the custom tools, whose calls are unwrapped in the answer. */
  customTools: Set<string>
}

/** A chat body from a Responses-shaped one (chat fields already present win), or the 400 for input chat cannot take. */
export function normaliseChatBody(body: Json): NormalisedChatBody | GatewayError {
  const translation = translateResponsesRequest({ ...body, tools: body.tools, stream: false })
  if (translation instanceof GatewayError) return translation
  const translated = translation.chat
  const out: Json = { ...body }
  for (const field of RESPONSES_STYLE_FIELDS) delete out[field]
  if (body.messages === undefined) out.messages = translated.messages
  for (const field of ['tools', 'tool_choice', 'max_completion_tokens', 'response_format', 'reasoning_effort']) {
    if (translated[field] !== undefined && body[field] === undefined) out[field] = translated[field]
  }
  if (Array.isArray(body.tools)) out.tools = translated.tools
  if (body.tool_choice !== undefined) out.tool_choice = translated.tool_choice
  return { body: out, customTools: customToolNames(translation.toolNames) }
}

export const ideRequestShapes = definePlugin({
  manifest: ideRequestShapesManifest,
  create() {
    return {
      before(ctx) {
        if (endpoint(ctx.endpoint).api !== chatApi || ctx.ingressError) return CONTINUE
        if (!needsNormalising(ctx.body)) return CONTINUE
        const normalised = normaliseChatBody(ctx.body)
        if (normalised instanceof GatewayError) return respondWithError(ctx, normalised)
        if (normalised.customTools.size > 0) ctx.setState(customToolsSlot, normalised.customTools)
        ctx.body = normalised.body
        return CONTINUE
      },
      onResponse(ctx, response) {
        const names = ctx.state(customToolsSlot)
        if (!names || response.status >= 300) return response
        if (isEventStream(response) && response.body) {
          return new Response(unwrapStream(response.body, names), { status: response.status, headers: response.headers })
        }
        return response.json().then((body) => new Response(JSON.stringify(unwrapCompletion(body as Json, names)), { status: response.status, headers: response.headers }))
      },
    }
  },
})
