#!/usr/bin/env bash
# Starts a real S3-compatible server for the files tests and benches: moto's server mode (moto[server] in .venv,
# installed by scripts/python-venv.sh) on a free loopback port, in the background, and prints the lines to eval:
#   eval "$(scripts/s3-server.sh)"   # sets S3_TEST_ENDPOINT (test/helpers/s3-server.ts uses it) and S3_SERVER_PID
# Without it, each test suite starts its own moto on a free port.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/python-venv.sh
port=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nohup .venv/bin/moto_server -H 127.0.0.1 -p "$port" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  if .venv/bin/python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=1)" >/dev/null 2>&1; then
    echo "export S3_TEST_ENDPOINT=http://127.0.0.1:$port S3_SERVER_PID=$pid"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
echo "moto_server did not start on port $port" >&2
kill "$pid" 2>/dev/null || true
exit 1
