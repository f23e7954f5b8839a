/**
 * `POST /v1/audio/transcriptions` and `/v1/audio/translations` end to end with the official `openai` SDK against the
 * mock OpenAI upstream, which parses the multipart form as OpenAI does and records what it received (fields, each
 * file's size and SHA-256). The upload streams through the gateway (src/http/multipart-upload.ts): the audit entry
 * records each part's metadata, never the bytes; usage is priced per audio second (whisper) or per token
 * (gpt-4o-transcribe); a bad form, a wrong content type, a too-large upload and a model the key may not use are
 * refused with their status, and audited.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { plainTranscript, type ReceivedForm, TRANSCRIBE_USAGE, TRANSCRIPT_DURATION, transcriptOf } from '../helpers/mock-openai-media.ts'

const MAX_UPLOAD = 8 * 1024 * 1024
const t = useGatewaySuite({ env: { GATEWAY_MAX_UPLOAD_BYTES: String(MAX_UPLOAD), LOGGING_LOG_BODIES: 'true' } })

let dir: string
let audioPath: string
let audio: Uint8Array
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'transcriptions-'))
  audio = new Uint8Array(3 * 1024 * 1024 + 17)
  for (let i = 0; i < audio.length; i += 65536) audio.set(crypto.getRandomValues(new Uint8Array(Math.min(65536, audio.length - i))), i)
  audioPath = join(dir, 'meeting.mp3')
  writeFileSync(audioPath, audio)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lastForm = () => t.openaiMock.requests.at(-1)!.body as ReceivedForm
const received = { name: 'file', filename: 'meeting.mp3', size: 3 * 1024 * 1024 + 17 }

async function entryOf(response: Response) {
  return t.audit.entryFor(response.headers.get('x-request-id')!)
}

/** A form as the client sends it, in the order given: fields as strings, files as [filename, bytes, type]. */
function form(parts: [string, string | [string, Uint8Array, string]][]): FormData {
  const data = new FormData()
  for (const [name, value] of parts) {
    if (typeof value === 'string') data.append(name, value)
    else data.append(name, new File([value[1] as Uint8Array<ArrayBuffer>], value[0], { type: value[2] }))
  }
  return data
}

async function post(path: string, body: BodyInit, headers: Record<string, string> = {}, key = t.master) {
  const res = await fetch(`${t.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body })
  return { res, body: (await res.json()) as any }
}

describe('audio.transcriptions', () => {
  test('whisper-1: the file streams to the upstream intact with the upstream model id; audit has part metadata; priced per second', async () => {
    const { data, response } = await t.openai.audio.transcriptions
      .create({ model: 'openai/whisper-1', file: createReadStream(audioPath), language: 'en', prompt: 'A meeting about budgets.' })
      .withResponse()
    const form = lastForm()
    expect(form.files).toEqual([{ ...received, type: expect.any(String), sha256: sha256(audio) }])
    expect(form.fields).toEqual({ model: 'whisper-1', language: 'en', prompt: 'A meeting about budgets.' })
    expect(data.text).toBe(transcriptOf(form.files[0]!))
    const entry = await entryOf(response)
    expect(entry.data.request_parts).toContainEqual({ name: 'file', filename: 'meeting.mp3', content_type: expect.any(String), bytes: audio.byteLength, sha256: sha256(audio) })
    expect(entry.data.request_parts).toContainEqual(expect.objectContaining({ name: 'model', filename: null, bytes: 'openai/whisper-1'.length }))
    expect(entry.data.request_body).toMatchObject({ model: 'openai/whisper-1', language: 'en' })
    expect(JSON.stringify(entry)).not.toContain(Buffer.from(audio.subarray(0, 64)).toString('base64'))
    expect(entry.usage).toMatchObject({ unit: 'audio_second', units: Math.ceil(TRANSCRIPT_DURATION) })
    expect(entry.usage!.cost_usd).toBeCloseTo(Math.ceil(TRANSCRIPT_DURATION) * 0.0001, 10)
  })

  test('verbose_json: duration and segments arrive as the upstream sent them', async () => {
    const data = await t.openai.audio.transcriptions.create({
      model: 'openai/whisper-1',
      file: createReadStream(audioPath),
      response_format: 'verbose_json',
      timestamp_granularities: ['segment', 'word'],
    })
    expect(data.duration).toBe(TRANSCRIPT_DURATION)
    expect(data.segments![0]!.end).toBe(TRANSCRIPT_DURATION)
    expect(lastForm().fields['timestamp_granularities[]']).toEqual(['segment', 'word'])
  })

  test('gpt-4o-transcribe: priced by the tokens the upstream reported', async () => {
    const { data, response } = await t.openai.audio.transcriptions.create({ model: 'openai/gpt-4o-transcribe', file: createReadStream(audioPath) }).withResponse()
    expect(data.usage).toMatchObject({ type: 'tokens', input_tokens: TRANSCRIBE_USAGE.input_tokens })
    const entry = await entryOf(response)
    expect(entry.usage).toMatchObject({ input_tokens: TRANSCRIBE_USAGE.input_tokens, output_tokens: TRANSCRIBE_USAGE.output_tokens })
    expect(entry.usage!.cost_usd).toBeCloseTo((TRANSCRIBE_USAGE.input_tokens * 6 + TRANSCRIBE_USAGE.output_tokens * 10) / 1e6, 10)
  })

  test('stream=true: the transcript events arrive as OpenAI sent them; usage from the done event', async () => {
    const stream = await t.openai.audio.transcriptions.create({ model: 'openai/gpt-4o-transcribe', file: createReadStream(audioPath), stream: true })
    const events: OpenAI.Audio.TranscriptionStreamEvent[] = []
    for await (const event of stream) events.push(event)
    const done = events.at(-1)!
    expect(done.type).toBe('transcript.text.done')
    const text = events
      .filter((e) => e.type === 'transcript.text.delta')
      .map((e) => (e as OpenAI.Audio.TranscriptionTextDeltaEvent).delta)
      .join('')
    expect(text).toBe((done as OpenAI.Audio.TranscriptionTextDoneEvent).text)
    expect(lastForm().fields.stream).toBe('true')
    const list = await t.audit.eventually(
      () => t.audit.list({ path: '/v1/audio/transcriptions', limit: '1' }),
      (page) => page.entries[0]?.usage?.output_tokens === TRANSCRIBE_USAGE.output_tokens,
    )
    expect(list.entries[0]!.usage!.input_tokens).toBe(TRANSCRIBE_USAGE.input_tokens)
  })

  test('text and srt: the plain-text answer as the upstream sent it, with its content type; srt priced by its last cue', async () => {
    const text = await t.openai.audio.transcriptions.create({ model: 'openai/whisper-1', file: createReadStream(audioPath), response_format: 'text' }).withResponse()
    const heard = transcriptOf(lastForm().files[0]!)
    expect(lastForm().fields.response_format).toBe('text')
    expect(text.data as unknown).toBe(plainTranscript('text', heard))
    expect(text.response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const textEntry = await entryOf(text.response)
    expect(textEntry).toMatchObject({ status_code: 200 })
    expect(textEntry.data.response_body).toBe(plainTranscript('text', heard))

    const srt = await t.openai.audio.transcriptions.create({ model: 'openai/whisper-1', file: createReadStream(audioPath), response_format: 'srt' }).withResponse()
    expect(srt.data as unknown).toBe(plainTranscript('srt', heard))
    expect(srt.response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const entry = await entryOf(srt.response)
    expect(entry.usage).toMatchObject({ unit: 'audio_second', units: Math.ceil(TRANSCRIPT_DURATION) })
    expect(entry.usage!.cost_usd).toBeCloseTo(Math.ceil(TRANSCRIPT_DURATION) * 0.0001, 10)
  })

  test("gpt-4o-transcribe: text is served, srt is the upstream's own refusal", async () => {
    const text = await t.openai.audio.transcriptions.create({ model: 'openai/gpt-4o-transcribe', file: createReadStream(audioPath), response_format: 'text' })
    expect(text as unknown).toBe(plainTranscript('text', transcriptOf(lastForm().files[0]!)))
    const refused = await t.openai.audio.transcriptions.create({ model: 'openai/gpt-4o-transcribe', file: createReadStream(audioPath), response_format: 'srt' }).catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.error).toMatchObject({ param: 'response_format', code: 'unsupported_value' })
  })

  test("the upstream's refusal reaches the SDK as its APIError", async () => {
    const error = await t.openai.audio.transcriptions
      .create({ model: 'openai/gpt-4o-transcribe', file: createReadStream(audioPath), response_format: 'verbose_json' })
      .catch((e) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.message).toContain("'verbose_json' is not compatible")
  })

  test("a file part before model (the SDK keeps the call's key order) is held up to 4 MiB, then refused with a clear 400", async () => {
    const small = crypto.getRandomValues(new Uint8Array(4096))
    const ok = await post(
      '/v1/audio/transcriptions',
      form([
        ['file', ['a.wav', small, 'audio/wav']],
        ['model', 'openai/whisper-1'],
      ]),
    )
    expect(ok.res.status).toBe(200)
    expect(lastForm().files[0]).toMatchObject({ filename: 'a.wav', size: 4096, sha256: sha256(small) })
    const before = t.openaiMock.requests.length
    const large = new Uint8Array(5 * 1024 * 1024)
    const refused = await post(
      '/v1/audio/transcriptions',
      form([
        ['file', ['a.wav', large, 'audio/wav']],
        ['model', 'openai/whisper-1'],
      ]),
    )
    expect(refused.res.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'model_after_file', param: 'model' })
    expect(t.openaiMock.requests.length).toBe(before)
    const entry = await entryOf(refused.res)
    expect(entry.status_code).toBe(400)
  })

  test('past the read-ahead, a text field after the files would go unchecked: the upload ends with a 400 instead', async () => {
    const large = crypto.getRandomValues(new Uint8Array(65536))
    const file = new Uint8Array(5 * 1024 * 1024)
    for (let i = 0; i < file.length; i += large.length) file.set(large, i)
    const refused = await post(
      '/v1/audio/transcriptions',
      form([
        ['model', 'openai/whisper-1'],
        ['file', ['a.wav', file, 'audio/wav']],
        ['prompt', 'unchecked'],
      ]),
    )
    expect(refused.res.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'field_after_file', param: 'prompt' })
    const entry = await entryOf(refused.res)
    expect(entry.status_code).toBe(400)
    expect(entry.data.request_parts).toContainEqual(expect.objectContaining({ name: 'file', filename: 'a.wav', bytes: file.byteLength, sha256: sha256(file) }))
  })

  test('a key may not use the model: 403 before any byte goes upstream', async () => {
    const created = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'chat only', allowed_models: ['openai/gpt-4o-mini'] }),
    })
    const { key } = (await created.json()) as { key: string }
    const before = t.openaiMock.requests.length
    const refused = await post(
      '/v1/audio/transcriptions',
      form([
        ['model', 'openai/whisper-1'],
        ['file', ['a.mp3', audio, 'audio/mpeg']],
      ]),
      {},
      key,
    )
    expect(refused.res.status).toBe(403)
    expect(t.openaiMock.requests.length).toBe(before)
    expect((await entryOf(refused.res)).status_code).toBe(403)
  })

  test('415 for a body that is not multipart/form-data, 400 for a malformed form or one without model, 413 past the upload limit; each audited', async () => {
    const json = await post('/v1/audio/transcriptions', JSON.stringify({ model: 'openai/whisper-1' }), { 'content-type': 'application/json' })
    expect(json.res.status).toBe(415)
    expect(json.body.error.code).toBe('unsupported_media_type')
    const broken = await post('/v1/audio/transcriptions', '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nopenai/whisper-1\r\n--b\r\nnot a header\r\n\r\nx', {
      'content-type': 'multipart/form-data; boundary=b',
    })
    expect(broken.res.status).toBe(400)
    expect(broken.body.error.code).toBe('malformed_form')
    const noModel = await post('/v1/audio/transcriptions', form([['file', ['a.mp3', audio.subarray(0, 100), 'audio/mpeg']]]))
    expect(noModel.res.status).toBe(400)
    expect(noModel.body.error).toMatchObject({ code: 'missing_model', param: 'model' })
    const badFormat = await post(
      '/v1/audio/transcriptions',
      form([
        ['model', 'openai/whisper-1'],
        ['response_format', 'docx'],
        ['file', ['a.mp3', audio.subarray(0, 100), 'audio/mpeg']],
      ]),
    )
    expect(badFormat.res.status).toBe(400)
    const declared = await post(
      '/v1/audio/transcriptions',
      form([
        ['model', 'openai/whisper-1'],
        ['file', ['big.mp3', new Uint8Array(MAX_UPLOAD + 1), 'audio/mpeg']],
      ]),
    )
    expect(declared.res.status).toBe(413)
    for (const { res } of [json, broken, noModel, badFormat, declared]) expect((await entryOf(res)).status_code).toBe(res.status)
  })

  test('413 for a chunked upload that passes the limit while it streams upstream', async () => {
    const boundary = 'chunked-boundary'
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nopenai/whisper-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(head))
        if (sent > MAX_UPLOAD + 1024 * 1024) {
          controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`))
          return controller.close()
        }
        controller.enqueue(new Uint8Array(256 * 1024))
        sent += 256 * 1024
      },
    })
    const res = await fetch(`${t.gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as any).error.code).toBe('request_too_large')
    expect((await entryOf(res)).status_code).toBe(413)
  })
})

describe('audio.translations', () => {
  test('vtt: the WebVTT answer as the upstream sent it; priced by its last cue', async () => {
    const { data, response } = await t.openai.audio.translations.create({ model: 'openai/whisper-1', file: createReadStream(audioPath), response_format: 'vtt' }).withResponse()
    expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/audio/translations')
    expect(data as unknown).toBe(plainTranscript('vtt', transcriptOf(lastForm().files[0]!)))
    const entry = await entryOf(response)
    expect(entry.usage).toMatchObject({ unit: 'audio_second', units: Math.ceil(TRANSCRIPT_DURATION) })
  })

  test('whisper-1 verbose_json: translated text, priced per second', async () => {
    const { data, response } = await t.openai.audio.translations
      .create({ model: 'openai/whisper-1', file: createReadStream(audioPath), response_format: 'verbose_json' })
      .withResponse()
    expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/audio/translations')
    expect(data.text).toBe(transcriptOf(lastForm().files[0]!))
    expect((data as unknown as { duration: number }).duration).toBe(TRANSCRIPT_DURATION)
    const entry = await entryOf(response)
    expect(entry.usage).toMatchObject({ unit: 'audio_second', units: Math.ceil(TRANSCRIPT_DURATION) })
  })
})
