import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'

export const parameterNormaliserConfig = z.strictObject({
  enabled: z.boolean().default(true),
  /** Drop OpenAI-only fields the target provider rejects (listed in the revision's detail). */
  drop_unsupported: z.boolean().default(true),
  /** Lower max_tokens / max_completion_tokens / max_output_tokens to the target model's known output limit. */
  clamp_max_tokens: z.boolean().default(true),
})

export type ParameterNormaliserConfig = z.infer<typeof parameterNormaliserConfig>

export const parameterNormaliserManifest = definePluginManifest({
  id: 'parameter-normaliser',
  summary: 'Adapts parameters to the target: max_tokens vs max_completion_tokens, unsupported fields dropped, output tokens clamped to the model limit.',
  features: [],
  config: parameterNormaliserConfig,
})
