/**
 * @module Ingress body schemas. Loose objects: fields the gateway does not know are passed through untouched.
 */
import { z } from 'zod'

const message = z.looseObject({
  role: z.string({ error: 'expected a string role' }).min(1),
})

export const chatCompletionRequest = z
  .looseObject({
    model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
    messages: z.array(message, { error: 'expected an array of messages' }).min(1, 'expected at least one message'),
    stream: z.boolean({ error: 'expected true or false' }).nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().nonnegative().nullish(),
    max_completion_tokens: z.number().int().nonnegative().nullish(),
    temperature: z.number().nullish(),
    tools: z.array(z.looseObject({ type: z.string() }), { error: 'expected an array of tools' }).nullish(),
  })
  .refine((b) => !b.stream_options || b.stream === true, {
    message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    path: ['stream_options'],
  })

export const responsesRequest = z.looseObject({
  model: z.string({ error: 'you must provide a model parameter' }).min(1, 'you must provide a model parameter'),
  input: z.union([z.string(), z.array(z.unknown())], { error: 'expected a string or an array of input items' }).optional(),
  stream: z.boolean({ error: 'expected true or false' }).nullish(),
  max_output_tokens: z.number().int().nonnegative().nullish(),
  temperature: z.number().nullish(),
})

const contentBlocks = z.array(z.looseObject({ type: z.string({ error: 'expected a content block with a type' }) }))

/**
 * `system` is Anthropic's mid-conversation system message (what Claude Code sends after the first user turn).
 * Messages are worded as Anthropic words them: Claude Code picks its fallbacks by matching that wording.
 */
const anthropicMessage = z.looseObject({
  role: z.enum(['user', 'assistant', 'system'], { error: "Input should be 'user', 'assistant' or 'system'" }),
  content: z.union([z.string(), contentBlocks], { error: 'expected a string or an array of content blocks' }),
})

/** Anthropic `count_tokens`: a Messages request without `max_tokens`. */
export const countTokensRequest = z.looseObject({
  model: z.string({ error: 'Field required' }).min(1, 'Field required'),
  messages: z.array(anthropicMessage, { error: 'Field required' }),
  system: z.union([z.string(), contentBlocks], { error: 'expected a string or an array of text blocks' }).optional(),
  tools: z.array(z.looseObject({ name: z.string({ error: 'Field required' }) }), { error: 'expected an array of tools' }).optional(),
})

/** Anthropic Messages: `max_tokens` is required there (the Anthropic API itself rejects a request without it). */
export const messagesRequest = countTokensRequest.extend({
  max_tokens: z.number({ error: 'Field required' }).int().nonnegative(),
  stream: z.boolean({ error: 'expected true or false' }).nullish(),
  temperature: z.number().nullish(),
})

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>
export type ResponsesRequest = z.infer<typeof responsesRequest>
