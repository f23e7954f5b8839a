/**
 * @module Gemini `GenerateContentResponse` → OpenAI `chat.completion`. One choice per candidate: text parts
 * joined (thought parts become `reasoning_content`), function calls as tool calls with gateway-made ids (their
 * name and thought signature remembered), finish reasons mapped (a function call that ends with `STOP` is
 * `tool_calls`), usage in OpenAI's meaning (completion includes thinking; cached tokens are prompt tokens).
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { chatAssistantMessage, chatCompletion } from '../../../src/protocols/chat-wire.ts'
import { newToolCallId, type ToolCallMemory } from './tool-call-memory.ts'

type Json = Record<string, unknown>

export const FINISH_REASONS: Record<string, string> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  LANGUAGE: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  OTHER: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'stop',
  UNEXPECTED_TOOL_CALL: 'stop',
  TOO_MANY_TOOL_CALLS: 'stop',
  FINISH_REASON_UNSPECIFIED: 'stop',
}

export function finishReason(reason: unknown, calledFunction: boolean): string {
  if (calledFunction && (reason === 'STOP' || reason === undefined)) return 'tool_calls'
  return (typeof reason === 'string' && FINISH_REASONS[reason]) || 'stop'
}

const n = (v: unknown) => (typeof v === 'number' ? v : 0)

export function chatUsage(usageMetadata: unknown): Json {
  const u = (usageMetadata ?? {}) as Json
  const prompt = n(u.promptTokenCount) + n(u.toolUsePromptTokenCount)
  const thoughts = n(u.thoughtsTokenCount)
  const completion = n(u.candidatesTokenCount) + thoughts
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: typeof u.totalTokenCount === 'number' ? u.totalTokenCount : prompt + completion,
    prompt_tokens_details: { cached_tokens: n(u.cachedContentTokenCount) },
    completion_tokens_details: { reasoning_tokens: thoughts },
  }
}

/** An OpenAI tool call for a `functionCall` part; its name and signature are remembered under the new id. */
export function toolCallFor(part: Json, memory: ToolCallMemory): Json {
  const call = (part.functionCall ?? {}) as Json
  const id = typeof call.id === 'string' && call.id ? call.id : newToolCallId()
  const name = String(call.name ?? '')
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined
  memory.remember(id, { name, signature })
  const toolCall: Json = { id, type: 'function', function: { name, arguments: JSON.stringify(call.args ?? {}) } }
  if (signature) toolCall.extra_content = { google: { thought_signature: signature } }
  return toolCall
}

export function partsOf(candidate: Json): Json[] {
  const parts = ((candidate.content as Json | undefined)?.parts ?? []) as Json[]
  return Array.isArray(parts) ? parts : []
}

/** A prompt Gemini refused outright comes back with no candidates and a block reason. */
export function blockedPromptError(response: Json, provider: string): GatewayError | undefined {
  const candidates = response.candidates
  const reason = (response.promptFeedback as Json | undefined)?.blockReason
  if ((Array.isArray(candidates) && candidates.length > 0) || typeof reason !== 'string') return undefined
  return new GatewayError({ status: 400, type: 'invalid_request_error', code: 'content_filter', provider, message: `Provider '${provider}' blocked the prompt (${reason}).` })
}

export function geminiToChatCompletion(response: Json, requestedModel: string, memory: ToolCallMemory): Json {
  const candidates = (Array.isArray(response.candidates) ? response.candidates : []) as Json[]
  const choices = candidates.map((candidate, i) => {
    const parts = partsOf(candidate)
    const texts = parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text as string)
    const thoughts = parts.filter((p) => typeof p.text === 'string' && p.thought === true).map((p) => p.text as string)
    const toolCalls = parts.filter((p) => p.functionCall).map((p) => toolCallFor(p, memory))
    const message = chatAssistantMessage(texts, thoughts, toolCalls)
    return { index: typeof candidate.index === 'number' ? candidate.index : i, message, logprobs: null, finish_reason: finishReason(candidate.finishReason, toolCalls.length > 0) }
  })
  const head = { id: `chatcmpl-${response.responseId ?? crypto.randomUUID()}`, created: Math.floor(Date.now() / 1000), model: response.modelVersion ?? requestedModel }
  return chatCompletion(head, choices, chatUsage(response.usageMetadata))
}
