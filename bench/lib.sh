# Shared by the shell benchmarks (sourced, not run, first thing: `source "$(dirname "$0")/lib.sh"`): strict mode
# and the repository root as the working directory, the run's temp folder and mock upstream, launching a gateway
# against it, and a median.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCH_KEY=bench-master-key-0123456789abcdef0123

# start_bench_run DEFAULT_MOCK_PORT
# Makes the run's temp folder (TMP), starts the bench mock upstream on MOCK_PORT (the script's default unless the
# caller set it), and on exit kills every process whose id the script added to PIDS (the mock's included) and
# removes TMP.
start_bench_run() {
  MOCK_PORT=${MOCK_PORT:-$1}
  TMP=$(mktemp -d)
  PIDS=()
  trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
  bun bench/mock-upstream.ts "$MOCK_PORT" >/dev/null 2>&1 &
  PIDS+=($!)
}

# export_bench_ref REF: prints the folder holding the code of REF: the working tree for `.`, otherwise REF's
# src/, plugins/ and package files exported read-only with `git archive` into TMP (node_modules linked).
export_bench_ref() {
  local ref=$1 dir
  if [[ $ref == . ]]; then echo "$PWD"; return; fi
  dir="$TMP/ref-$(git rev-parse --short "$ref^{commit}")"
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir"
    git archive --format=tar "$ref" src plugins package.json tsconfig.json | tar -x -C "$dir"
    ln -s "$PWD/node_modules" "$dir/node_modules"
  fi
  echo "$dir"
}

# start_bench_gateway PORT DB_PATH LOG_FILE MOCK_PORT [VAR=value ...]
# Starts `bun src/main.ts` (or BENCH_GATEWAY_CMD, e.g. a compiled binary; in BENCH_SRC, default the working tree: see export_bench_ref) with the bench master key, pointed at the mock upstream, with the extra settings given;
# waits for /health and leaves the process id in GATEWAY_PID. Fails, printing the gateway's log, if it does not
# come up within 5 s.
start_bench_gateway() {
  local port=$1 db=$2 log=$3 mock=$4
  shift 4
  env "$@" PORT="$port" HOST=127.0.0.1 LOG_LEVEL=warn GATEWAY_DB_PATH="$db" GATEWAY_MASTER_KEY=$BENCH_KEY \
    OPENAI_API_KEY=sk-bench OPENAI_BASE_URL="http://127.0.0.1:$mock/v1" BUN_CONFIG_MAX_HTTP_REQUESTS=1024 \
    bash -c 'cd "$1" && shift && exec "$@"' _ "${BENCH_SRC:-.}" ${BENCH_GATEWAY_CMD:-bun ${BENCH_BUN_FLAGS:-} src/main.ts} >"$log" 2>&1 &
  GATEWAY_PID=$!
  for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && return 0; sleep 0.1; done
  echo "gateway on port $port did not start:" >&2
  cat "$log" >&2
  return 1
}

# median [printf format, default %g]: the median of the numbers on stdin, whitespace-separated.
median() {
  tr -s ' \t' '\n\n' | grep -v '^$' | sort -n |
    awk -v fmt="${1:-%g}" '{ v[NR] = $1 } END { printf fmt "\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
