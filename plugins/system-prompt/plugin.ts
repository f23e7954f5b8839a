/**
 * @module Operator system prompt (rewriter, core; runs when the workflow sets `plugins.system-prompt.prompt`).
 * `prepend`/`append` keep the client's system text and add the operator's before or after it, in the first
 * system message; `override` replaces every system and developer message with the operator's.
 */
import { contentText } from '../../src/protocols/content-text.ts'
import { applyRewrite } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { systemPromptManifest } from './manifest.ts'

type Message = Record<string, unknown> & { role?: string }

export function withSystemPrompt(messages: Message[], prompt: string, mode: 'prepend' | 'append' | 'override'): Message[] {
  const isSystem = (m: Message) => m.role === 'system' || m.role === 'developer'
  if (mode === 'override') return [{ role: 'system', content: prompt }, ...messages.filter((m) => !isSystem(m))]
  const first = messages.findIndex(isSystem)
  if (first < 0) return [{ role: 'system', content: prompt }, ...messages]
  const existing = contentText(messages[first]!.content)
  const merged = mode === 'prepend' ? `${prompt}\n\n${existing}` : `${existing}\n\n${prompt}`
  return messages.map((m, i) => (i === first ? { ...m, content: merged } : m))
}

export const systemPrompt = definePlugin({
  manifest: systemPromptManifest,
  create() {
    return {
      before(ctx, config) {
        if (!config.prompt || ctx.endpoint !== 'chat.completions' || !Array.isArray(ctx.body.messages)) return CONTINUE
        applyRewrite(ctx, systemPromptManifest.id, (body) => ({
          body: { ...body, messages: withSystemPrompt(body.messages as Message[], config.prompt, config.mode) },
          detail: { mode: config.mode, prompt_chars: config.prompt.length },
        }))
        return CONTINUE
      },
    }
  },
})
