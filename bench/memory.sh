#!/usr/bin/env bash
# Resident memory of one gateway process: idle after start-up, after the first /dashboard request, peak under wrk
# load at CONNECTIONS (non-stream), peak with STREAMS concurrent paced streams (the mock sends 20 frames 10 ms
# apart), RSS 2 s later, and last the RSS after a first token count (a count_tokens call for a non-Anthropic model:
# the tokenizer thread starts and loads its tables; no request of the loads above counts tokens, since the mock
# reports usage) with the process's peak at the end; plus the process's CPU (all its threads, from /proc) per
# request in each load. Each REF (a git ref, exported read-only with `git archive`; `.` = the working tree) and each
# VARIANT gets its own process and database; ROUNDS repeats the whole list, interleaved (ref × variant in turn,
# then again), so the rows compare. "peak, N streams" is the first process's peak, so never below its peak under
# the load before; "peak, N open streams" is the peak of the fresh process that holds the N streams open at once
# (one frame a second) for "KiB per open stream".
# Usage: [REFS=". main"] [VARIANTS="default;binary;--smol;BUN_JSC_forceRAMSize=268435456"] [MEM_ENV="LOGGING_LOG_BODIES=true"]
#        [ROUNDS=1] [SECONDS_PER_RUN=8] [STREAMS=1000] [CONNECTIONS=50] bench/memory.sh
# A variant is a list of words: `binary` runs the compiled binary (`bun run build` of that ref) instead of
# `bun src/main.ts`; `--flag` words go to `bun` (e.g. --smol; not with `binary`), `VAR=value` words to the
# environment; `default` is none. MEM_ENV applies to every process. Prints a Markdown table (MiB; CPU in µs per
# request or stream); VmHWM is the kernel's peak resident set of the process (threads included).
source "$(dirname "$0")/lib.sh"
REFS=${REFS:-.}
VARIANTS=${VARIANTS:-default}
ROUNDS=${ROUNDS:-1}
RUN_SECONDS=${SECONDS_PER_RUN:-8}
CONNECTIONS=${CONNECTIONS:-50}
STREAMS=${STREAMS:-1000}
start_bench_run 19211
# A second upstream that paces one frame a second: streams through it stay open together (see "per open stream").
HOLD_MOCK_PORT=$((MOCK_PORT + 100))
MOCK_STREAM_CHUNKS=30 MOCK_STREAM_INTERVAL_MS=1000 bun bench/mock-upstream.ts "$HOLD_MOCK_PORT" >/dev/null 2>&1 &
PIDS+=($!)
kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
# CPU ticks (user + system, all threads) the process has used so far.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
# µs of CPU per request: ticks used / requests wrk counted.
per_request() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }
export BENCH_AUTH=$BENCH_KEY BENCH_MODEL=openai/gpt-4o-mini
IFS=';' read -r -a variant_list <<<"$VARIANTS"

# load PID ARGS...: runs wrk with ARGS, prints "<requests> <req/s> <CPU ticks the process used meanwhile>".
load() {
  local pid=$1 before out
  shift
  before=$(ticks "$pid")
  out=$(wrk "$@" 2>&1)
  printf '%s %s %s\n' "$(awk '/requests in/{ print $1 }' <<<"$out")" "$(awk '/Requests\/sec/{ printf "%d", $2 }' <<<"$out")" $(($(ticks "$pid") - before))
}

printf '| code | variant | idle RSS | after /dashboard | peak, c=%s | peak, %s streams | RSS after | after a count | peak at the end | req/s c=%s | CPU µs/req | streams/s | CPU µs/stream | KiB per open stream | peak, %s open streams |\n' \
  "$CONNECTIONS" "$STREAMS" "$CONNECTIONS" "$STREAMS"
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
declare -A built=()
port=19212
for _ in $(seq 1 "$ROUNDS"); do
  for ref in $REFS; do
    src=$(export_bench_ref "$ref")
    for variant in "${variant_list[@]}"; do
      flags=() vars=() cmd=''
      for word in $variant; do
        case $word in default) ;; binary) cmd=dist/gateway ;; --*) flags+=("$word") ;; *) vars+=("$word") ;; esac
      done
      if [[ -n $cmd && -z ${built[$src]:-} ]]; then
        (cd "$src" && bun run build >"$TMP/build.log" 2>&1) || { cat "$TMP/build.log" >&2; exit 1; }
        built[$src]=1
      fi
      mkdir -p "$TMP/$port"
      # shellcheck disable=SC2086 # MEM_ENV is a list of VAR=value words
      BENCH_SRC=$src BENCH_GATEWAY_CMD=$cmd BENCH_BUN_FLAGS="${flags[*]:-}" \
        start_bench_gateway "$port" "$TMP/$port/g.db" "$TMP/$port.log" "$MOCK_PORT" ${MEM_ENV:-} "${vars[@]}"
      pid=$GATEWAY_PID
      PIDS+=("$pid")
      sleep 2
      idle=$(kb "$pid" VmRSS)
      curl -sf -o /dev/null "http://127.0.0.1:$port/dashboard"
      dash=$(kb "$pid" VmRSS)
      read -r n rps cpu < <(BENCH_STREAM=0 load "$pid" -t1 -c"$CONNECTIONS" -d"${RUN_SECONDS}s" -s bench/wrk/chat.lua "http://127.0.0.1:$port")
      peak_load=$(kb "$pid" VmHWM)
      read -r sn sps scpu < <(BENCH_STREAM=1 load "$pid" -t2 -c"$STREAMS" -d"${RUN_SECONDS}s" --timeout 10s -s bench/wrk/chat.lua "http://127.0.0.1:$port")
      peak_streams=$(kb "$pid" VmHWM)
      sleep 2
      after=$(kb "$pid" VmRSS)
      curl -sf -o /dev/null -H "authorization: Bearer $BENCH_KEY" -H 'content-type: application/json' \
        -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"How many tokens is this sentence?"}]}' \
        "http://127.0.0.1:$port/v1/messages/count_tokens"
      sleep 2
      counted=$(kb "$pid" VmRSS)
      peak_end=$(kb "$pid" VmHWM)
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      # Per open stream: a fresh process on the slow upstream; after a few streams (code loaded and compiled),
      # the RSS with STREAMS streams open at once minus the RSS before them.
      port=$((port + 1))
      mkdir -p "$TMP/$port"
      # shellcheck disable=SC2086
      BENCH_SRC=$src BENCH_GATEWAY_CMD=$cmd BENCH_BUN_FLAGS="${flags[*]:-}" \
        start_bench_gateway "$port" "$TMP/$port/g.db" "$TMP/$port.log" "$HOLD_MOCK_PORT" ${MEM_ENV:-} "${vars[@]}"
      pid=$GATEWAY_PID
      PIDS+=("$pid")
      BENCH_STREAM=1 wrk -t1 -c10 -d4s --timeout 40s -s bench/wrk/chat.lua "http://127.0.0.1:$port" >/dev/null 2>&1 || true
      sleep 1
      before_hold=$(kb "$pid" VmRSS)
      BENCH_STREAM=1 wrk -t2 -c"$STREAMS" -d8s --timeout 40s -s bench/wrk/chat.lua "http://127.0.0.1:$port" >/dev/null 2>&1 &
      wrk_pid=$!
      sleep 6
      held=$(kb "$pid" VmRSS)
      wait "$wrk_pid" || true
      peak_hold=$(kb "$pid" VmHWM)
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$ref" "$variant" \
        "$(mib "$idle")" "$(mib "$dash")" "$(mib "$peak_load")" "$(mib "$peak_streams")" "$(mib "$after")" "$(mib "$counted")" "$(mib "$peak_end")" \
        "$rps" "$(per_request "$cpu" "$n")" "$sps" "$(per_request "$scpu" "$sn")" "$(((held - before_hold) / STREAMS))" "$(mib "$peak_hold")"
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      port=$((port + 1))
    done
  done
done
