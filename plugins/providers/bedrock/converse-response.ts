/**
 * @module Bedrock Converse answer → OpenAI `chat.completion`: text blocks joined, `toolUse` blocks as tool calls,
 * reasoning text as `reasoning_content`, stop reasons mapped, usage in OpenAI's meaning (Converse's `inputTokens`
 * leaves out cache reads and writes, OpenAI's `prompt_tokens` includes them).
 */
import { chatAssistantMessage, chatCompletion } from '../../../src/protocols/chat-wire.ts'

type Json = Record<string, unknown>

export const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
}

export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' && FINISH_REASONS[stopReason]) || 'stop'
}

const n = (v: unknown) => (typeof v === 'number' ? v : 0)

export function chatUsage(usage: unknown): Json {
  const u = (usage ?? {}) as Json
  const cacheRead = n(u.cacheReadInputTokens)
  const cacheWrite = n(u.cacheWriteInputTokens)
  const prompt = n(u.inputTokens) + cacheRead + cacheWrite
  const completion = n(u.outputTokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: 0 },
  }
}

export function toolCall(toolUse: Json): Json {
  return { id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: JSON.stringify(toolUse.input ?? {}) } }
}

export function converseToChatCompletion(answer: Json, model: string, requestId: string | null): Json {
  const message = ((answer.output as Json | undefined)?.message ?? {}) as Json
  const blocks = (Array.isArray(message.content) ? message.content : []) as Json[]
  const texts = blocks.filter((b) => typeof b.text === 'string').map((b) => b.text as string)
  const reasoning = blocks.map((b) => ((b.reasoningContent as Json | undefined)?.reasoningText as Json | undefined)?.text).filter((t): t is string => typeof t === 'string')
  const toolCalls = blocks.filter((b) => b.toolUse).map((b) => toolCall(b.toolUse as Json))
  const choice = { index: 0, message: chatAssistantMessage(texts, reasoning, toolCalls), logprobs: null, finish_reason: finishReason(answer.stopReason) }
  return chatCompletion({ id: `chatcmpl-${requestId ?? crypto.randomUUID()}`, created: Math.floor(Date.now() / 1000), model }, [choice], chatUsage(answer.usage))
}
