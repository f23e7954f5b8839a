import { expect, test } from 'bun:test'
import { argumentRedactor } from './redact.ts'

test('fields named like a secret are redacted at any depth, case-insensitively; large arguments are replaced by their size', () => {
  const redact = argumentRedactor(['password', '*token*'], 200)
  expect(redact({ user: 'a', Password: 'p', nested: { refresh_token: 'r', list: [{ TOKEN: 't', ok: 1 }] } }).kept).toEqual({
    user: 'a',
    Password: '[REDACTED]',
    nested: { refresh_token: '[REDACTED]', list: [{ TOKEN: '[REDACTED]', ok: 1 }] },
  })
  const big = redact({ text: 'x'.repeat(500) })
  expect(big.bytes).toBeGreaterThan(500)
  expect(JSON.stringify(big.kept)).not.toContain('xxxx')
})

test('arguments without a secret are kept as they are; only the objects on the way to a secret are copied', () => {
  const redact = argumentRedactor(['password'], 10_000)
  const clean = { a: 1, nested: { list: [1, { b: 'x' }] } }
  expect(redact(clean).kept).toBe(clean)
  const args = { keep: { c: 1 }, inner: { list: [{ password: 'p' }, { d: 2 }] } }
  const kept = redact(args).kept as typeof args
  expect(kept).toEqual({ keep: { c: 1 }, inner: { list: [{ password: '[REDACTED]' as never }, { d: 2 }] } })
  expect(kept.keep).toBe(args.keep)
  expect(kept.inner.list[1]).toBe(args.inner.list[1])
  expect(args.inner.list[0]!.password).toBe('p')
})

test('the JSON text of arguments kept as they are comes with them; none once something was redacted or omitted', () => {
  const redact = argumentRedactor(['password'], 40)
  const clean = { a: 1, b: ['x'] }
  expect(redact(clean).json).toBe(JSON.stringify(clean))
  expect(redact({ password: 'p' }).json).toBeUndefined()
  expect(redact({ text: 'y'.repeat(50) }).json).toBeUndefined()
})
