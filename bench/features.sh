#!/usr/bin/env bash
# Feature-cost benchmark: the same wrk load (50 connections, small chat completion) through the gateway under
# different workflow configurations, one after the other in one run, each against the bench mock upstream.
# Prints requests/s, the gateway process's CPU time per request (all threads), which is steadier than req/s
# on a shared 2-core machine, and the request thread's share of it (the main JavaScript thread, whose thread id is
# the process id; the others are Bun's and the audit writer's helpers). REFS compares commits in the same interleaved rounds (`.` = the working tree, as in
# bench/memory.sh); ONLY keeps the configurations named by their first field (e.g. ONLY="core defaults").
# WARMUP (seconds of load before each measured run, default 2): JavaScriptCore keeps compiling for the first ~5 s of
# load, on its own thread and with the request thread still in slower tiers; a longer warm-up measures the steady state.
# With several REFS it also prints each ref against the last one as the median of the per-round CPU ratios.
# Usage: [ROUNDS=3] [REFS=". 9705e3e"] [ONLY="core defaults"] [WARMUP=2] bench/features.sh [seconds per run, default 6]
source "$(dirname "$0")/lib.sh"
DURATION=${1:-6}
GW_PORT=${GW_PORT:-19102}
start_bench_run 19101
sleep 0.5

REFS=${REFS:-.}
CONFIGS=$PWD/bench/configs
# key | name | extra environment | extra request header
ALL_RUNS=(
  "core|core (auth, routing; audit and usage off)|GATEWAY_CONFIG=$CONFIGS/core.yaml|"
  "failover|+ failover (happy path)|GATEWAY_CONFIG=$CONFIGS/failover.yaml|"
  "usage|+ usage|GATEWAY_CONFIG=$CONFIGS/usage-only.yaml|"
  "budget|+ usage + budget + guardrails (cache bypassed)|GATEWAY_CONFIG=$CONFIGS/budget-cache-guardrails.yaml|Cache-Control: no-store"
  "cache|cache hits (identical requests)|GATEWAY_CONFIG=$CONFIGS/budget-cache-guardrails.yaml|"
  "defaults|defaults: + audit (no bodies) + usage|GATEWAY_CONFIG=$CONFIGS/defaults.yaml|"
  "bodies|+ audit with headers and bodies logged|GATEWAY_CONFIG=$CONFIGS/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true|"
)
RUNS=()
for run in "${ALL_RUNS[@]}"; do
  for ref in $REFS; do
    [[ -z ${ONLY:-} || " $ONLY " == *" ${run%%|*} "* ]] && RUNS+=("$ref|$run")
  done
done

# ROUNDS > 1 runs every configuration once per round, interleaved, and reports the medians: on a shared machine
# the speed drifts over minutes, and interleaving spreads that drift over all configurations alike.
ROUNDS=${ROUNDS:-1}
declare -A RPS CPU MAIN
for round in $(seq 1 "$ROUNDS"); do
  for run in "${RUNS[@]}"; do
    IFS='|' read -r ref _ name extra header <<<"$run"
    [[ $REFS == . ]] || name="$name @ $ref"
    rm -rf "$TMP/db" && mkdir -p "$TMP/db"
    # shellcheck disable=SC2086 # word splitting is the point: each word is one VAR=value
    BENCH_SRC=$(export_bench_ref "$ref") start_bench_gateway "$GW_PORT" "$TMP/db/g.db" "$TMP/gw.log" "$MOCK_PORT" $extra
    gw=$GATEWAY_PID
    export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini BENCH_HEADERS="$header"
    wrk -t1 -c50 -d"${WARMUP:-2}" -s bench/wrk/chat.lua "http://127.0.0.1:$GW_PORT" >/dev/null 2>&1
    cpu0=$(awk '{print $14+$15}' "/proc/$gw/stat")
    main0=$(awk '{print $14+$15}' "/proc/$gw/task/$gw/stat")
    out=$(wrk -t1 -c50 -d"$DURATION" -s bench/wrk/chat.lua "http://127.0.0.1:$GW_PORT" 2>&1)
    cpu1=$(awk '{print $14+$15}' "/proc/$gw/stat")
    main1=$(awk '{print $14+$15}' "/proc/$gw/task/$gw/stat")
    reqs=$(awk '/requests in/{print $1}' <<<"$out")
    RPS[$name]+="$(awk '/Requests\/sec/{printf "%d", $2}' <<<"$out") "
    CPU[$name]+="$(( (cpu1 - cpu0) * 1000000 / $(getconf CLK_TCK) / reqs )) "
    MAIN[$name]+="$(( (main1 - main0) * 1000000 / $(getconf CLK_TCK) / reqs )) "
    kill -TERM "$gw"; wait "$gw" 2>/dev/null || true
  done
done

printf '| Configuration | req/s | gateway CPU µs/req | request thread µs/req |\n| --- | ---: | ---: | ---: |\n'
for run in "${RUNS[@]}"; do
  IFS='|' read -r ref _ name _ <<<"$run"
  [[ $REFS == . ]] || name="$name @ $ref"
  printf '| %s | %s | %s | %s |\n' "$name" "$(median %d <<<"${RPS[$name]}")" "$(median %d <<<"${CPU[$name]}")" "$(median %d <<<"${MAIN[$name]}")"
done
# With several REFS: each ref's CPU per request against the last ref's, as the median of the per-round ratios (the
# two runs of a round are seconds apart, so the machine's drift over minutes cancels out of each ratio).
ref_list=($REFS)
if ((${#ref_list[@]} > 1)); then
  base=${ref_list[-1]}
  printf '\n| Configuration | ref | CPU ratio to %s (median of rounds) | request thread ratio |\n| --- | --- | ---: | ---: |\n' "$base"
  for run in "${RUNS[@]}"; do
    IFS='|' read -r ref _ name _ <<<"$run"
    [[ $ref == "$base" ]] && continue
    ratios() { paste -d' ' <(tr -s ' ' '\n' <<<"$1" | grep -v '^$') <(tr -s ' ' '\n' <<<"$2" | grep -v '^$') | awk '{ printf "%.3f ", $1 / $2 }'; }
    printf '| %s | %s | %s | %s |\n' "$name" "$ref" "$(ratios "${CPU[$name @ $ref]}" "${CPU[$name @ $base]}" | median %.2f)" \
      "$(ratios "${MAIN[$name @ $ref]}" "${MAIN[$name @ $base]}" | median %.2f)"
  done
fi
# Every round's figures (to stderr), to tell a real difference from the spread.
for run in "${RUNS[@]}"; do
  IFS='|' read -r ref _ name _ <<<"$run"
  [[ $REFS == . ]] || name="$name @ $ref"
  echo "rounds: $name: req/s ${RPS[$name]}| CPU ${CPU[$name]}| request thread ${MAIN[$name]}" >&2
done
