#!/usr/bin/env bash
# Worker processes (GATEWAY_WORKERS): throughput of one gateway process against N workers on the same port, both
# with the defaults (audit log and usage on), side by side against one mock upstream, loaded in turn (wrk, 50
# connections) for ROUNDS interleaved rounds. Prints each round's req/s and ratio, the median ratio, and where the
# CPU went: per worker and in the primary (which runs the SQLite write thread for all workers), in µs per request
# and in % of one core, so the scaling on a machine with more cores can be projected, and each process's peak RSS.
# Usage: [ROUNDS=5] [SECONDS_PER_RUN=5] [WORKERS=2] [EXTRA_ENV="LOGGING_LOG_BODIES=true"] bench/workers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
ROUNDS=${ROUNDS:-5}
RUN_SECONDS=${SECONDS_PER_RUN:-5}
WORKERS=${WORKERS:-2}
MOCK_PORT=${MOCK_PORT:-19611}
ONE_PORT=${ONE_PORT:-19612}
MANY_PORT=${MANY_PORT:-19613}
start_bench_run "$MOCK_PORT"
mkdir -p "$TMP/one" "$TMP/many"
# shellcheck disable=SC2086 # EXTRA_ENV is a list of VAR=value words
start_bench_gateway "$ONE_PORT" "$TMP/one/g.db" "$TMP/one.log" "$MOCK_PORT" ${EXTRA_ENV:-}
ONE=$GATEWAY_PID
PIDS+=("$ONE")
# shellcheck disable=SC2086
start_bench_gateway "$MANY_PORT" "$TMP/many/g.db" "$TMP/many.log" "$MOCK_PORT" GATEWAY_WORKERS="$WORKERS" ${EXTRA_ENV:-}
PRIMARY=$GATEWAY_PID
PIDS+=("$PRIMARY")
for _ in $(seq 1 300); do
  [[ $(grep -c 'gateway listening' "$TMP/many.log" || true) -ge $WORKERS ]] && break
  sleep 0.1
done
WORKER_PIDS=$(pgrep -P "$PRIMARY" | sort -n | tr '\n' ' ')
[[ $(wc -w <<<"$WORKER_PIDS") -eq $WORKERS ]] || { echo "expected $WORKERS workers, found: $WORKER_PIDS" >&2; cat "$TMP/many.log" >&2; exit 1; }

export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# load PORT SECONDS: prints "requests req/s"
load() {
  wrk -t1 -c50 -d"$2" -s bench/wrk/chat.lua "http://127.0.0.1:$1" 2>&1 | awk '/requests in/ { n = $1 } /Requests\/sec/ { r = $2 } END { printf "%d %d\n", n, r }'
}
load "$ONE_PORT" 2 >/dev/null
load "$MANY_PORT" 2 >/dev/null

HZ=$(getconf CLK_TCK)
declare -A CPU
REQUESTS_MANY=0
SECONDS_MANY=0
ONE_TICKS=0
REQUESTS_ONE=0
RATIOS=()
printf '| round | 1 process req/s | %s workers req/s | ratio |\n| ---: | ---: | ---: | ---: |\n' "$WORKERS"
for round in $(seq 1 "$ROUNDS"); do
  measure_many() {
    local before=() p i=0
    for p in $PRIMARY $WORKER_PIDS; do before+=("$(ticks "$p")"); done
    read -r n many < <(load "$MANY_PORT" "$RUN_SECONDS")
    for p in $PRIMARY $WORKER_PIDS; do CPU[$p]=$((${CPU[$p]:-0} + $(ticks "$p") - before[i])); i=$((i + 1)); done
    REQUESTS_MANY=$((REQUESTS_MANY + n))
    SECONDS_MANY=$((SECONDS_MANY + RUN_SECONDS))
  }
  measure_one() {
    local before
    before=$(ticks "$ONE")
    read -r n one < <(load "$ONE_PORT" "$RUN_SECONDS")
    ONE_TICKS=$((ONE_TICKS + $(ticks "$ONE") - before))
    REQUESTS_ONE=$((REQUESTS_ONE + n))
  }
  if ((round % 2)); then
    measure_one
    measure_many
  else
    measure_many
    measure_one
  fi
  ratio=$(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
  RATIOS+=("$ratio")
  printf '| %d | %s | %s | %s |\n' "$round" "$one" "$many" "$ratio"
done
printf '\nmedian ratio (%s workers / 1 process): %s\n\n' "$WORKERS" "$(median %.2f <<<"${RATIOS[*]}")"
printf '| process of the %s-worker gateway | CPU µs per request | %% of one core | peak RSS MiB |\n|---|---:|---:|---:|\n' "$WORKERS"
i=0
for p in $PRIMARY $WORKER_PIDS; do
  name=$([[ $p == "$PRIMARY" ]] && echo 'primary (write thread)' || echo "worker $i (pid $p)")
  [[ $p == "$PRIMARY" ]] || i=$((i + 1))
  awk -v t="${CPU[$p]}" -v hz="$HZ" -v n="$REQUESTS_MANY" -v s="$SECONDS_MANY" -v name="$name" -v hwm="$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$p/status")" \
    'BEGIN { printf "| %s | %.0f | %.0f %% | %.0f |\n", name, t / hz * 1e6 / n, 100 * t / hz / s, hwm / 1024 }'
done
total=0
for p in $PRIMARY $WORKER_PIDS; do total=$((total + CPU[$p])); done
awk -v t="$total" -v hz="$HZ" -v n="$REQUESTS_MANY" -v w="$WORKERS" 'BEGIN { printf "| all %d processes | %.0f | | |\n", w + 1, t / hz * 1e6 / n }'
awk -v t="$ONE_TICKS" -v hz="$HZ" -v n="$REQUESTS_ONE" -v hwm="$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$ONE/status")" 'BEGIN { printf "| (the 1-process gateway, both threads) | %.0f | | %.0f |\n", t / hz * 1e6 / n, hwm / 1024 }'
printf '\n(%d requests through the %s-worker gateway in %d s of load; load average now %s)\n' "$REQUESTS_MANY" "$WORKERS" "$SECONDS_MANY" "$(cut -d' ' -f1-3 /proc/loadavg)"
