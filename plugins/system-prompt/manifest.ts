import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'
import { SYSTEM_PROMPT_MODES } from '../../src/protocols/api-shape.ts'

export const systemPromptConfig = z.strictObject({
  /** The operator's system prompt; empty means the rewriter does not run. */
  prompt: z.string().max(100_000).default(''),
  /** `prepend`: before the client's system text; `append`: after it; `override`: replaces every system/developer message. */
  mode: z.enum(SYSTEM_PROMPT_MODES).default('prepend'),
})

export const systemPromptManifest = definePluginManifest({
  id: 'system-prompt',
  summary: 'Injects or overrides an operator system prompt per workflow.',
  features: [],
  config: systemPromptConfig,
})
