import { expect, test } from 'bun:test'
import { z } from 'zod'
import { openApiSchema } from './openapi-schema.ts'

const schema = z.object({ name: z.string().min(1), tags: z.array(z.string()).default([]), kind: z.enum(['a', 'b']).optional() })

test('reads, spreads and serialises as the converted JSON Schema', () => {
  const expected = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  const lazy = openApiSchema(schema)
  expect(JSON.stringify(lazy)).toBe(JSON.stringify(expected))
  expect({ ...lazy }).toEqual(expected)
  expect(Object.keys(lazy)).toEqual(Object.keys(expected))
  expect(lazy.type).toBe('object')
  expect('properties' in lazy).toBe(true)
  expect('$ref' in lazy).toBe(false)
  expect(JSON.stringify(openApiSchema(schema, { io: 'output' }))).toBe(JSON.stringify(z.toJSONSchema(schema, { io: 'output' })))
})

test('converts only when first read', () => {
  // A schema JSON Schema cannot express, converted with `unrepresentable: 'throw'`: only a read can throw.
  const lazy = openApiSchema(z.object({ at: z.date() }), { unrepresentable: 'throw' })
  expect(() => lazy.type).toThrow()
})

test('changes made through it stay', () => {
  const lazy = openApiSchema(schema)
  lazy.description = 'A tag set'
  delete lazy.required
  expect(JSON.parse(JSON.stringify(lazy))).toMatchObject({ description: 'A tag set', type: 'object' })
  expect('required' in lazy).toBe(false)
})
