import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../errors/gateway-error.ts'
import { chatChunk, chatSseBody, dataFrameText } from '../../../test/helpers/chat-stream-body.ts'
import { sseEvents } from '../../../test/helpers/sse-events.ts'
import { chatStreamToResponses } from './stream.ts'

const request = { model: 'gpt-4o', input: 'hi' }
const respond = async (body: ReadableStream<Uint8Array>) => sseEvents(await new Response(chatStreamToResponses(body, request, new Map(), 'gpt-4o')).text())
const names = (events: [string | undefined, any][]) => events.map(([name]) => name)

describe('chat chunks → Responses events', () => {
  test('text: created and in_progress first, deltas, one completed with text and usage; every event numbered from 0', async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
    const frames = [chatChunk({ role: 'assistant', content: 'Hé ' }), chatChunk({ content: '🙂' }), chatChunk({}, 'stop'), { ...chatChunk({}), choices: [], usage }]
    const events = await respond(chatSseBody([...frames.map(dataFrameText), dataFrameText('[DONE]')], { pieceSize: 5 }))
    expect(names(events).slice(0, 2)).toEqual(['response.created', 'response.in_progress'])
    expect(events.map(([, e]) => e.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.filter(([n]) => n === 'response.output_text.delta').map(([, e]) => e.delta)).toEqual(['Hé ', '🙂'])
    const [last, final] = events.at(-1)!
    expect(last).toBe('response.completed')
    expect(final.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hé 🙂' }] }],
      usage: { input_tokens: 3, output_tokens: 2 },
    })
  })

  test('data: {"error"} in the chat stream ends it with response.failed carrying the code; nothing after it is read', async () => {
    const frames = [chatChunk({ content: 'par' }), { error: { message: 'Boom', type: 'server_error', code: 'overloaded' } }, chatChunk({ content: 'never' })]
    const events = await respond(chatSseBody(frames.map(dataFrameText)))
    expect(events.at(-1)).toEqual([
      'response.failed',
      expect.objectContaining({ response: expect.objectContaining({ status: 'failed', error: { code: 'overloaded', message: 'Boom' } }) }),
    ])
    expect(JSON.stringify(events)).not.toContain('never')
  })

  test('a broken upstream (a GatewayError breaking the stream) and a stream that stops before a finish reason both end failed', async () => {
    const timeout = new GatewayError({ status: 504, type: 'provider_error', code: 'upstream_timeout', message: 'no data' })
    const broken = await respond(chatSseBody([dataFrameText(chatChunk({ content: 'a' }))], { failWith: timeout }))
    expect(broken.at(-1)![1].response.error).toEqual({ code: 'upstream_timeout', message: 'no data' })
    for (const cut of [[dataFrameText(chatChunk({ content: 'a' }))], [dataFrameText(chatChunk({ content: 'a' })), dataFrameText('[DONE]')]]) {
      const events = await respond(chatSseBody(cut))
      expect(names(events).filter((n) => n?.startsWith('response.') && ['response.completed', 'response.incomplete', 'response.failed'].includes(n))).toEqual(['response.failed'])
      expect(events.at(-1)![1].response.error.code).toBe('stream_interrupted')
    }
  })

  test('a length finish is response.incomplete with its reason', async () => {
    const events = await respond(chatSseBody([dataFrameText(chatChunk({ content: 'a' }, 'length')), dataFrameText('[DONE]')]))
    expect(events.at(-1)![0]).toBe('response.incomplete')
    expect(events.at(-1)![1].response.incomplete_details).toEqual({ reason: 'max_output_tokens' })
  })
})
