#!/usr/bin/env bash
# drizzle-kit generate for both backends' schemas (SQLite, PostgreSQL), passing the same flags to each, e.g.
# `bun run db:generate -- --name add_x` (docs/migrations.md). A backend whose schema did not change gets no file.
set -euo pipefail
cd "$(dirname "$0")/.."
for backend in sqlite postgres; do
  bunx drizzle-kit generate --config "drizzle.config.$backend.ts" "$@"
done
