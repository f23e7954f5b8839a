/**
 * @module Store interfaces the plugins see. One implementation per backend, with the same file names in each
 * backend folder (sqlite now; postgres and redis for several replicas).
 */
import type { Database } from 'bun:sqlite'

export interface Stores {
  /** The embedded SQLite database; store modules create their tables through `migrate`. */
  sqlite: Database
  close(): void
}
