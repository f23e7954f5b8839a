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
