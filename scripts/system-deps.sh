#!/usr/bin/env bash
# Debian packages the test suite needs: Chromium (browser tests) and redis-server (the Redis store tests start a
# throwaway server of their own). Installed only when missing;
# needs root (as on CI) or is skipped with a note (the browser tests then skip themselves).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "not root: cannot install ${missing[*]}; the tests that need them will be skipped" >&2
  exit 0
fi
echo "installing ${missing[*]} from Debian"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
