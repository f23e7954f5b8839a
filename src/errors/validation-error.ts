/**
 * @module A schema check that stops at the first problem. zod reports every problem it finds: a body of a million
 * bad elements makes a million issue objects (seconds and gigabytes) only for the first to be reported. zod 4.6's
 * containers stop before their next element once one has failed when the parse context says `abortEarly` (its own
 * `validate` sets it; `safeParse` passes the context through), so the check costs up to the first problem.
 */
import type { z } from 'zod'
import { type FromZodOptions, type GatewayError, gatewayErrors } from './gateway-error.ts'

// `abortEarly` is in zod's internal parse context type, not in the public one `safeParse` declares.
const STOP_AT_FIRST_PROBLEM = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>

/** The 400 naming the first problem of `value` against `schema` (see gatewayErrors.fromZod), or undefined. */
export function validationError(schema: z.ZodType, value: unknown, options?: FromZodOptions): GatewayError | undefined {
  const result = schema.safeParse(value, STOP_AT_FIRST_PROBLEM)
  return result.success ? undefined : gatewayErrors.fromZod(result.error, options)
}
