#!/usr/bin/env bash
# Resident memory of one gateway process: idle after start-up, after the first /dashboard request, after the first
# token count (a count_tokens call for a non-Anthropic model: the tokenizer's tables load), peak under
# wrk load at CONNECTIONS (non-stream), peak with STREAMS concurrent paced streams (the mock sends 20 frames
# 10 ms apart). Each REF (a git ref, exported read-only with `git archive`; `.` = the working tree) gets its own
# process and database, all started side by side and measured in turn, so the numbers of one run compare.
# Usage: [REFS=". main"] [MEM_ENV="LOGGING_LOG_BODIES=true"] [SECONDS_PER_RUN=8] [STREAMS=1000] bench/memory.sh
# Prints a Markdown table (MiB); VmHWM is the kernel's peak resident set of the process (threads included).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
REFS=${REFS:-.}
RUN_SECONDS=${SECONDS_PER_RUN:-8}
CONNECTIONS=${CONNECTIONS:-50}
STREAMS=${STREAMS:-1000}
MOCK_PORT=${MOCK_PORT:-19211}
start_bench_run "$MOCK_PORT"
kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini

printf '| code | idle RSS | after /dashboard | after a count | peak, c=%s | peak, %s streams | RSS after | req/s c=%s | streams/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n' \
  "$CONNECTIONS" "$STREAMS" "$CONNECTIONS"
port=19212
for ref in $REFS; do
  src=$(export_bench_ref "$ref")
  mkdir -p "$TMP/$port"
  # shellcheck disable=SC2086 # MEM_ENV is a list of VAR=value words
  (cd "$src" && start_bench_gateway "$port" "$TMP/$port/g.db" "$TMP/$port.log" "$MOCK_PORT" ${MEM_ENV:-}; echo "$GATEWAY_PID" >"$TMP/$port.pid")
  pid=$(cat "$TMP/$port.pid")
  PIDS+=("$pid")
  sleep 2
  idle=$(kb "$pid" VmRSS)
  curl -sf -o /dev/null "http://127.0.0.1:$port/dashboard"
  dash=$(kb "$pid" VmRSS)
  curl -sf -o /dev/null -H "authorization: Bearer $BENCH_KEY" -H 'content-type: application/json' \
    -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"How many tokens is this sentence?"}]}' \
    "http://127.0.0.1:$port/v1/messages/count_tokens"
  sleep 1
  counted=$(kb "$pid" VmRSS)
  rps=$(BENCH_STREAM=0 wrk -t1 -c"$CONNECTIONS" -d"${RUN_SECONDS}s" -s bench/wrk/chat.lua "http://127.0.0.1:$port" 2>&1 | awk '/Requests\/sec/{printf "%d", $2}')
  peak_load=$(kb "$pid" VmHWM)
  sps=$(BENCH_STREAM=1 wrk -t2 -c"$STREAMS" -d"${RUN_SECONDS}s" --timeout 10s -s bench/wrk/chat.lua "http://127.0.0.1:$port" 2>&1 | awk '/Requests\/sec/{printf "%d", $2}')
  peak_streams=$(kb "$pid" VmHWM)
  sleep 2
  after=$(kb "$pid" VmRSS)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$ref" \
    "$(mib "$idle")" "$(mib "$dash")" "$(mib "$counted")" "$(mib "$peak_load")" "$(mib "$peak_streams")" "$(mib "$after")" "$rps" "$sps"
  kill "$pid" 2>/dev/null || true
  port=$((port + 1))
done
