#!/usr/bin/env bash
# One command from a fresh checkout to a running gateway on its embedded default store (SQLite). The gateway
# prints where it listens, the dashboard URL and the configured providers, then which model lists could not be
# fetched (human-readable on a terminal, JSON otherwise: LOG_FORMAT).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec bun run start
