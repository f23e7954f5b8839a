/**
 * @module The bounds of every array the request schemas check (request-schemas.ts). Each is at or above what the
 * providers themselves document, so a request a provider accepts is never refused here; they exist so that no
 * array in a body costs more than a bounded amount to check. The body as a whole is bounded before it is parsed
 * (src/http/json-values.ts) and the schema check stops at the first problem (src/errors/request-validation.ts).
 */

/** Chat `messages`, Anthropic `messages`: Anthropic documents at most 100,000 messages a request; OpenAI no limit. */
export const MAX_MESSAGES = 100_000

/** Responses `input` items: a conversation as items (messages, calls and their outputs); as many as messages. */
export const MAX_INPUT_ITEMS = 100_000

/**
 * Content parts of one chat message, content blocks of one Anthropic message, Anthropic `system` blocks. The
 * providers bound images (OpenAI 500 a request, Anthropic 100), not parts; an agent's turn that answers many
 * parallel tool calls holds one block per call, tens in practice.
 */
export const MAX_CONTENT_PARTS = 10_000

/** `tools`: OpenAI accepts at most 128; clients with many MCP servers offer a few hundred. */
export const MAX_TOOLS = 1_024

/** Images a generation request asks for (`n`): OpenAI allows 1 to 10. */
export const MAX_IMAGES = 10
/** Embeddings `input` items: OpenAI documents at most 2,048 inputs a request. */
export const MAX_EMBEDDING_INPUTS = 2_048

/** Prompts of a legacy completions request: OpenAI documents none; as many as embeddings inputs. */
export const MAX_COMPLETION_PROMPTS = 2_048

/**
 * Token ids of one token-array item (an embeddings input, a completions prompt): OpenAI documents at most 300,000
 * tokens summed over an embeddings request, above every completion model's context.
 */
export const MAX_TOKEN_IDS = 300_000

/** Rerank `documents`: Cohere recommends at most 1,000 and accepts 10,000; Jina and Voyage accept fewer. */
export const MAX_RERANK_DOCUMENTS = 10_000
