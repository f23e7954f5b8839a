/**
 * @module A mock Vertex AI (`{location}-aiplatform.googleapis.com/v1`) written from the Vertex AI reference. It checks
 * what Vertex checks first: a bearer token its token service issued and that has not expired (401 UNAUTHENTICATED
 * otherwise, in Google's error shape), the project and location of the path, and the publisher of the model
 * (`google` for Gemini, `anthropic` for Claude). Gemini models answer `:generateContent` /
 * `:streamGenerateContent?alt=sse` as the Gemini mock does; Claude models answer `:rawPredict` /
 * `:streamRawPredict` as the Anthropic mock does, once the body is a Messages request as Vertex takes it
 * (`anthropic_version: vertex-2023-10-16`, no `model`). Every request is recorded.
 */
import { MESSAGES_FIELDS, messagesAnswer } from './mock-anthropic-upstream.ts'
import { GEMINI_EMBEDDING_DIMENSIONS, generateContentAnswer, geminiEmbeddingValues, imagenAnswer } from './mock-gemini-upstream.ts'
import { type RecordedRequest, serveRecording } from './mock-openai-upstream.ts'

export interface MockVertex {
  /** The base URL as VERTEX_BASE_URL takes it (`…/v1`). */
  url: string
  requests: RecordedRequest[]
  stop(): void
}

export interface MockVertexOptions {
  project: string
  location: string
  /** Whether a bearer token is valid (MockGoogleAuth.accepts). */
  accepts(token: string): boolean
}

function googleError(status: number, rpcStatus: string, message: string): Response {
  return Response.json({ error: { code: status, message, status: rpcStatus } }, { status })
}

const RAW_PREDICT_FIELDS = new Set([...MESSAGES_FIELDS, 'anthropic_version'].filter((f) => f !== 'model'))

export function startMockVertex(options: MockVertexOptions): MockVertex {
  const server = serveRecording(async (req, url, recorded) => {
    const token = req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''
    if (!options.accepts(token)) {
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      )
    }
    const route = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname)
    if (req.method !== 'POST' || !route) return googleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`)
    const [, project, location, publisher, rawModel, method] = route as unknown as string[]
    const model = decodeURIComponent(rawModel!)
    if (project !== options.project)
      return googleError(403, 'PERMISSION_DENIED', `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}'.`)
    if (location !== options.location) return googleError(404, 'NOT_FOUND', `Publisher model is not found in location ${location}.`)
    const body = recorded.body
    if (publisher === 'google') {
      if (method === 'predict') return model.startsWith('imagen-') ? imagenAnswer(model, body) : predictAnswer(model, body)
      if (method !== 'generateContent' && method !== 'streamGenerateContent') return googleError(400, 'INVALID_ARGUMENT', `Unsupported method ${method} for a Gemini model.`)
      return generateContentAnswer(model, method === 'streamGenerateContent', body, url)
    }
    if (publisher !== 'anthropic' || !model.startsWith('claude-'))
      return googleError(404, 'NOT_FOUND', `Publisher Model projects/${project}/locations/${location}/publishers/${publisher}/models/${model} not found.`)
    if (method !== 'rawPredict' && method !== 'streamRawPredict') return googleError(400, 'INVALID_ARGUMENT', `Unsupported method ${method} for a Claude model.`)
    if (body?.anthropic_version !== 'vertex-2023-10-16')
      return Response.json({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic_version: Field required' } }, { status: 400 })
    const extra = Object.keys(body).find((key) => !RAW_PREDICT_FIELDS.has(key))
    if (extra) return Response.json({ type: 'error', error: { type: 'invalid_request_error', message: `${extra}: Extra inputs are not permitted` } }, { status: 400 })
    if ((method === 'streamRawPredict') !== (body.stream === true))
      return googleError(400, 'INVALID_ARGUMENT', 'stream must be true for streamRawPredict and absent for rawPredict')
    // `claude-thinking@20250101` behaves like the Anthropic mock's `thinking`.
    const behaviour = model.replace(/^claude-/, '').replace(/@.*$/, '')
    return messagesAnswer(behaviour, body)
  })
  return { url: `${server.origin}/v1`, requests: server.requests, stop: server.stop }
}

/**
 * `:predict` of Google's embedding models: `{instances: [{content}], parameters: {outputDimensionality}}` answered
 * `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}]}`; `gemini-embedding-001` takes one
 * instance a request, as Vertex documents.
 */
function predictAnswer(model: string, body: any): Response {
  const instances: any[] = Array.isArray(body?.instances) ? body.instances : []
  if (instances.length === 0) return googleError(400, 'INVALID_ARGUMENT', 'instances must not be empty')
  if (model.startsWith('gemini-embedding') && instances.length > 1)
    return googleError(400, 'INVALID_ARGUMENT', `Unable to submit request because the model ${model} only supports a single instance per request.`)
  if (instances.some((i) => typeof i?.content !== 'string')) return googleError(400, 'INVALID_ARGUMENT', 'Each instance must have a string content.')
  const dimensions = body?.parameters?.outputDimensionality ?? GEMINI_EMBEDDING_DIMENSIONS
  return Response.json({
    predictions: instances.map((i) => ({
      embeddings: { values: geminiEmbeddingValues(i.content, dimensions), statistics: { token_count: Array.from(i.content as string).length, truncated: false } },
    })),
    metadata: { billableCharacterCount: instances.reduce((sum, i) => sum + i.content.length, 0) },
  })
}
