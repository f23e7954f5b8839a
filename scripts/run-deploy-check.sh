#!/usr/bin/env bash
# Runs one of deploy/'s checks as a suite of scripts/test.sh: installs what it needs from Debian when missing, then
# prints `<name>: 1 passed, 0 failed` (or `0 passed, 1 failed`). Without root, or when the check exits 3 (this
# machine cannot run containers at all), it prints "skipped" and counts nothing.
# Usage: scripts/run-deploy-check.sh NAME CHECK_SCRIPT NEED... where each NEED is COMMAND_OR_PATH:DEBIAN_PACKAGE.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1 check=$2
shift 2
if [ "$(id -u)" -ne 0 ]; then
  echo "$name: skipped (needs root for podman)"
  exit 0
fi
missing=()
for need in "$@"; do
  what=${need%%:*}
  if [[ $what == /* ]]; then [ -e "$what" ] || missing+=("${need#*:}"); else command -v "$what" >/dev/null 2>&1 || missing+=("${need#*:}"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
timeout 900 bash "$check"
status=$?
case $status in
  0) echo "$name: 1 passed, 0 failed" ;;
  3) echo "$name: skipped (this machine cannot run it)"; status=0 ;;
  *) echo "$name: 0 passed, 1 failed" ;;
esac
exit "$status"
