/**
 * @module drizzle-kit's migrations as the backends embed them: each backend's `drizzle/index.ts` imports its
 * journal and SQL files as text (so the compiled binary carries them), and this turns them into the list its
 * migrator applies, with the hash and creation time drizzle's own migrator records.
 */

export interface EmbeddedMigration {
  tag: string
  /** drizzle-kit's creation time; a migration runs when it is newer than the newest recorded one. */
  when: number
  /** SHA-256 of the file, as drizzle's own migrator records it. */
  hash: string
  statements: string[]
}

export interface MigrationJournal {
  entries: readonly { tag: string; when: number; breakpoints: boolean }[]
}

export function embeddedMigrations(journal: MigrationJournal, files: Readonly<Record<string, string>>, where: string): EmbeddedMigration[] {
  return journal.entries.map((entry) => {
    const sql = files[entry.tag]
    if (sql === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded (${where})`)
    return {
      tag: entry.tag,
      when: entry.when,
      hash: new Bun.CryptoHasher('sha256').update(sql).digest('hex'),
      statements: sql.split('--> statement-breakpoint').filter((s) => s.trim()),
    }
  })
}
