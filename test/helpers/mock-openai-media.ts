/**
 * @module The media endpoints of the mock OpenAI upstream (mock-openai-upstream.ts), in OpenAI's wire format:
 * image generation and edits (JSON with `b64_json` or `url`, the GPT image models' event stream of partial images
 * and their token usage; an edit's form parsed as OpenAI reads it), speech to text (json, verbose_json, text, srt,
 * vtt, the transcript stream), text to speech (audio bytes in chunks, or `stream_format: "sse"` events), moderations of text and
 * images (an input is flagged for violence when its text says "kill", for sexual content when it is an image), and
 * rerank as Jina answers it (documents scored by the share of the query's words they hold; errors as `{"detail"}`). The model name picks the behaviour, as in the chat mock.
 */

export const IMAGE_CREATED = 1769093800
/** The bytes of every mock image: a PNG signature and a few bytes, so a client can check what it decoded. */
export const MOCK_IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])
export const MOCK_IMAGE_B64 = Buffer.from(MOCK_IMAGE).toString('base64')
/** What the GPT image models report for one image. */
export const IMAGE_USAGE = { input_tokens: 12, input_tokens_details: { text_tokens: 12, image_tokens: 0 }, output_tokens: 4160, total_tokens: 4172 }

type Json = Record<string, any>

function openaiError(status: number, message: string, type: string, code: string | null, param: string | null = null): Response {
  return Response.json({ error: { message, type, param, code } }, { status })
}

/** The answer to a media request, or undefined when `path` is none of the media endpoints. */
export function mediaAnswer(method: string, path: string, body: Json | undefined): Response | undefined {
  if (method === 'POST' && path === '/images/generations') return imageGeneration(body ?? {})
  if (method === 'POST' && path === '/images/edits') return imageEdit(body ?? {})
  if (method === 'POST' && path === '/audio/speech') return speech(body ?? {})
  if (method === 'POST' && path === '/moderations') return moderation(body ?? {})
  if (method === 'POST' && path === '/rerank') return rerank(body ?? {})
  if (method === 'POST' && (path === '/audio/transcriptions' || path === '/audio/translations')) return transcription(path, body ?? {})
  return undefined
}

function imageGeneration(body: Json): Response {
  const model = String(body.model ?? '')
  if (model === 'image-refused')
    return openaiError(
      400,
      'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
      'invalid_request_error',
      'content_policy_violation',
    )
  if (typeof body.prompt !== 'string' || body.prompt.length === 0)
    return openaiError(400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter', 'prompt')
  const n = typeof body.n === 'number' ? body.n : 1
  const gptImage = model.startsWith('gpt-image')
  if (gptImage && body.stream === true) return imageStream(body, n, model === 'gpt-image-broken')
  const asUrl = !gptImage && body.response_format === 'url'
  const data = Array.from({ length: n }, (_, i) =>
    asUrl
      ? { url: `https://oaidalleapiprodscus.blob.core.windows.net/private/img-${i}.png?sig=mock`, revised_prompt: `A picture of ${body.prompt}` }
      : { b64_json: MOCK_IMAGE_B64, ...(gptImage ? {} : { revised_prompt: `A picture of ${body.prompt}` }) },
  )
  const usage = { ...IMAGE_USAGE, output_tokens: IMAGE_USAGE.output_tokens * n, total_tokens: IMAGE_USAGE.input_tokens + IMAGE_USAGE.output_tokens * n }
  return Response.json(
    gptImage ? { created: IMAGE_CREATED, data, background: 'opaque', output_format: 'png', quality: 'low', size: '1024x1024', usage } : { created: IMAGE_CREATED, data },
  )
}

/**
 * An edit as OpenAI reads its form: one `image` or several `image[]` (the GPT image models; DALL·E 2 edits one), an
 * optional `mask`; the answer as a generation's, its stream's events named `image_edit.*`.
 */
function imageEdit(body: Json): Response {
  const form = body as ReceivedForm
  if (!form.form || form.malformed) return openaiError(400, 'Could not parse multipart form', 'invalid_request_error', null)
  const model = String(form.fields.model ?? '')
  const images = form.files.filter((f) => f.name === 'image' || f.name === 'image[]')
  if (images.length === 0) return openaiError(400, "Missing required parameter: 'image'.", 'invalid_request_error', 'missing_required_parameter', 'image')
  const gptImage = model.startsWith('gpt-image')
  if (!gptImage && images.length > 1) return openaiError(400, `Invalid 'image': ${model} edits one image at a time.`, 'invalid_request_error', 'invalid_value', 'image')
  const fields = { ...form.fields, n: form.fields.n === undefined ? undefined : Number(form.fields.n), stream: form.fields.stream === 'true' }
  if (gptImage && fields.stream) {
    const partials = form.fields.partial_images === undefined ? undefined : Number(form.fields.partial_images)
    return imageStream({ ...fields, partial_images: partials }, fields.n ?? 1, model === 'gpt-image-broken', 'image_edit')
  }
  return imageGeneration(fields)
}

/** OpenAI's image stream: `partial_images` partial events per image, then its completed event with the usage. */
function imageStream(body: Json, n: number, breaksOff: boolean, kind: 'image_generation' | 'image_edit' = 'image_generation'): Response {
  const partials = typeof body.partial_images === 'number' ? body.partial_images : 0
  const common = { background: 'opaque', created_at: IMAGE_CREATED, output_format: 'png', quality: 'low', size: '1024x1024' }
  const frames: string[] = []
  for (let image = 0; image < n; image++) {
    for (let i = 0; i < partials; i++)
      frames.push(`event: ${kind}.partial_image\ndata: ${JSON.stringify({ type: `${kind}.partial_image`, b64_json: MOCK_IMAGE_B64, partial_image_index: i, ...common })}\n\n`)
    frames.push(`event: ${kind}.completed\ndata: ${JSON.stringify({ type: `${kind}.completed`, b64_json: MOCK_IMAGE_B64, usage: IMAGE_USAGE, ...common })}\n\n`)
  }
  const encoder = new TextEncoder()
  const sent = breaksOff ? frames.slice(0, 1) : frames
  return new Response(
    new ReadableStream({
      async start(controller) {
        for (const frame of sent) controller.enqueue(encoder.encode(frame))
        // Broken off once the first event is on the wire, as a dropped connection mid-stream is.
        if (breaksOff) await Bun.sleep(50).then(() => controller.error(new Error('upstream connection reset')))
        else controller.close()
      },
    }),
    { headers: { 'content-type': 'text/event-stream; charset=utf-8' } },
  )
}

/** OpenAI's content type per speech `response_format`. */
export const SPEECH_CONTENT_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' }
export const SPEECH_CHUNK_BYTES = 16 * 1024
export const SPEECH_CHUNKS = 12
/** What the GPT TTS models report in `speech.audio.done`. */
export const SPEECH_USAGE = { input_tokens: 14, output_tokens: 101, total_tokens: 115 }

/** Chunk `i` of every mock audio answer: its index in each byte, so a client can check order and completeness. */
export function speechChunk(i: number): Uint8Array {
  return new Uint8Array(SPEECH_CHUNK_BYTES).fill(i + 1)
}

const speechHeld: (() => void)[] = []
/** Lets every `tts-held` answer waiting after its first chunk go on. */
export function releaseHeldSpeech(): void {
  for (const release of speechHeld.splice(0)) release()
}

function speech(body: Json): Response {
  const model = String(body.model ?? '')
  if (typeof body.input !== 'string' || body.input.length === 0)
    return openaiError(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input')
  if (body.input.length > 4096)
    return openaiError(400, "Invalid 'input': string too long. Expected a string with maximum length 4096.", 'invalid_request_error', 'string_above_max_length', 'input')
  if (body.voice === 'nobody') return openaiError(400, "Invalid value for 'voice' = nobody.", 'invalid_request_error', 'invalid_value', 'voice')
  const encoder = new TextEncoder()
  if (body.stream_format === 'sse') {
    const frames = [0, 1, 2].map((i) => `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.from(speechChunk(i)).toString('base64') })}\n\n`)
    frames.push(`data: ${JSON.stringify({ type: 'speech.audio.done', usage: SPEECH_USAGE })}\n\n`)
    return new Response(encoder.encode(frames.join('')), { headers: { 'content-type': 'text/event-stream' } })
  }
  const format = typeof body.response_format === 'string' ? body.response_format : 'mp3'
  const held = model === 'tts-held'
  let i = 0
  return new Response(
    new ReadableStream({
      async pull(controller) {
        if (i === SPEECH_CHUNKS) return controller.close()
        // `tts-held` sends its first chunk, then waits to be released: a client that has it got it as it was made.
        if (held && i === 1) await new Promise<void>((resolve) => speechHeld.push(resolve))
        controller.enqueue(speechChunk(i++))
      },
    }),
    { headers: { 'content-type': SPEECH_CONTENT_TYPES[format] ?? 'audio/mpeg', 'transfer-encoding': 'chunked' } },
  )
}

const MODERATION_CATEGORIES = ['harassment', 'hate', 'self-harm', 'sexual', 'violence'] as const

function moderation(body: Json): Response {
  const model = String(body.model ?? '')
  const input = body.input
  const parts: Json[] =
    typeof input === 'string' ? [{ type: 'text', text: input }] : Array.isArray(input) ? input.map((i) => (typeof i === 'string' ? { type: 'text', text: i } : i)) : []
  if (parts.length === 0) return openaiError(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input')
  const images = parts.filter((p) => p.type === 'image_url')
  if (images.length > 0 && !model.startsWith('omni-moderation'))
    return openaiError(400, `Model ${model} does not support image inputs.`, 'invalid_request_error', 'invalid_value', 'input')
  // A string or each string of an array is an input of its own; an array of parts (text and images) is one input.
  const inputs: Json[][] = Array.isArray(input) && input.some((i) => typeof i !== 'string') ? [parts] : parts.map((p) => [p])
  typeof input === 'string' || parts.every((p) => p.type === 'text' && typeof input !== 'string' && typeof (input as unknown[])[0] === 'string') ? parts.map((p) => [p]) : [parts]
  const results = inputs.map((one) => {
    const violent = one.some((p) => p.type === 'text' && String(p.text).includes('kill'))
    const sexual = one.some((p) => p.type === 'image_url')
    const categories = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, (c === 'violence' && violent) || (c === 'sexual' && sexual)]))
    const scores = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, categories[c] ? 0.91 : 0.0002]))
    const applied = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, one.map((p) => (p.type === 'image_url' ? 'image' : 'text'))]))
    return { flagged: violent || sexual, categories, category_scores: scores, category_applied_input_types: applied }
  })
  return Response.json({ id: 'modr-mock123', model: model === 'omni-moderation-latest' ? 'omni-moderation-2024-09-26' : model, results })
}

/** Jina's answer: every document scored by the share of the query's words it contains, best first. */
function rerank(body: Json): Response {
  const model = String(body.model ?? '')
  if (model === 'rerank-unknown') return Response.json({ detail: `Model ${model} is not available. Please check the model name.` }, { status: 422 })
  const documents: unknown[] = Array.isArray(body.documents) ? body.documents : []
  const textOf = (d: unknown) => (typeof d === 'string' ? d : String((d as Json)?.text ?? ''))
  const words = String(body.query ?? '')
    .toLowerCase()
    .split(/\W+/)
    .filter(Boolean)
  const scored = documents.map((d, index) => {
    const text = textOf(d).toLowerCase()
    const share = words.length ? words.filter((w) => text.includes(w)).length / words.length : 0
    return { index, relevance_score: Math.round((share - index * 1e-4) * 1e6) / 1e6, document: { text: textOf(d) } }
  })
  scored.sort((a, b) => b.relevance_score - a.relevance_score)
  const top = typeof body.top_n === 'number' ? scored.slice(0, body.top_n) : scored
  const results = body.return_documents === false ? top.map(({ document: _, ...r }) => r) : top
  const tokens = [String(body.query ?? ''), ...documents.map(textOf)].reduce((sum, t) => sum + Math.ceil(t.length / 4), 0)
  return Response.json({ model, usage: { total_tokens: tokens }, results })
}

/** A file part as the mock received it: what a test compares with what the client sent. */
export interface ReceivedFile {
  name: string
  filename: string
  type: string
  size: number
  sha256: string
}

/** A multipart form as OpenAI reads it: its text fields (a repeated name keeps every value) and its files, or why it could not be read. */
export interface ReceivedForm {
  form: true
  fields: Record<string, string | string[]>
  files: ReceivedFile[]
  malformed?: string
}

export async function recordedForm(req: Request): Promise<ReceivedForm> {
  let form: FormData
  try {
    form = await req.formData()
  } catch (error) {
    return { form: true, fields: {}, files: [], malformed: (error as Error).message }
  }
  const fields: Record<string, string | string[]> = {}
  const files: ReceivedFile[] = []
  for (const [name, value] of form.entries() as IterableIterator<[string, string | File]>) {
    if (typeof value === 'string') {
      const previous = fields[name]
      fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
      continue
    }
    const bytes = new Uint8Array(await value.arrayBuffer())
    files.push({ name, filename: value.name, type: value.type, size: bytes.byteLength, sha256: new Bun.CryptoHasher('sha256').update(bytes).digest('hex') })
  }
  return { form: true, fields, files }
}

/** What the GPT-4o transcribe models report. */
export const TRANSCRIBE_USAGE = { type: 'tokens', input_tokens: 140, input_token_details: { text_tokens: 20, audio_tokens: 120 }, output_tokens: 32, total_tokens: 172 }
/** verbose_json's duration (whisper-1 reports the same seconds in its usage, rounded up). */
export const TRANSCRIPT_DURATION = 12.5

/** The transcript says what the mock received, so a test can see the upload arrived whole. */
export function transcriptOf(file: ReceivedFile): string {
  return `heard ${file.filename} (${file.size} bytes, ${file.sha256.slice(0, 12)})`
}

/** A cue time as SRT (`00:00:12,500`) or WebVTT (`00:00:12.500`) writes it. */
function cueTime(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000)
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`
}

/** The transcript as `text`, `srt` or `vtt`: one cue from the start to TRANSCRIPT_DURATION. */
export function plainTranscript(format: 'text' | 'srt' | 'vtt', text: string): string {
  if (format === 'text') return `${text}\n`
  if (format === 'srt') return `1\n${cueTime(0, ',')} --> ${cueTime(TRANSCRIPT_DURATION, ',')}\n${text}\n\n`
  return `WEBVTT\n\n${cueTime(0, '.')} --> ${cueTime(TRANSCRIPT_DURATION, '.')}\n${text}\n\n`
}

function transcription(path: string, body: Json): Response {
  const form = body as ReceivedForm
  if (!form.form || form.malformed) return openaiError(400, 'Could not parse multipart form', 'invalid_request_error', null)
  const model = String(form.fields.model ?? '')
  const file = form.files.find((f) => f.name === 'file')
  if (!file) return openaiError(400, '1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)', 'invalid_request_error', null)
  if (model === 'transcribe-refused') return openaiError(400, 'Audio file might be corrupted or unsupported', 'invalid_request_error', 'invalid_value', 'file')
  const format = String(form.fields.response_format ?? 'json')
  const text = transcriptOf(file)
  const tokenModel = model.startsWith('gpt-4o')
  if (tokenModel && format === 'verbose_json')
    return openaiError(
      400,
      `response_format 'verbose_json' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
      'invalid_request_error',
      'unsupported_value',
      'response_format',
    )
  const usage = tokenModel ? TRANSCRIBE_USAGE : { type: 'duration', seconds: Math.ceil(TRANSCRIPT_DURATION) }
  if (form.fields.stream === 'true' && path === '/audio/transcriptions') {
    if (!tokenModel) return openaiError(400, 'Streaming is not supported for the whisper-1 model.', 'invalid_request_error', 'unsupported_value', 'stream')
    const words = text.split(' ')
    const frames = [
      ...words.map((word, i) => ({ type: 'transcript.text.delta', delta: i === 0 ? word : ` ${word}`, logprobs: [] })),
      { type: 'transcript.text.done', text, logprobs: [], usage },
    ]
    return new Response(frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })
  }
  if (format === 'text' || format === 'srt' || format === 'vtt') {
    if (tokenModel && format !== 'text')
      return openaiError(
        400,
        `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
        'invalid_request_error',
        'unsupported_value',
        'response_format',
      )
    return new Response(plainTranscript(format, text), { headers: { 'content-type': 'text/plain; charset=utf-8' } })
  }
  if (format === 'verbose_json')
    return Response.json({
      task: path === '/audio/translations' ? 'translate' : 'transcribe',
      language: 'english',
      duration: TRANSCRIPT_DURATION,
      text,
      segments: [{ id: 0, seek: 0, start: 0, end: TRANSCRIPT_DURATION, text, tokens: [50364], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 }],
      usage,
    })
  return Response.json({ text, usage })
}
