#!/usr/bin/env bash
# The gateway on PostgreSQL against the gateway on SQLite, both with the audit log on (headers and bodies), in the
# same run: bench/audit-overhead.sh's paired A/B runs with SQLite as "off" and PostgreSQL as "on", so the printed
# ratio is PostgreSQL / SQLite throughput (target ≥ 90 %). PostgreSQL is a throwaway cluster started here
# (scripts/throwaway-postgres.ts) and removed when this script ends, however it ends.
# Usage: [PAIRS=6] [SECONDS_PER_RUN=4] bench/postgres.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The cluster script runs until its stdin closes: that is this coproc's input pipe, which closes when this script
# exits however it exits; the trap then waits until the server is stopped and its folder deleted.
coproc PG { exec bun scripts/throwaway-postgres.ts; }
PG_IN=${PG[1]}
trap 'exec {PG_IN}>&-; wait "$PG_PID" 2>/dev/null || true' EXIT
read -r DATABASE_URL <&"${PG[0]}"
echo "PostgreSQL: ${DATABASE_URL}" >&2
AUDIT="GATEWAY_CONFIG=bench/configs/defaults.yaml LOGGING_LOG_BODIES=true LOGGING_LOG_HEADERS=true"
PAIRS=${PAIRS:-6} OFF_ENV="$AUDIT" ON_ENV="$AUDIT DATABASE_URL=$DATABASE_URL" bench/audit-overhead.sh
