/**
 * @module The JSON Schema of a zod schema for a route's OpenAPI documentation, converted when the document is
 * first built instead of when the route is declared. The OpenAPI plugin reads route documentation only to answer
 * /openapi/json; converting the few hundred schemas the routes name (every error answer of every route included)
 * at start-up held about 5 MiB of every idle process (docs/workers.md, "Memory per process"). Until it is read,
 * the schema is a stand-in object that converts on its first use and then behaves as the converted one.
 */
import { z } from 'zod'

type ConvertOptions = NonNullable<Parameters<typeof z.toJSONSchema>[1]>

/** What the documentation shows: the shape a client sends (`input`), with anything JSON Schema cannot say as `{}`. */
const DOC_OPTIONS: ConvertOptions = { io: 'input', unrepresentable: 'any' }

/**
 * A schema, or a function returning it: a schema only the documentation names is then not even built until the
 * document is (doc-schemas.ts).
 */
export type DocSchema = z.ZodType | (() => z.ZodType)

export function openApiSchema(schema: DocSchema, options: ConvertOptions = DOC_OPTIONS): Record<string, unknown> {
  return lazyDocObject(() => z.toJSONSchema(typeof schema === 'function' ? schema() : schema, options) as Record<string, unknown>)
}

/** A stand-in for a documentation object that `build` makes on the stand-in's first use. */
export function lazyDocObject(build: () => Record<string, unknown>): Record<string, unknown> {
  let built: Record<string, unknown> | undefined
  const target = () => (built ??= build())
  return new Proxy({} as Record<string, unknown>, {
    get: (_, key) => Reflect.get(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(target(), key, descriptor),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key)
      // The stand-in itself has no properties: a proxy may only report those as configurable.
      if (descriptor) descriptor.configurable = true
      return descriptor
    },
  })
}
