#!/usr/bin/env bash
# Audit-log cost as a paired A/B measurement: two gateways run side by side against one mock upstream, one with
# audit off (usage on) and one with audit on logging headers and bodies, and wrk loads them in turn, a short run
# each, PAIRS times. Each pair gives a ratio (audit on / audit off) measured within seconds of each other, so the
# machine's slow drift (±20 % over minutes on a shared VM) cancels out of it; the median pair ratio is the figure.
# Each run also reads the loaded gateway's CPU time per thread from /proc (the request thread, the write thread
# that stores audit entries and usage records, and the rest: JIT, GC, HTTP client), reported as medians in µs
# per request: steadier than requests/s when others use the machine.
# The "on" gateway keeps one database for all its runs, so its log grows as a real one does (half a million
# entries by the end of a default run); features.sh starts every configuration on an empty database.
# SEED_ENTRIES=N starts both gateways on a copy of one database already holding N audit entries (bench/audit-seed.ts:
# no bodies, as the defaults store them, spread over the last 28 days so retention keeps them all; 500,000 take
# about 4 minutes on a busy machine). SEED_DB=FILE starts both on a copy of FILE instead (e.g. made once with
# `bun bench/audit-seed.ts --file FILE --rows 500000 --days 28 --no-bodies`, for several runs).
# Usage: [PAIRS=10] [SECONDS_PER_RUN=4] [SEED_ENTRIES=500000 | SEED_DB=FILE] bench/audit-overhead.sh
# OFF_ENV and ON_ENV replace the two sides' settings (space-separated VAR=value), to compare other configurations;
# the defaults (audit without bodies or headers) against audit off:
#   ON_ENV=GATEWAY_CONFIG=bench/configs/defaults.yaml bench/audit-overhead.sh
# COMPARE=defaults runs three gateways in each round instead (in rotating order): `off` with audit and usage off
# (bench/configs/core.yaml), `usage` with audit off and usage on, and `on` with the defaults (audit without bodies
# or headers, usage on), and prints, per thread, the median over the rounds of each round's difference in CPU µs per
# request: defaults − audit and usage off (what the two add), defaults − usage only (what the audit log adds).
#   COMPARE=defaults PAIRS=8 bench/audit-overhead.sh
# With COMPARE=defaults, BASE_SRC=DIR adds a fourth side, `base`: the defaults run from another checkout (e.g. one
# `git archive` of an older commit with node_modules linked, as bench/lib.sh's export_bench_ref makes), so a change's
# effect is measured in the same rounds: this tree's defaults − the base's.
source "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-10}
RUN_SECONDS=${SECONDS_PER_RUN:-4}
OFF_PORT=${OFF_PORT:-19112}
ON_PORT=${ON_PORT:-19113}
USAGE_PORT=${USAGE_PORT:-19114}
BASE_PORT=${BASE_PORT:-19115}
start_bench_run 19111
SIDES=(off on)
if [[ ${COMPARE:-} == defaults ]]; then
  SIDES=(off usage on)
  OFF_ENV=${OFF_ENV:-GATEWAY_CONFIG=bench/configs/core.yaml}
  USAGE_ENV=${USAGE_ENV:-GATEWAY_CONFIG=bench/configs/usage-only.yaml}
  ON_ENV=${ON_ENV:-GATEWAY_CONFIG=bench/configs/defaults.yaml}
  [[ -n ${BASE_SRC:-} ]] && SIDES+=(base)
elif [[ -n ${COMPARE:-} ]]; then
  echo "COMPARE: only 'defaults' is known" >&2
  exit 2
fi

if [[ -n ${SEED_DB:-} ]]; then
  for name in "${SIDES[@]}"; do mkdir -p "$TMP/$name" && cp "$SEED_DB" "$TMP/$name/g.db"; done
elif ((${SEED_ENTRIES:-0} > 0)); then
  bun bench/audit-seed.ts --file "$TMP/seed.db" --rows "$SEED_ENTRIES" --days 28 --no-bodies | tail -1
  for name in "${SIDES[@]}"; do mkdir -p "$TMP/$name" && cp "$TMP/seed.db" "$TMP/$name/g.db"; done
  rm -f "$TMP/seed.db"
fi
printf 'audit entries at the start: %s\n' "$( [[ -f $TMP/on/g.db ]] && bun -e "const { Database } = require('bun:sqlite'); console.log(new Database(process.argv[1], { readonly: true }).query('SELECT COUNT(*) AS n FROM audit_log').get().n)" "$TMP/on/g.db" || echo 0)"


start_gateway() { # port, name, extra environment...
  local port=$1 name=$2
  shift 2
  mkdir -p "$TMP/$name"
  start_bench_gateway "$port" "$TMP/$name/g.db" "$TMP/$name.log" "$MOCK_PORT" "$@"
  PIDS+=("$GATEWAY_PID")
}
# shellcheck disable=SC2086 # word splitting is the point: each word is one VAR=value
start_gateway "$OFF_PORT" off ${OFF_ENV:-GATEWAY_CONFIG=bench/configs/usage-only.yaml}
OFF_PID=$GATEWAY_PID
# shellcheck disable=SC2086
start_gateway "$ON_PORT" on ${ON_ENV:-GATEWAY_CONFIG=bench/configs/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true}
ON_PID=$GATEWAY_PID
if [[ ${SIDES[1]} == usage ]]; then
  # shellcheck disable=SC2086
  start_gateway "$USAGE_PORT" usage $USAGE_ENV
  USAGE_PID=$GATEWAY_PID
fi
if [[ -n ${BASE_SRC:-} && ${SIDES[1]} == usage ]]; then
  # The gateway's relative paths (bench/configs/…) are read in its own folder.
  # shellcheck disable=SC2086
  BENCH_SRC=$BASE_SRC start_gateway "$BASE_PORT" base $ON_ENV
  BASE_PID=$GATEWAY_PID
fi

# thread_ticks PID: CPU clock ticks so far of the process's request thread (the main one), its write thread(s)
# (named Worker) and every other thread.
thread_ticks() {
  local main=0 write=0 other=0 task comm ticks
  for task in /proc/"$1"/task/*; do
    read -r comm <"$task/comm" || continue
    ticks=$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null) || continue
    if [[ ${task##*/} == "$1" ]]; then main=$((main + ticks)); elif [[ $comm == Worker ]]; then write=$((write + ticks)); else other=$((other + ticks)); fi
  done
  echo "$main $write $other"
}

export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
declare -A CPU
# load PORT PID SIDE SECONDS: prints the run's requests/s and notes its CPU µs per request per thread under SIDE.
load() {
  local before after out reqs
  before=$(thread_ticks "$2")
  out=$(wrk -t1 -c50 -d"$4" -s bench/wrk/chat.lua "http://127.0.0.1:$1" 2>&1)
  after=$(thread_ticks "$2")
  reqs=$(awk '/requests in/{print $1}' <<<"$out")
  read -r m w o < <(awk -v hz="$(getconf CLK_TCK)" -v n="$reqs" -v b="$before" -v a="$after" \
    'BEGIN { split(b, x, " "); split(a, y, " "); for (i = 1; i <= 3; i++) printf "%d ", (y[i] - x[i]) * 1e6 / hz / n; print "" }')
  CPU[$3-main]+="$m " CPU[$3-write]+="$w " CPU[$3-other]+="$o "
  awk '/Requests\/sec/{printf "%d", $2}' <<<"$out"
}
declare -A PORT=([off]=$OFF_PORT [on]=$ON_PORT [usage]=$USAGE_PORT [base]=$BASE_PORT) PID=([off]=$OFF_PID [on]=$ON_PID [usage]=${USAGE_PID:-} [base]=${BASE_PID:-})
declare -A RPS
# Warm every side (JIT, connection pools) before measuring.
for side in "${SIDES[@]}"; do load "${PORT[$side]}" "${PID[$side]}" warm 2 >/dev/null; done

printf '| pair | off req/s |%s on req/s |%s ratio (on / off) |\n| ---: | ---: |%s ---: |%s ---: |\n' "$([[ ${#SIDES[@]} -ge 3 ]] && echo ' usage req/s |')" "$([[ ${#SIDES[@]} == 4 ]] && echo ' base req/s |')" \
  "$([[ ${#SIDES[@]} -ge 3 ]] && echo ' ---: |')" "$([[ ${#SIDES[@]} == 4 ]] && echo ' ---: |')"
RATIOS=()
for pair in $(seq 1 "$PAIRS"); do
  # Rotate which side goes first, so none always runs right after another's writer burst. (Not in a subshell:
  # load notes the CPU figures in this shell.)
  n=${#SIDES[@]}
  for i in $(seq 0 $((n - 1))); do
    side=${SIDES[$(((i + pair) % n))]}
    load "${PORT[$side]}" "${PID[$side]}" "$side" "$RUN_SECONDS" >"$TMP/rps"
    RPS[$side]=$(<"$TMP/rps")
  done
  ratio=$(awk -v a="${RPS[on]}" -v b="${RPS[off]}" 'BEGIN { printf "%.3f", a / b }')
  RATIOS+=("$ratio")
  printf '| %d | %s |%s %s |%s %s |\n' "$pair" "${RPS[off]}" "$([[ $n -ge 3 ]] && echo " ${RPS[usage]} |")" "${RPS[on]}" "$([[ $n == 4 ]] && echo " ${RPS[base]} |")" "$ratio"
done
median=$(median %.3f <<<"${RATIOS[*]}")
stats=$(curl -s -H "Authorization: Bearer $BENCH_KEY" "http://127.0.0.1:$ON_PORT/admin/audit/writer-stats")
printf '\nmedian ratio (on / off): %s\n' "$median"
printf '\n| gateway CPU µs per request (median) | request thread | write thread | other threads |\n| --- | ---: | ---: | ---: |\n'
for side in "${SIDES[@]}"; do
  printf '| %s | %s | %s | %s |\n' "$side" "$(median %d <<<"${CPU[$side-main]}")" "$(median %d <<<"${CPU[$side-write]}")" "$(median %d <<<"${CPU[$side-other]}")"
done
# differences A B THREAD: the median over the rounds of each round's A − B (the runs of a round are seconds apart).
differences() {
  paste -d' ' <(tr -s ' ' '\n' <<<"${CPU[$1-$3]}" | grep -v '^$') <(tr -s ' ' '\n' <<<"${CPU[$2-$3]}" | grep -v '^$') | awk '{ printf "%d ", $1 - $2 }'
}
if ((${#SIDES[@]} >= 3)); then
  printf '\n| CPU µs per request added (median of the rounds) | request thread | write thread | other threads |\n| --- | ---: | ---: | ---: |\n'
  pairs=("on off|defaults − audit and usage off" "on usage|defaults − usage only (the audit log)" "usage off|usage only − audit and usage off (usage)")
  ((${#SIDES[@]} == 4)) && pairs+=("base off|base: defaults − audit and usage off" "base usage|base: defaults − usage only" "on base|this tree's defaults − the base's")
  for pair in "${pairs[@]}"; do
    read -r a b <<<"${pair%%|*}"
    printf '| %s | %s | %s | %s |\n' "${pair#*|}" "$(differences "$a" "$b" main | median %d)" "$(differences "$a" "$b" write | median %d)" "$(differences "$a" "$b" other | median %d)"
  done
  for side in "${SIDES[@]}"; do echo "rounds: $side request thread µs/req: ${CPU[$side-main]}" >&2; done
fi
printf '\naudit writer of the "on" gateway after the runs: %s\n' "$stats"
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
