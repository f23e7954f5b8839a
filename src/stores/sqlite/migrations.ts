/**
 * @module Every SQLite migration, in order. Each store module owns its migrations; list them here.
 */
import type { Migration } from './client.ts'

export const sqliteMigrations: readonly Migration[] = []
