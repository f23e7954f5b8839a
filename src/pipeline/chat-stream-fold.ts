/**
 * @module Folds a Chat Completions chunk stream into the equivalent non-streamed `chat.completion`, so the audit
 * log stores one document either way and usage is read from one place.
 */

interface ToolCallAcc {
  id?: string
  type: string
  function: { name: string; arguments: string }
}

interface ChoiceAcc {
  index: number
  role: string
  content: string | null
  refusal: string | null
  reasoning: string | null
  /**
   * By the upstream's tool-call index, which is any number it sends: an array indexed by it would be sparse, and
   * listing one whose only call is at 5×10⁷ (or 2³²−2) walks every hole (seconds to minutes).
   */
  toolCalls: Map<number, ToolCallAcc>
  /** Where a call without an index goes: after the highest index seen. */
  nextToolIndex: number
  finishReason: string | null
}

export class ChatStreamFold {
  private id = ''
  private created = 0
  private model = ''
  private systemFingerprint: unknown
  private readonly choices = new Map<number, ChoiceAcc>()
  usage: unknown
  error: unknown
  chunks = 0

  add(chunk: Record<string, unknown>): void {
    this.chunks++
    if (chunk.error !== undefined) {
      this.error = chunk.error
      return
    }
    if (!this.id && typeof chunk.id === 'string') this.id = chunk.id
    if (!this.created && typeof chunk.created === 'number') this.created = chunk.created
    if (!this.model && typeof chunk.model === 'string') this.model = chunk.model
    if (chunk.system_fingerprint !== undefined) this.systemFingerprint = chunk.system_fingerprint
    if (chunk.usage) this.usage = chunk.usage
    const choices = Array.isArray(chunk.choices) ? chunk.choices : []
    for (const c of choices as Record<string, unknown>[]) this.addChoice(c)
  }

  private addChoice(c: Record<string, unknown>): void {
    const index = typeof c.index === 'number' ? c.index : 0
    let acc = this.choices.get(index)
    if (!acc) {
      acc = { index, role: 'assistant', content: null, refusal: null, reasoning: null, toolCalls: new Map(), nextToolIndex: 0, finishReason: null }
      this.choices.set(index, acc)
    }
    const delta = (c.delta ?? {}) as Record<string, unknown>
    if (typeof delta.role === 'string') acc.role = delta.role
    if (typeof delta.content === 'string') acc.content = (acc.content ?? '') + delta.content
    if (typeof delta.refusal === 'string') acc.refusal = (acc.refusal ?? '') + delta.refusal
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (typeof reasoning === 'string') acc.reasoning = (acc.reasoning ?? '') + reasoning
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls as Record<string, unknown>[]) {
        const i = typeof tc.index === 'number' ? tc.index : acc.nextToolIndex
        if (i >= acc.nextToolIndex) acc.nextToolIndex = i + 1
        let slot = acc.toolCalls.get(i)
        if (!slot) {
          slot = { type: 'function', function: { name: '', arguments: '' } }
          acc.toolCalls.set(i, slot)
        }
        if (typeof tc.id === 'string') slot.id = tc.id
        if (typeof tc.type === 'string') slot.type = tc.type
        const fn = (tc.function ?? tc.custom ?? {}) as Record<string, unknown>
        if (typeof fn.name === 'string') slot.function.name += fn.name
        if (typeof fn.arguments === 'string') slot.function.arguments += fn.arguments
        if (typeof fn.input === 'string') slot.function.arguments += fn.input
      }
    }
    if (typeof c.finish_reason === 'string') acc.finishReason = c.finish_reason
  }

  /** The `chat.completion` object the same answer would have been without streaming. */
  result(): Record<string, unknown> {
    const choices = [...this.choices.values()]
      .sort((a, b) => a.index - b.index)
      .map((c) => {
        const message: Record<string, unknown> = { role: c.role, content: c.content, refusal: c.refusal }
        if (c.reasoning !== null) message.reasoning_content = c.reasoning
        if (c.toolCalls.size > 0) message.tool_calls = [...c.toolCalls].sort(([a], [b]) => a - b).map(([, call]) => call)
        return { index: c.index, message, logprobs: null, finish_reason: c.finishReason }
      })
    const out: Record<string, unknown> = { id: this.id, object: 'chat.completion', created: this.created, model: this.model, choices }
    if (this.systemFingerprint !== undefined) out.system_fingerprint = this.systemFingerprint
    if (this.usage !== undefined) out.usage = this.usage
    return out
  }
}
