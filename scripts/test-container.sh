#!/usr/bin/env bash
# The container image as users get it: deploy/local-image-check.sh builds the Dockerfile with podman and runs the
# image as a real container (health, readiness, a proxied completion, metrics, HEALTHCHECK, the /data volume's
# owner, graceful stop). Needs root and podman, runc and debootstrap from Debian (installed here when missing).
# Prints `container image: N passed, N failed`; a machine that cannot run containers at all, or a run without
# root, is reported as skipped and counts nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "container image: skipped (needs root for podman)"
  exit 0
fi
missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
timeout 900 bash deploy/local-image-check.sh
status=$?
case $status in
  0) echo "container image: 1 passed, 0 failed" ;;
  3) echo "container image: skipped (this machine cannot run containers)"; status=0 ;;
  *) echo "container image: 0 passed, 1 failed" ;;
esac
exit "$status"
