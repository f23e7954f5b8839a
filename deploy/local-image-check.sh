#!/usr/bin/env bash
# Builds the Dockerfile with podman on a machine that has no container registry access (as this project's machine:
# registries other than npm/PyPI/Debian are unreachable), then runs the image as a real container with runc (crun,
# podman's default here, refuses this machine's hybrid cgroup setup; runc takes it) and checks it from outside:
# health, readiness, a proxied chat completion, metrics, the image's HEALTHCHECK, the /data volume's owner and a
# graceful stop. Exits non-zero on the first check that fails. Stand-ins for the two base images are made from
# Debian packages:
#   docker.io/library/debian:bookworm-slim  <- debootstrap --variant=minbase bookworm
#   docker.io/oven/bun:1.4.5                <- the same plus this machine's bun binary (same version)
# and the host's CA bundle goes into the bun stand-in (NODE_EXTRA_CA_CERTS) when the package registry is reached
# through a TLS-inspecting proxy. Usage: sudo deploy/local-image-check.sh   (needs podman, runc, debootstrap, curl;
# Debian: apt-get install -y podman runc debootstrap)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/gateway-image-check}
PORT=${PORT:-18099}
KEY=image-check-master-key-0123456789abcdef
mkdir -p "$WORK"
# Podman's default rlimits exceed what this sandbox grants (no CAP_SYS_RESOURCE).
printf '[containers]\ndefault_ulimits = []\n' >"$WORK/containers.conf"
export CONTAINERS_CONF=$WORK/containers.conf

if ! podman image exists docker.io/library/debian:bookworm-slim; then
  [ -d "$WORK/debian" ] || debootstrap --variant=minbase bookworm "$WORK/debian" http://deb.debian.org/debian
  tar -C "$WORK/debian" -c . | podman import - docker.io/library/debian:bookworm-slim
fi
if ! podman image exists docker.io/oven/bun:1.4.5; then
  rm -rf "$WORK/bun" && cp -a "$WORK/debian" "$WORK/bun"
  cp "$(readlink -f "$(command -v bun)")" "$WORK/bun/usr/local/bin/bun"
  # minbase has no ca-certificates package, so no /etc/ssl/certs of its own.
  mkdir -p "$WORK/bun/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/bun/etc/ssl/certs/ca-certificates.crt"
  tar -C "$WORK/bun" -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - docker.io/oven/bun:1.4.5
fi

# Exit 3 when this machine cannot run a container at all (scripts/test-container.sh reports that as skipped, not passed).
if ! probe=$(podman --runtime runc run --rm --network host docker.io/library/debian:bookworm-slim true 2>&1); then
  echo "this machine cannot run containers: $probe" >&2
  exit 3
fi

# RUN steps in a chroot instead of a runtime container; docker format keeps the HEALTHCHECK.
podman build --format docker --pull=never --isolation=chroot --network=host -t ai-gateway:local .
podman inspect ai-gateway:local --format '{{.Config.User}} {{.Config.Entrypoint}}'

NAME=gateway-image-check
VOLUME=gateway-image-check-data
podman --runtime runc rm -f "$NAME" >/dev/null 2>&1 || true
podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
cleanup() {
  [ -n "${MOCK:-}" ] && kill "$MOCK" 2>/dev/null || true
  podman --runtime runc rm -f "$NAME" >/dev/null 2>&1 || true
  podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
}
trap cleanup EXIT

bun bench/mock-upstream.ts 18098 >/dev/null 2>&1 &
MOCK=$!
sleep 1
# Host networking: the mock upstream listens on the host's loopback (no bridge network is set up in this sandbox).
podman --runtime runc run -d --name "$NAME" --network host -v "$VOLUME:/data" \
  -e HOST=127.0.0.1 -e PORT=$PORT -e LOG_FORMAT=json -e GATEWAY_MASTER_KEY=$KEY \
  -e OPENAI_API_KEY=sk-image-check -e OPENAI_BASE_URL=http://127.0.0.1:18098/v1 ai-gateway:local >/dev/null
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
echo "container: $(podman --runtime runc inspect "$NAME" --format '{{.State.Status}}, user {{.Config.User}}, runtime {{.OCIRuntime}}')"
curl -sf "http://127.0.0.1:$PORT/ready"; echo
curl -sf "http://127.0.0.1:$PORT/v1/chat/completions" -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}' -D - -o /dev/null | grep -i '^x-gateway-overhead-ms'
curl -sf "http://127.0.0.1:$PORT/metrics" -H "authorization: Bearer $KEY" | grep '^gateway_requests_total'
# The image's own HEALTHCHECK command, run in the container (podman's timers need systemd, which is absent here).
podman --runtime runc healthcheck run "$NAME" && echo 'HEALTHCHECK: healthy'
podman --runtime runc exec "$NAME" ls -ln /data
podman --runtime runc exec "$NAME" id
podman --runtime runc stop -t 40 "$NAME" >/dev/null
echo "stopped: exit code $(podman --runtime runc inspect "$NAME" --format '{{.State.ExitCode}}')"
[ "$(podman --runtime runc inspect "$NAME" --format '{{.State.ExitCode}}')" = 0 ]
podman --runtime runc logs "$NAME" 2>&1 | tail -3
