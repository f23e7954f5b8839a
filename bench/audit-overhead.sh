#!/usr/bin/env bash
# Audit-log cost as a paired A/B measurement: two gateways run side by side against one mock upstream, one with
# audit off (usage on) and one with audit on logging headers and bodies, and wrk loads them in turn, a short run
# each, PAIRS times. Each pair gives a ratio (audit on / audit off) measured within seconds of each other, so the
# machine's slow drift (±20 % over minutes on a shared VM) cancels out of it; the median pair ratio is the figure.
# The "on" gateway keeps one database for all its runs, so its log grows as a real one does (half a million
# entries by the end of a default run); features.sh starts every configuration on an empty database.
# Usage: [PAIRS=10] [SECONDS_PER_RUN=4] bench/audit-overhead.sh
# OFF_ENV and ON_ENV replace the two sides' settings (space-separated VAR=value), to compare other configurations.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PAIRS=${PAIRS:-10}
RUN_SECONDS=${SECONDS_PER_RUN:-4}
MOCK_PORT=${MOCK_PORT:-19111}
OFF_PORT=${OFF_PORT:-19112}
ON_PORT=${ON_PORT:-19113}
start_bench_run "$MOCK_PORT"

start_gateway() { # port, name, extra environment...
  local port=$1 name=$2
  shift 2
  mkdir -p "$TMP/$name"
  start_bench_gateway "$port" "$TMP/$name/g.db" "$TMP/$name.log" "$MOCK_PORT" "$@"
  PIDS+=("$GATEWAY_PID")
}
# shellcheck disable=SC2086 # word splitting is the point: each word is one VAR=value
start_gateway "$OFF_PORT" off ${OFF_ENV:-GATEWAY_CONFIG=bench/configs/usage-only.yaml}
# shellcheck disable=SC2086
start_gateway "$ON_PORT" on ${ON_ENV:-GATEWAY_CONFIG=bench/configs/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true}

export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
load() { wrk -t1 -c50 -d"$2" -s bench/wrk/chat.lua "http://127.0.0.1:$1" 2>&1 | awk '/Requests\/sec/{printf "%d", $2}'; }
# Warm both (JIT, connection pools) before measuring.
load "$OFF_PORT" 2 >/dev/null
load "$ON_PORT" 2 >/dev/null

printf '| pair | off req/s | on req/s | ratio |\n| ---: | ---: | ---: | ---: |\n'
RATIOS=()
for pair in $(seq 1 "$PAIRS"); do
  # Alternate which side goes first, so neither always runs right after the other's writer burst.
  if ((pair % 2)); then off=$(load "$OFF_PORT" "$RUN_SECONDS"); on=$(load "$ON_PORT" "$RUN_SECONDS")
  else on=$(load "$ON_PORT" "$RUN_SECONDS"); off=$(load "$OFF_PORT" "$RUN_SECONDS"); fi
  ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')
  RATIOS+=("$ratio")
  printf '| %d | %s | %s | %s |\n' "$pair" "$off" "$on" "$ratio"
done
median=$(median %.3f <<<"${RATIOS[*]}")
stats=$(curl -s -H "Authorization: Bearer $BENCH_KEY" "http://127.0.0.1:$ON_PORT/admin/audit/writer-stats")
printf '\nmedian ratio (on / off): %s\n' "$median"
printf 'audit writer of the "on" gateway after the runs: %s\n' "$stats"
