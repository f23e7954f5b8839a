/**
 * @module Context slimmer (rewriter, core; on when the workflow sets `plugins.context-slimmer.enabled`). Agents
 * resend long tool outputs (file listings, logs, command output) every turn; their padding and duplicated tool
 * definitions cost tokens and carry no meaning. Only tool results and tool definitions are touched — never what
 * a person or the model wrote. Runs on every API that carries tool results (where they are is the API's:
 * `toolResults` of its shape, src/protocols/api-shape.ts).
 */
import { applyRewrite, continueAfter } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { contextSlimmerManifest } from './manifest.ts'

export function slimText(text: string, collapse: boolean, trim: boolean): string {
  let out = text
  if (trim) out = trimLineEnds(out)
  // Linear: each run is matched greedily from its first character and replaced; nothing after it can fail.
  if (collapse) out = out.replace(/[ \t]{2,}/g, ' ').replace(/\n{3,}/g, '\n\n')
  return out
}

/** A line terminator as `$` with the `m` flag sees one: \n, \r, U+2028, U+2029. */
const isLineEnd = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029

/**
 * Spaces and tabs before each line end and at the end of the text removed. What `/[ \t]+$/gm` did, in one pass: that
 * regex tried every position of a run of blanks not at a line end and scanned the rest of the run from each (80,000
 * spaces before a letter took 18 s).
 */
export function trimLineEnds(text: string): string {
  let out = ''
  let kept = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09) {
      i++
      continue
    }
    const blanks = i
    while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++
    if (i === text.length || isLineEnd(text.charCodeAt(i))) {
      out += text.slice(kept, blanks)
      kept = i
    }
  }
  return kept === 0 ? text : out + text.slice(kept)
}

export const contextSlimmer = definePlugin({
  manifest: contextSlimmerManifest,
  create() {
    return {
      before(ctx, config) {
        if (!config.enabled) return CONTINUE
        const slimToolResults = endpoint(ctx.endpoint).api.toolResults
        if (!slimToolResults) return CONTINUE
        const slim = (t: string) => slimText(t, config.collapse_tool_output_whitespace, config.trim_trailing_whitespace)
        const results = slimToolResults(ctx.body, slim)
        if (!results) return CONTINUE
        return continueAfter(
          applyRewrite(ctx, contextSlimmerManifest.id, (body) => {
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
            const detail = { tool_messages_slimmed: results.slimmed, duplicate_tools_removed: removedTools }
            if (results.slimmed === 0 && removedTools === 0) return { unchanged: true, detail }
            return { body: { ...results.body, ...(tools !== undefined ? { tools } : {}) }, detail }
          }),
        )
      },
    }
  },
})
