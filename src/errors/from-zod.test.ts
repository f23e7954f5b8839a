import { expect, test } from 'bun:test'
import { z } from 'zod'
import { gatewayErrors } from './gateway-error.ts'

const schema = z.strictObject({ name: z.string(), tags: z.array(z.string()).optional(), nested: z.strictObject({ on: z.boolean() }).optional() })
const fail = (input: unknown) => schema.safeParse(input).error!

test('a 400 naming the field by its dotted path', () => {
  expect(gatewayErrors.fromZod(fail({ name: 'a', tags: ['x', 1] }))).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_request', param: 'tags.1' })
  expect(gatewayErrors.fromZod(fail({ name: 'a', tags: ['x', 1] }), { topLevel: true }).param).toBe('tags')
  expect(gatewayErrors.fromZod(fail({ name: 'a', nested: { on: 1 } }), { code: 'invalid_workflow', prefix: ['plugins', 'p'] })).toMatchObject({
    code: 'invalid_workflow',
    param: 'plugins.p.nested.on',
  })
})

test('unknown fields: named by themselves at the top, by their object deeper; no path uses the subject', () => {
  expect(gatewayErrors.fromZod(fail({ name: 'a', extra: 1 }))).toMatchObject({ param: 'extra', message: "Unknown field 'extra'." })
  expect(gatewayErrors.fromZod(fail({ name: 'a', nested: { on: true, x: 1 } })).param).toBe('nested')
  const whole = z.string().safeParse(5).error!
  expect(gatewayErrors.fromZod(whole, { subject: 'query' }).message).toStartWith('query: ')
  expect(gatewayErrors.fromZod(whole).param).toBeNull()
})
