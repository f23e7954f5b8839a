/** drizzle-kit settings for the SQLite schema: `bun run db:generate` writes a new migration from the schema's changes (docs/migrations.md). */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/stores/sqlite/schema.ts',
  out: './src/stores/sqlite/drizzle',
})
