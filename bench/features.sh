#!/usr/bin/env bash
# Feature-cost benchmark: the same wrk load (50 connections, small chat completion) through the gateway under
# different workflow configurations, one after the other in one run, each against the bench mock upstream.
# Prints requests/s and the gateway process's CPU time per request (both threads), which is steadier than req/s
# on a shared 2-core machine. Usage: [ROUNDS=3] bench/features.sh [seconds per run, default 6]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DURATION=${1:-6}
MOCK_PORT=${MOCK_PORT:-19101}
GW_PORT=${GW_PORT:-19102}
start_bench_run "$MOCK_PORT"
sleep 0.5

# name | extra environment | extra request header
RUNS=(
  "core (auth, routing; audit and usage off)|GATEWAY_CONFIG=bench/configs/core.yaml|"
  "+ failover (happy path)|GATEWAY_CONFIG=bench/configs/failover.yaml|"
  "+ usage|GATEWAY_CONFIG=bench/configs/usage-only.yaml|"
  "+ usage + budget + guardrails (cache bypassed)|GATEWAY_CONFIG=bench/configs/budget-cache-guardrails.yaml|Cache-Control: no-store"
  "cache hits (identical requests)|GATEWAY_CONFIG=bench/configs/budget-cache-guardrails.yaml|"
  "defaults: + audit (no bodies) + usage|GATEWAY_CONFIG=bench/configs/defaults.yaml|"
  "+ audit with headers and bodies logged|GATEWAY_CONFIG=bench/configs/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true|"
)

# ROUNDS > 1 runs every configuration once per round, interleaved, and reports the medians: on a shared machine
# the speed drifts over minutes, and interleaving spreads that drift over all configurations alike.
ROUNDS=${ROUNDS:-1}
declare -A RPS CPU
for round in $(seq 1 "$ROUNDS"); do
  for run in "${RUNS[@]}"; do
    IFS='|' read -r name extra header <<<"$run"
    rm -rf "$TMP/db" && mkdir -p "$TMP/db"
    # shellcheck disable=SC2086 # word splitting is the point: each word is one VAR=value
    start_bench_gateway "$GW_PORT" "$TMP/db/g.db" "$TMP/gw.log" "$MOCK_PORT" $extra
    gw=$GATEWAY_PID
    export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini BENCH_HEADERS="$header"
    wrk -t1 -c50 -d2 -s bench/wrk/chat.lua "http://127.0.0.1:$GW_PORT" >/dev/null 2>&1
    cpu0=$(awk '{print $14+$15}' "/proc/$gw/stat")
    out=$(wrk -t1 -c50 -d"$DURATION" -s bench/wrk/chat.lua "http://127.0.0.1:$GW_PORT" 2>&1)
    cpu1=$(awk '{print $14+$15}' "/proc/$gw/stat")
    reqs=$(awk '/requests in/{print $1}' <<<"$out")
    RPS[$name]+="$(awk '/Requests\/sec/{printf "%d", $2}' <<<"$out") "
    CPU[$name]+="$(( (cpu1 - cpu0) * 1000000 / $(getconf CLK_TCK) / reqs )) "
    kill -TERM "$gw"; wait "$gw" 2>/dev/null || true
  done
done

printf '| Configuration | req/s | gateway CPU µs/req |\n| --- | ---: | ---: |\n'
for run in "${RUNS[@]}"; do
  IFS='|' read -r name _ _ <<<"$run"
  printf '| %s | %s | %s |\n' "$name" "$(median %d <<<"${RPS[$name]}")" "$(median %d <<<"${CPU[$name]}")"
done
