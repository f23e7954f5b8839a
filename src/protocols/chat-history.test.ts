import { expect, test } from 'bun:test'
import { alternatingTurns, userContentParts } from './chat-history.ts'

type Json = Record<string, unknown>
/** Parts that name the message they came from, so the test sees where each landed. */
const parts = {
  user: (m: Json) => (m.content === '' ? [] : [`user:${m.content}`]),
  assistant: (m: Json) => [`assistant:${m.content}`],
  tool: (m: Json) => [`tool:${m.tool_call_id}`],
}

test('system and developer text apart, one side per turn, tool results leading the user turn in their order', () => {
  const { system, turns } = alternatingTurns(
    [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'a' },
      { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'calls' },
      { role: 'user', content: 'interjection' },
      { role: 'tool', tool_call_id: 't1' },
      { role: 'tool', tool_call_id: 't2' },
      { role: 'user', content: 'thanks' },
      { role: 'user', content: '' },
      { role: 'function', content: 'legacy role: left out' },
    ],
    parts,
  )
  expect(system).toEqual(['Be brief.', 'Use metric.'])
  expect(turns).toEqual([
    { role: 'user', parts: ['user:a', 'user:b'] },
    { role: 'assistant', parts: ['assistant:calls'] },
    { role: 'user', parts: ['tool:t1', 'tool:t2', 'user:interjection', 'user:thanks'] },
  ])
})

test('no messages, or not a list: nothing', () => {
  expect(alternatingTurns(undefined, parts)).toEqual({ system: [], turns: [] })
  expect(alternatingTurns('hi', parts)).toEqual({ system: [], turns: [] })
})

test('user content: text, images and data-URL files as media, audio; files by id and unknown parts left out', () => {
  expect(userContentParts('hi')).toEqual([{ kind: 'text', text: 'hi' }])
  expect(userContentParts('')).toEqual([])
  expect(
    userContentParts([
      { type: 'text', text: 'Look' },
      { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      { type: 'image_url', image_url: 'data:image/png;base64,AAAA' },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBER' } },
      { type: 'file', file: { file_id: 'file-1' } },
      { type: 'input_audio', input_audio: { data: 'UklG', format: 'mp3' } },
      { type: 'refusal', refusal: 'x' },
      null,
    ]),
  ).toEqual([
    { kind: 'text', text: 'Look' },
    { kind: 'media', url: 'https://x/y.png' },
    { kind: 'media', url: 'data:image/png;base64,AAAA' },
    { kind: 'media', url: 'data:application/pdf;base64,JVBER' },
    { kind: 'audio', data: 'UklG', format: 'mp3' },
  ])
})
