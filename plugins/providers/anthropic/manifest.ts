import { defineProvider } from '../../../src/providers/manifest.ts'

/** Prices and limits from Anthropic's pricing and models pages as of 2026-11 (cache writes at 1.25× input for the 5-minute cache, reads at 0.1×). */
export const anthropicManifest = defineProvider({
  id: 'anthropic',
  summary: 'Anthropic Messages API: chat requests, answers and streams translated both ways; /v1/messages and count_tokens forwarded natively.',
  types: {
    anthropic: {
      envPrefix: 'ANTHROPIC',
      defaultBaseUrl: 'https://api.anthropic.com/v1',
      parameters: { style: 'translated' },
      passthrough: {
        root: '/v1',
        paths: [
          { method: 'POST', path: 'messages', model: 'body' },
          { method: 'POST', path: 'messages/count_tokens', model: 'body' },
        ],
      },
      // Message Batches: 50 % of every price, cache reads and writes included (Anthropic's pricing page).
      batchPriceMultiplier: 0.5,
      prices: {
        'claude-opus-4': { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
        'claude-sonnet-4': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
        'claude-haiku-4': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 5 },
        'claude-3-5-haiku': { input: 0.8, cached_input: 0.08, cache_write: 1, output: 4 },
      },
      outputLimits: {
        'claude-opus-4': 32_000,
        'claude-opus-4-5': 64_000,
        'claude-sonnet-4': 64_000,
        'claude-haiku-4': 64_000,
        'claude-3-5-haiku': 8_192,
        'claude-3-7-sonnet': 64_000,
      },
    },
  },
})
