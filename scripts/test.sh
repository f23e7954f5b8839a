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
# Suites that run as clients of a real gateway, on full runs only; each prints `<name>: N passed, N failed`, which
# counts in the closing line.
add_suite() { # script, the summary line's leading words
  local suite_log summary
  suite_log=$(mktemp)
  "$1" 2>&1 | tee "$suite_log" || status=1
  summary=$(grep -E "^$2( .*)?: [0-9]+ passed, [0-9]+ failed$" "$suite_log" | tail -1 || true)
  passed=$((passed + $(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)))
  failed=$((failed + $(echo "$summary" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)))
  rm -f "$suite_log"
}
if [ "$#" -eq 0 ]; then
  add_suite scripts/test-clients.sh 'agent CLIs'  # the real agent CLIs (Claude Code, Codex)
  add_suite scripts/test-python.sh 'python SDKs'  # the Python SDKs (openai, anthropic), pytest in .venv
  add_suite scripts/test-openapi.sh 'openapi fuzz' # schemathesis over the whole OpenAPI document
  add_suite scripts/test-container.sh 'container image' # the Dockerfile built and run as a real container
  add_suite scripts/test-compose.sh 'compose stack' # compose.yaml up with podman-compose, checked from outside
fi
echo "tests: ${passed} passed, ${failed} failed"
exit "$status"
