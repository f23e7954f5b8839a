/**
 * @module Rows sent with `COPY … FROM STDIN` in its text format: the audit and usage writers' batches. A COPY costs
 * PostgreSQL no statement to parse or plan and no JSON to unpack (docs/scale-out.md, Performance); it has no
 * `ON CONFLICT`, so a batch holding a row already stored fails whole on the primary key, and the writer then sends
 * it again as a statement that skips the stored rows.
 */
import type { SQL } from 'bun'

/** SQLSTATE unique_violation: the error of a COPY (or INSERT) that met a row already stored. */
export const UNIQUE_VIOLATION = '23505'
export const isUniqueViolation = (err: unknown) => (err as { errno?: unknown })?.errno === UNIQUE_VIOLATION

const SPECIAL = /[\\\t\n\r]/g
const HAS_SPECIAL = /[\\\t\n\r]/
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** A value as a field of COPY's text format: a backslash, tab, newline or carriage return escaped; null as `\N`. */
export function copyValue(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v !== 'string') return String(v)
  return HAS_SPECIAL.test(v) ? v.replace(SPECIAL, (c) => ESCAPES[c]!) : v
}

/** A text[] literal (`{"a","b"}`), for copyValue. */
export const textArray = (items: readonly string[] | undefined): string =>
  items && items.length > 0 ? `{${items.map((s) => `"${s.replace(/["\\]/g, '\\$&')}"`).join(',')}}` : '{}'

/** Runs the COPY statement with the text as its rows (lines of tab-separated copyValue fields). */
export async function copyIn(sql: SQL, statement: string, text: string): Promise<void> {
  const writer = sql.unsafe(statement).writable().getWriter()
  await writer.write(text)
  await writer.close()
}
