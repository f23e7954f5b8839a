/**
 * @module Anthropic message → OpenAI `chat.completion`: text blocks joined, `tool_use` blocks as tool calls,
 * thinking as `reasoning_content`, stop reasons and usage mapped. Usage follows OpenAI's meaning: prompt tokens
 * include cache reads and cache writes (Anthropic's `input_tokens` excludes both), so total = prompt + completion.
 */
import { chatAssistantMessage, chatCompletion } from '../../../src/protocols/chat-wire.ts'

type Json = Record<string, unknown>

export const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' && FINISH_REASONS[stopReason]) || 'stop'
}

const n = (v: unknown) => (typeof v === 'number' ? v : 0)

export function chatUsage(usage: unknown): Json {
  const u = (usage ?? {}) as Json
  const cacheRead = n(u.cache_read_input_tokens)
  const cacheWrite = n(u.cache_creation_input_tokens)
  const prompt = n(u.input_tokens) + cacheRead + cacheWrite
  const completion = n(u.output_tokens)
  const thinking = n((u.output_tokens_details as Json | undefined)?.thinking_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: thinking },
  }
}

export function anthropicToChatCompletion(message: Json): Json {
  const blocks = (Array.isArray(message.content) ? message.content : []) as Json[]
  const textParts = blocks.filter((b) => b.type === 'text').map((b) => String(b.text ?? ''))
  const thinking = blocks.filter((b) => b.type === 'thinking').map((b) => String(b.thinking ?? ''))
  const toolCalls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }))
  const choice = { index: 0, message: chatAssistantMessage(textParts, thinking, toolCalls), logprobs: null, finish_reason: finishReason(message.stop_reason) }
  return chatCompletion({ id: message.id, created: Math.floor(Date.now() / 1000), model: message.model }, [choice], chatUsage(message.usage))
}
