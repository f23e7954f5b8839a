#!/usr/bin/env bash
# Fuzzes the gateway's whole OpenAPI document with schemathesis (pinned in test/python/requirements.txt, installed
# into .venv by scripts/python-venv.sh): starts a real gateway in front of mock upstreams (test/python/serve.ts),
# runs every operation with the master key, bounded in examples and wall-clock time, and checks that nothing answers
# 5xx, that every status code and content type is documented, and that every response matches its schema.
# Ends with an `N passed, N failed` line (test cases).
# One worker: Hypothesis caches are not thread-safe (two workers made it fail on its own cache).
# scripts/test.sh calls it; it also runs alone. OPENAPI_MAX_EXAMPLES raises the bound for a longer local run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/python-venv.sh
log=$(mktemp)
fifo_dir=$(mktemp -d)
mkfifo "$fifo_dir/in"
# serve.ts runs until its standard input closes: hold the fifo open for writing, close it to stop the servers.
bun test/python/serve.ts <"$fifo_dir/in" >"$fifo_dir/out" 2>"$fifo_dir/err" &
serve_pid=$!
exec 3>"$fifo_dir/in"
cleanup() { exec 3>&- || true; wait "$serve_pid" 2>/dev/null || true; rm -rf "$fifo_dir" "$log"; }
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$fifo_dir/out" ] && break; sleep 0.1; done
line=$(head -1 "$fifo_dir/out")
[ -n "$line" ] || { echo "the gateway did not start:"; cat "$fifo_dir/err"; echo "openapi fuzz: 0 passed, 1 failed"; exit 1; }
url=$(echo "$line" | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["url"])')
key=$(echo "$line" | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["key"])')
status=0
# Run from the scratch directory: schemathesis leaves a .schemathesis/ cache in its working directory.
(cd "$fifo_dir" && timeout 150 "$OLDPWD/.venv/bin/schemathesis" run "$url/openapi/json" --url "$url" \
  --header "Authorization: Bearer $key" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --max-examples "${OPENAPI_MAX_EXAMPLES:-8}" --generation-deterministic --workers 1 \
  --no-color) >"$log" 2>&1 || status=$?
# Printed without schemathesis's pytest-style closing rule ("== 2 warnings in 10.8s =="): CI reads such a line as
# pytest's verdict, and this one counts no test. The count this script prints last is the verdict.
grep -Ev '^=+ .* in [0-9.]+s =+$' "$log" || true
# Counted in test cases: schemathesis's summary says `N generated, N found N unique failures` (no `found` when clean).
generated=$(grep -Eo '[0-9]+ generated' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
failed=$(grep -Eo '[0-9]+ unique failures?' "$log" | tail -1 | grep -Eo '^[0-9]+' || echo 0)
passed=$((generated - failed))
[ "$status" -ne 0 ] && [ "$failed" = 0 ] && failed=1
echo "openapi fuzz (schemathesis $(grep -E '^schemathesis==' test/python/requirements.txt | cut -d= -f3)): ${passed} passed, ${failed} failed"
exit "$status"
