import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import type { SseEvent } from '../pipeline/sse.ts'
import { chatErrorFrame, chatStreamError, type EventStreamTranslator, translateEventStream } from './stream-translation.ts'

const encoder = new TextEncoder()
const text = (frames: Uint8Array[]) => frames.map((f) => new TextDecoder().decode(f)).join('')

/** A source of SSE events, one event per read, that records how far it was read and whether it was cancelled. */
function source(events: string[], failWith?: Error) {
  const seen = { reads: 0, cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = events[seen.reads++]
      if (next === undefined) return failWith ? controller.error(failWith) : controller.close()
      controller.enqueue(encoder.encode(`data: ${next}\n\n`))
    },
    cancel() {
      seen.cancelled = true
    },
  })
  return { stream, seen }
}

/** Echoes each event's data upper-cased, stops at STOP, skips SKIP; `end` and `fail` say what happened. */
function echo(withFail = true): EventStreamTranslator {
  const t = {
    done: false,
    start: () => [encoder.encode('start\n')],
    translate(event: SseEvent) {
      if (event.data === 'STOP') t.done = true
      return event.data === 'SKIP' ? [] : [encoder.encode(`${event.data.toUpperCase()}\n`)]
    },
    end() {
      t.done = true
      return [encoder.encode('cut short\n')]
    },
    ...(withFail ? { fail: (error: unknown) => [encoder.encode(`failed: ${(error as Error).message}\n`)] } : {}),
  }
  return t
}

describe('translateEventStream', () => {
  test('start frames first, one frame per event; a source that closes early gets the end frames', async () => {
    const { stream } = source(['a', 'SKIP', 'b'])
    expect(await new Response(translateEventStream(stream, echo())).text()).toBe('start\nA\nB\ncut short\n')
  })

  test('once the translation is complete the rest of the source is neither read nor translated, and it is cancelled', async () => {
    const { stream, seen } = source(['a', 'STOP', 'never', 'never'])
    expect(await new Response(translateEventStream(stream, echo())).text()).toBe('start\nA\nSTOP\n')
    // The source queues one event ahead of the reader; the second 'never' and the close are not asked for.
    expect(seen.reads).toBeLessThanOrEqual(3)
    expect(seen.cancelled).toBe(true)
  })

  test('reads only as far as the client pulls: events that translate to nothing do not end a pull', async () => {
    const { stream, seen } = source(['SKIP', 'SKIP', 'a', 'b'])
    const reader = translateEventStream(stream, echo()).getReader()
    expect(text([(await reader.read()).value!])).toBe('start\n')
    expect(text([(await reader.read()).value!])).toBe('A\n')
    expect(seen.reads).toBeLessThanOrEqual(4) // 'b' at most queued, not translated
    await reader.cancel()
    expect(seen.cancelled).toBe(true)
  })

  test('a source that breaks off: the translator says how it ends, or the error breaks the translated stream', async () => {
    const broken = source(['a'], new Error('reset'))
    expect(await new Response(translateEventStream(broken.stream, echo())).text()).toBe('start\nA\nfailed: reset\n')
    const rethrown = source(['a'], new Error('reset'))
    await expect(new Response(translateEventStream(rethrown.stream, echo(false))).text()).rejects.toThrow('reset')
  })
})

describe('errors inside a chat stream', () => {
  test('the frame a provider writes reads back as the same error', () => {
    const frame = new TextDecoder().decode(chatErrorFrame('Overloaded', 'UNAVAILABLE'))
    expect(frame).toBe('data: {"error":{"message":"Overloaded","type":"server_error","param":null,"code":"UNAVAILABLE"}}\n\n')
    const error = chatStreamError(JSON.parse(frame.slice('data: '.length)).error)
    expect(error).toBeInstanceOf(GatewayError)
    expect(error.toBody()).toEqual({ type: 'provider_error', message: 'Overloaded', code: 'UNAVAILABLE', param: null, provider: '', status_code: 502 })
  })

  test("the gateway's own error bodies keep their status and provider; a bare string is the message", () => {
    expect(chatStreamError({ message: 'slow', code: 'upstream_timeout', status_code: 504, provider: 'openai' }).toBody()).toMatchObject({
      status_code: 504,
      code: 'upstream_timeout',
      provider: 'openai',
    })
    expect(chatStreamError('Boom').toBody()).toMatchObject({ message: 'Boom', code: null, status_code: 502 })
  })
})
