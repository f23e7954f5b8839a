#!/usr/bin/env bash
# Worker processes (GATEWAY_WORKERS): throughput of one gateway process (GATEWAY_WORKERS unset, which is what
# GATEWAY_WORKERS=1 means: no primary) against N workers on the same port, both with the defaults (audit log and
# usage on), side by side against one mock upstream, loaded in turn (wrk, 50 connections) for ROUNDS interleaved
# rounds. Prints each round's req/s and ratio and the median ratio; then where the CPU went, in µs per request
# and % of one core: per worker, the primary's main thread (IPC) and write thread (the one SQLite writer of all
# workers), the one process, wrk and the mock upstream (they share the cores here); then the most these cores
# allow each side and the ratio that follows (a bound that does not depend on what else runs on the machine), and
# a projection for machines with more cores. Every request must be answered 2xx.
# The mock answers chat completions from a static route (MOCK_STATIC_CHAT=1: Bun sends it without running
# JavaScript), so it takes as little of the shared cores as it can; both sides use the same mock.
# Usage: [ROUNDS=5] [SECONDS_PER_RUN=5] [WARMUP_SECONDS=6] [WORKERS=2] [EXTRA_ENV="LOGGING_LOG_BODIES=true"] bench/workers.sh
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
RUN_SECONDS=${SECONDS_PER_RUN:-5}
WORKERS=${WORKERS:-2}
ONE_PORT=${ONE_PORT:-19612}
MANY_PORT=${MANY_PORT:-19613}
export MOCK_STATIC_CHAT=1
start_bench_run 19611
MOCK=${PIDS[0]}
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
HZ=$(getconf CLK_TCK)
# ticks PID [TID]: CPU clock ticks (user + system) of a process (all its threads) or of one of its threads.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1${2:+/task/$2}/stat"; }
# write_thread_ticks PID: ticks of the process's threads named Worker (its SQLite write thread).
write_thread_ticks() {
  local t sum=0
  for t in /proc/"$1"/task/*; do [[ $(cat "$t/comm" 2>/dev/null) == Worker ]] && sum=$((sum + $(ticks "$1" "${t##*/}"))); done
  echo "$sum"
}
# load PORT SECONDS: prints "requests req/s wrk-cpu-ticks"; fails if any answer was not 2xx.
load() {
  # wrk's CPU: the children's ticks of this shell (fields 16 and 17) grow by wrk's once it has been waited for.
  local out t0 t1 me=$BASHPID
  t0=$(awk '{ print $16 + $17 }' "/proc/$me/stat")
  out=$(wrk -t1 -c50 -d"$2" -s bench/wrk/chat.lua "http://127.0.0.1:$1" 2>&1)
  t1=$(awk '{ print $16 + $17 }' "/proc/$me/stat")
  if grep -q 'Non-2xx' <<<"$out"; then echo "port $1 answered with errors: $(grep 'Non-2xx' <<<"$out")" >&2; exit 1; fi
  awk -v w=$((t1 - t0)) '/requests in/ { n = $1 } /Requests\/sec/ { r = $2 } END { printf "%d %d %d\n", n, r, w }' <<<"$out"
}
# Warm-up, so that compiling the code (JIT threads, twice over for two workers) is not counted as serving cost.
load "$ONE_PORT" "${WARMUP_SECONDS:-6}" >/dev/null
load "$MANY_PORT" "${WARMUP_SECONDS:-6}" >/dev/null

# Clock ticks per part, summed over the rounds: processes, the primary's main and write threads, and for each
# side wrk and the mock while it loaded that side.
declare -A CPU=()
RATIOS=()
ONE_RATES=()
parts_many() { echo "$PRIMARY $WORKER_PIDS primary-main primary-write mock workers-main"; }
part_ticks() {
  case $1 in
    primary-main) ticks "$PRIMARY" "$PRIMARY" ;;
    primary-write) write_thread_ticks "$PRIMARY" ;;
    one-main) ticks "$ONE" "$ONE" ;;
    workers-main) for p in $WORKER_PIDS; do ticks "$p" "$p"; done | awk '{ s += $1 } END { print s }' ;;
    mock) ticks "$MOCK" ;;
    *) ticks "$1" ;;
  esac
}
# measure SIDE PORT PARTS...: loads PORT for RUN_SECONDS, adds each part's ticks under SIDE:part and the
# requests under REQUESTS[SIDE]; leaves the req/s in RATE.
declare -A REQUESTS=([one]=0 [many]=0)
measure() {
  local side=$1 port=$2 p i=0 before=() n w
  shift 2
  for p in "$@"; do before+=("$(part_ticks "$p")"); done
  read -r n RATE w < <(load "$port" "$RUN_SECONDS")
  for p in "$@"; do CPU[$side:$p]=$((${CPU[$side:$p]:-0} + $(part_ticks "$p") - before[i])); i=$((i + 1)); done
  CPU[$side:wrk]=$((${CPU[$side:wrk]:-0} + w))
  REQUESTS[$side]=$((REQUESTS[$side] + n))
}
printf '| round | 1 process req/s | %s workers req/s | ratio |\n| ---: | ---: | ---: | ---: |\n' "$WORKERS"
for round in $(seq 1 "$ROUNDS"); do
  # shellcheck disable=SC2046 # parts_many is a list of words
  if ((round % 2)); then
    measure one "$ONE_PORT" "$ONE" one-main mock && one=$RATE
    measure many "$MANY_PORT" $(parts_many) && many=$RATE
  else
    measure many "$MANY_PORT" $(parts_many) && many=$RATE
    measure one "$ONE_PORT" "$ONE" one-main mock && one=$RATE
  fi
  ratio=$(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
  RATIOS+=("$ratio")
  ONE_RATES+=("$one")
  printf '| %d | %s | %s | %s |\n' "$round" "$one" "$many" "$ratio"
done
printf '\nmedian ratio (%s workers / 1 process): %s\n\n' "$WORKERS" "$(median %.2f <<<"${RATIOS[*]}")"
N_MANY=${REQUESTS[many]}
N_ONE=${REQUESTS[one]}
SECONDS_MANY=$((ROUNDS * RUN_SECONDS))
SECONDS_ONE=$SECONDS_MANY

# µs of CPU per request (of that side) and % of one core while that side was loaded.
us() { awk -v t="$1" -v hz="$HZ" -v n="$2" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }'; }
pct() { awk -v t="$1" -v hz="$HZ" -v s="$2" 'BEGIN { printf "%.0f %%", 100 * t / hz / s }'; }
hwm() { awk '$1 == "VmHWM:" { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
row() { printf '| %s | %s | %s | %s |\n' "$1" "$(us "$2" "$3")" "$(pct "$2" "$4")" "${5:-}"; }
printf '| part | CPU µs per request | %% of one core | peak RSS MiB |\n|---|---:|---:|---:|\n'
WORKER_TICKS=0
i=0
for p in $WORKER_PIDS; do
  row "worker $i (all its threads; divided by all requests)" "${CPU[many:$p]}" "$N_MANY" "$SECONDS_MANY" "$(hwm "$p")"
  WORKER_TICKS=$((WORKER_TICKS + CPU[many:$p]))
  i=$((i + 1))
done
row "the workers' main threads together (serve the requests)" "${CPU[many:workers-main]}" "$N_MANY" "$SECONDS_MANY"
row "primary, all threads" "${CPU[many:$PRIMARY]}" "$N_MANY" "$SECONDS_MANY" "$(hwm "$PRIMARY")"
row "… its main thread (IPC, counters, change relay)" "${CPU[many:primary-main]}" "$N_MANY" "$SECONDS_MANY"
row "… its write thread (SQLite, every worker's rows)" "${CPU[many:primary-write]}" "$N_MANY" "$SECONDS_MANY"
GROUP_TICKS=$((WORKER_TICKS + CPU[many:$PRIMARY]))
row "**$WORKERS-worker gateway, all processes**" "$GROUP_TICKS" "$N_MANY" "$SECONDS_MANY"
row "wrk, loading the workers" "${CPU[many:wrk]}" "$N_MANY" "$SECONDS_MANY"
row "mock upstream, behind the workers" "${CPU[many:mock]}" "$N_MANY" "$SECONDS_MANY"
row "**1-process gateway, all threads**" "${CPU[one:$ONE]}" "$N_ONE" "$SECONDS_ONE" "$(hwm "$ONE")"
row "… its main thread (serves the requests)" "${CPU[one:one-main]}" "$N_ONE" "$SECONDS_ONE"
row "wrk, loading the one process" "${CPU[one:wrk]}" "$N_ONE" "$SECONDS_ONE"
row "mock upstream, behind the one process" "${CPU[one:mock]}" "$N_ONE" "$SECONDS_ONE"

# The most these cores allow: all of them busy with the gateway, wrk and the mock, and for the one process also
# its main thread at most one core. Projection: on C cores with the load elsewhere, the workers together are
# bounded by C / (CPU per request of the group) and by the primary's one write thread filling its core; one
# process by its main thread.
CORES=$(nproc)
awk -v hz="$HZ" -v cores="$CORES" -v w="$WORKERS" \
  -v gm="$GROUP_TICKS" -v wm="${CPU[many:wrk]}" -v mm="${CPU[many:mock]}" -v nm="$N_MANY" -v pw="${CPU[many:primary-write]}" \
  -v go="${CPU[one:$ONE]}" -v mo="${CPU[one:one-main]}" -v wo="${CPU[one:wrk]}" -v mko="${CPU[one:mock]}" -v no="$N_ONE" \
  -v medone="$(median <<<"${ONE_RATES[*]}")" 'BEGIN {
    u = 1e6 / hz
    many_all = (gm + wm + mm) * u / nm; one_all = (go + wo + mko) * u / no; one_main = mo * u / no
    group = gm * u / nm; write_thread = pw * u / nm
    many_max = cores * 1e6 / many_all
    one_max = cores * 1e6 / one_all; if (1e6 / one_main < one_max) one_max = 1e6 / one_main
    printf "\nThe most %d cores allow (everything above on them, CPU per request as measured):\n", cores
    printf "- %d workers: %d cores / %.0f µs per request (gateway + wrk + mock) = %.0f req/s\n", w, cores, many_all, many_max
    printf "- 1 process: min(%d cores / %.0f µs, 1 main thread / %.0f µs) = %.0f req/s\n", cores, one_all, one_main, one_max
    printf "- so the ratio cannot exceed %.2f on these cores (the workers bound is %.2f× the 1-process rate measured in this run, median %d req/s: well above 1 means other load kept the one process from its bound)\n", many_max / one_max, many_max / medone, medone
    printf "\nProjection, load generator and upstream elsewhere (workers: min(cores / %.0f µs, write thread 1 / %.0f µs); 1 process: 1 / %.0f µs):\n", group, write_thread, one_main
    printf "| cores | %s workers… (one per core) req/s | 1 process req/s | ratio |\n|---:|---:|---:|---:|\n", "N"
    n = split("2 4 8 16 32", cs, " ")
    for (i = 1; i <= n; i++) {
      c = cs[i]; r = c * 1e6 / group; if (1e6 / write_thread < r) r = 1e6 / write_thread
      printf "| %d | %.0f | %.0f | %.1f |\n", c, r, 1e6 / one_main, r * one_main / 1e6
    }
  }'
printf '\n(%d requests through the %s-worker gateway, %d through the one process; load average now %s)\n' "$N_MANY" "$WORKERS" "$N_ONE" "$(cut -d' ' -f1-3 /proc/loadavg)"
