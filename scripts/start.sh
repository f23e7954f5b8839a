#!/usr/bin/env bash
# One command from a fresh checkout to a running gateway on its embedded default store (SQLite).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec bun run start
