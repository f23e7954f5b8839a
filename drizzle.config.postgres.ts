/** drizzle-kit settings for the PostgreSQL schema: `bun run db:generate` writes a new migration from the schema's changes (docs/migrations.md). */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/stores/postgres/schema.ts',
  out: './src/stores/postgres/drizzle',
})
