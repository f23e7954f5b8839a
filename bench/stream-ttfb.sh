#!/usr/bin/env bash
# Added time to first byte under concurrent paced streams: while wrk holds STREAMS streaming connections to a
# target (each stream 20 frames 10 ms apart), bench/ttfb.ts times the first byte of REQUESTS more streams (4
# lanes). Targets: the mock upstream alone, and gateways side by side with audit off, the defaults (audit + usage)
# and audit with bodies and headers logged (VARIANTS: any of core audit-off defaults bodies). ROUNDS interleaved rounds; the table gives each gateway's median TTFB
# p50 and what it adds to the mock's (same load, same round). REFS: code to run, as in bench/memory.sh.
# Usage: [ROUNDS=3] [STREAMS=100] [REQUESTS=200] [REFS=.] bench/stream-ttfb.sh
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-100}
REQUESTS=${REQUESTS:-200}
REFS=${REFS:-.}
# The background streams run this long; the timed ones (REQUESTS in 4 lanes, ~0.2 s each) must fit inside.
LOAD_SECONDS=${LOAD_SECONDS:-$((REQUESTS / 20 + 4))}
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

# One measurement of NAME under STREAMS concurrent streams to it: "TTFB-p50-ms CPU-us-per-stream" (the CPU of
# the target's process, over the background streams and the timed ones).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
measure() {
  local name=$1 url=${URL[$1]} pid=${PID[$1]} before after p50 streams
  before=$(cpu_ticks "$pid")
  BENCH_AUTH=${AUTH[$name]} BENCH_MODEL=${MODEL[$name]} BENCH_STREAM=1 \
    wrk -t1 -c"$STREAMS" -d"${LOAD_SECONDS}s" --timeout 10s -s bench/wrk/chat.lua "$url" >"$TMP/wrk.out" 2>&1 &
  local wrk_pid=$!
  sleep 1
  p50=$(BENCH_AUTH=${AUTH[$name]} BENCH_MODEL=${MODEL[$name]} TTFB_WARMUP=10 bun bench/ttfb.ts "$url/v1/chat/completions" "$REQUESTS" 4 2>&1 |
    sed -n 's/^BENCH_JSON .*"p50_ms":\([0-9.]*\).*/\1/p')
  wait "$wrk_pid" 2>/dev/null || true
  after=$(cpu_ticks "$pid")
  streams=$(awk '/requests in/ { print $1 }' "$TMP/wrk.out")
  echo "$p50 $(awk -v t=$((after - before)) -v n="$((streams + REQUESTS + 10))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')"
}

declare -A ADDED P50 CPU
for round in $(seq 1 "$ROUNDS"); do
  read -r mock _ < <(measure mock)
  P50[mock]+=" $mock"
  for name in "${NAMES[@]:1}"; do
    read -r p cpu < <(measure "$name")
    P50[$name]+=" $p"
    CPU[$name]+=" $cpu"
    ADDED[$name]+=" $(awk -v a="$p" -v b="$mock" 'BEGIN { printf "%.3f", a - b }')"
  done
  echo "round $round: mock $mock ms" >&2
done

printf '| target | TTFB p50 ms | added to the mock, ms | added per round | gateway CPU µs/stream |\n|---|---:|---:|---|---:|\n'
printf '| mock | %s | – | – | – |\n' "$(median %.3f <<<"${P50[mock]}")"
for name in "${NAMES[@]:1}"; do
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$(median %.3f <<<"${P50[$name]}")" "$(median %.3f <<<"${ADDED[$name]}")" "${ADDED[$name]# }" "$(median %.0f <<<"${CPU[$name]}")"
done
echo "(medians of $ROUNDS interleaved rounds; $STREAMS background streams; $REQUESTS timed streams per measurement)"
