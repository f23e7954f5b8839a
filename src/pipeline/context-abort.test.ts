import { expect, test } from 'bun:test'
import { abortListener, RequestsEnd } from './context-abort.ts'

function recording(end: RequestsEnd, names: string[]) {
  const called: string[] = []
  const listeners = new Map(names.map((name) => [name, abortListener(() => called.push(name))]))
  for (const listener of listeners.values()) end.listen(listener)
  return { called, listeners }
}

test('every listener still listening is called once when the requests end, none that was taken back', () => {
  const end = new RequestsEnd()
  const { called, listeners } = recording(end, ['a', 'b', 'c', 'd', 'e'])
  // The newest (head), one in the middle, the oldest (tail), and one taken back twice.
  end.unlisten(listeners.get('e')!)
  end.unlisten(listeners.get('c')!)
  end.unlisten(listeners.get('a')!)
  end.unlisten(listeners.get('c')!)
  end.abort(new Error('drain deadline'))
  expect(called.sort()).toEqual(['b', 'd'])
  expect(end.signal.aborted).toBe(true)
  end.abort(new Error('again'))
  expect(called.sort()).toEqual(['b', 'd'])
})

test('a listener taken back after the end, or added after it, is not called', () => {
  const end = new RequestsEnd()
  const { called, listeners } = recording(end, ['a'])
  end.abort('stop')
  end.unlisten(listeners.get('a')!)
  const late = abortListener(() => called.push('late'))
  end.listen(late)
  end.unlisten(late)
  expect(called).toEqual(['a'])
  expect(end.signal.reason).toBe('stop')
})

test('listeners can come and go many times and the list stays whole', () => {
  const end = new RequestsEnd()
  const called: number[] = []
  const live = new Map<number, ReturnType<typeof abortListener>>()
  for (let i = 0; i < 1000; i++) {
    const listener = abortListener(() => called.push(i))
    end.listen(listener)
    live.set(i, listener)
    // Take back an older one now and then, in no particular order.
    const old = (i * 7919) % (i + 1)
    if (i % 3 === 0 && live.has(old)) {
      end.unlisten(live.get(old)!)
      live.delete(old)
    }
  }
  end.abort('stop')
  expect(called.sort((a, b) => a - b)).toEqual([...live.keys()].sort((a, b) => a - b))
})
