import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'

export const contextSlimmerConfig = z.strictObject({
  enabled: z.boolean().default(false),
  /** Runs of spaces/tabs become one space and 3+ blank lines become one blank line, in tool results only. */
  collapse_tool_output_whitespace: z.boolean().default(true),
  /** Trailing spaces at line ends in tool results. */
  trim_trailing_whitespace: z.boolean().default(true),
  /** Tool definitions that are exact duplicates of an earlier one. */
  remove_duplicate_tools: z.boolean().default(true),
})

export const contextSlimmerManifest = definePluginManifest({
  id: 'context-slimmer',
  summary: 'Saves prompt tokens without changing meaning: whitespace in tool output, duplicate tool definitions.',
  features: [],
  config: contextSlimmerConfig,
})
