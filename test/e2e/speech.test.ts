/**
 * `POST /v1/audio/speech` end to end with the official `openai` SDK against the mock OpenAI upstream: the audio of
 * every `response_format` with its content type, streamed to the client as the upstream makes it (the first chunk
 * arrives while the upstream still holds the rest), `stream_format: "sse"` events with their usage, the upstream's
 * and the gateway's errors, and the audit entry (the audio's type, size and SHA-256, never its bytes) with the usage
 * priced per character (tts-1) or by tokens.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { SPEECH_CHUNK_BYTES, SPEECH_CHUNKS, SPEECH_CONTENT_TYPES, SPEECH_USAGE, releaseHeldSpeech, speechChunk } from '../helpers/mock-openai-media.ts'
import { sseEvents } from '../helpers/sse-events.ts'

// Bodies logged: the audit entry of an audio answer records what it was, never its bytes.
const t = useGatewaySuite({ env: { LOGGING_LOG_BODIES: 'true' } })

const wholeAudio = () => Buffer.concat(Array.from({ length: SPEECH_CHUNKS }, (_, i) => speechChunk(i)))
const input = 'Hello from the gateway, café 🙂'

describe('audio.speech', () => {
  test('every response_format: its bytes and content type as the upstream sent them; priced per character', async () => {
    for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const) {
      const response = await t.openai.audio.speech.create({ model: 'openai/tts-1', input, voice: 'alloy', response_format: format })
      expect(response.headers.get('content-type')).toBe(SPEECH_CONTENT_TYPES[format]!)
      expect(Buffer.from(await response.arrayBuffer())).toEqual(wholeAudio())
      expect(t.openaiMock.requests.at(-1)!.body).toMatchObject({ model: 'tts-1', input, response_format: format })
      const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
      expect(entry.status_code).toBe(200)
      expect(entry.usage).toMatchObject({ unit: 'character', units: [...input].length })
      expect(entry.usage!.cost_usd).toBeCloseTo(([...input].length * 15) / 1e6, 12)
      expect(entry.data.request_body).toMatchObject({ input, response_format: format })
      expect(entry.data.response_body).toBeUndefined()
      const sha256 = new Bun.CryptoHasher('sha256').update(wholeAudio()).digest('hex')
      expect(entry.data.response_binary).toEqual({ content_type: SPEECH_CONTENT_TYPES[format]!, bytes: SPEECH_CHUNKS * SPEECH_CHUNK_BYTES, sha256 })
    }
  })

  test('the audio reaches the client as it is made: the first chunk before the upstream has made the rest', async () => {
    const response = await t.openai.audio.speech.create({ model: 'openai/tts-held', input, voice: 'alloy' })
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBeGreaterThan(0)
    expect(first.value![0]).toBe(1)
    releaseHeldSpeech()
    let bytes = first.value!.byteLength
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      bytes += next.value.byteLength
    }
    expect(bytes).toBe(SPEECH_CHUNKS * SPEECH_CHUNK_BYTES)
  })

  test('a token-priced model: the input tokens counted by the gateway, no output counted from the audio bytes', async () => {
    const response = await t.openai.audio.speech.create({ model: 'openai/gpt-4o-mini-tts', input, voice: 'coral', instructions: 'Cheerful.' })
    await response.arrayBuffer()
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.usage!.input_tokens).toBeGreaterThan(0)
    expect(entry.usage!.output_tokens).toBe(0)
    expect(entry.usage!.cost_usd).toBeCloseTo((entry.usage!.input_tokens * 0.6) / 1e6, 12)
  })

  test('stream_format sse: the events as OpenAI sent them; usage from speech.audio.done', async () => {
    const response = await t.openai.audio.speech.create({ model: 'openai/gpt-4o-mini-tts', input, voice: 'coral', stream_format: 'sse' })
    expect(response.headers.get('content-type')).toStartWith('text/event-stream')
    const events = sseEvents(await response.text())
    expect(events.map(([, data]) => data.type)).toEqual(['speech.audio.delta', 'speech.audio.delta', 'speech.audio.delta', 'speech.audio.done'])
    expect(Buffer.from(events[0]![1].audio, 'base64')).toEqual(Buffer.from(speechChunk(0)))
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: SPEECH_USAGE.input_tokens, output_tokens: SPEECH_USAGE.output_tokens, unit: 'character' })
    expect(entry.usage!.cost_usd).toBeCloseTo((SPEECH_USAGE.input_tokens * 0.6 + SPEECH_USAGE.output_tokens * 12) / 1e6, 12)
  })

  test("the upstream's refusal is the SDK's BadRequestError with OpenAI's code; the gateway's own 400s name the field", async () => {
    const refused = await t.openai.audio.speech.create({ model: 'openai/tts-1', input, voice: 'nobody' }).catch((e) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.code).toBe('invalid_value')
    expect((await t.audit.entryFor(refused.headers.get('x-request-id'))).status_code).toBe(400)

    const badFormat = await t.openai.audio.speech.create({ model: 'openai/tts-1', input, voice: 'alloy', response_format: 'ogg' as never }).catch((e) => e)
    expect(badFormat).toBeInstanceOf(OpenAI.BadRequestError)
    expect(badFormat.message).toContain('response_format')
    const noVoice = await t.openai.audio.speech.create({ model: 'openai/tts-1', input } as never).catch((e) => e)
    expect(noVoice).toBeInstanceOf(OpenAI.BadRequestError)
    expect(noVoice.message).toContain('voice')
  })
})
