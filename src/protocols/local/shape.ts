/**
 * @module The API of the rows the gateway answers itself (the model list, one model, an unknown /v1 path): no model
 * reads their bodies or writes their answers, so they have none of an API's parts.
 */
import type { ApiShape } from '../api-shape.ts'

export const localApi: ApiShape = {
  id: 'local',
  upstream: null,
  streamCodec: null,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: null,
  tools: null,
  promptTokens: null,
  parameters: null,
  cache: null,
  usage: null,
}
