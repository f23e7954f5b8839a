import { beforeAll, expect, test } from 'bun:test'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { countChatPromptTokens, countCompletionTokens, countTextTokens, countTextsTokens } from './count.ts'
import { cheapEstimate, loadCountThread, setCountThreadUrl, stopCountThread } from './count-thread.ts'
import { countTextsTokensNow } from './encode.ts'
import { longestStall } from '../../test/helpers/event-loop-stall.ts'

/**
 * Generous on purpose: the machine running the suite is shared (a 1 ms timer alone sees gaps of ~50 ms at a load
 * average of 18 on 2 cores; bench/tokenizer-load.ts). Loading the tables or counting a hostile text on
 * this thread used to stall it for 0.3–1.5 s (loading gpt-tokenizer's tables) and seconds to minutes (before counts were bounded).
 */
const STALL_MS = 500

test('loading the tables on the first count does not stall the calling thread', async () => {
  stopCountThread()
  const stall = await longestStall(async () => {
    // The exact count once loaded within LOAD_WAIT_MS, else the cheap estimate: either way at once, unstalled.
    expect([2, cheapEstimate(['hello world'])]).toContain(await countTextTokens('hello world'))
    await loadCountThread()
  })
  expect(stall).toBeLessThan(STALL_MS)
  expect(await countTextTokens('hello world')).toBe(2)
}, 30_000)

// Later tests compare exact numbers: the tables must be loaded (a count that waited longer than LOAD_WAIT_MS would
// answer the cheap estimate, which a loaded machine can make happen).
beforeAll(() => loadCountThread(), 30_000)

test('counts with the o200k tokenizer', async () => {
  expect(await countTextTokens('')).toBe(0)
  expect(await countTextTokens('hello world')).toBe(2)
  expect(await countTextTokens('hello      world')).toBeGreaterThan(await countTextTokens('hello world'))
})

test('prompt tokens grow with messages and tools; completion tokens with the answer', async () => {
  const one = await countChatPromptTokens({ messages: [{ role: 'user', content: 'Say hello to everyone in the room' }] })
  const two = await countChatPromptTokens({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Say hello to everyone in the room' }] },
      { role: 'assistant', content: 'Hello everyone' },
    ],
  })
  const withTools = await countChatPromptTokens({
    messages: [{ role: 'user', content: 'x' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
  })
  expect(one).toBeGreaterThan(5)
  expect(two).toBeGreaterThan(one)
  expect(withTools).toBeGreaterThan(await countChatPromptTokens({ messages: [{ role: 'user', content: 'x' }] }))
  expect(await countCompletionTokens({ choices: [{ message: { content: 'Hello there, friend' } }] })).toBe(4)
})

// Hostile shapes: one long word (the tokenizer's merge step is quadratic in the length of a piece), text without
// spaces in a script that has none, random code points (many byte-level tokens per character), base64.
const randomText = (n: number, maxCode: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7919 + 13) % maxCode))).join('')
const HOSTILE: Record<string, string> = {
  'one 128 KB word': 'y'.repeat(128 * 1024),
  'one 1 MB word': 'y'.repeat(1024 * 1024),
  'CJK without spaces': '漢字仮名交じり文'.repeat(16_000),
  'random code points': randomText(256 * 1024, 0xd000),
  base64: Buffer.from(randomText(300_000, 90)).toString('base64'),
}

/** Milliseconds one count takes from call to answer (best of three, so a GC pause elsewhere does not decide). */
async function fastest(fn: () => Promise<unknown>): Promise<number> {
  let best = Infinity
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    await fn()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

for (const [name, text] of Object.entries(HOSTILE)) {
  test(`a hostile count neither stalls the caller nor holds the tokenizer thread: ${name}`, async () => {
    await loadCountThread()
    const stall = await longestStall(() => Promise.all([countTextTokens(text), countChatPromptTokens({ messages: [{ role: 'user', content: text }] })]))
    expect(stall).toBeLessThan(STALL_MS)
    // Bounded on the thread too, so that counts queued behind a hostile one are not held up.
    expect(await fastest(() => countTextTokens(text))).toBeLessThan(STALL_MS)
  })
}

test('many long texts in one request share one budget', async () => {
  const texts = Array.from({ length: 500 }, (_, i) => `${i}${'z'.repeat(8_000)}`)
  expect(await fastest(() => countTextsTokens(texts))).toBeLessThan(STALL_MS)
  expect(await fastest(() => countChatPromptTokens({ messages: texts.map((content) => ({ role: 'user', content })) }))).toBeLessThan(STALL_MS)
})

test('the thread answers the numbers the bounded count gives on any thread', async () => {
  // Within one window (512 characters), so no time budget can make either side an estimate.
  const texts = ['The quick brown fox jumps over the lazy dog.', '{"name":"get_weather","parameters":{"type":"object"}}', 'Ünïcödé 漢字 🙂 '.repeat(10), 'y'.repeat(200)]
  expect(await countTextsTokens(texts)).toBe(countTextsTokensNow(texts))
  for (const t of texts) expect(await countTextTokens(t)).toBe(countTokens(t))
}, 30_000) // the first countTextsTokensNow loads the tables on this thread

test('estimates stay close to the exact count', async () => {
  const prose = 'The quick brown fox jumps over the lazy dog, said 42 people in 2024! Ünïcödé 漢字 🙂 '.repeat(4000)
  const exact = countTokens(prose)
  const estimate = await countTextTokens(prose)
  expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.05)
  // A long word is cut into pieces; o200k needs about one token per four letters of it either way.
  expect(await countTextTokens('y'.repeat(4096))).toBe(countTokens('y'.repeat(4096)))
  const word = await countTextTokens('y'.repeat(1024 * 1024))
  expect(word).toBeGreaterThan(200_000)
  expect(word).toBeLessThan(300_000)
  // Short texts are counted exactly.
  const short = 'A sentence of ordinary length, with punctuation; and numbers like 3.14159.'
  expect(await countTextTokens(short)).toBe(countTokens(short))
})

test('a thread that cannot start answers the cheap estimate, and a later one counts again', async () => {
  const good = new URL('./count-thread-worker.ts', import.meta.url).href
  stopCountThread()
  setCountThreadUrl(new URL('./no-such-worker.ts', import.meta.url).href)
  try {
    const text = 'four words right here, and then some more words'
    expect(await countTextTokens(text)).toBe(cheapEstimate([text]))
  } finally {
    setCountThreadUrl(good)
  }
  await loadCountThread()
  expect(await countTextTokens('hello world')).toBe(2)
}, 30_000)

test('the thread keeps no process alive: a script that counted exits by itself', async () => {
  const module = (name: string) => JSON.stringify(new URL(name, import.meta.url).pathname)
  const script = `import { countTextTokens } from ${module('./count.ts')}; import { loadCountThread } from ${module('./count-thread.ts')}; await loadCountThread(); console.log(await countTextTokens('hello world'))`
  const child = Bun.spawn(['bun', '-e', script], { stdout: 'pipe', stderr: 'inherit' })
  const exited = await Promise.race([child.exited, Bun.sleep(20_000).then(() => 'still running')])
  if (exited === 'still running') child.kill()
  expect(exited).toBe(0)
  expect((await new Response(child.stdout).text()).trim()).toBe('2')
}, 30_000)
