#!/usr/bin/env bash
# The Python SDKs as clients: makes sure .venv has the pinned openai, anthropic, pydantic and pytest from
# test/python/requirements.txt (scripts/python-venv.sh installs them from PyPI), then runs pytest on test/python;
# the tests start the gateway and the mock upstreams themselves (test/python/serve.ts, under Bun). Ends with an
# `N passed, N failed` line and fails when any case fails. scripts/test.sh calls it; it also runs alone.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=test/python/requirements.txt
scripts/python-venv.sh
log=$(mktemp)
status=0
PYTHONDONTWRITEBYTECODE=1 timeout 280 .venv/bin/python -m pytest -p no:cacheprovider -q -rfE test/python 2>&1 | tee "$log" || status=$?
summary=$(tail -1 "$log")
passed=$(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)
failed=$(( $(echo "$summary" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0) + $(echo "$summary" | grep -Eo '[0-9]+ errors?' | grep -Eo '[0-9]+' || echo 0) ))
rm -f "$log"
[ "$status" -ne 0 ] && [ "$failed" = 0 ] && failed=1
echo "python SDKs ($(grep -E '^(openai|anthropic)==' "$requirements" | tr '\n' ' ' | sed 's/ $//')): ${passed} passed, ${failed} failed"
exit "$status"
