#!/usr/bin/env bash
# What metrics and tracing cost, as interleaved runs against one mock upstream. Four gateways run side by side on
# the core pipeline (bench/configs/core.yaml: audit and usage off, so the observability share is as large as it
# gets): `bare` (metrics, overhead header and tracing off), `bare2` (the same again: the noise floor), `metrics`
# (the defaults: /metrics and x-gateway-overhead-ms on, tracing off) and `tracing` (metrics on plus every request
# traced, sampled at 100 %, to bench/otlp-sink.ts; `tracing10` samples 10 %). Each round loads each gateway once, a short wrk run each, in
# a rotated order; every round gives ratios measured within seconds of each other, and the medians over the
# rounds are the figures (the shared machine drifts by ±30 % over minutes). The same ratios are given for the
# gateway's CPU time per request (both threads, /proc), which is steadier than req/s when other work competes for
# the cores; and peak resident memory.
# The metrics cost is also given in CPU µs per request: `metrics` minus the mean of the two metrics-off gateways, per
# round, next to the noise floor (`bare2` minus `bare`, two identical gateways), as medians over the rounds.
# Usage: [ROUNDS=7] [SECONDS_PER_RUN=4] [CONNECTIONS=50] [ONLY="bare bare2 metrics"] bench/observability.sh
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-7}
RUN_SECONDS=${SECONDS_PER_RUN:-4}
CONNECTIONS=${CONNECTIONS:-50}
BASE_PORT=${BASE_PORT:-19120}
MOCK_PORT=$BASE_PORT
SINK_PORT=$((BASE_PORT + 1))
start_bench_run "$MOCK_PORT"
bun bench/otlp-sink.ts "$SINK_PORT" >/dev/null 2>&1 &
PIDS+=($!)

read -ra NAMES <<<"${ONLY:-bare bare2 metrics tracing tracing10}"
declare -A PORT PID
OFF="METRICS_ENABLED=false GATEWAY_OVERHEAD_HEADER=false"
declare -A SETTINGS=(
  [bare]="$OFF"
  [bare2]="$OFF"
  [metrics]=""
  [tracing]="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT OTEL_TRACES_SAMPLER=always_on OTEL_SERVICE_NAME=bench-gateway"
  [tracing10]="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT OTEL_TRACES_SAMPLER=traceidratio OTEL_TRACES_SAMPLER_ARG=0.1 OTEL_SERVICE_NAME=bench-gateway"
)
i=2
for name in "${NAMES[@]}"; do
  PORT[$name]=$((BASE_PORT + i))
  i=$((i + 1))
  mkdir -p "$TMP/$name"
  # shellcheck disable=SC2086 # word splitting is the point: each word is one VAR=value
  start_bench_gateway "${PORT[$name]}" "$TMP/$name/g.db" "$TMP/$name.log" "$MOCK_PORT" GATEWAY_CONFIG=bench/configs/core.yaml ${SETTINGS[$name]}
  PID[$name]=$GATEWAY_PID
  PIDS+=("$GATEWAY_PID")
done

export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
declare -A RPS CPU
# load NAME SECONDS: requests/s into RPS, gateway CPU µs per request into CPU.
load() {
  local name=$1 c0 c1 out reqs
  c0=$(cpu_ticks "${PID[$name]}")
  out=$(wrk -t1 -c"$CONNECTIONS" -d"$2" -s bench/wrk/chat.lua "http://127.0.0.1:${PORT[$name]}" 2>&1)
  c1=$(cpu_ticks "${PID[$name]}")
  reqs=$(awk '/requests in/{print $1}' <<<"$out")
  LAST_RPS=$(awk '/Requests\/sec/{printf "%d", $2}' <<<"$out")
  LAST_CPU=$(((c1 - c0) * 1000000 / $(getconf CLK_TCK) / reqs))
}
for name in "${NAMES[@]}"; do load "$name" 2; done # warm-up: JIT, connection pools

declare -A RATIOS CPU_RATIOS
declare -A HAS
for name in "${NAMES[@]}"; do HAS[$name]=1; done
PAIRS=()
for pair in metrics:bare tracing:metrics tracing10:metrics bare2:bare; do
  [[ -n ${HAS[${pair%%:*}]:-} && -n ${HAS[${pair##*:}]:-} ]] && PAIRS+=("$pair")
done
pair_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
COST_US="" FLOOR_US=""
names_row="${NAMES[*]}"
printf '| round | %s |' "${names_row// / | }"
for pair in "${PAIRS[@]}"; do printf ' %s |' "${pair/:/\/}"; done
printf '\n|%s\n' "$(printf ' ---: |%.0s' $(seq 0 $((${#NAMES[@]} + ${#PAIRS[@]}))))"
for round in $(seq 1 "$ROUNDS"); do
  # Rotate the order each round, so no configuration always runs first or right after another.
  shift_by=$((round % ${#NAMES[@]}))
  order=("${NAMES[@]:$shift_by}" "${NAMES[@]:0:$shift_by}")
  declare -A R=() C=()
  for name in "${order[@]}"; do
    load "$name" "$RUN_SECONDS"
    R[$name]=$LAST_RPS
    C[$name]=$LAST_CPU
  done
  for name in "${NAMES[@]}"; do
    RPS[$name]+="${R[$name]} "
    CPU[$name]+="${C[$name]} "
  done
  # Throughput ratios (higher is better) and CPU-per-request ratios (lower is better), same pairs.
  row="| $round |"
  for name in "${NAMES[@]}"; do row+=" ${R[$name]} |"; done
  for pair in "${PAIRS[@]}"; do
    a=${pair%%:*} b=${pair##*:}
    RATIOS[$pair]+="$(pair_ratio "${R[$a]}" "${R[$b]}") "
    CPU_RATIOS[$pair]+="$(pair_ratio "${C[$a]}" "${C[$b]}") "
    row+=" $(pair_ratio "${R[$a]}" "${R[$b]}") |"
  done
  printf '%s\n' "$row"
  if [[ -n ${HAS[metrics]:-} && -n ${HAS[bare]:-} && -n ${HAS[bare2]:-} ]]; then
    COST_US+="$(awk -v m="${C[metrics]}" -v a="${C[bare]}" -v b="${C[bare2]}" 'BEGIN { printf "%.1f", m - (a + b) / 2 }') "
    FLOOR_US+="$((C[bare2] - C[bare])) "
  fi
done

printf '\n| gateway | median req/s | median CPU µs/req | CPU µs/req per round | peak RSS MiB |\n| --- | ---: | ---: | --- | ---: |\n'
for name in "${NAMES[@]}"; do
  rss=$(awk '/VmHWM/{printf "%d", $2 / 1024}' "/proc/${PID[$name]}/status")
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$(median %d <<<"${RPS[$name]}")" "$(median %d <<<"${CPU[$name]}")" "${CPU[$name]% }" "$rss"
done
printf '\n| pair (medians of per-round ratios, %d rounds) | req/s ratio | CPU µs/req ratio |\n| --- | ---: | ---: |\n' "$ROUNDS"
for pair in "${PAIRS[@]}"; do
  printf '| %s / %s | %s | %s |\n' "${pair%%:*}" "${pair##*:}" "$(median %.3f <<<"${RATIOS[$pair]}")" "$(median %.3f <<<"${CPU_RATIOS[$pair]}")"
done
if [[ -n $COST_US ]]; then
  bare_us=$(median %.1f <<<"${CPU[bare]} ${CPU[bare2]}")
  cost=$(median %.1f <<<"$COST_US")
  floor=$(median %.1f <<<"$FLOOR_US")
  printf '\nmetrics cost, CPU µs/req (metrics − mean of bare and bare2), per round: %s\n' "${COST_US% }"
  printf 'noise floor, CPU µs/req (bare2 − bare), per round: %s\n' "${FLOOR_US% }"
  printf 'median metrics cost %s µs/req = %s %% of %s µs/req (metrics off); median noise floor %s µs/req (%s %%)\n' "$cost" \
    "$(awk -v c="$cost" -v b="$bare_us" 'BEGIN { printf "%.1f", 100 * c / b }')" "$bare_us" "$floor" "$(awk -v c="$floor" -v b="$bare_us" 'BEGIN { printf "%.1f", 100 * c / b }')"
fi
if [[ -n ${HAS[tracing]:-}${HAS[tracing10]:-} ]]; then
  sleep 6 # one export interval of the batch span processor
  printf 'spans received by the sink: %s\n' "$(curl -s "http://127.0.0.1:$SINK_PORT/stats")"
fi
