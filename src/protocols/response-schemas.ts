/**
 * @module Success bodies of the /v1 endpoints, for the OpenAPI document (the endpoint table's `response`). Loose
 * objects, like the request schemas: upstreams add fields of their own and the gateway passes them on, so a
 * schema names the fields every answer of that API has and allows the rest.
 */
import { z } from 'zod'

const model = z.looseObject({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() })

const modelList = z.looseObject({ object: z.literal('list'), data: z.array(model) })

const chatUsage = z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })

const chatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable() }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: chatUsage.optional(),
})

const responsesResponse = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number(),
  model: z.string(),
  status: z.string(),
  output: z.array(z.looseObject({ type: z.string() })),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() }).nullable().optional(),
})

const anthropicMessage = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullable(),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }),
})

const countTokensResponse = z.looseObject({ input_tokens: z.number() })

/** Image generation: each image as base64 (`b64_json`) or a URL; GPT image models report token usage. */
const imagesResponse = z.looseObject({
  created: z.number(),
  data: z.array(z.looseObject({ b64_json: z.string().optional(), url: z.string().optional(), revised_prompt: z.string().optional() })),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() }).optional(),
})

/** Speech to text: the text, and for verbose_json the language, duration and segments; usage in tokens or seconds. */
const transcriptionResponse = z.looseObject({
  text: z.string(),
  language: z.string().optional(),
  duration: z.number().optional(),
  segments: z.array(z.looseObject({ id: z.number(), start: z.number(), end: z.number(), text: z.string() })).optional(),
  usage: z.looseObject({ type: z.enum(['tokens', 'duration']) }).optional(),
})

/** OpenAI's embeddings list: each `embedding` is an array of floats, or their float32 little-endian bytes in base64. */
const embeddingList = z.looseObject({
  object: z.literal('list'),
  data: z.array(z.looseObject({ object: z.literal('embedding'), index: z.number(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string(),
  usage: z.looseObject({ prompt_tokens: z.number(), total_tokens: z.number() }),
})

/** `DELETE /v1/responses/{id}`. */
const deletedResponse = z.looseObject({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) })

/** `GET /v1/responses/{id}/input_items`: a cursor page of input items. */
const responseInputItemList = z.looseObject({
  object: z.literal('list'),
  data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
})

/** `POST /v1/responses/input_tokens`. */
const responseInputTokens = z.looseObject({ object: z.literal('response.input_tokens'), input_tokens: z.number() })

/** Moderations: one result per input, each flagged or not with its categories and their scores. */
const moderationResponse = z.looseObject({
  id: z.string(),
  model: z.string(),
  results: z.array(z.looseObject({ flagged: z.boolean(), categories: z.record(z.string(), z.boolean()), category_scores: z.record(z.string(), z.number()) })),
})

/** OpenAI's legacy `text_completion`. */
const textCompletion = z.looseObject({
  id: z.string(),
  object: z.literal('text_completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(z.looseObject({ text: z.string(), index: z.number(), finish_reason: z.string().nullable() })),
  usage: chatUsage.optional(),
})

/** Rerank: the documents' indexes by relevance, most relevant first; each document too when `return_documents`. */
const rerankResponse = z.looseObject({
  model: z.string(),
  results: z.array(z.looseObject({ index: z.number(), relevance_score: z.number() })),
  usage: z.looseObject({ total_tokens: z.number() }).optional(),
})

/**
 * Every success body by name. @public: the endpoint table loads this module with `require` when the OpenAPI
 * document is first built (endpoints.ts), which knip does not follow.
 */
export const successBodies = {
  model,
  modelList,
  chatCompletion,
  responsesResponse,
  anthropicMessage,
  countTokensResponse,
  imagesResponse,
  transcriptionResponse,
  embeddingList,
  deletedResponse,
  responseInputItemList,
  responseInputTokens,
  moderationResponse,
  textCompletion,
  rerankResponse,
}
