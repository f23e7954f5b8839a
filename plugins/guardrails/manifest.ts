import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'
import { nestedQuantifier } from './pattern-safety.ts'

const ruleSchema = z
  .strictObject({
    /** Named in the 400 that blocks a request and in the audit entry. */
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a lower-case rule name'),
    kind: z.enum(['email', 'phone', 'card', 'secret', 'pattern']),
    /** `pattern` rules: a regular expression (case-insensitive) … */
    pattern: z.string().min(1).optional(),
    /** … and/or whole words. */
    words: z.array(z.string().min(1)).min(1).optional(),
    action: z.enum(['block', 'mask']).default('block'),
    /** Where the rule looks: the request, non-streamed responses, or both. */
    applies_to: z
      .array(z.enum(['input', 'output']))
      .min(1)
      .default(['input']),
  })
  .superRefine((rule, ctx) => {
    if (rule.kind !== 'pattern') return
    if (!rule.pattern && !rule.words) ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'a pattern rule needs a pattern or words' })
    if (rule.pattern) {
      try {
        new RegExp(rule.pattern)
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: `not a valid regular expression: ${(error as Error).message}` })
        return
      }
      // The pattern runs on the client's text: one that can backtrack exponentially would let a request stall the gateway.
      const nested = nestedQuantifier(rule.pattern)
      if (nested) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `${nested} (as in "(a+)+"): it can take exponential time on some texts` })
    }
  })

export type GuardrailRule = z.infer<typeof ruleSchema>

export const guardrailsConfig = z.strictObject({
  rules: z.array(ruleSchema).default([]),
  /** Requests whose prompt is larger than this many tokens are blocked. */
  max_input_tokens: z.number().int().positive().optional(),
  /** Only these tool names may be offered to the model; others are blocked. */
  allowed_tools: z.array(z.string().min(1)).optional(),
})
export type GuardrailsConfig = z.infer<typeof guardrailsConfig>

export const guardrailsManifest = definePluginManifest({
  id: 'guardrails',
  summary: 'Input and output rules: blocked patterns, PII (e-mail, phone, card, secrets) blocked or masked, input size, tool allow-list.',
  features: ['guardrails'],
  config: guardrailsConfig,
})
