import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const responseThreadsManifest = definePluginManifest({
  id: 'response-threads',
  summary: 'Stores Responses API threads so previous_response_id continues a conversation on any provider.',
  features: [],
  /** The answer's output items join the stored thread. */
  captures: { responseBody: ['responses'] },
  config: noSettings,
})
