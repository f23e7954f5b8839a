/**
 * Codex CLI's own `/v1/responses` shapes (captured from `codex exec` 0.169.0) on the translated path, i.e. to
 * Anthropic and Gemini models: `namespace` tools flattened into function tools and their calls reported back
 * under the namespace and name Codex declared; hosted tools (`web_search`, `tool_search`) dropped and said so
 * (response header and a request revision in the audit entry); the `additional_tools` input item accepted, its
 * tools offered like top-level ones. On a native Responses upstream (OpenAI) everything goes through untouched.
 */
import { describe, expect, test } from 'bun:test'
import { AGENT_ANSWER_PREFIX } from '../helpers/scripted-agent.ts'
import { sseEvents } from '../helpers/sse-events.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({ families: ['openai', 'anthropic', 'gemini'], env: { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' } })

const fn = (name: string) => ({
  type: 'function',
  name,
  description: `${name} tool`,
  strict: false,
  parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false },
})

/** Trimmed from a captured Codex 0.169 request: its tool kinds, item kinds and fields. */
function codexBody(model: string, prompt: string, extra: Record<string, unknown> = {}) {
  return {
    model,
    stream: false,
    input: [
      { type: 'additional_tools', id: 'at_01', role: 'developer', tools: [{ type: 'namespace', name: 'collaboration', description: '', tools: [fn('spawn_agent')] }] },
      { type: 'message', id: 'msg_1', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }] },
      { type: 'message', id: 'msg_2', role: 'user', content: [{ type: 'input_text', text: prompt }] },
    ],
    tools: [
      fn('exec_command'),
      { type: 'namespace', name: 'multi_agent_v1', description: 'Tools for spawning and managing sub-agents.', tools: [fn('close_agent')] },
      { type: 'namespace', name: 'mcp__docs__', description: 'Docs server', tools: [fn('lookup')] },
      { type: 'web_search', external_web_access: false },
      { type: 'tool_search', execution: 'client', description: 'Search tools', parameters: { type: 'object', properties: {} } },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'p1',
    ...extra,
  }
}

function post(body: unknown): Promise<Response> {
  return fetch(`${t.gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.master}` }, body: JSON.stringify(body) })
}

for (const family of ['anthropic', 'gemini'] as const) {
  describe(`Codex → /v1/responses → ${family} (translated)`, () => {
    const model = `${family}/agent`
    const upstreamToolNames = () => {
      const sent = (family === 'anthropic' ? t.anthropicMock : t.geminiMock).requests.at(-1)!.body
      return family === 'anthropic'
        ? sent.tools.map((t: { name: string }) => t.name)
        : sent.tools.flatMap((t: { functionDeclarations: { name: string }[] }) => t.functionDeclarations.map((f) => f.name))
    }

    test('namespaced tools are flattened, hosted ones dropped and named in a header; the call comes back under its namespace', async () => {
      const res = await post(codexBody(model, 'call tool close_agent {"target":"a1"}'))
      expect(res.status).toBe(200)
      expect(res.headers.get('x-gateway-dropped-tools')).toBe('web_search, tool_search')
      expect(upstreamToolNames()).toEqual(['exec_command', 'multi_agent_v1__close_agent', 'mcp__docs__lookup', 'collaboration__spawn_agent'])
      const body = await res.json()
      const call = body.output.find((o: { type: string }) => o.type === 'function_call')
      expect(call).toMatchObject({ type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{"target":"a1"}' })

      const entry = await t.audit.entryFor(res.headers.get('x-request-id')!)
      expect(entry.data.request_revisions).toContainEqual(
        expect.objectContaining({ rewriter: 'responses-translation', detail: expect.objectContaining({ dropped_tools: ['web_search', 'tool_search'] }) }),
      )
    })

    test('tools of the additional_tools item and MCP namespaces are callable too', async () => {
      const spawn = await (await post(codexBody(model, 'call tool spawn_agent {"target":"x"}'))).json()
      expect(spawn.output.find((o: { type: string }) => o.type === 'function_call')).toMatchObject({ name: 'spawn_agent', namespace: 'collaboration' })
      const lookup = await (await post(codexBody(model, 'call tool lookup {"target":"y"}'))).json()
      expect(lookup.output.find((o: { type: string }) => o.type === 'function_call')).toMatchObject({ name: 'lookup', namespace: 'mcp__docs__' })
    })

    test('the next turn replays the namespaced call and its output; the answer quotes the result', async () => {
      const body = codexBody(model, 'call tool close_agent {"target":"a1"}')
      body.input.push(
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' } as never,
        { type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{"target":"a1"}', call_id: 'call_9' } as never,
        { type: 'function_call_output', call_id: 'call_9', output: 'agent a1 closed' } as never,
      )
      const res = await post(body)
      expect(res.status).toBe(200)
      const answer = await res.json()
      expect(answer.output.at(-1).content[0].text).toBe(`${AGENT_ANSWER_PREFIX}agent a1 closed`)
      const sent = (family === 'anthropic' ? t.anthropicMock : t.geminiMock).requests.at(-1)!.body
      expect(JSON.stringify(sent)).toContain('multi_agent_v1__close_agent')
    })

    test('streamed: the function_call items carry the namespace; the stream ends with response.completed', async () => {
      const res = await post(codexBody(model, 'call tool close_agent {"target":"a1"}', { stream: true }))
      expect(res.status).toBe(200)
      expect(res.headers.get('x-gateway-dropped-tools')).toBe('web_search, tool_search')
      const events = sseEvents(await res.text()).map(([, data]) => data)
      const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call')
      expect(done?.item).toMatchObject({ name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{"target":"a1"}' })
      const added = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'function_call')
      expect(added?.item).toMatchObject({ name: 'close_agent', namespace: 'multi_agent_v1' })
      expect(events.at(-1)?.type).toBe('response.completed')
    })
  })
}

describe('Codex → /v1/responses → OpenAI (native)', () => {
  test('namespaces, hosted tools and additional_tools reach the upstream untouched; no dropped-tools header', async () => {
    const body = codexBody('openai/agent', 'call tool exec_command {"target":"ls"}')
    const res = await post(body)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-gateway-dropped-tools')).toBeNull()
    const sent = t.openaiMock.requests.at(-1)!.body
    expect(sent.tools).toEqual(body.tools)
    expect(sent.input[0].type).toBe('additional_tools')
    expect((await res.json()).output[0]).toMatchObject({ type: 'function_call', name: 'exec_command' })
  })
})
