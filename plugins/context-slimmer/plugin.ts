/**
 * @module Context slimmer (rewriter, core; on when the workflow sets `plugins.context-slimmer.enabled`). Agents
 * resend long tool outputs (file listings, logs, command output) every turn; their padding and duplicated tool
 * definitions cost tokens and carry no meaning. Only tool results and tool definitions are touched — never what
 * a person or the model wrote.
 */
import { applyRewrite } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { contextSlimmerManifest } from './manifest.ts'

type Json = Record<string, unknown>

export function slimText(text: string, collapse: boolean, trim: boolean): string {
  let out = text
  if (trim) out = out.replace(/[ \t]+$/gm, '')
  if (collapse) out = out.replace(/[ \t]{2,}/g, ' ').replace(/\n{3,}/g, '\n\n')
  return out
}

export const contextSlimmer = definePlugin({
  manifest: contextSlimmerManifest,
  create() {
    return {
      before(ctx, config) {
        if (!config.enabled || ctx.endpoint !== 'chat.completions' || !Array.isArray(ctx.body.messages)) return CONTINUE
        applyRewrite(ctx, contextSlimmerManifest.id, (body) => {
          let slimmedMessages = 0
          const messages = (body.messages as Json[]).map((m) => {
            if (m?.role !== 'tool') return m
            const slim = (t: string) => slimText(t, config.collapse_tool_output_whitespace, config.trim_trailing_whitespace)
            let content = m.content
            if (typeof content === 'string') content = slim(content)
            else if (Array.isArray(content)) content = content.map((p: Json) => (typeof p?.text === 'string' ? { ...p, text: slim(p.text) } : p))
            if (JSON.stringify(content) === JSON.stringify(m.content)) return m
            slimmedMessages++
            return { ...m, content }
          })
          let removedTools = 0
          let tools = body.tools
          if (config.remove_duplicate_tools && Array.isArray(body.tools)) {
            const seen = new Set<string>()
            tools = body.tools.filter((t) => {
              const key = JSON.stringify(t)
              if (seen.has(key)) return false
              seen.add(key)
              return true
            })
            removedTools = body.tools.length - (tools as unknown[]).length
          }
          const detail = { tool_messages_slimmed: slimmedMessages, duplicate_tools_removed: removedTools }
          if (slimmedMessages === 0 && removedTools === 0) return { unchanged: true, detail }
          return { body: { ...body, messages, ...(tools !== undefined ? { tools } : {}) }, detail }
        })
        return CONTINUE
      },
    }
  },
})
