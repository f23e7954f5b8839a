#!/usr/bin/env bash
# Installs what the gateway needs to run: Bun (pinned, from the npm registry) and the project's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
BUN_VERSION=1.4.5
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != "$BUN_VERSION" ]; then
  echo "installing bun $BUN_VERSION from the npm registry"
  npm install -g --no-fund --no-audit "bun@$BUN_VERSION" >/dev/null
fi
bun install --frozen-lockfile
