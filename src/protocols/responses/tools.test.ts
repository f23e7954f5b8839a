import { describe, expect, test } from 'bun:test'
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
    const { tools, names, dropped } = translateTools({
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
    })
    expect(tools.map((t) => (t.function as { name: string }).name)).toEqual(['a', 'ns__b', 'ns__c', 'extra__d'])
    expect((tools[2]!.function as { parameters: unknown }).parameters).toEqual({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] })
    expect(dropped).toEqual(['web_search', 'image_generation', 'file_search'])
    expect(clientToolName('ns__c', names)).toEqual({ name: 'c', namespace: 'ns', custom: true })
    expect(clientToolName('a', names)).toEqual({ name: 'a', custom: false })
    expect(clientToolName('unknown', names)).toEqual({ name: 'unknown', custom: false })
  })

  test('tool_choice: a namespaced function is flattened; a dropped hosted tool becomes auto; strings pass', () => {
    const { names } = translateTools({ tools: [{ type: 'namespace', name: 'ns', tools: [fn('b')] }] })
    expect(toolChoiceToChat({ type: 'function', namespace: 'ns', name: 'b' }, names)).toEqual({ type: 'function', function: { name: 'ns__b' } })
    expect(toolChoiceToChat({ type: 'web_search' }, names)).toBe('auto')
    expect(toolChoiceToChat('required', names)).toBe('required')
  })
})
