import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'
import { responsesApi } from '../../src/protocols/responses/shape.ts'

export const responseThreadsManifest = definePluginManifest({
  id: 'response-threads',
  summary: 'Stores Responses API threads so previous_response_id continues a conversation on any provider.',
  features: [],
  /** The answer's output items join the stored thread. */
  captures: { responseBody: (row) => row.api === responsesApi },
  config: noSettings,
})
