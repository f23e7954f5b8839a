/**
 * @module Turns the bodies of an audit entry into a transcript: messages with roles and parts (text, tool calls,
 * tool results). Understands OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, requests and
 * answers; anything else yields no messages.
 */
import { z } from 'zod'

export type TranscriptPart =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool_call'; name: string; id?: string; input: string }
  | { kind: 'tool_result'; id?: string; output: string }
  | { kind: 'attachment'; label: string }

export interface TranscriptMessage {
  role: string
  parts: TranscriptPart[]
}

const block = z.looseObject({ type: z.string().optional(), text: z.string().optional() })
const toolUse = z.object({ type: z.literal('tool_use'), id: z.string().optional(), name: z.string(), input: z.unknown() })
const toolResult = z.object({ type: z.literal('tool_result'), tool_use_id: z.string().optional(), content: z.unknown() })
const thinking = z.object({ type: z.literal('thinking'), thinking: z.string() })

const chatMessage = z.object({
  role: z.string(),
  content: z.unknown().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z.array(z.object({ id: z.string().optional(), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
})
const responsesItem = z.discriminatedUnion('type', [
  z.object({ type: z.literal('function_call'), name: z.string(), arguments: z.string(), call_id: z.string().optional() }),
  z.object({ type: z.literal('function_call_output'), call_id: z.string().optional(), output: z.unknown() }),
  z.object({ type: z.literal('reasoning'), summary: z.array(z.object({ text: z.string() })).default([]) }),
])

const chatRequest = z.object({ system: z.unknown().optional(), messages: z.array(z.unknown()) })
const responsesRequest = z.object({ instructions: z.string().nullish(), input: z.union([z.string(), z.array(z.unknown())]) })
const chatAnswer = z.object({ choices: z.array(z.object({ message: z.unknown() })).min(1) })
const anthropicAnswer = z.object({ type: z.literal('message'), role: z.string(), content: z.unknown() })
const responsesAnswer = z.object({ object: z.literal('response'), output: z.array(z.unknown()) })

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2))

function partsOf(content: unknown): TranscriptPart[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  return content.flatMap((item): TranscriptPart[] => {
    const use = toolUse.safeParse(item)
    if (use.success) return [{ kind: 'tool_call', name: use.data.name, id: use.data.id, input: asText(use.data.input) }]
    const result = toolResult.safeParse(item)
    if (result.success) return [{ kind: 'tool_result', id: result.data.tool_use_id, output: plainText(result.data.content) }]
    const thought = thinking.safeParse(item)
    if (thought.success) return [{ kind: 'reasoning', text: thought.data.thinking }]
    const parsed = block.safeParse(item)
    if (!parsed.success) return []
    if (parsed.data.text !== undefined) return [{ kind: 'text', text: parsed.data.text }]
    return [{ kind: 'attachment', label: parsed.data.type ?? 'content' }]
  })
}

function plainText(content: unknown): string {
  if (typeof content === 'string') return content
  const texts = partsOf(content).map((p) => (p.kind === 'text' ? p.text : ''))
  return texts.some(Boolean) ? texts.join('\n') : asText(content)
}

function messageOf(value: unknown): TranscriptMessage | undefined {
  const item = responsesItem.safeParse(value)
  if (item.success) {
    const data = item.data
    if (data.type === 'function_call') return { role: 'assistant', parts: [{ kind: 'tool_call', name: data.name, id: data.call_id, input: data.arguments }] }
    if (data.type === 'function_call_output') return { role: 'tool', parts: [{ kind: 'tool_result', id: data.call_id, output: plainText(data.output) }] }
    return { role: 'assistant', parts: data.summary.map((s) => ({ kind: 'reasoning', text: s.text })) }
  }
  const message = chatMessage.safeParse(value)
  if (!message.success) return undefined
  const { role, content, tool_call_id, tool_calls = [] } = message.data
  const parts: TranscriptPart[] = role === 'tool' ? [{ kind: 'tool_result', id: tool_call_id, output: plainText(content) }] : partsOf(content)
  for (const call of tool_calls) parts.push({ kind: 'tool_call', name: call.function.name, id: call.id, input: call.function.arguments })
  return { role, parts }
}

const messagesOf = (values: unknown[]) => values.map(messageOf).filter((m): m is TranscriptMessage => m !== undefined && m.parts.length > 0)

/** The conversation a request carried: system or instructions first, then its messages or input items. */
export function requestTranscript(body: unknown): TranscriptMessage[] {
  const chat = chatRequest.safeParse(body)
  if (chat.success) {
    const system = partsOf(chat.data.system)
    return [...(system.length > 0 ? [{ role: 'system', parts: system }] : []), ...messagesOf(chat.data.messages)]
  }
  const responses = responsesRequest.safeParse(body)
  if (!responses.success) return []
  const { instructions, input } = responses.data
  const system: TranscriptMessage[] = instructions ? [{ role: 'system', parts: [{ kind: 'text', text: instructions }] }] : []
  return [...system, ...(typeof input === 'string' ? [{ role: 'user', parts: partsOf(input) }] : messagesOf(input))]
}

/** What the model answered. */
export function answerTranscript(body: unknown): TranscriptMessage[] {
  const chat = chatAnswer.safeParse(body)
  if (chat.success) return messagesOf([chat.data.choices[0]!.message])
  const anthropic = anthropicAnswer.safeParse(body)
  if (anthropic.success) return [{ role: anthropic.data.role, parts: partsOf(anthropic.data.content) }]
  const responses = responsesAnswer.safeParse(body)
  return responses.success ? messagesOf(responses.data.output) : []
}

/** How many leading messages `next` repeats from `previous` (chat clients resend the whole history each turn). */
export function repeatedPrefix(previous: TranscriptMessage[], next: TranscriptMessage[]): number {
  let n = 0
  while (n < previous.length && n < next.length && JSON.stringify(previous[n]) === JSON.stringify(next[n])) n++
  return n
}
