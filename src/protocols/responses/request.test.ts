import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../errors/gateway-error.ts'
import { answered } from '../../../test/helpers/plugin-harness.ts'
import { responsesRequestToChat, translateResponsesRequest } from './request.ts'

/** The body of the 400 a translation returned; fails the test when it returned a chat request instead. */
function refusal(body: Record<string, unknown>) {
  const result = translateResponsesRequest({ model: 'm', ...body })
  expect(result).toBeInstanceOf(GatewayError)
  return (result as GatewayError).toBody()
}

describe('Responses request → chat request', () => {
  test('instructions, input items and tool calls become chat messages; hosted tools are listed as dropped', () => {
    const { chat, droppedTools } = answered(
      translateResponsesRequest({
        model: 'm',
        instructions: 'be brief',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
          { type: 'reasoning', summary: [] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'done' },
        ],
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'web_search' }],
        max_output_tokens: 50,
      }),
    )
    expect(chat.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ])
    expect(chat).toMatchObject({ model: 'm', max_completion_tokens: 50 })
    expect(chat.input).toBeUndefined()
    expect(droppedTools).toEqual(['web_search'])
  })

  test('input chat cannot carry is returned as a 400 naming the exact place, not thrown', () => {
    expect(refusal({ input: ['hi'] })).toMatchObject({ status_code: 400, type: 'invalid_request_error', param: 'input[0]', message: 'input[0]: expected an object' })
    expect(refusal({ input: [{ type: 'message', role: 'user', content: 'a' }, { type: 'computer_call' }] })).toMatchObject({
      param: 'input[1].type',
      code: 'unsupported_input_item',
    })
    expect(refusal({ input: [{ role: 'user', content: 7 }] }).param).toBe('input[0].content')
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'a' }, 'b'] }] }).param).toBe('input[0].content[1]')
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] })).toMatchObject({
      param: 'input[0].content[0].image_url',
      message: 'input[0].content[0].image_url: only image URLs and data URLs can be translated',
    })
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_audio' }] }] }).message).toBe("input[0].content[0].type: 'input_audio' is not supported")
  })

  test('a refused tool refuses the request; the chat-only helper passes the same error on', () => {
    expect(refusal({ input: 'hi', tools: [null] }).param).toBe('tools[0]')
    const error = responsesRequestToChat({ model: 'm', input: [{ type: 'computer_call' }] })
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).status).toBe(400)
  })
})
