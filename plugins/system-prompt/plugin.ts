/**
 * @module Operator system prompt (rewriter, core; runs when the workflow sets `plugins.system-prompt.prompt`), on
 * every ingress API: chat, Responses and Anthropic Messages (where it goes in each: by-protocol.ts).
 * `prepend`/`append` keep the client's system text and add the operator's before or after it; `override` replaces
 * the client's system text with the operator's.
 */
import type { EndpointId } from '../../src/pipeline/context.ts'
import { applyRewrite, continueAfter } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { messagesWithSystemPrompt, responsesWithSystemPrompt, withSystemPrompt, type SystemPromptMode } from './by-protocol.ts'
import { systemPromptManifest } from './manifest.ts'

type Json = Record<string, unknown>

const BY_ENDPOINT: Partial<Record<EndpointId, (body: Json, prompt: string, mode: SystemPromptMode) => Json>> = {
  'chat.completions': (body, prompt, mode) => ({ ...body, messages: withSystemPrompt(body.messages as Json[], prompt, mode) }),
  responses: responsesWithSystemPrompt,
  messages: messagesWithSystemPrompt,
  // So the count includes the prompt the request would be sent with.
  'messages.count_tokens': messagesWithSystemPrompt,
}

export const systemPrompt = definePlugin({
  manifest: systemPromptManifest,
  create() {
    return {
      before(ctx, config) {
        const rewrite = BY_ENDPOINT[ctx.endpoint]
        if (!config.prompt || !rewrite || (ctx.endpoint === 'chat.completions' && !Array.isArray(ctx.body.messages))) return CONTINUE
        return continueAfter(
          applyRewrite(ctx, systemPromptManifest.id, (body) => ({
            body: rewrite(body, config.prompt, config.mode),
            detail: { mode: config.mode, prompt_chars: config.prompt.length },
          })),
        )
      },
    }
  },
})
