/**
 * @module Operator system prompt (rewriter, core; runs when the workflow sets `plugins.system-prompt.prompt`), on
 * every API that has one: where it goes is the API's (`systemPrompt` of its shape, src/protocols/api-shape.ts:
 * chat's first system message, Responses' `instructions`, Anthropic's `system`). `prepend`/`append` keep the
 * client's system text and add the operator's before or after it; `override` replaces the client's system text
 * with the operator's. An API without a system prompt is left alone.
 */
import { applyRewrite, continueAfter } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { systemPromptManifest } from './manifest.ts'

export const systemPrompt = definePlugin({
  manifest: systemPromptManifest,
  create() {
    return {
      before(ctx, config) {
        if (!config.prompt) return CONTINUE
        const place = endpoint(ctx.endpoint).api.systemPrompt
        if (!place) return CONTINUE
        const placed = place(ctx.body, config.prompt, config.mode)
        if (!placed) return CONTINUE
        return continueAfter(
          applyRewrite(ctx, systemPromptManifest.id, () => ({
            body: placed,
            detail: { mode: config.mode, prompt_chars: config.prompt.length },
          })),
        )
      },
    }
  },
})
