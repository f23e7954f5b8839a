/**
 * @module The SQL condition "this user path or below it", one for every store and both backends. A user path may
 * hold `_` (src/keys/user-path.ts), which LIKE reads as "any one character", so the prefix is escaped and the
 * escape character named: SQLite's LIKE has none by default, and /team_a's subtree must not take in /teamXa's.
 */
import { type Column, eq, or, type SQL, sql } from 'drizzle-orm'

/** `text` with LIKE's wildcards (`%`, `_`) and its escape character made literal. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** `column LIKE pattern`, `\` escaping, on either backend. */
export const likeEscaped = (column: Column, pattern: string): SQL => sql`${column} LIKE ${pattern} ESCAPE '\\'`

/** Rows whose user path is `path` or lies below it (root's subtree is every path: callers leave the filter out). */
export const withinUserPath = (column: Column, path: string): SQL => or(eq(column, path), likeEscaped(column, `${likeLiteral(path)}/%`)) as SQL
