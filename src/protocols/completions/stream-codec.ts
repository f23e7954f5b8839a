/**
 * @module Legacy completions streams (`/v1/completions`): `data:`-only frames of `text_completion` chunks, ended by
 * `[DONE]`, the usage in a `choices: []` chunk when asked. Folded into the non-stream `text_completion`.
 */
import { dataOnlyStreamCodec, type StreamCodec } from '../../pipeline/stream-codecs.ts'

type Json = Record<string, unknown>

interface ChoiceAcc {
  index: number
  text: string
  finishReason: unknown
}

/** Folds `text_completion` chunks: each choice's text pieces joined in order, its last finish reason, the usage. */
export class TextCompletionFold {
  private id = ''
  private created = 0
  private model = ''
  private readonly choices = new Map<number, ChoiceAcc>()
  usage: unknown
  error: unknown

  add(chunk: Json): void {
    if (chunk.error !== undefined) {
      this.error = chunk.error
      return
    }
    if (typeof chunk.id === 'string' && !this.id) this.id = chunk.id
    if (typeof chunk.created === 'number' && !this.created) this.created = chunk.created
    if (typeof chunk.model === 'string' && !this.model) this.model = chunk.model
    if (chunk.usage) this.usage = chunk.usage
    for (const c of (Array.isArray(chunk.choices) ? chunk.choices : []) as Json[]) {
      const index = typeof c?.index === 'number' ? c.index : 0
      let acc = this.choices.get(index)
      if (!acc) this.choices.set(index, (acc = { index, text: '', finishReason: null }))
      if (typeof c.text === 'string') acc.text += c.text
      if (c.finish_reason !== undefined && c.finish_reason !== null) acc.finishReason = c.finish_reason
    }
  }

  result(): Json {
    const choices = [...this.choices.values()].sort((a, b) => a.index - b.index).map((c) => ({ text: c.text, index: c.index, logprobs: null, finish_reason: c.finishReason }))
    const out: Json = { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices }
    if (this.usage) out.usage = this.usage
    return out
  }
}

/** Legacy completions streams: chat's framing, folded into a `text_completion`. */
export const completionsStreamCodec: StreamCodec = dataOnlyStreamCodec(() => new TextCompletionFold())
