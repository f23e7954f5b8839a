#!/usr/bin/env bash
# One command from a fresh checkout to the whole test suite: installs Bun, the packages and the system
# packages the tests need (Chromium for the dashboard tests), the Python venv (scripts/python-venv.sh), type-checks,
# then runs `bun test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/system-deps.sh
scripts/python-venv.sh
bun run check
log=$(mktemp)
status=0
bun test "$@" 2>&1 | tee "$log" || status=$?
# A closing line in the plain `N passed, N failed` form, for harnesses that read it.
passed=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
failed=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
rm -f "$log"
# The real agent CLIs (Claude Code, Codex) as clients, on full runs only; their cases count in the closing line.
if [ "$#" -eq 0 ]; then
  clients_log=$(mktemp)
  scripts/test-clients.sh 2>&1 | tee "$clients_log" || status=1
  summary=$(grep -E '^agent CLIs .*: [0-9]+ passed, [0-9]+ failed$' "$clients_log" | tail -1 || true)
  passed=$((passed + $(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)))
  failed=$((failed + $(echo "$summary" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)))
  rm -f "$clients_log"
  # The Python SDKs (openai, anthropic) as clients, with pytest in .venv.
  python_log=$(mktemp)
  scripts/test-python.sh 2>&1 | tee "$python_log" || status=1
  summary=$(grep -E '^python SDKs .*: [0-9]+ passed, [0-9]+ failed$' "$python_log" | tail -1 || true)
  passed=$((passed + $(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)))
  failed=$((failed + $(echo "$summary" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)))
  rm -f "$python_log"
  # The whole OpenAPI document fuzzed by schemathesis: no 5xx, documented responses match their schemas.
  openapi_log=$(mktemp)
  scripts/test-openapi.sh 2>&1 | tee "$openapi_log" || status=1
  summary=$(grep -E '^openapi fuzz .*: [0-9]+ passed, [0-9]+ failed$' "$openapi_log" | tail -1 || true)
  passed=$((passed + $(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)))
  failed=$((failed + $(echo "$summary" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)))
  rm -f "$openapi_log"
fi
echo "tests: ${passed} passed, ${failed} failed"
exit "$status"
