import { expect, test } from 'bun:test'
import { z } from 'zod'
import { lazyDocObject, openApiSchema } from './openapi-schema.ts'

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

test('a schema given as a function is built only when the document is first read, and once', () => {
  let built = 0
  const lazy = openApiSchema(() => {
    built++
    return schema
  })
  expect(built).toBe(0)
  expect(lazy.type).toBe('object')
  expect(Object.keys(lazy.properties as object)).toEqual(['name', 'tags', 'kind'])
  expect(built).toBe(1)
})

test('a documentation object made from another (a multipart form from its fields) is made on its first read', () => {
  let made = 0
  const fields = openApiSchema(() => {
    made++
    return schema
  })
  const form = lazyDocObject(() => ({ ...fields, properties: { ...(fields.properties as object), file: { type: 'string', format: 'binary' } } }))
  // Spreading the fields at once (as the multipart routes did) converted every upload schema at start-up.
  expect(made).toBe(0)
  expect(Object.keys(form.properties as object)).toEqual(['name', 'tags', 'kind', 'file'])
  expect({ ...form }.type).toBe('object')
  expect(made).toBe(1)
})
