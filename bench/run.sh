#!/usr/bin/env bash
# Proxy-overhead benchmark (issue 2). One run drives the same chat completion load, with wrk, through:
#   mock       the mock upstream directly (the ceiling: no proxy at all)
#   nginx      a plain nginx reverse proxy (the practical floor for any proxy)
#   bun-proxy  a bare Bun.serve + fetch passthrough (what Bun itself costs; reference for the gateway)
#   gateway    this gateway (bun src/main.ts), master-key auth on, default configuration (audit log and usage on)
#   gateway-core  the same with the core pipeline only: auth, validation, routing (audit and usage off)
#   gateway-anthropic, gateway-gemini
#              the same gateway with an Anthropic / a Gemini model: every request and answer translated
#   portkey    the Portkey gateway from the npm registry (Node)
#   litellm    the LiteLLM proxy from PyPI (`litellm[proxy]`, Python), one worker, no database, in a venv made here
# and writes bench/results/latest.md (plus the raw data in bench/results/<timestamp>/). See bench/README.md.
#
# Everything listens on 127.0.0.1 only (Portkey cannot be told to; it is only ever sent loopback traffic),
# every load run is bounded in time, and every process started here is stopped on exit.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$BENCH_DIR")

DURATION=${DURATION:-10}                  # seconds of each measured throughput run
WARMUP=${WARMUP:-2}                       # seconds of warm-up before the measured runs of each target
C1_DURATION=${C1_DURATION:-5}             # seconds of the concurrency-1 latency run
CONNECTIONS=${CONNECTIONS:-50}            # wrk connections for non-stream throughput
STREAM_CONNECTIONS=${STREAM_CONNECTIONS:-100}  # wrk connections (= concurrent streams) for the streaming run
WRK_THREADS=${WRK_THREADS:-1}
# Time to first byte in two shapes: one stream at a time (TTFB_LANES sequential lanes on an otherwise idle target),
# and TTFB_CONCURRENT streams at once, every one of them timed (TTFB_CONCURRENT_REQUESTS in all), the shape of a
# peer run with 100 concurrent paced streams.
TTFB_REQUESTS=${TTFB_REQUESTS:-200}
TTFB_LANES=${TTFB_LANES:-1}
TTFB_CONCURRENT=${TTFB_CONCURRENT:-100}
TTFB_CONCURRENT_REQUESTS=${TTFB_CONCURRENT_REQUESTS:-1000}
STREAM_CHUNKS=${STREAM_CHUNKS:-20}
STREAM_INTERVAL_MS=${STREAM_INTERVAL_MS:-10}
NGINX_WORKERS=${NGINX_WORKERS:-1}
TARGETS=${TARGETS:-mock nginx bun-proxy gateway-core gateway gateway-anthropic gateway-gemini portkey litellm}
PORTKEY_VERSION=${PORTKEY_VERSION:-1.15.2}
# @hono/node-server newer than this breaks Portkey on Node (TypeError: immutable when Portkey adds its headers;
# Portkey-AI/gateway issues 1389 and 1550); streaming fails even with 1.14.x. npm "overrides" pins it.
PORTKEY_NODE_SERVER_VERSION=${PORTKEY_NODE_SERVER_VERSION:-1.13.8}
LITELLM_VERSION=${LITELLM_VERSION:-1.106.2}
BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ai-gateway-bench}
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
# Which gateway code runs: empty = the working tree as it is; a git ref (e.g. HEAD) = that commit, exported
# read-only with `git archive` into the temp dir (useful while others have half-done edits in the tree).
GATEWAY_REF=${GATEWAY_REF:-}
# Extra environment for the gateway only, e.g. GATEWAY_EXTRA_ENV="FEATURE_AUDIT=false LOGGING_LOG_BODIES=true".
GATEWAY_EXTRA_ENV=${GATEWAY_EXTRA_ENV:-}

MASTER_KEY=bench-master-key-0123456789abcdef0123
UPSTREAM_KEY=sk-bench-upstream

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for tool in wrk nginx bun curl; do
  command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install -y wrk nginx-light; bun: scripts/setup.sh)"
done

STAMP=$(date +%Y%m%d-%H%M%S)
RUN_DIR="$RESULTS_DIR/$STAMP"
mkdir -p "$RUN_DIR"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gateway-bench.XXXXXX")
RESULTS="$RUN_DIR/results.jsonl"
: >"$RESULTS"

# ---- process bookkeeping: every background process we start is recorded and stopped on exit ----
PIDS=()
stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  local status=$?
  set +e
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}"; done
  wait 2>/dev/null
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  bun -e 'const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") }); console.log(s.port); s.stop(true)'
}

# Waits until `curl` on the given URL answers 200 (extra curl arguments after the URL).
wait_http() {
  local what=$1 pid=$2 url=$3
  shift 3
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || die "$what exited during start-up (log: $RUN_DIR/$what.log)"
    if [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$@" "$url" || true) == 200 ]]; then return 0; fi
    sleep 0.1
  done
  die "$what did not become ready within 30 s (log: $RUN_DIR/$what.log)"
}

# Sum of a /proc/<pid>/status field (kB) over the process and its children (nginx: master + workers).
tree_pids() {
  local pid=$1
  echo "$pid"
  local child
  for child in $(pgrep -P "$pid" || true); do tree_pids "$child"; done
}
tree_status_kb() {
  local pid=$1 field=$2 total=0 p v
  for p in $(tree_pids "$pid"); do
    v=$(awk -v f="$field:" '$1 == f { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    total=$((total + ${v:-0}))
  done
  echo "$total"
}
# utime + stime (clock ticks) of the process tree.
tree_cpu_ticks() {
  local pid=$1 total=0 p v
  for p in $(tree_pids "$pid"); do
    v=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)
    total=$((total + v))
  done
  echo "$total"
}

# Busy and total ticks of the whole machine (first line of /proc/stat).
machine_ticks() {
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat
}

mock_chat_count() {
  curl -s --max-time 5 "http://127.0.0.1:$MOCK_PORT/__bench/stats" | sed -n 's/.*"chat":\([0-9]*\).*/\1/p'
}

# ---- machine and run description ----
CLK_TCK=$(getconf CLK_TCK)
if [[ -n $GATEWAY_REF ]]; then
  GIT_REV=$(git -C "$REPO_DIR" rev-parse --short "$GATEWAY_REF^{commit}") || die "GATEWAY_REF=$GATEWAY_REF is not a commit"
  GIT_DIRTY=false
  GATEWAY_SRC="$TMP/gateway-src"
  mkdir -p "$GATEWAY_SRC"
  git -C "$REPO_DIR" archive --format=tar "$GIT_REV" src plugins package.json tsconfig.json | tar -x -C "$GATEWAY_SRC"
  ln -s "$REPO_DIR/node_modules" "$GATEWAY_SRC/node_modules"
else
  GIT_REV=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
  GIT_DIRTY=$([[ -n $(git -C "$REPO_DIR" status --porcelain -- src plugins 2>/dev/null) ]] && echo true || echo false)
  GATEWAY_SRC=$REPO_DIR
fi
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the mock upstream (shared by every target) ----
MOCK_PORT=$(free_port)
MOCK_STREAM_CHUNKS=$STREAM_CHUNKS MOCK_STREAM_INTERVAL_MS=$STREAM_INTERVAL_MS \
  bun "$BENCH_DIR/mock-upstream.ts" "$MOCK_PORT" >"$RUN_DIR/mock.log" 2>&1 &
MOCK_PID=$!
PIDS+=("$MOCK_PID")
wait_http mock "$MOCK_PID" "http://127.0.0.1:$MOCK_PORT/v1/models"
log "mock upstream on :$MOCK_PORT (streams: $STREAM_CHUNKS chunks, ${STREAM_INTERVAL_MS} ms apart)"

# ---- one wrk run; appends a JSON line to results.jsonl ----
# Uses the current target's T_URL, T_MODEL, T_AUTH, T_HEADERS, T_PID.
wrk_run() {
  local kind=$1 connections=$2 seconds=$3 stream=$4 record=$5
  local threads=$WRK_THREADS
  ((threads > connections)) && threads=$connections
  local before_count before_cpu before_mock before_machine out json after_count after_cpu after_mock after_machine
  before_count=$(mock_chat_count)
  before_cpu=$(tree_cpu_ticks "$T_PID")
  before_mock=$(tree_cpu_ticks "$MOCK_PID")
  before_machine=$(machine_ticks)
  # `time` reports wrk's own CPU, so the CPU used by everything else on the machine can be told apart.
  out=$({ TIMEFORMAT='BENCH_TIME %U %S'; time BENCH_MODEL=$T_MODEL BENCH_AUTH=$T_AUTH BENCH_HEADERS=$T_HEADERS BENCH_STREAM=$stream \
    wrk -t"$threads" -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$BENCH_DIR/wrk/chat.lua" "$T_URL"; } 2>&1) ||
    die "wrk failed against $T_NAME: $out"
  after_machine=$(machine_ticks)
  after_cpu=$(tree_cpu_ticks "$T_PID")
  after_mock=$(tree_cpu_ticks "$MOCK_PID")
  after_count=$(mock_chat_count)
  printf '### %s %s (c=%s, %ss, stream=%s)\n%s\n\n' "$T_NAME" "$kind" "$connections" "$seconds" "$stream" "$out" >>"$RUN_DIR/wrk.log"
  [[ $record == yes ]] || return 0
  json=$(grep '^BENCH_JSON ' <<<"$out" | sed 's/^BENCH_JSON {//') || die "no result line from wrk ($T_NAME $kind)"
  local wrk_ticks busy total mock_ticks=0
  wrk_ticks=$(awk -v hz="$CLK_TCK" '$1 == "BENCH_TIME" { printf "%d", ($2 + $3) * hz }' <<<"$out")
  busy=$((${after_machine% *} - ${before_machine% *}))
  total=$((${after_machine#* } - ${before_machine#* }))
  [[ $T_PID == "$MOCK_PID" ]] || mock_ticks=$((after_mock - before_mock))
  printf '{"target":"%s","kind":"%s","connections":%s,"upstream_requests":%s,"cpu_ticks":%s,"mock_ticks":%s,"wrk_ticks":%s,"machine_busy_ticks":%s,"machine_total_ticks":%s,"clk_tck":%s,%s\n' \
    "$T_NAME" "$kind" "$connections" "$((after_count - before_count))" "$((after_cpu - before_cpu))" "$mock_ticks" "${wrk_ticks:-0}" \
    "$busy" "$total" "$CLK_TCK" "$json" >>"$RESULTS"
}

# ttfb_run KIND REQUESTS LANES: time to first byte of REQUESTS streams, LANES at a time (bench/ttfb.ts).
ttfb_run() {
  local kind=$1 requests=$2 lanes=$3 out json
  log "$T_NAME: time to first byte ($kind), $requests streams, $lanes at a time"
  out=$(BENCH_MODEL=$T_MODEL BENCH_AUTH=$T_AUTH BENCH_HEADERS=$T_HEADERS \
    bun "$BENCH_DIR/ttfb.ts" "$T_URL/v1/chat/completions" "$requests" "$lanes" 2>&1) || die "$kind failed against $T_NAME: $out"
  printf '### %s %s\n%s\n\n' "$T_NAME" "$kind" "$out" >>"$RUN_DIR/wrk.log"
  json=$(grep '^BENCH_JSON ' <<<"$out" | sed 's/^BENCH_JSON {//') || die "no result line from $kind ($T_NAME)"
  printf '{"target":"%s","kind":"%s",%s\n' "$T_NAME" "$kind" "$json" >>"$RESULTS"
}

measure_target() {
  log "$T_NAME: warm-up ${WARMUP}s"
  wrk_run warmup "$CONNECTIONS" "$WARMUP" 0 no
  log "$T_NAME: throughput, c=$CONNECTIONS, ${DURATION}s"
  wrk_run load "$CONNECTIONS" "$DURATION" 0 yes
  log "$T_NAME: latency at concurrency 1, ${C1_DURATION}s"
  wrk_run c1 1 "$C1_DURATION" 0 yes
  log "$T_NAME: streaming, c=$STREAM_CONNECTIONS, ${DURATION}s"
  wrk_run stream-warmup "$STREAM_CONNECTIONS" "$WARMUP" 1 no
  wrk_run stream "$STREAM_CONNECTIONS" "$DURATION" 1 yes
  ttfb_run ttfb "$TTFB_REQUESTS" "$TTFB_LANES"
  ttfb_run ttfb-concurrent "$TTFB_CONCURRENT_REQUESTS" "$TTFB_CONCURRENT"
  printf '{"target":"%s","kind":"memory","peak_rss_kb":%s,"rss_kb":%s}\n' \
    "$T_NAME" "$(tree_status_kb "$T_PID" VmHWM)" "$(tree_status_kb "$T_PID" VmRSS)" >>"$RESULTS"
}

finish_target() {
  stop_pid "$T_PID"
  wait "$T_PID" 2>/dev/null || true
}

skip_target() {
  log "$1: SKIPPED: $2"
  printf '{"target":"%s","kind":"skipped","reason":"%s"}\n' "$1" "${2//\"/\'}" >>"$RESULTS"
}

CHAT_BODY='{"model":"MODEL","messages":[{"role":"user","content":"hi"}]}'
# Non-stream smoke check through the target: must come back as the mock's completion.
smoke() {
  local args=(-s --max-time 10 -H 'content-type: application/json')
  [[ -n $T_AUTH ]] && args+=(-H "authorization: Bearer $T_AUTH")
  local line
  while IFS= read -r line; do [[ -n $line ]] && args+=(-H "$line"); done <<<"$T_HEADERS"
  local body
  body=$(curl "${args[@]}" -d "${CHAT_BODY/MODEL/$T_MODEL}" "$T_URL/v1/chat/completions" || true)
  [[ $body == *'Hello! How can I help you today?'* ]] || die "$T_NAME does not proxy to the mock; answer: ${body:0:400}"
}

start_mock_target() {
  T_NAME=mock T_PID=$MOCK_PID T_URL="http://127.0.0.1:$MOCK_PORT" T_MODEL=gpt-4o-mini T_AUTH=$UPSTREAM_KEY T_HEADERS=''
}

start_nginx() {
  local dir="$TMP/nginx" port
  port=$(free_port)
  mkdir -p "$dir/temp"
  cat >"$dir/nginx.conf" <<EOF
worker_processes $NGINX_WORKERS;
daemon off;
master_process on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/temp/body;
  proxy_temp_path $dir/temp/proxy;
  fastcgi_temp_path $dir/temp/fastcgi;
  uwsgi_temp_path $dir/temp/uwsgi;
  scgi_temp_path $dir/temp/scgi;
  keepalive_requests 1000000;
  upstream mock {
    server 127.0.0.1:$MOCK_PORT;
    keepalive 512;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:$port backlog=4096;
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
EOF
  cp "$dir/nginx.conf" "$RUN_DIR/nginx.conf"
  nginx -p "$dir" -c "$dir/nginx.conf" -e stderr >"$RUN_DIR/nginx.log" 2>&1 &
  T_PID=$!
  PIDS+=("$T_PID")
  T_NAME=nginx T_URL="http://127.0.0.1:$port" T_MODEL=gpt-4o-mini T_AUTH=$UPSTREAM_KEY T_HEADERS=''
  wait_http nginx "$T_PID" "$T_URL/v1/models"
}

start_bun_proxy() {
  local port
  port=$(free_port)
  BUN_CONFIG_MAX_HTTP_REQUESTS=1024 UPSTREAM_KEY=$UPSTREAM_KEY \
    bun "$BENCH_DIR/bare-proxy.ts" "$port" "http://127.0.0.1:$MOCK_PORT" "$MASTER_KEY" >"$RUN_DIR/bun-proxy.log" 2>&1 &
  T_PID=$!
  PIDS+=("$T_PID")
  T_NAME=bun-proxy T_URL="http://127.0.0.1:$port" T_MODEL=gpt-4o-mini T_AUTH=$MASTER_KEY T_HEADERS=''
  wait_http bun-proxy "$T_PID" "$T_URL/v1/models" -H "authorization: Bearer $MASTER_KEY"
}

# $1: the target name; $2: the model it is driven with (gateway-anthropic and gateway-gemini exercise the
# translating adapters against the mock's Anthropic and Gemini endpoints); $3: a workflow configuration file
# (gateway-core: bench/configs/core.yaml, audit and usage off).
start_gateway() {
  local name=$1 model=$2 config=${3:-} dir="$TMP/$1" port
  port=$(free_port)
  mkdir -p "$dir"
  # Its own working directory: no stray ./gateway.yaml, a fresh SQLite file.
  (cd "$dir" && exec env PORT="$port" HOST=127.0.0.1 GATEWAY_MASTER_KEY="$MASTER_KEY" \
    OPENAI_API_KEY="$UPSTREAM_KEY" OPENAI_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1" \
    ANTHROPIC_API_KEY="$UPSTREAM_KEY" ANTHROPIC_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1" \
    GEMINI_API_KEY="$UPSTREAM_KEY" GEMINI_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1beta" \
    GATEWAY_DB_PATH="$dir/gateway.db" GATEWAY_CONFIG="$config" LOG_LEVEL=warn BUN_CONFIG_MAX_HTTP_REQUESTS=1024 $GATEWAY_EXTRA_ENV \
    bun "$GATEWAY_SRC/src/main.ts") >"$RUN_DIR/$name.log" 2>&1 &
  T_PID=$!
  PIDS+=("$T_PID")
  T_NAME=$name T_URL="http://127.0.0.1:$port" T_MODEL=$model T_AUTH=$MASTER_KEY T_HEADERS=''
  wait_http "$name" "$T_PID" "$T_URL/ready"
}

install_portkey() {
  PORTKEY_DIR="$BENCH_CACHE_DIR/portkey-$PORTKEY_VERSION-node-server-$PORTKEY_NODE_SERVER_VERSION"
  PORTKEY_JS="$PORTKEY_DIR/node_modules/@portkey-ai/gateway/build/start-server.js"
  [[ -f $PORTKEY_JS ]] && return 0
  command -v npm >/dev/null && command -v node >/dev/null || return 1
  log "installing @portkey-ai/gateway@$PORTKEY_VERSION into $PORTKEY_DIR"
  mkdir -p "$PORTKEY_DIR"
  printf '{"name":"portkey-bench","private":true,"dependencies":{"@portkey-ai/gateway":"%s"},"overrides":{"@hono/node-server":"%s"}}\n' \
    "$PORTKEY_VERSION" "$PORTKEY_NODE_SERVER_VERSION" >"$PORTKEY_DIR/package.json"
  npm install --prefix "$PORTKEY_DIR" --no-audit --no-fund --ignore-scripts --loglevel=error >"$RUN_DIR/portkey-install.log" 2>&1 || return 1
  [[ -f $PORTKEY_JS ]]
}

start_portkey() {
  local port
  port=$(free_port)
  # --headless and NODE_ENV=production: no log UI and no in-memory log stream.
  (cd "$PORTKEY_DIR" && exec env NODE_ENV=production node "$PORTKEY_JS" --port="$port" --headless) >"$RUN_DIR/portkey.log" 2>&1 &
  T_PID=$!
  PIDS+=("$T_PID")
  T_NAME=portkey T_URL="http://127.0.0.1:$port" T_MODEL=gpt-4o-mini T_AUTH=$UPSTREAM_KEY
  T_HEADERS=$'x-portkey-provider: openai\nx-portkey-custom-host: http://127.0.0.1:'"$MOCK_PORT"'/v1'
  local args=(-H 'content-type: application/json' -H "authorization: Bearer $T_AUTH" -H 'x-portkey-provider: openai'
    -H "x-portkey-custom-host: http://127.0.0.1:$MOCK_PORT/v1" -d "${CHAT_BODY/MODEL/$T_MODEL}")
  wait_http portkey "$T_PID" "$T_URL/v1/chat/completions" "${args[@]}"
}

# LiteLLM from PyPI into a venv of its own (cached per version), for the Python peer row.
install_litellm() {
  LITELLM_DIR="$BENCH_CACHE_DIR/litellm-$LITELLM_VERSION"
  LITELLM_BIN="$LITELLM_DIR/bin/litellm"
  [[ -x $LITELLM_BIN ]] && return 0
  command -v python3 >/dev/null || return 1
  log "installing litellm[proxy]==$LITELLM_VERSION into $LITELLM_DIR"
  python3 -m venv "$LITELLM_DIR" >"$RUN_DIR/litellm-install.log" 2>&1 || return 1
  "$LITELLM_DIR/bin/pip" install --quiet "litellm[proxy]==$LITELLM_VERSION" >>"$RUN_DIR/litellm-install.log" 2>&1 || return 1
  [[ -x $LITELLM_BIN ]]
}

start_litellm() {
  local port dir="$TMP/litellm"
  port=$(free_port)
  mkdir -p "$dir"
  # One worker, no database (no DATABASE_URL: no spend logs, keys from the config only), master-key auth like the
  # gateway rows, its own logging at ERROR.
  printf '%s\n' 'model_list:' '  - model_name: gpt-4o-mini' '    litellm_params:' '      model: openai/gpt-4o-mini' \
    "      api_base: http://127.0.0.1:$MOCK_PORT/v1" "      api_key: $UPSTREAM_KEY" 'general_settings:' \
    '  master_key: sk-litellm-bench-key' 'litellm_settings:' '  telemetry: false' >"$dir/config.yaml"
  (cd "$dir" && exec env -u DATABASE_URL LITELLM_LOG=ERROR "$LITELLM_BIN" --config "$dir/config.yaml" --host 127.0.0.1 --port "$port" --num_workers 1) >"$RUN_DIR/litellm.log" 2>&1 &
  T_PID=$!
  PIDS+=("$T_PID")
  T_NAME=litellm T_URL="http://127.0.0.1:$port" T_MODEL=gpt-4o-mini T_AUTH=sk-litellm-bench-key T_HEADERS=''
  # Python start-up is slow (tens of seconds on a busy machine): up to 3 minutes.
  local i
  for i in $(seq 1 1800); do
    kill -0 "$T_PID" 2>/dev/null || die "litellm exited during start-up (log: $RUN_DIR/litellm.log)"
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$T_URL/health/liveliness" || true) == 200 ]] && return 0
    sleep 0.1
  done
  die "litellm did not become ready within 3 minutes (log: $RUN_DIR/litellm.log)"
}

START=$(date +%s)
for target in $TARGETS; do
  case $target in
    mock) start_mock_target ;;
    nginx) start_nginx ;;
    bun-proxy) start_bun_proxy ;;
    gateway) start_gateway gateway openai/gpt-4o-mini ;;
    gateway-core) start_gateway gateway-core openai/gpt-4o-mini "$BENCH_DIR/configs/core.yaml" ;;
    gateway-anthropic) start_gateway gateway-anthropic anthropic/claude-bench ;;
    gateway-gemini) start_gateway gateway-gemini gemini/gemini-bench ;;
    portkey)
      if ! install_portkey; then
        skip_target portkey "npm install of @portkey-ai/gateway@$PORTKEY_VERSION failed (see portkey-install.log)"
        continue
      fi
      start_portkey
      ;;
    litellm)
      if ! install_litellm; then
        skip_target litellm "pip install of litellm[proxy]==$LITELLM_VERSION failed (see litellm-install.log)"
        continue
      fi
      start_litellm
      ;;
    *) die "unknown target '$target' (known: mock nginx bun-proxy gateway-core gateway gateway-anthropic gateway-gemini portkey litellm)" ;;
  esac
  smoke
  log "$T_NAME ready at $T_URL (pid $T_PID)"
  measure_target
  [[ $T_NAME == mock ]] || finish_target
done
ELAPSED=$(($(date +%s) - START))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

cat >"$RUN_DIR/meta.json" <<EOF
{"stamp":"$STAMP","git_rev":"$GIT_REV","git_dirty":$GIT_DIRTY,"gateway_ref":"$GATEWAY_REF","gateway_extra_env":"$GATEWAY_EXTRA_ENV","load_before":"$LOAD_BEFORE","load_after":"$LOAD_AFTER",
 "elapsed_s":$ELAPSED,"duration_s":$DURATION,"warmup_s":$WARMUP,"c1_duration_s":$C1_DURATION,"connections":$CONNECTIONS,
 "stream_connections":$STREAM_CONNECTIONS,"wrk_threads":$WRK_THREADS,"ttfb_requests":$TTFB_REQUESTS,"ttfb_lanes":$TTFB_LANES,"ttfb_concurrent":$TTFB_CONCURRENT,"ttfb_concurrent_requests":$TTFB_CONCURRENT_REQUESTS,
 "stream_chunks":$STREAM_CHUNKS,"stream_interval_ms":$STREAM_INTERVAL_MS,"nginx_workers":$NGINX_WORKERS,
 "portkey_version":"$PORTKEY_VERSION","litellm_version":"$LITELLM_VERSION","portkey_node_server_version":"$PORTKEY_NODE_SERVER_VERSION"}
EOF

bun "$BENCH_DIR/report.ts" "$RUN_DIR" >"$RUN_DIR/report.md"
cp "$RUN_DIR/report.md" "$RESULTS_DIR/latest.md"
cat "$RESULTS_DIR/latest.md"
log "written $RESULTS_DIR/latest.md (raw data: $RUN_DIR)"
