/**
 * @module The texts and tools of the three conversation APIs (Chat Completions, Responses, Anthropic Messages) as
 * guardrails read them (the shapes' `guardedTexts` and `tools`). Each lists the fields of all three: a body may carry
 * another API's fields (unknown fields pass through to the upstream, which may read them), and reading a field the
 * body does not have costs nothing.
 */
import type { GuardedTexts, OfferedTools } from './api-shape.ts'
import { offeredTools } from './offered-tools.ts'

export const CONVERSATION_TEXTS: GuardedTexts = {
  request: ['messages', 'input', 'instructions', 'system', 'prompt'],
  response: ['choices', 'output', 'content'],
}

/** Chat `tools` and legacy `functions`, Responses and Anthropic `tools`. */
export const CONVERSATION_TOOLS: OfferedTools = { roots: ['tools', 'functions'], offered: offeredTools }
