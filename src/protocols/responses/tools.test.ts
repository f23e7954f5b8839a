import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../errors/gateway-error.ts'
import { answered } from '../../../test/helpers/plugin-harness.ts'
import { clientToolName, flatToolName, toolChoiceToChat, translateTools } from './tools.ts'

const fn = (name: string) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } })

describe('Responses tools → chat tools', () => {
  test('flat names: <namespace>__<name>, MCP namespaces (ending in __) joined directly', () => {
    expect(flatToolName(undefined, 'exec_command')).toBe('exec_command')
    expect(flatToolName('multi_agent_v1', 'close_agent')).toBe('multi_agent_v1__close_agent')
    expect(flatToolName('mcp__docs__', 'lookup')).toBe('mcp__docs__lookup')
    const long = flatToolName('mcp__a_very_long_server_name_for_testing__', 'and_an_equally_long_tool_name_here')
    expect(long).toHaveLength(64)
    expect(long).toBe(flatToolName('mcp__a_very_long_server_name_for_testing__', 'and_an_equally_long_tool_name_here'))
    expect(long).not.toBe(flatToolName('mcp__a_very_long_server_name_for_testing__', 'and_an_equally_long_tool_name_hera'))
  })

  test('namespaces flattened (custom members stay free-form), hosted tools listed once, additional_tools counted', () => {
    const { tools, names, dropped } = answered(
      translateTools({
        tools: [
          fn('a'),
          { type: 'namespace', name: 'ns', tools: [fn('b'), { type: 'custom', name: 'c', description: 'raw' }] },
          { type: 'web_search' },
          { type: 'web_search' },
          { type: 'image_generation' },
        ],
        input: [
          { type: 'additional_tools', tools: [{ type: 'namespace', name: 'extra', tools: [fn('d')] }, { type: 'file_search' }] },
          { type: 'message', role: 'user', content: 'x' },
        ],
      }),
    )
    expect(tools.map((t) => (t.function as { name: string }).name)).toEqual(['a', 'ns__b', 'ns__c', 'extra__d'])
    expect((tools[2]!.function as { parameters: unknown }).parameters).toEqual({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] })
    expect(dropped).toEqual(['web_search', 'image_generation', 'file_search'])
    expect(clientToolName('ns__c', names)).toEqual({ name: 'c', namespace: 'ns', custom: true })
    expect(clientToolName('a', names)).toEqual({ name: 'a', custom: false })
    expect(clientToolName('unknown', names)).toEqual({ name: 'unknown', custom: false })
  })

  test('tool_choice: a namespaced function is flattened; a dropped hosted tool becomes auto; strings pass', () => {
    const { names } = answered(translateTools({ tools: [{ type: 'namespace', name: 'ns', tools: [fn('b')] }] }))
    expect(toolChoiceToChat({ type: 'function', namespace: 'ns', name: 'b' }, names)).toEqual({ type: 'function', function: { name: 'ns__b' } })
    expect(toolChoiceToChat({ type: 'web_search' }, names)).toBe('auto')
    expect(toolChoiceToChat('required', names)).toBe('required')
  })

  test('a tool that is not an object is a 400 naming it, at the top, in a namespace and in additional_tools', () => {
    const refused = (body: Record<string, unknown>) => {
      const result = translateTools(body)
      expect(result).toBeInstanceOf(GatewayError)
      return (result as GatewayError).toBody()
    }
    expect(refused({ tools: [fn('a'), 'read_file'] })).toMatchObject({
      type: 'invalid_request_error',
      status_code: 400,
      param: 'tools[1]',
      message: 'tools[1]: expected an object',
    })
    expect(refused({ tools: [{ type: 'namespace', name: 'ns', tools: [fn('b'), null] }] }).param).toBe('tools[0].tools[1]')
    expect(refused({ tools: [fn('a')], input: [{ type: 'additional_tools', tools: [7] }] }).param).toBe('tools[1]')
  })
})
