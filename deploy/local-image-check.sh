#!/usr/bin/env bash
# Builds the Dockerfile with podman on a machine that has no container registry access and cannot start
# containers (as this project's machine: registries other than npm/PyPI/Debian are unreachable, and crun refuses
# its cgroup v1 setup), then runs the built image's filesystem with chroot as the image's user. Manual, as root;
# not part of CI. Stand-ins for the two base images are made from Debian packages:
#   docker.io/library/debian:bookworm-slim  <- debootstrap --variant=minbase bookworm
#   docker.io/oven/bun:1.4.5                <- the same plus this machine's bun binary (same version)
# and the host's CA bundle goes into the bun stand-in (NODE_EXTRA_CA_CERTS) when the package registry is reached
# through a TLS-inspecting proxy. Usage: sudo deploy/local-image-check.sh   (needs podman, debootstrap, curl)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/gateway-image-check}
PORT=${PORT:-18099}
KEY=image-check-master-key
mkdir -p "$WORK"
# Podman's defaults ask for rlimits and cgroups this sandbox does not grant.
printf '[containers]\ndefault_ulimits = []\n' >"$WORK/containers.conf"
export CONTAINERS_CONF=$WORK/containers.conf

if ! podman image exists docker.io/library/debian:bookworm-slim; then
  [ -d "$WORK/debian" ] || debootstrap --variant=minbase bookworm "$WORK/debian" http://deb.debian.org/debian
  tar -C "$WORK/debian" -c . | podman import - docker.io/library/debian:bookworm-slim
fi
if ! podman image exists docker.io/oven/bun:1.4.5; then
  rm -rf "$WORK/bun" && cp -a "$WORK/debian" "$WORK/bun"
  cp "$(readlink -f "$(command -v bun)")" "$WORK/bun/usr/local/bin/bun"
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/bun/etc/ssl/certs/ca-certificates.crt"
  tar -C "$WORK/bun" -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - docker.io/oven/bun:1.4.5
fi

# RUN steps in a chroot instead of a runtime container; docker format keeps the HEALTHCHECK.
podman build --format docker --pull=never --isolation=chroot --network=host -t ai-gateway:local .
podman inspect ai-gateway:local --format '{{.Config.User}} {{.Config.Entrypoint}}'

podman rm -f gateway-image-check >/dev/null 2>&1 || true
podman create --name gateway-image-check ai-gateway:local >/dev/null
ROOT=$(podman mount gateway-image-check)
mount --bind /proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
cleanup() {
  [ -n "${GW:-}" ] && kill "$GW" 2>/dev/null || true
  [ -n "${MOCK:-}" ] && kill "$MOCK" 2>/dev/null || true
  umount "$ROOT/proc" "$ROOT/dev" 2>/dev/null || true
  podman rm -f -v gateway-image-check >/dev/null 2>&1 || true
}
trap cleanup EXIT

bun bench/mock-upstream.ts 18098 >/dev/null 2>&1 &
MOCK=$!
sleep 1
env -i PATH=/usr/local/bin:/usr/bin:/bin HOST=127.0.0.1 PORT=$PORT GATEWAY_DB_PATH=/data/gateway.db LOG_FORMAT=json \
  GATEWAY_MASTER_KEY=$KEY OPENAI_API_KEY=sk-image-check OPENAI_BASE_URL=http://127.0.0.1:18098/v1 \
  /usr/sbin/chroot --userspec=10001:10001 "$ROOT" /usr/local/bin/gateway >"$WORK/gateway.log" 2>&1 &
GW=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$PORT/ready"; echo
curl -sf "http://127.0.0.1:$PORT/v1/chat/completions" -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}' -D - -o /dev/null | grep -i '^x-gateway-overhead-ms'
curl -sf "http://127.0.0.1:$PORT/metrics" -H "authorization: Bearer $KEY" | grep '^gateway_requests_total'
env -i PORT=$PORT /usr/sbin/chroot --userspec=10001:10001 "$ROOT" /usr/local/bin/gateway healthcheck && echo 'healthcheck: exit 0'
ls -ln "$ROOT/data"
kill -TERM "$GW" && wait "$GW" && echo 'SIGTERM: exit 0'
GW=
tail -3 "$WORK/gateway.log"
