import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { loadCountThread } from '../../src/tokens/count-thread.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { contextSlimmerConfig } from './manifest.ts'
import { contextSlimmer, slimText, trimLineEnds } from './plugin.ts'
import { chatToolResults, messagesToolResults, responsesToolResults } from '../../src/protocols/tool-results.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'

// The tokenizer thread loads its tables before counting; waiting here keeps the first test's time for the test.
beforeAll(() => loadCountThread(), 30_000)

test('whitespace in tool output collapses without touching words', async () => {
  expect(slimText('a    b\t\tc   \n\n\n\n\nd  ', true, true)).toBe('a b c\n\nd')
  expect(slimText('keep  this', false, false)).toBe('keep  this')
})

describe('trailing blanks: what /[ \\t]+$/gm removed, in time linear in the text', () => {
  // The regex this replaces: quadratic in a run of blanks that does not end a line.
  const former = (text: string) => text.replace(/[ \t]+$/gm, '')

  test('ordinary tool output', () => {
    for (const text of ['total 8  \r\n-rw-r--r--  1 a  b\t\n\tindented\n  \n', 'x \u2028y\t\u2029z  ', '   ', '', 'no blanks']) expect(trimLineEnds(text)).toBe(former(text))
    expect(trimLineEnds('a  \nb\t')).toBe('a\nb')
  })

  test('fuzzed', () => {
    const text = fc.array(fc.constantFrom(' ', '\t', 'a', 'b c', '\n', '\r', '\r\n', '\u2028', '\u2029', '\u00a0'), { maxLength: 40 }).map((p) => p.join(''))
    fc.assert(
      fc.property(text, fc.boolean(), fc.boolean(), (t, collapse, trim) => {
        expect(trimLineEnds(t)).toBe(former(t))
        const formerSlim = collapse ? (trim ? former(t) : t).replace(/[ \t]{2,}/g, ' ').replace(/\n{3,}/g, '\n\n') : trim ? former(t) : t
        expect(slimText(t, collapse, trim)).toBe(formerSlim)
      }),
      { numRuns: 3000 },
    )
  })

  test('80,000 blanks before a letter, and fuzzed hostile runs of 80,000 characters, take milliseconds', () => {
    const hostile = [' '.repeat(80_000) + 'x', '\t '.repeat(40_000) + 'x\n', ' x'.repeat(40_000)]
    const generated = fc.sample(fc.string({ unit: fc.constantFrom(' ', '\t', 'x', '\n'), minLength: 1, maxLength: 8 }), { numRuns: 20, seed: 26 })
    for (const text of [...hostile, ...generated.map((unit) => unit.repeat(Math.ceil(80_000 / unit.length)))]) {
      // The best of three runs: a loaded machine can deschedule one run, a quadratic rule is slow in all.
      let fastest = Infinity
      for (let run = 0; run < 3 && fastest > 5; run++) {
        const started = performance.now()
        slimText(text, true, true)
        fastest = Math.min(fastest, performance.now() - started)
      }
      expect(fastest).toBeLessThan(50)
    }
  })
})

test('slims tool results and duplicate tools, counts the saved tokens, leaves user text alone', async () => {
  const tool = { type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }
  const listing = Array.from({ length: 40 }, (_, i) => `file_${i}.txt        4096      2026-01-01    `).join('\n')
  const body = {
    model: 'm',
    messages: [
      { role: 'user', content: 'spaces    the user typed' },
      { role: 'tool', tool_call_id: 'c1', content: listing },
    ],
    tools: [tool, tool, { ...tool, function: { ...tool.function, name: 'cat' } }],
  }
  const ctx = makeContext({ body })
  await pluginHooks(contextSlimmer, contextSlimmerConfig.parse({ enabled: true }), await makeDeps()).before!(ctx)
  const messages = ctx.body.messages as { content: string }[]
  expect(messages[0]!.content).toBe('spaces    the user typed')
  expect(messages[1]!.content).not.toContain('  ')
  expect((ctx.body.tools as unknown[]).length).toBe(2)
  const revision = ctx.revisions[0]!
  expect(revision).toMatchObject({ rewriter: 'context-slimmer', detail: { tool_messages_slimmed: 1, duplicate_tools_removed: 1 } })
  expect(revision.tokens_saved).toBeGreaterThan(50)
  expect(revision.body).toBeUndefined()
})

test('nothing to slim is a no-change revision', async () => {
  const ctx = makeContext({ body: { model: 'm', messages: [{ role: 'tool', content: 'tidy' }] } })
  await pluginHooks(contextSlimmer, contextSlimmerConfig.parse({ enabled: true }), await makeDeps()).before!(ctx)
  expect(ctx.revisions[0]).toMatchObject({ no_change: true, tokens_saved: 0 })
  expect(ctx.revisions[0]!.bytes_after).toBe(ctx.revisions[0]!.bytes_before)
})

describe('tool results on every ingress protocol', () => {
  const slim = (t: string) => slimText(t, true, true)
  const padded = 'a    b   \n\n\n\nc'
  const thin = 'a b\n\nc'

  test('Responses: function_call_output and custom_tool_call_output, as text or as parts; other items untouched', () => {
    const body = {
      input: [
        { role: 'user', content: padded },
        { type: 'function_call_output', call_id: 'c1', output: padded },
        { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: padded }] },
      ],
    }
    const result = responsesToolResults(body, slim)
    expect(result.slimmed).toBe(2)
    expect(result.body.input).toEqual([
      { role: 'user', content: padded },
      { type: 'function_call_output', call_id: 'c1', output: thin },
      { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: thin }] },
    ])
  })

  test('Messages: tool_result blocks with string or block content; user text untouched', () => {
    const body = {
      messages: [
        { role: 'user', content: padded },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: padded },
            { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: padded }] },
            { type: 'text', text: padded },
          ],
        },
      ],
    }
    const result = messagesToolResults(body, slim)!
    expect(result.slimmed).toBe(2)
    expect((result.body.messages as any)[1].content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: thin },
      { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: thin }] },
      { type: 'text', text: padded },
    ])
    expect((result.body.messages as any)[0]).toBe(body.messages[0])
  })

  test('nothing to slim: the same body', () => {
    const body = { messages: [{ role: 'tool', content: thin }] }
    expect(chatToolResults(body, slim)).toEqual({ body, slimmed: 0 })
    expect(chatToolResults({ input: 'x' }, slim)).toBeUndefined()
    expect(endpoint('models.list').api.toolResults).toBeNull()
  })
})
