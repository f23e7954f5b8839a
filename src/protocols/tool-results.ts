/**
 * @module Where tool results are in each API (the shapes' `toolResults`), and the body with each of them slimmed:
 * chat `tool` messages, Responses `function_call_output` / `custom_tool_call_output` items, Anthropic `tool_result`
 * blocks. A result is a string or a list of parts; only the text of text parts changes.
 */
import type { Slim } from './api-shape.ts'

type Json = Record<string, unknown>

/** A result's content slimmed; the same value when nothing changed. */
function slimmed(content: unknown, slim: Slim): unknown {
  if (typeof content === 'string') {
    const out = slim(content)
    return out === content ? content : out
  }
  if (!Array.isArray(content)) return content
  let changed = false
  const parts = content.map((p: Json) => {
    if (typeof p?.text !== 'string') return p
    const text = slim(p.text)
    if (text === p.text) return p
    changed = true
    return { ...p, text }
  })
  return changed ? parts : content
}

/** Applies `rewrite` to every item of a list; the list itself when no item changed. */
function mapChanged<T>(items: T[], rewrite: (item: T) => T): { items: T[]; changed: number } {
  let changed = 0
  const out = items.map((item) => {
    const next = rewrite(item)
    if (next !== item) changed++
    return next
  })
  return { items: changed > 0 ? out : items, changed }
}

const TOOL_OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output'])

/** Chat `tool` messages; undefined without a message list. */
export function chatToolResults(body: Json, slim: Slim): { body: Json; slimmed: number } | undefined {
  if (!Array.isArray(body.messages)) return undefined
  const { items, changed } = mapChanged(body.messages as Json[], (m) => {
    if (m?.role !== 'tool') return m
    const content = slimmed(m.content, slim)
    return content === m.content ? m : { ...m, content }
  })
  return { body: changed > 0 ? { ...body, messages: items } : body, slimmed: changed }
}

/** Responses tool output items; a string `input` has none. */
export function responsesToolResults(body: Json, slim: Slim): { body: Json; slimmed: number } {
  if (!Array.isArray(body.input)) return { body, slimmed: 0 }
  const { items, changed } = mapChanged(body.input as Json[], (item) => {
    if (!TOOL_OUTPUT_ITEMS.has(item?.type as string)) return item
    const output = slimmed(item.output, slim)
    return output === item.output ? item : { ...item, output }
  })
  return { body: changed > 0 ? { ...body, input: items } : body, slimmed: changed }
}

/** Anthropic `tool_result` blocks; undefined without a message list. */
export function messagesToolResults(body: Json, slim: Slim): { body: Json; slimmed: number } | undefined {
  if (!Array.isArray(body.messages)) return undefined
  let total = 0
  const { items, changed } = mapChanged(body.messages as Json[], (m) => {
    if (!Array.isArray(m?.content)) return m
    const blocks = mapChanged(m.content as Json[], (block) => {
      if (block?.type !== 'tool_result') return block
      const content = slimmed(block.content, slim)
      return content === block.content ? block : { ...block, content }
    })
    total += blocks.changed
    return blocks.changed > 0 ? { ...m, content: blocks.items } : m
  })
  return { body: changed > 0 ? { ...body, messages: items } : body, slimmed: total }
}
