#!/usr/bin/env bash
# The gateway on PostgreSQL against the gateway on SQLite, both with the audit log on (headers and bodies) and
# usage on, in the same run: two gateways side by side against one mock upstream, loaded by wrk in turn, a short
# run each, PAIRS times (the side that goes first alternates). Each pair's ratio is PostgreSQL / SQLite throughput
# (target ≥ 0.90); the median pair is the figure. Throughput on a shared machine drifts, so the script also prints
# the CPU time per request, which other people's load moves much less: for each gateway by thread (the JS thread
# serving requests, SQLite's write thread, Bun's HTTP client and the rest) and for the PostgreSQL server's
# processes (they share the machine's cores with the gateways, wrk and the mock, so their CPU costs throughput too).
# PostgreSQL is a throwaway cluster started here (scripts/throwaway-postgres.ts) and removed when this script ends,
# however it ends.
# Usage: [PAIRS=6] [SECONDS_PER_RUN=4] [CONNECTIONS=50] bench/postgres.sh
source "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-6}
RUN_SECONDS=${SECONDS_PER_RUN:-4}
CONNECTIONS=${CONNECTIONS:-50}
SQLITE_PORT=${SQLITE_PORT:-19122}
PG_PORT=${PG_PORT:-19123}

# The cluster script runs until its stdin closes: that is this coproc's input pipe, which closes when this script
# exits however it exits; the EXIT trap then waits until the server is stopped and its folder deleted.
coproc PG { exec bun scripts/throwaway-postgres.ts; }
PG_IN=${PG[1]}
PG_COPROC=$PG_PID
read -r DATABASE_URL <&"${PG[0]}"
echo "PostgreSQL: ${DATABASE_URL}" >&2
start_bench_run 19121
MOCK_PID=${PIDS[0]}
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait "${PIDS[@]}" 2>/dev/null || true; rm -rf "$TMP"; exec {PG_IN}>&-; wait "$PG_COPROC" 2>/dev/null || true' EXIT
PG_PORT_NUMBER=$(sed -E 's#.*:([0-9]+)/.*#\1#' <<<"$DATABASE_URL")
PG_SERVER=$(for p in $(pgrep -f "port=$PG_PORT_NUMBER"); do [[ $(cat /proc/"$p"/comm 2>/dev/null) == postgres ]] && echo "$p"; done | head -1)

AUDIT=(GATEWAY_CONFIG=bench/configs/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true)
mkdir -p "$TMP/sqlite" "$TMP/pg"
start_bench_gateway "$SQLITE_PORT" "$TMP/sqlite/g.db" "$TMP/sqlite.log" "$MOCK_PORT" "${AUDIT[@]}"
SQLITE_GW=$GATEWAY_PID
PIDS+=("$GATEWAY_PID")
start_bench_gateway "$PG_PORT" "$TMP/pg/g.db" "$TMP/pg.log" "$MOCK_PORT" "${AUDIT[@]}" DATABASE_URL="$DATABASE_URL"
PG_GW=$GATEWAY_PID
PIDS+=("$GATEWAY_PID")

# cpu_snapshot PID: "key name ticks" lines (user + system clock ticks): one per thread of the gateway (key: its id;
# name: "js" for its first thread, Bun's JS thread that serves the requests, else the kernel's name with digits and
# spaces dropped: Bun's HTTP client, SQLite's write thread "Bun Worker", JIT and GC helpers...), the process's own
# total (it keeps the time of threads that ended), and the PostgreSQL server with every process it started
# (backends, WAL writer, checkpointer, autovacuum; cutime/cstime keep the time of those that ended).
cpu_snapshot() {
  local pid=$1 children
  sed -E 's/^([0-9]+) \((.*)\) (.*)$/\1\t\2\t\3/' /proc/"$pid"/task/*/stat 2>/dev/null |
    awk -F'\t' -v pid="$pid" '{ split($3, f, " "); name = ($1 == pid) ? "js" : $2; gsub(/[0-9 ]+$/, "", name); gsub(/ /, "_", name); print $1, name, f[12] + f[13] }'
  sed -E 's/^[0-9]+ \(.*\) //' /proc/"$pid"/stat | awk '{ print "process total", $12 + $13 }'
  children=$(pgrep -P "$PG_SERVER" | sed 's#.*#/proc/&/stat#')
  # shellcheck disable=SC2086 # one path per word
  cat /proc/"$PG_SERVER"/stat $children 2>/dev/null | sed -E 's/^[0-9]+ \(.*\) //' | awk '{ t += $12 + $13 + $14 + $15 } END { print "pg postgres", t }'
  sed -E 's/^[0-9]+ \(.*\) //' /proc/"$MOCK_PID"/stat | awk '{ print "mock mock", $12 + $13 }'
}
# cpu_delta BEFORE AFTER: "name ticks" per thread name, "ended_threads ticks" (the process's total not found in its
# live threads: threads that ended during the run) and "postgres ticks".
cpu_delta() {
  awk 'NR == FNR { before[$1] = $3; next }
    { d = $3 - ($1 in before ? before[$1] : 0) }
    $1 == "process" { total = d; next }
    $1 == "pg" || $1 == "mock" { print $2, d; next }
    { by[$2] += d; threads += d }
    END { for (n in by) print n, by[n]; print "ended_threads", total - threads }' <(echo "$1") <(echo "$2")
}
TICK_US=$((1000000 / $(getconf CLK_TCK)))

export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
# load PORT SECONDS: prints the number of completed requests, and wrk's own CPU ticks after it (0 without GNU time).
TIMED=()
[[ -x /usr/bin/time ]] && TIMED=(/usr/bin/time -f 'WRK_CPU %U %S')
load() {
  "${TIMED[@]}" wrk -t1 -c"$CONNECTIONS" -d"$2" -s bench/wrk/chat.lua "http://127.0.0.1:$1" 2>&1 |
    awk -v hz="$(getconf CLK_TCK)" '/requests in/ { n = $1 } /^WRK_CPU/ { t = ($2 + $3) * hz } END { print n, int(t + 0.5) }'
}
# writer_stats PORT: the audit writer's counters (JSON).
writer_stats() { curl -s -H "Authorization: Bearer $BENCH_KEY" "http://127.0.0.1:$1/admin/audit/writer-stats"; }
# drained PORT: waits (at most 30 s) until the gateway's audit queue is empty and no spill file is left, then for
# one usage flush (500 ms), so each run's CPU includes writing its own entries and the next run starts quiet.
drained() {
  for _ in $(seq 1 150); do
    writer_stats "$1" | grep -q '"queue_depth":0,.*"spill_files":0,' && break
    sleep 0.2
  done
  sleep 0.6
}
# measure SIDE PORT PID: one run; leaves its req/s in RATE and adds its CPU ticks (run and drain) and request count
# to the side's totals (run in this shell, not a subshell, so the totals stay).
declare -A TICKS REQUESTS
measure() {
  local side=$1 port=$2 pid=$3 before after n wrk_ticks name ticks key
  before=$(cpu_snapshot "$pid")
  read -r n wrk_ticks < <(load "$port" "$RUN_SECONDS")
  drained "$port"
  after=$(cpu_snapshot "$pid")
  # PostgreSQL's work while the SQLite side runs (autovacuum, checkpoints of the PostgreSQL side's writes) is
  # counted to the PostgreSQL side too.
  while read -r name ticks; do
    [[ $name == postgres ]] && key=pg:$name || key=$side:$name
    TICKS[$key]=$((${TICKS[$key]:-0} + ticks))
  done < <(cpu_delta "$before" "$after"; echo wrk "$wrk_ticks")
  REQUESTS[$side]=$((${REQUESTS[$side]:-0} + n))
  RATE=$((n / RUN_SECONDS))
}
# Warm both (JIT, connection pools) before measuring.
load "$SQLITE_PORT" 2 >/dev/null
load "$PG_PORT" 2 >/dev/null
drained "$SQLITE_PORT"
drained "$PG_PORT"

printf '| pair | SQLite req/s | PostgreSQL req/s | ratio |\n| ---: | ---: | ---: | ---: |\n'
RATIOS=()
for pair in $(seq 1 "$PAIRS"); do
  if ((pair % 2)); then
    measure sqlite "$SQLITE_PORT" "$SQLITE_GW" && s=$RATE
    measure pg "$PG_PORT" "$PG_GW" && p=$RATE
  else
    measure pg "$PG_PORT" "$PG_GW" && p=$RATE
    measure sqlite "$SQLITE_PORT" "$SQLITE_GW" && s=$RATE
  fi
  ratio=$(awk -v a="$p" -v b="$s" 'BEGIN { printf "%.3f", a / b }')
  RATIOS+=("$ratio")
  printf '| %d | %s | %s | %s |\n' "$pair" "$s" "$p" "$ratio"
done
printf '\nmedian ratio (PostgreSQL / SQLite): %s\n' "$(median %.3f <<<"${RATIOS[*]}")"

# CPU µs per request over all measured runs (each run and the drain of its writes). All of the PostgreSQL
# server's CPU is counted to the PostgreSQL side, also what it did while the SQLite side ran; the mock upstream
# and wrk do the same work per request for both sides.
printf '\nCPU µs per request (all runs of each side, each with the writing of its entries; thread names as the kernel shows them):\n'
printf '| thread or process | SQLite side | PostgreSQL side |\n| --- | ---: | ---: |\n'
per_request() { awk -v t="$1" -v n="$2" -v us="$TICK_US" 'BEGIN { printf "%.1f", t * us / n }'; }
declare -A GATEWAY ALL
for name in $(printf '%s\n' "${!TICKS[@]}" | sed -E 's/^[a-z]+://' | sort -u); do
  ((${TICKS[sqlite:$name]:-0} + ${TICKS[pg:$name]:-0} > 0)) &&
    printf '| %s | %s | %s |\n' "$name" "$(per_request "${TICKS[sqlite:$name]:-0}" "${REQUESTS[sqlite]}")" "$(per_request "${TICKS[pg:$name]:-0}" "${REQUESTS[pg]}")"
  for side in sqlite pg; do
    ALL[$side]=$((${ALL[$side]:-0} + ${TICKS[$side:$name]:-0}))
    [[ $name == postgres || $name == mock || $name == wrk ]] || GATEWAY[$side]=$((${GATEWAY[$side]:-0} + ${TICKS[$side:$name]:-0}))
  done
done
printf '| **gateway process** | **%s** | **%s** |\n' "$(per_request "${GATEWAY[sqlite]}" "${REQUESTS[sqlite]}")" "$(per_request "${GATEWAY[pg]}" "${REQUESTS[pg]}")"
printf '| **everything on the machine for a request** | **%s** | **%s** |\n' "$(per_request "${ALL[sqlite]}" "${REQUESTS[sqlite]}")" "$(per_request "${ALL[pg]}" "${REQUESTS[pg]}")"
# On a machine whose cores are the limit, throughput goes as 1 / CPU per request: this ratio is what the
# throughput ratio tends to when the cores are saturated, and moves much less with other people's load.
printf '\nCPU-per-request ratio (SQLite everything / PostgreSQL everything): %s\n' \
  "$(awk -v a="${ALL[sqlite]}" -v b="${ALL[pg]}" -v na="${REQUESTS[sqlite]}" -v nb="${REQUESTS[pg]}" 'BEGIN { printf "%.3f", (a / na) / (b / nb) }')"
printf 'audit writer of the SQLite gateway after the runs: %s\n' "$(writer_stats "$SQLITE_PORT")"
printf 'audit writer of the PostgreSQL gateway after the runs: %s\n' "$(writer_stats "$PG_PORT")"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
