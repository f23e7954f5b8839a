#!/usr/bin/env bash
# compose.yaml as users run it: deploy/compose-check.sh brings the stack up with podman-compose (two replicas behind
# nginx, PostgreSQL, Redis; stand-in images from Debian packages where the real ones cannot be pulled) and checks it
# from outside (health, readiness on PostgreSQL, a key created through the load balancer working on both replicas,
# completions spread over both replicas to a mock upstream, Prometheus scraping both, a clean `podman-compose down`). Needs root and podman,
# podman-compose, runc, debootstrap and the CNI dnsname plugin from Debian (installed here when missing).
# Prints `compose stack: N passed, N failed`; a machine that cannot run it, or a run without root, is reported as
# skipped and counts nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "compose stack: skipped (needs root for podman)"
  exit 0
fi
missing=()
for tool in podman podman-compose runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[ -x /usr/lib/cni/dnsname ] || missing+=(golang-github-containernetworking-plugin-dnsname)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
timeout 900 bash deploy/compose-check.sh
status=$?
case $status in
  0) echo "compose stack: 1 passed, 0 failed" ;;
  3) echo "compose stack: skipped (this machine cannot run the compose stack)"; status=0 ;;
  *) echo "compose stack: 0 passed, 1 failed" ;;
esac
exit "$status"
