import { expect, test } from 'bun:test'
import { clearDeadline, DeadlineList, deadlines } from './deadlines.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a deadline expires once, no earlier than its length; cleared ones never', async () => {
  const list = new DeadlineList(40)
  const expired: [string, number][] = []
  const t0 = performance.now()
  const started = ['a', 'b', 'c', 'd'].map((name) => list.start(() => expired.push([name, performance.now() - t0])))
  // The oldest (due first), one in the middle, and one cleared twice.
  list.clear(started[0]!)
  list.clear(started[2]!)
  list.clear(started[2]!)
  await sleep(20)
  const late = list.start(() => expired.push(['late', performance.now() - t0]))
  await sleep(30)
  expect(expired.map(([name]) => name)).toEqual(['b', 'd'])
  for (const [, at] of expired) expect(at).toBeGreaterThanOrEqual(39)
  await sleep(30)
  expect(expired.map(([name]) => name)).toEqual(['b', 'd', 'late'])
  expect(expired[2]![1]).toBeGreaterThanOrEqual(59)
  // Clearing after expiry does nothing, nor does clearing nothing.
  list.clear(late)
  clearDeadline(undefined)
})

test('a deadline started while another expires is kept, and the list keeps its timer going', async () => {
  const list = new DeadlineList(25)
  const expired: string[] = []
  list.start(() => {
    expired.push('first')
    list.start(() => expired.push('started by first'))
  })
  await sleep(40)
  expect(expired).toEqual(['first'])
  await sleep(35)
  expect(expired).toEqual(['first', 'started by first'])
})

test('deadlines of one length share a list; many come and go and only those left expire', async () => {
  expect(deadlines(35)).toBe(deadlines(35))
  expect(deadlines(35)).not.toBe(deadlines(36))
  const expired: number[] = []
  const kept: number[] = []
  for (let i = 0; i < 1000; i++) {
    const deadline = deadlines(35).start(() => expired.push(i))
    if (i % 7 === 0) kept.push(i)
    else clearDeadline(deadline)
  }
  await sleep(60)
  expect(expired).toEqual(kept)
})

test('a deadline started while another expires does not delay an older one still waiting', async () => {
  const list = new DeadlineList(40)
  const expired: [string, number][] = []
  const t0 = performance.now()
  list.start(() => {
    expired.push(['first', performance.now() - t0])
    list.start(() => expired.push(['started by first', performance.now() - t0]))
  })
  await sleep(15)
  list.start(() => expired.push(['second', performance.now() - t0]))
  await sleep(60)
  // 'second' is due at about 55 ms; the deadline 'first' started is due at about 80.
  expect(expired.map(([name]) => name)).toEqual(['first', 'second'])
  expect(expired[1]![1]).toBeGreaterThanOrEqual(54)
})
