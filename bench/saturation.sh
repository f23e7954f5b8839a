#!/usr/bin/env bash
# The audit write path at saturation (issue 32, item 2): the same wrk load (CONNECTIONS, small chat completions)
# through two gateways with the defaults (audit and usage on), each on an empty database, one after the other:
# `unsaturated` as configured, and `saturated` with SATURATED_ENV, which slows the writer below the request rate
# (by default one entry per transaction, LOGGING_AUDIT_BATCH_SIZE=1: each a write-thread round trip). For each:
# requests/s, peak RSS (VmHWM) over the run, the writer's counters at the end of the load (written, spilled,
# queue depth, lag), how long SIGTERM took to exit, and, after a restart on the same database that replays the
# spill files, the audit entries stored against the requests wrk completed (lost = completed − stored, at least
# 0). Target: the saturated peak within 20 % of the unsaturated one, nothing lost.
# Usage: [SECONDS_PER_RUN=60] [CONNECTIONS=50] [SATURATED_ENV="LOGGING_AUDIT_BATCH_SIZE=1"] [DRAIN_SECONDS=10] bench/saturation.sh
source "$(dirname "$0")/lib.sh"
SECONDS_PER_RUN=${SECONDS_PER_RUN:-60}
CONNECTIONS=${CONNECTIONS:-50}
SATURATED_ENV=${SATURATED_ENV:-LOGGING_AUDIT_BATCH_SIZE=1}
DRAIN_SECONDS=${DRAIN_SECONDS:-10}
GW_PORT=${GW_PORT:-19132}
start_bench_run 19131
sleep 0.5
export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini

kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
stats() { curl -sf -H "authorization: Bearer $BENCH_KEY" "http://127.0.0.1:$GW_PORT/admin/audit/writer-stats"; }
field() { bun -e "const s = JSON.parse(process.argv[1]); console.log(s['$2'])" "$1"; }
stored() { bun -e "const { Database } = require('bun:sqlite'); const db = new Database(process.argv[1], { readonly: true }); console.log(db.query(\"SELECT count(*) AS n FROM audit_log WHERE path = '/v1/chat/completions'\").get().n)" "$1"; }

printf '| run | req/s | peak RSS MiB | written at end of load | spilled | queue depth | lag s | stop s | completed | stored after restart | lost |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for run in unsaturated saturated; do
  rm -rf "$TMP/db" && mkdir -p "$TMP/db"
  extra=(GATEWAY_CONFIG="$PWD/bench/configs/defaults.yaml" GATEWAY_DRAIN_TIMEOUT_SECONDS="$DRAIN_SECONDS")
  # shellcheck disable=SC2206 # word splitting is the point: each word is one VAR=value
  [[ $run == saturated ]] && extra+=($SATURATED_ENV)
  start_bench_gateway "$GW_PORT" "$TMP/db/g.db" "$TMP/gw.log" "$MOCK_PORT" "${extra[@]}"
  gw=$GATEWAY_PID
  out=$(wrk -t1 -c"$CONNECTIONS" -d"$SECONDS_PER_RUN" -s bench/wrk/chat.lua "http://127.0.0.1:$GW_PORT" 2>&1)
  completed=$(awk '/requests in/{print $1}' <<<"$out")
  rps=$(awk '/Requests\/sec/{printf "%d", $2}' <<<"$out")
  peak=$(($(kb "$gw" VmHWM) / 1024))
  s=$(stats)
  t0=$(date +%s.%N)
  kill -TERM "$gw"
  wait "$gw" 2>/dev/null || true
  stop=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  # The restart (as configured, the writer no longer slowed) replays what was spilled; it stops once the spill
  # files are empty (or after 5 minutes).
  start_bench_gateway "$GW_PORT" "$TMP/db/g.db" "$TMP/gw2.log" "$MOCK_PORT" GATEWAY_CONFIG="$PWD/bench/configs/defaults.yaml"
  for _ in $(seq 1 600); do [[ $(field "$(stats)" spill_files) == 0 ]] && break; sleep 0.5; done
  kill -TERM "$GATEWAY_PID"
  wait "$GATEWAY_PID" 2>/dev/null || true
  kept=$(stored "$TMP/db/g.db")
  lost=$((completed > kept ? completed - kept : 0))
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$run" "$rps" "$peak" "$(field "$s" written)" "$(field "$s" spilled)" \
    "$(field "$s" queue_depth)" "$(awk -v ms="$(field "$s" lag_ms)" 'BEGIN { printf "%.1f", ms / 1000 }')" "$stop" "$completed" "$kept" "$lost"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
