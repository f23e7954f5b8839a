#!/usr/bin/env bash
# One command from a fresh checkout to the whole test suite: installs Bun and packages, type-checks, runs bun test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bun run check
bun test "$@"
