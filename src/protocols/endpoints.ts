/**
 * @module The endpoint table: every API the gateway serves under /v1, in one place. The HTTP shell registers a
 * route per row; the pipeline and the plugins ask the row what they need: what its body is and what its answers
 * may be, which governance steps apply to it (`governance`), which schema checks it, and, through the API it
 * speaks (`api`, src/protocols/api-shape.ts), where a system prompt goes, which texts guardrails read, how usage
 * is read, how a provider serves it. Adding an endpoint: docs/architecture.md, "Adding an endpoint".
 */
import type { z } from 'zod'
import type { GatewayError } from '../errors/gateway-error.ts'
import type { FileService } from '../files/file-service.ts'
import type { FilesConfig } from '../files/config.ts'
import { createFile, deleteFile, fileContent, listFiles, retrieveFile } from '../files/file-endpoints.ts'
import { fileDeleted, fileList, fileObject, uploadFields } from '../files/schemas.ts'
import { addUploadPart, cancelUpload, completeUpload, createUpload } from '../files/upload-endpoints.ts'
import { completeUploadRequest, createUploadRequest, uploadObject, uploadPartFields, uploadPartObject } from '../files/upload-schemas.ts'
import type { UploadService } from '../files/upload-service.ts'
import type { ModelCatalog } from '../models/catalog.ts'
import type { BatchService } from '../batches/batch-service.ts'
import { cancelBatch, createBatch, listBatches, retrieveBatch } from '../batches/routes.ts'
import { batchCreateRequest, batchList, batchObject } from '../batches/schemas.ts'
import { listModels, oneModel, unknownRoute } from '../models/local-endpoints.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { messagesApi } from './anthropic-messages/shape.ts'
import { moderationsApi } from './moderations/shape.ts'
import { transcriptionsApi, translationsApi } from './audio/transcription-shape.ts'
import type { ApiShape } from './api-shape.ts'
import { chatApi } from './chat/shape.ts'
import { completionsApi } from './completions/shape.ts'
import { countTokensApi } from './count-tokens/shape.ts'
import { embeddingsApi } from './embeddings/shape.ts'
import { imageEditsApi, imagesApi } from './images/shape.ts'
import { localApi } from './local/shape.ts'
import { passthroughApi } from './passthrough/shape.ts'
import { rerankApi } from './rerank/shape.ts'
import {
  chatCompletionRequest,
  completionRequest,
  countTokensRequest,
  embeddingsRequest,
  imageEditRequest,
  imageGenerationRequest,
  messagesRequest,
  moderationRequest,
  rerankRequest,
  responsesRequest,
  speechRequest,
  transcriptionRequest,
} from './request-schemas.ts'
import { responseInputTokensApi } from './responses/input-tokens-shape.ts'
import { cancelResponseApi, deleteResponseApi, responseInputItemsApi, retrieveResponseApi } from './responses/lifecycle-shape.ts'
import { responsesApi } from './responses/shape.ts'
import { SPEECH_AUDIO_TYPES, speechApi } from './speech/shape.ts'

/**
 * The success bodies' schemas, named only by the OpenAPI document: loaded when it is first built, not at start-up
 * (about 200 zod schemas, 0.4 MB of the heap of every process; docs/workers.md, "Memory per process").
 */
const successBodies = (): typeof import('./response-schemas.ts').successBodies => require('./response-schemas.ts').successBodies

/**
 * What the request body is: a JSON document (read and parsed by src/http/ingress.ts), a multipart form (uploads: its text
 * fields read, its files streamed upstream, src/http/multipart-upload.ts), bytes forwarded unchanged (read within the size limit; parsed on the side
 * when JSON, only to read the model and for the audit entry), a body left unread for the row's local answer to
 * read as it needs (`stream`: a file upload streamed to the byte store, src/http/streamed-body.ts), or nothing the
 * gateway reads.
 */
export type BodyKind = 'json' | 'multipart' | 'bytes' | 'stream' | 'none'

/**
 * What a successful answer may be: a JSON document, an event stream (read by the API's `streamCodec`), bytes (audio),
 * plain text read whole (a transcript as text, srt or vtt: the adapter asks `fetchUpstream` for `textAnswer`).
 */
export type AnswerKind = 'json' | 'sse' | 'binary' | 'text'

/**
 * The governance steps that depend on the row; each is enforced where its comment says. Authentication, the
 * workflow's plugins and the audit entry apply to every row and are not listed.
 */
export interface Governance {
  /** The body names a model: resolved (virtual models, `<provider>/<model>` selectors) and checked against the key's allowed models (virtual-model-resolver, model-access). */
  modelAccess: boolean
  /** Rate limits and budgets count the request (rate-limiter, budget). */
  limits: boolean
  /** Failover may move the request to another target after the primary failed (failover). */
  failover: boolean
  /** Usage is metered and priced: the usage record, the audit entry's usage, budget spend (usage-meter); needs the API's `usage`. */
  usage: boolean
  /** Guardrails' rules and `allowed_tools` apply (guardrails); needs the API's `guardedTexts`. */
  guardrails: boolean
}

/** What the rows the gateway answers itself read. */
export interface LocalServices {
  catalog: ModelCatalog
  files: FileService
  filesConfig: FilesConfig
  batches: BatchService
  uploads: UploadService
}

/**
 * A row's answer made by the gateway itself after authentication (src/models/local-endpoints.ts, src/files): at
 * once, or a promise for answers that read a store; its body may stream (a file's bytes).
 */
export type LocalAnswer = (ctx: RequestContext, services: LocalServices) => Response | GatewayError | Promise<Response | GatewayError>

export interface Endpoint {
  /** Stable: stored in audit entries (via the path), metric labels and cache keys. Never compared by plugins. */
  id: string
  method: 'GET' | 'POST' | 'DELETE' | 'ALL'
  /** Route pattern; `*` takes the rest of the path, `:id` one segment (either handed to the pipeline as `ctx.pathParam`). */
  path: string
  body: BodyKind
  answers: readonly AnswerKind[]
  /** The API the row's bodies speak: what plugins ask (src/protocols/api-shape.ts). */
  api: ApiShape
  governance: Governance
  /** Answered by the gateway itself after authentication, never upstream; null: the route stage calls a provider. */
  local: LocalAnswer | null
  /**
   * The answer goes to the client byte for byte as the upstream sent it (no header hygiene, keep-alives, error frames
   * or rewriting hooks; usage read on the way: src/pipeline/verbatim.ts), and nothing masks the request.
   */
  verbatim: boolean
  /** Checks the body after authentication; also the OpenAPI request body. */
  request?: z.ZodType
  /** The success body (not streamed), for the OpenAPI document: built when the document is (successBodies). */
  response?: () => z.ZodType
  /**
   * `binaryTypes`: the media types of a `'binary'` answer (default `application/octet-stream`); `files`: the file
   * parts of a `'multipart'` body (default one required `file`).
   */
  openapi: {
    summary: string
    tag: string
    bodyDescription?: string
    hide?: boolean
    binaryTypes?: readonly string[]
    files?: readonly { name: string; required: boolean }[]
  }
}

/** A model generates the answer: every step applies. */
const INFERENCE: Governance = { modelAccess: true, limits: true, failover: true, usage: true, guardrails: true }
/** Answered by the gateway: no model, nothing to price or guard. Rate limits and budgets still count the calls. */
const LOCAL: Governance = { modelAccess: false, limits: true, failover: false, usage: false, guardrails: false }
/**
 * A stored response's routes: the path names the response, whose provider the response-threads plugin targets for
 * its owner only (no model to resolve or check, nothing generated). Rate limits and budgets count the calls.
 */
const STORED_RESPONSE: Governance = LOCAL

export const ENDPOINTS = [
  {
    id: 'models.list',
    method: 'GET',
    path: '/v1/models',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: listModels,
    verbatim: false,
    response: () => successBodies().modelList,
    openapi: { summary: 'List the models this key may use as <provider>/<model> selectors and virtual models', tag: 'openai' },
  },
  {
    id: 'models.get',
    method: 'GET',
    path: '/v1/models/*',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: oneModel,
    verbatim: false,
    response: () => successBodies().model,
    openapi: { summary: 'One model by selector', tag: 'openai' },
  },
  {
    id: 'chat.completions',
    method: 'POST',
    path: '/v1/chat/completions',
    body: 'json',
    answers: ['json', 'sse'],
    api: chatApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: chatCompletionRequest,
    response: () => successBodies().chatCompletion,
    openapi: { summary: 'Chat Completions (streaming with stream: true)', tag: 'openai', bodyDescription: 'OpenAI Chat Completions request; unknown fields pass through.' },
  },
  {
    id: 'responses',
    method: 'POST',
    path: '/v1/responses',
    body: 'json',
    answers: ['json', 'sse'],
    api: responsesApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: responsesRequest,
    response: () => successBodies().responsesResponse,
    openapi: { summary: 'Responses API', tag: 'openai', bodyDescription: 'OpenAI Responses request; unknown fields pass through.' },
  },
  {
    id: 'responses.input_tokens',
    method: 'POST',
    path: '/v1/responses/input_tokens',
    body: 'json',
    answers: ['json'],
    api: responseInputTokensApi,
    // A count generates nothing: no usage to price, no answer to guard.
    governance: { ...INFERENCE, usage: false, guardrails: false },
    local: null,
    verbatim: false,
    request: responsesRequest,
    response: () => successBodies().responseInputTokens,
    openapi: { summary: 'Responses input token count: native on OpenAI, an estimate elsewhere', tag: 'openai', bodyDescription: 'OpenAI Responses request.' },
  },
  {
    id: 'responses.retrieve',
    method: 'GET',
    path: '/v1/responses/:id',
    body: 'none',
    answers: ['json', 'sse'],
    api: retrieveResponseApi,
    governance: STORED_RESPONSE,
    local: null,
    verbatim: false,
    response: () => successBodies().responsesResponse,
    openapi: { summary: "One of this key's responses (stream=true resumes a background response where the provider keeps it)", tag: 'openai' },
  },
  {
    id: 'responses.delete',
    method: 'DELETE',
    path: '/v1/responses/:id',
    body: 'none',
    answers: ['json'],
    api: deleteResponseApi,
    governance: STORED_RESPONSE,
    local: null,
    verbatim: false,
    response: () => successBodies().deletedResponse,
    openapi: { summary: "Deletes one of this key's responses and its stored thread", tag: 'openai' },
  },
  {
    id: 'responses.cancel',
    method: 'POST',
    path: '/v1/responses/:id/cancel',
    body: 'none',
    answers: ['json'],
    api: cancelResponseApi,
    governance: STORED_RESPONSE,
    local: null,
    verbatim: false,
    response: () => successBodies().responsesResponse,
    openapi: { summary: "Cancels one of this key's background responses", tag: 'openai' },
  },
  {
    id: 'responses.input_items',
    method: 'GET',
    path: '/v1/responses/:id/input_items',
    body: 'none',
    answers: ['json'],
    api: responseInputItemsApi,
    governance: STORED_RESPONSE,
    local: null,
    verbatim: false,
    response: () => successBodies().responseInputItemList,
    openapi: { summary: "The input items of one of this key's responses", tag: 'openai' },
  },
  {
    id: 'messages',
    method: 'POST',
    path: '/v1/messages',
    body: 'json',
    answers: ['json', 'sse'],
    api: messagesApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: messagesRequest,
    response: () => successBodies().anthropicMessage,
    openapi: {
      summary: 'Anthropic Messages API (Claude Code, Anthropic SDKs), served from any provider',
      tag: 'anthropic',
      bodyDescription: 'Anthropic Messages request; unknown fields pass through.',
    },
  },
  {
    id: 'messages.count_tokens',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: 'json',
    answers: ['json'],
    api: countTokensApi,
    // A count generates nothing: no usage to price, no answer to guard.
    governance: { ...INFERENCE, usage: false, guardrails: false },
    local: null,
    verbatim: false,
    request: countTokensRequest,
    response: () => successBodies().countTokensResponse,
    openapi: { summary: 'Anthropic token count: native on Anthropic, an estimate elsewhere', tag: 'anthropic', bodyDescription: 'Anthropic count_tokens request.' },
  },
  {
    id: 'completions',
    method: 'POST',
    path: '/v1/completions',
    body: 'json',
    answers: ['json', 'sse'],
    api: completionsApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: completionRequest,
    response: () => successBodies().textCompletion,
    openapi: {
      summary: 'Legacy text completions (fill-in-the-middle with suffix; streaming with stream: true): native on OpenAI-family providers',
      tag: 'openai',
      bodyDescription: 'OpenAI completions request; unknown fields pass through.',
    },
  },
  {
    id: 'embeddings',
    method: 'POST',
    path: '/v1/embeddings',
    body: 'json',
    answers: ['json'],
    api: embeddingsApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: embeddingsRequest,
    response: () => successBodies().embeddingList,
    openapi: {
      summary: 'Embeddings: native on OpenAI-family providers, translated for Gemini; encoding_format base64 as OpenAI sends it',
      tag: 'openai',
      bodyDescription: 'OpenAI embeddings request (input: a string, strings, tokens or token arrays); unknown fields pass through.',
    },
  },
  {
    // The governed pass-through: a provider's own API, bytes unchanged both ways but the credential, still under
    // keys, model access, limits, budgets, the audit log and usage (plugins/passthrough, docs/providers.md).
    id: 'passthrough',
    method: 'ALL',
    path: '/p/*',
    body: 'bytes',
    answers: ['json', 'sse', 'binary'],
    api: passthroughApi,
    // The bytes are made for the provider the path names: another target cannot take them (no failover, retries only).
    governance: { ...INFERENCE, failover: false },
    local: null,
    verbatim: true,
    openapi: {
      summary: "Governed pass-through to a provider's own API: /p/{provider}/{the provider's path}, on its allow-list of inference paths",
      tag: 'passthrough',
    },
  },
  {
    id: 'images.generations',
    method: 'POST',
    path: '/v1/images/generations',
    body: 'json',
    answers: ['json', 'sse'],
    api: imagesApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: imageGenerationRequest,
    response: () => successBodies().imagesResponse,
    openapi: {
      summary: 'Image generation (b64_json or url; partial images streamed with stream: true)',
      tag: 'openai',
      bodyDescription: 'OpenAI image generation request; unknown fields pass through.',
    },
  },
  {
    id: 'images.edits',
    method: 'POST',
    path: '/v1/images/edits',
    body: 'multipart',
    answers: ['json', 'sse'],
    api: imageEditsApi,
    // The upload streams to one provider as it arrives: it cannot be sent again to another target.
    governance: { ...INFERENCE, failover: false },
    local: null,
    verbatim: false,
    request: imageEditRequest,
    response: () => successBodies().imagesResponse,
    openapi: {
      summary: 'Image edits (multipart upload of the images and an optional mask, streamed through; b64_json or url; partial images streamed with stream=true)',
      tag: 'openai',
      bodyDescription: "OpenAI image edit form: the `image` (or several `image[]`) and optional `mask` files and text fields; 'model' before the files.",
      files: [
        { name: 'image', required: true },
        { name: 'mask', required: false },
      ],
    },
  },
  {
    id: 'audio.speech',
    method: 'POST',
    path: '/v1/audio/speech',
    body: 'json',
    // Audio bytes as they arrive (the byte pump), or the `stream_format: "sse"` event stream.
    answers: ['binary', 'sse'],
    api: speechApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: speechRequest,
    openapi: {
      summary: 'Text to speech: the audio streamed as it is made (every response_format), or SSE with stream_format: sse',
      tag: 'openai',
      bodyDescription: 'OpenAI speech request; unknown fields pass through.',
      binaryTypes: SPEECH_AUDIO_TYPES,
    },
  },
  {
    id: 'moderations',
    method: 'POST',
    path: '/v1/moderations',
    body: 'json',
    answers: ['json'],
    api: moderationsApi,
    // The input is what is judged: guardrails must not mask or refuse it.
    governance: { ...INFERENCE, guardrails: false },
    local: null,
    verbatim: false,
    request: moderationRequest,
    response: () => successBodies().moderationResponse,
    openapi: { summary: 'Moderations (text and image inputs)', tag: 'openai', bodyDescription: 'OpenAI moderation request; unknown fields pass through.' },
  },
  {
    id: 'rerank',
    method: 'POST',
    path: '/v1/rerank',
    body: 'json',
    answers: ['json'],
    api: rerankApi,
    governance: INFERENCE,
    local: null,
    verbatim: false,
    request: rerankRequest,
    response: () => successBodies().rerankResponse,
    openapi: {
      summary: 'Rerank documents by relevance to a query (the shape Cohere, Jina and Voyage share)',
      tag: 'openai',
      bodyDescription: 'query, documents, top_n, return_documents; unknown fields pass through.',
    },
  },
  {
    id: 'audio.transcriptions',
    method: 'POST',
    path: '/v1/audio/transcriptions',
    body: 'multipart',
    answers: ['json', 'sse', 'text'],
    api: transcriptionsApi,
    // The upload streams to one provider as it arrives: it cannot be sent again to another target.
    governance: { ...INFERENCE, failover: false },
    local: null,
    verbatim: false,
    request: transcriptionRequest,
    response: () => successBodies().transcriptionResponse,
    openapi: {
      summary: 'Speech to text (multipart upload streamed through; json, verbose_json, or text, srt and vtt as text/plain; stream=true for the models that stream)',
      tag: 'openai',
      bodyDescription: "OpenAI transcription form: the audio `file` and text fields; 'model' before the file.",
    },
  },
  {
    id: 'audio.translations',
    method: 'POST',
    path: '/v1/audio/translations',
    body: 'multipart',
    answers: ['json', 'text'],
    api: translationsApi,
    governance: { ...INFERENCE, failover: false },
    local: null,
    verbatim: false,
    request: transcriptionRequest,
    response: () => successBodies().transcriptionResponse,
    openapi: {
      summary: 'Speech translated into English text (multipart upload streamed through; json, verbose_json, or text, srt and vtt as text/plain)',
      tag: 'openai',
      bodyDescription: "OpenAI translation form: the audio `file` and text fields; 'model' before the file.",
    },
  },
  {
    id: 'files.create',
    method: 'POST',
    path: '/v1/files',
    body: 'stream',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: createFile,
    verbatim: false,
    request: uploadFields,
    response: () => fileObject,
    openapi: {
      summary: 'Uploads a file (multipart; streamed to the byte store, up to files.max_file_bytes): purpose, optional expires_after[anchor] and expires_after[seconds]',
      tag: 'openai',
      bodyDescription: 'OpenAI file upload form: `file` and `purpose`, in any order.',
    },
  },
  {
    id: 'files.list',
    method: 'GET',
    path: '/v1/files',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: listFiles,
    verbatim: false,
    response: () => fileList,
    openapi: { summary: "This key's files (after, limit, order, purpose)", tag: 'openai' },
  },
  {
    id: 'files.retrieve',
    method: 'GET',
    path: '/v1/files/:id',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: retrieveFile,
    verbatim: false,
    response: () => fileObject,
    openapi: { summary: "One of this key's files", tag: 'openai' },
  },
  {
    id: 'files.content',
    method: 'GET',
    path: '/v1/files/:id/content',
    body: 'none',
    answers: ['binary'],
    api: localApi,
    governance: LOCAL,
    local: fileContent,
    verbatim: false,
    openapi: { summary: "The bytes of one of this key's files, streamed", tag: 'openai' },
  },
  {
    id: 'files.delete',
    method: 'DELETE',
    path: '/v1/files/:id',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: deleteFile,
    verbatim: false,
    response: () => fileDeleted,
    openapi: { summary: "Deletes one of this key's files", tag: 'openai' },
  },
  {
    id: 'batches.create',
    method: 'POST',
    path: '/v1/batches',
    body: 'json',
    answers: ['json'],
    api: localApi,
    // The batch's lines are governed one by one when they run (model access, limits, budgets, usage, guardrails).
    governance: LOCAL,
    local: createBatch,
    verbatim: false,
    request: batchCreateRequest,
    response: () => batchObject,
    openapi: {
      summary: 'Creates a batch from an uploaded JSONL file (purpose batch); its lines run as live requests of this key',
      tag: 'openai',
      bodyDescription: 'input_file_id, endpoint (/v1/chat/completions, /v1/responses, /v1/embeddings, /v1/completions), completion_window 24h, metadata.',
    },
  },
  {
    id: 'batches.list',
    method: 'GET',
    path: '/v1/batches',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: listBatches,
    verbatim: false,
    response: () => batchList,
    openapi: { summary: "This key's batches, newest first (after, limit)", tag: 'openai' },
  },
  {
    id: 'batches.retrieve',
    method: 'GET',
    path: '/v1/batches/:id',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: retrieveBatch,
    verbatim: false,
    response: () => batchObject,
    openapi: { summary: "One of this key's batches", tag: 'openai' },
  },
  {
    id: 'batches.cancel',
    method: 'POST',
    path: '/v1/batches/:id/cancel',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: cancelBatch,
    verbatim: false,
    response: () => batchObject,
    openapi: { summary: "Cancels one of this key's batches: lines not yet run are not run", tag: 'openai' },
  },
  {
    id: 'uploads.create',
    method: 'POST',
    path: '/v1/uploads',
    body: 'json',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: createUpload,
    verbatim: false,
    request: createUploadRequest,
    response: () => uploadObject,
    openapi: {
      summary: 'Starts an upload of a large file in parts (bytes, filename, mime_type, purpose, expires_after)',
      tag: 'openai',
      bodyDescription: 'OpenAI upload request.',
    },
  },
  {
    id: 'uploads.parts',
    method: 'POST',
    path: '/v1/uploads/:id/parts',
    body: 'stream',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: addUploadPart,
    verbatim: false,
    request: uploadPartFields,
    response: () => uploadPartObject,
    openapi: {
      summary: "Adds a part (up to 64 MiB, streamed to the byte store) to one of this key's pending uploads",
      tag: 'openai',
      bodyDescription: 'Multipart form with one file part, `data`.',
      files: [{ name: 'data', required: true }],
    },
  },
  {
    id: 'uploads.complete',
    method: 'POST',
    path: '/v1/uploads/:id/complete',
    body: 'json',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: completeUpload,
    verbatim: false,
    request: completeUploadRequest,
    response: () => uploadObject,
    openapi: {
      summary: "Completes one of this key's uploads into a file, from its parts in the order given (md5 checked when given)",
      tag: 'openai',
      bodyDescription: 'part_ids, md5.',
    },
  },
  {
    id: 'uploads.cancel',
    method: 'POST',
    path: '/v1/uploads/:id/cancel',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: cancelUpload,
    verbatim: false,
    response: () => uploadObject,
    openapi: { summary: "Cancels one of this key's pending uploads; its parts are deleted", tag: 'openai' },
  },
  // Any other path under /v1: still authenticated and audited, then a clear 404. Registered last.
  {
    id: 'not_found',
    method: 'ALL',
    path: '/v1/*',
    body: 'none',
    answers: ['json'],
    api: localApi,
    governance: LOCAL,
    local: unknownRoute,
    verbatim: false,
    openapi: { summary: 'Unknown /v1 path', tag: 'openai', hide: true },
  },
] as const satisfies readonly Endpoint[]

/** The API a request came in on. `not_found` is any other path under /v1 (it still gets auth and an audit entry). */
export type EndpointId = (typeof ENDPOINTS)[number]['id']

const BY_ID = new Map<EndpointId, Endpoint>(ENDPOINTS.map((e) => [e.id, e]))

export function endpoint(id: EndpointId): Endpoint {
  return BY_ID.get(id)!
}

/** Rows whose usage is metered and priced (a capture selection: `captures: { pricedUsage: isMetered }`). */
export const isMetered = (row: Endpoint): boolean => row.governance.usage

/** Rows whose answers can be cached. */
export const isCacheable = (row: Endpoint): boolean => row.api.cache !== null
