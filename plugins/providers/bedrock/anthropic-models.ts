/**
 * @module Which Bedrock model ids are Anthropic's Claude (`anthropic.claude-…`, or a cross-region inference
 * profile such as `us.anthropic.claude-…`), and the Anthropic model name behind one, for the rules Anthropic's
 * translation keeps per model (structured output support).
 */

const ANTHROPIC_ID = /^(?:[a-z-]+\.)?anthropic\.(claude-[^:]+?)(?:-v\d+)?(?::\d+)?$/

export function isAnthropicModel(model: string): boolean {
  return ANTHROPIC_ID.test(model)
}

/** `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`; other ids unchanged. */
export function anthropicModelName(model: string): string {
  return ANTHROPIC_ID.exec(model)?.[1] ?? model
}
