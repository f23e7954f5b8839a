/**
 * @module Ingress body schemas. Loose objects: fields the gateway does not know are passed through untouched.
 * Every array is bounded (request-limits.ts); zod checks an array's length before its elements.
 */
import { z } from 'zod'
import { TRANSCRIPT_FORMATS } from './audio/transcript-formats.ts'
import {
  MAX_CONTENT_PARTS,
  MAX_TOKEN_IDS,
  MAX_EMBEDDING_INPUTS,
  MAX_COMPLETION_PROMPTS,
  MAX_IMAGES,
  MAX_INPUT_ITEMS,
  MAX_MESSAGES,
  MAX_RERANK_DOCUMENTS,
  MAX_TOOLS,
} from './request-limits.ts'

const atMost = (limit: number, what: string) => `expected at most ${limit} ${what}`

/** An array's own `too_big` message when a value failed a union only for being too long. */
function tooLongMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_union') return undefined
  return issue.errors.flat().find((inner) => inner.code === 'too_big')?.message
}

/** A string or a bounded array: a too-long array is named as such, anything else gets `error`. */
const stringOr = (array: z.ZodType, error: string) => z.union([z.string(), array], { error: (issue) => tooLongMessage(issue) ?? error })

const message = z.looseObject({
  role: z.string({ error: 'expected a string role' }).min(1),
  content: stringOr(z.array(z.unknown()).max(MAX_CONTENT_PARTS, atMost(MAX_CONTENT_PARTS, 'content parts')), 'expected a string or an array of content parts').nullish(),
})

export const chatCompletionRequest = z
  .looseObject({
    model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
    messages: z.array(message, { error: 'expected an array of messages' }).min(1, 'expected at least one message').max(MAX_MESSAGES, atMost(MAX_MESSAGES, 'messages')),
    stream: z.boolean({ error: 'expected true or false' }).nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().nonnegative().nullish(),
    max_completion_tokens: z.number().int().nonnegative().nullish(),
    temperature: z.number().nullish(),
    tools: z
      .array(z.looseObject({ type: z.string() }), { error: 'expected an array of tools' })
      .max(MAX_TOOLS, atMost(MAX_TOOLS, 'tools'))
      .nullish(),
  })
  .refine((b) => !b.stream_options || b.stream === true, {
    message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    path: ['stream_options'],
  })

export const responsesRequest = z.looseObject({
  model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
  input: stringOr(z.array(z.unknown()).max(MAX_INPUT_ITEMS, atMost(MAX_INPUT_ITEMS, 'input items')), 'expected a string or an array of input items').optional(),
  tools: z.array(z.unknown(), { error: 'expected an array of tools' }).max(MAX_TOOLS, atMost(MAX_TOOLS, 'tools')).nullish(),
  stream: z.boolean({ error: 'expected true or false' }).nullish(),
  max_output_tokens: z.number().int().nonnegative().nullish(),
  temperature: z.number().nullish(),
})

const contentBlocks = z
  .array(z.looseObject({ type: z.string({ error: 'expected a content block with a type' }) }))
  .max(MAX_CONTENT_PARTS, atMost(MAX_CONTENT_PARTS, 'content blocks'))

/**
 * `system` is Anthropic's mid-conversation system message (what Claude Code sends after the first user turn).
 * Messages are worded as Anthropic words them: Claude Code picks its fallbacks by matching that wording.
 */
const anthropicMessage = z.looseObject({
  role: z.enum(['user', 'assistant', 'system'], { error: "Input should be 'user', 'assistant' or 'system'" }),
  content: stringOr(contentBlocks, 'expected a string or an array of content blocks'),
})

/** Anthropic `count_tokens`: a Messages request without `max_tokens`. */
export const countTokensRequest = z.looseObject({
  model: z.string({ error: 'Field required' }).min(1, 'Field required'),
  messages: z.array(anthropicMessage, { error: 'Field required' }).max(MAX_MESSAGES, atMost(MAX_MESSAGES, 'messages')),
  system: stringOr(contentBlocks, 'expected a string or an array of text blocks').optional(),
  tools: z
    .array(z.looseObject({ name: z.string({ error: 'Field required' }) }), { error: 'expected an array of tools' })
    .max(MAX_TOOLS, atMost(MAX_TOOLS, 'tools'))
    .optional(),
})

/** Anthropic Messages: `max_tokens` is required there (the Anthropic API itself rejects a request without it). */
export const messagesRequest = countTokensRequest.extend({
  max_tokens: z.number({ error: 'Field required' }).int().nonnegative(),
  stream: z.boolean({ error: 'expected true or false' }).nullish(),
  temperature: z.number().nullish(),
})

const tokenArray = z
  .array(z.number().int().nonnegative(), { error: 'expected an array of tokens' })
  .min(1, 'expected at least one token')
  .max(MAX_TOKEN_IDS, atMost(MAX_TOKEN_IDS, 'tokens'))
/** A string, strings, token ids or arrays of token ids (embeddings `input`, completions `prompt`), `what` items at most `max`. */
function textOrTokens(max: number, what: string) {
  const many = <T extends z.ZodType>(item: T) =>
    z
      .array(item)
      .min(1, `expected at least one ${what.replace(/s$/, '')}`)
      .max(max, atMost(max, what))
  return z.union([z.string(), many(z.string()), tokenArray, many(tokenArray)], {
    error: (issue) => textOrTokensMessage(issue) ?? 'expected a string, an array of strings, an array of tokens or an array of token arrays',
  })
}

/**
 * The form a value that failed every form of `textOrTokens` was meant to have (by its first item), so the message
 * is that form's own problem (`expected at most 300000 tokens`) rather than another form's.
 */
function textOrTokensMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_union' || !Array.isArray(issue.input)) return undefined
  const first: unknown = issue.input[0]
  const form = typeof first === 'number' ? 2 : Array.isArray(first) ? 3 : 1
  const inner = issue.errors[form]?.[0]
  if (!inner) return undefined
  const where = inner.path.length > 0 ? `${inner.path.join('.')}: ` : ''
  return `${where}${inner.message}`
}

/** OpenAI embeddings: `input` is a string, an array of strings, an array of tokens or an array of token arrays. */
export const embeddingsRequest = z.looseObject({
  model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
  input: textOrTokens(MAX_EMBEDDING_INPUTS, 'inputs'),
  encoding_format: z.enum(['float', 'base64'], { error: "expected 'float' or 'base64'" }).nullish(),
  dimensions: z.number().int().positive().nullish(),
  user: z.string().nullish(),
})

/**
 * OpenAI's legacy completions: `prompt` as a string, strings, tokens or token arrays; `suffix` (fill-in-the-middle)
 * passed on as sent.
 */
export const completionRequest = z
  .looseObject({
    model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
    prompt: textOrTokens(MAX_COMPLETION_PROMPTS, 'prompts'),
    suffix: z.string({ error: 'expected a string' }).nullish(),
    stream: z.boolean({ error: 'expected true or false' }).nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().nonnegative().nullish(),
    temperature: z.number().nullish(),
    n: z.number().int().positive().nullish(),
  })
  .refine((b) => !b.stream_options || b.stream === true, {
    message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    path: ['stream_options'],
  })

/** The body names its model: the gateway routes by it (OpenAI's default model is not assumed). */
const requiredModel = z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter')

/** A form field that says true or false (`stream`). */
const formBoolean = z.enum(['true', 'false'], { error: "expected 'true' or 'false'" })
/** A form field that may be given more than once (`timestamp_granularities[]`, `include[]`): one value, or each in order. */
const repeatedField = (max: number, what: string) => z.union([z.string(), z.array(z.string()).max(max, atMost(max, what))])

/**
 * OpenAI speech to text, the text fields of its multipart form (the audio `file` streams through and is not here).
 * text, srt and vtt answers are plain text, which the gateway does not pass yet: refused here rather than failing upstream.
 */
export const transcriptionRequest = z.looseObject({
  model: requiredModel,
  language: z.string().nullish(),
  prompt: z.string().nullish(),
  response_format: z.enum(TRANSCRIPT_FORMATS, { error: "expected one of 'json', 'text', 'srt', 'verbose_json', 'vtt'" }).nullish(),
  temperature: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'expected a number')
    .nullish(),
  stream: formBoolean.nullish(),
  'timestamp_granularities[]': repeatedField(2, 'timestamp granularities').nullish(),
  'include[]': repeatedField(4, 'include values').nullish(),
})

/** OpenAI image generation; `partial_images` streams partial images with `stream: true`. */
export const imageGenerationRequest = z.looseObject({
  model: requiredModel,
  prompt: z.string({ error: 'expected a string prompt' }).min(1, 'expected a non-empty prompt'),
  n: z.number().int().min(1).max(MAX_IMAGES, atMost(MAX_IMAGES, 'images')).nullish(),
  size: z.string().nullish(),
  quality: z.string().nullish(),
  response_format: z.enum(['url', 'b64_json'], { error: "expected 'url' or 'b64_json'" }).nullish(),
  stream: z.boolean({ error: 'expected true or false' }).nullish(),
  partial_images: z.number().int().min(0).max(3).nullish(),
})

/** A form field that holds a whole number within bounds (`n`, `partial_images`). */
const formInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,3}$/, 'expected a whole number')
    .refine((v) => Number(v) >= min && Number(v) <= max, `expected a whole number from ${min} to ${max}`)

/**
 * OpenAI image edits, the text fields of its multipart form (the `image` or `image[]` files and the optional `mask`
 * stream through and are not here); `partial_images` streams partial images with `stream=true`.
 */
export const imageEditRequest = z.looseObject({
  model: requiredModel,
  prompt: z.string({ error: 'expected a string prompt' }).min(1, 'expected a non-empty prompt'),
  n: formInteger(1, MAX_IMAGES).nullish(),
  size: z.string().nullish(),
  quality: z.string().nullish(),
  background: z.string().nullish(),
  input_fidelity: z.string().nullish(),
  output_format: z.string().nullish(),
  response_format: z.enum(['url', 'b64_json'], { error: "expected 'url' or 'b64_json'" }).nullish(),
  stream: formBoolean.nullish(),
  partial_images: formInteger(0, 3).nullish(),
})

/** OpenAI text to speech: the audio of `input` in `response_format`, or an event stream with `stream_format: "sse"`. */
export const speechRequest = z.looseObject({
  model: requiredModel,
  input: z.string({ error: 'expected the text to speak as a string' }).min(1, 'expected a non-empty input'),
  voice: z.union([z.string(), z.looseObject({ id: z.string() })], { error: 'expected a voice name or {"id": …}' }),
  instructions: z.string().nullish(),
  response_format: z.enum(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'], { error: "expected one of 'mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'" }).nullish(),
  speed: z.number().min(0.25).max(4).nullish(),
  stream_format: z.enum(['sse', 'audio'], { error: "expected 'sse' or 'audio'" }).nullish(),
})

/** OpenAI moderations: text, texts, or text and image parts (the omni models). */
export const moderationRequest = z.looseObject({
  model: requiredModel,
  input: stringOr(
    z.array(z.union([z.string(), z.looseObject({ type: z.string() })])).max(MAX_CONTENT_PARTS, atMost(MAX_CONTENT_PARTS, 'inputs')),
    'expected a string, an array of strings, or an array of text and image_url parts',
  ),
})

/** Rerank in the shape Cohere, Jina and Voyage share (docs/providers.md). */
export const rerankRequest = z.looseObject({
  model: requiredModel,
  query: z.string({ error: 'expected the query as a string' }).min(1, 'expected a non-empty query'),
  documents: z
    .array(z.union([z.string(), z.looseObject({ text: z.string() })], { error: 'expected each document as a string or {"text": …}' }), {
      error: 'expected an array of documents',
    })
    .min(1, 'expected at least one document')
    .max(MAX_RERANK_DOCUMENTS, atMost(MAX_RERANK_DOCUMENTS, 'documents')),
  top_n: z.number().int().min(1).nullish(),
  return_documents: z.boolean({ error: 'expected true or false' }).nullish(),
})
