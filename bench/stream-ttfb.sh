#!/usr/bin/env bash
# Added time to first byte of paced streams (each 20 frames 10 ms apart) in two shapes, per target: one stream at a
# time (REQUESTS streams, one lane, nothing else running), and STREAMS streams at once with every one of them timed
# (CONCURRENT_REQUESTS in all: each of STREAMS lanes starts its next stream when one ends), the shape of a peer run
# with 100 concurrent paced streams. Targets: the mock upstream alone, and gateways side by side with audit off,
# the defaults (audit + usage) and audit with bodies and headers logged (VARIANTS: any of core audit-off defaults
# bodies). ROUNDS interleaved rounds; the table gives each target's median TTFB p50 per shape, what it adds to the
# mock's (same round), and the gateway's CPU per stream in the concurrent shape. REFS: code to run, as in
# bench/memory.sh.
# Usage: [ROUNDS=3] [STREAMS=100] [REQUESTS=200] [CONCURRENT_REQUESTS=1000] [REFS=.] bench/stream-ttfb.sh
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-100}
REQUESTS=${REQUESTS:-200}
CONCURRENT_REQUESTS=${CONCURRENT_REQUESTS:-1000}
REFS=${REFS:-.}
start_bench_run 19511
declare -A URL AUTH MODEL PID
URL[mock]="http://127.0.0.1:$MOCK_PORT" AUTH[mock]=sk-bench MODEL[mock]=gpt-4o-mini PID[mock]=$!
NAMES=(mock)
port=$((MOCK_PORT + 1))
for ref in $REFS; do
  src=$(export_bench_ref "$ref")
  for variant in ${VARIANTS:-audit-off defaults bodies}; do
    case $variant in
      core) env=(GATEWAY_CONFIG="$PWD/bench/configs/core.yaml") ;;
      audit-off) env=(GATEWAY_CONFIG="$PWD/bench/configs/usage-only.yaml") ;;
      defaults) env=(GATEWAY_CONFIG="$PWD/bench/configs/defaults.yaml") ;;
      bodies) env=(GATEWAY_CONFIG="$PWD/bench/configs/defaults.yaml" LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true) ;;
    esac
    name="$variant@$ref"
    mkdir -p "$TMP/$port"
    (cd "$src" && start_bench_gateway "$port" "$TMP/$port/g.db" "$TMP/$port.log" "$MOCK_PORT" "${env[@]}" && echo "$GATEWAY_PID" >"$TMP/$port.pid")
    PIDS+=("$(cat "$TMP/$port.pid")")
    URL[$name]="http://127.0.0.1:$port" AUTH[$name]=$BENCH_KEY MODEL[$name]=openai/gpt-4o-mini PID[$name]=$(cat "$TMP/$port.pid")
    NAMES+=("$name")
    port=$((port + 1))
  done
done

# One measurement of NAME: "one-at-a-time-p50-ms concurrent-p50-ms CPU-us-per-stream" (the CPU of the target's
# process over the concurrent shape's streams).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
ttfb_p50() { BENCH_AUTH=${AUTH[$1]} BENCH_MODEL=${MODEL[$1]} TTFB_WARMUP=$4 bun bench/ttfb.ts "${URL[$1]}/v1/chat/completions" "$2" "$3" 2>&1 | sed -n 's/^BENCH_JSON .*"p50_ms":\([0-9.]*\).*/\1/p'; }
measure() {
  local name=$1 pid=${PID[$1]} single concurrent before after
  single=$(ttfb_p50 "$name" "$REQUESTS" 1 10)
  before=$(cpu_ticks "$pid")
  concurrent=$(ttfb_p50 "$name" "$CONCURRENT_REQUESTS" "$STREAMS" "$STREAMS")
  after=$(cpu_ticks "$pid")
  echo "$single $concurrent $(awk -v t=$((after - before)) -v n="$((CONCURRENT_REQUESTS + STREAMS))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')"
}

declare -A ONE MANY ADDED_ONE ADDED_MANY CPU
for round in $(seq 1 "$ROUNDS"); do
  read -r mock_one mock_many _ < <(measure mock)
  ONE[mock]+=" $mock_one" MANY[mock]+=" $mock_many"
  for name in "${NAMES[@]:1}"; do
    read -r one many cpu < <(measure "$name")
    ONE[$name]+=" $one" MANY[$name]+=" $many" CPU[$name]+=" $cpu"
    ADDED_ONE[$name]+=" $(awk -v a="$one" -v b="$mock_one" 'BEGIN { printf "%.3f", a - b }')"
    ADDED_MANY[$name]+=" $(awk -v a="$many" -v b="$mock_many" 'BEGIN { printf "%.3f", a - b }')"
  done
  echo "round $round ($(cut -d' ' -f1 /proc/loadavg) load): mock $mock_one ms one at a time, $mock_many ms with $STREAMS at once" >&2
done

printf '| target | one at a time: TTFB p50 ms | added to the mock | %s at once: TTFB p50 ms | added to the mock | added per round (one; %s at once) | gateway CPU µs/stream (%s at once) |\n|---|---:|---:|---:|---:|---|---:|\n' "$STREAMS" "$STREAMS" "$STREAMS"
printf '| mock | %s | – | %s | – | – | – |\n' "$(median %.3f <<<"${ONE[mock]}")" "$(median %.3f <<<"${MANY[mock]}")"
for name in "${NAMES[@]:1}"; do
  printf '| %s | %s | %s | %s | %s | %s; %s | %s |\n' "$name" "$(median %.3f <<<"${ONE[$name]}")" "$(median %.3f <<<"${ADDED_ONE[$name]}")" \
    "$(median %.3f <<<"${MANY[$name]}")" "$(median %.3f <<<"${ADDED_MANY[$name]}")" "${ADDED_ONE[$name]# }" "${ADDED_MANY[$name]# }" "$(median %.0f <<<"${CPU[$name]}")"
done
echo "(medians of $ROUNDS interleaved rounds; one at a time: $REQUESTS streams in one lane; $STREAMS at once: $CONCURRENT_REQUESTS streams in $STREAMS lanes, every one timed; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
