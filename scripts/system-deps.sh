#!/usr/bin/env bash
# Debian packages the test suite needs: Chromium (browser tests), redis-server and postgresql (the Redis and
# PostgreSQL store tests start throwaway servers of their own). Installed only when missing;
# needs root (as on CI) or is skipped with a note (the browser tests then skip themselves).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# PostgreSQL: the tests create throwaway clusters of their own (test/helpers/postgres-server.ts).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# Python with venv (Debian ships ensurepip separately): scripts/python-venv.sh makes .venv for the Python tests.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "not root: cannot install ${missing[*]}; the tests that need them will be skipped" >&2
  exit 0
fi
echo "installing ${missing[*]} from Debian"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The package creates (and may start) a default cluster on port 5432 that nothing uses: drop the one it just made.
if [[ " ${missing[*]} " == *" postgresql "* ]] && command -v pg_lsclusters >/dev/null 2>&1; then
  pg_lsclusters -h | while read -r version name _; do pg_dropcluster --stop "$version" "$name" || true; done
fi
