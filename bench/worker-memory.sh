#!/usr/bin/env bash
# Memory of a whole GATEWAY_WORKERS group, idle: for each N in WORKER_COUNTS, a gateway started with
# GATEWAY_WORKERS=N (1 = one process), and after SETTLE seconds the primary's and the workers' memory summed from
# /proc/<pid>/smaps_rollup: RSS (counts Bun's executable pages in every process), PSS (shared pages divided among
# the processes sharing them: what the group really holds) and anonymous memory. `binary` in VARIANT runs the
# compiled binary (`bun run build` of the working tree) instead of `bun src/main.ts`.
# Usage: [WORKER_COUNTS="1 2 4"] [VARIANT=binary] [SETTLE=4] bench/worker-memory.sh
source "$(dirname "$0")/lib.sh"
COUNTS=${WORKER_COUNTS:-1 2 4}
SETTLE=${SETTLE:-4}
start_bench_run 19411
cmd=''
if [[ ${VARIANT:-} == binary ]]; then
  bun run build >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; exit 1; }
  cmd=dist/gateway
fi
printf '| GATEWAY_WORKERS | processes | RSS summed MiB | PSS summed MiB | anonymous MiB |\n|---:|---:|---:|---:|---:|\n'
port=19412
for n in $COUNTS; do
  mkdir -p "$TMP/$port"
  BENCH_GATEWAY_CMD=$cmd start_bench_gateway "$port" "$TMP/$port/g.db" "$TMP/$port.log" "$MOCK_PORT" GATEWAY_WORKERS="$n"
  primary=$GATEWAY_PID
  PIDS+=("$primary")
  # Workers answer /health once they listen: wait until every one has started.
  for _ in $(seq 1 100); do (($(pgrep -c -P "$primary" || true) >= (n > 1 ? n : 0))) && break; sleep 0.1; done
  sleep "$SETTLE"
  pids="$primary $(pgrep -P "$primary" | tr '\n' ' ' || true)"
  # shellcheck disable=SC2086 # a list of process ids
  for p in $pids; do cat "/proc/$p/smaps_rollup" 2>/dev/null; done |
    awk -v n="$n" -v procs="$(wc -w <<<"$pids")" '/^Rss:/ { r += $2 } /^Pss:/ { p += $2 } /^Anonymous:/ { a += $2 }
      END { printf "| %d | %d | %.0f | %.0f | %.0f |\n", n, procs, r / 1024, p / 1024, a / 1024 }'
  kill "$primary" 2>/dev/null || true
  wait "$primary" 2>/dev/null || true
  port=$((port + 1))
done
