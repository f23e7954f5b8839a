#!/usr/bin/env bash
# Brings compose.yaml up for real with podman-compose and checks it from outside: every service healthy (the compose
# health checks run in the containers), a key created through the load balancer works on both replicas, chat
# completions through the load balancer reach a mock upstream on the host and are spread over both replicas,
# /ready shows the PostgreSQL store, /metrics is not passed through nginx, Prometheus (the `metrics` profile)
# scrapes both replicas and counts the requests, and `podman-compose down` stops every
# replica and PostgreSQL with exit code 0 and leaves no container or volume behind. Exits 1 on the first check
# that fails, 3 when this machine cannot run it at all (no root, podman, podman-compose, runc, container DNS, or no
# container can start).
#
# Where the images compose.yaml names cannot be pulled (this project's machine reaches only npm, PyPI and Debian),
# stand-ins built from Debian packages (deploy/stand-ins/) are tagged with the same names; an image already present
# (pulled, or built earlier) is used as it is:
#   docker.io/library/postgres:17-alpine  <- postgresql-15; POSTGRES_USER/PASSWORD/DB, PGDATA, pg_isready
#   docker.io/library/redis:7.4-alpine    <- redis-server 7.0 and redis-cli
#   docker.io/library/nginx:1.27-alpine   <- nginx-light 1.22 and wget
#   docker.io/prom/prometheus:v3.0.1      <- prometheus 2.42
# ai-gateway:local comes from deploy/local-image-check.sh (run here when the image is missing). podman-compose 1.0.3
# ignores `profiles`, so the services are named: the `metrics` profile's Prometheus is started, the `tracing`
# profile's collector is not (no Debian package; its image cannot be pulled here).
# Usage: sudo deploy/compose-check.sh   (Debian: apt-get install -y podman podman-compose runc debootstrap
# golang-github-containernetworking-plugin-dnsname)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/gateway-compose-check}
PORT=${GATEWAY_PORT:-18180}
MOCK_PORT=${MOCK_PORT:-18198}
PROJECT=ai-gateway
NETWORK=${PROJECT}_default
SERVICES=(postgres redis gateway-1 gateway-2 lb prometheus)
HEALTHCHECKED=(postgres redis gateway-1 gateway-2 lb)
export GATEWAY_MASTER_KEY=compose-check-master-key-0123456789abcdef
export OPENAI_API_KEY=sk-compose-check
export POSTGRES_PASSWORD=compose-check-db-password
export GATEWAY_PORT=$PORT
mkdir -p "$WORK"
# runc: crun refuses this machine's hybrid cgroups; podman's default rlimits need CAP_SYS_RESOURCE.
printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' >"$WORK/containers.conf"
export CONTAINERS_CONF=$WORK/containers.conf

cannot() {
  echo "this machine cannot run the compose check: $*" >&2
  exit 3
}
[ "$(id -u)" -eq 0 ] || cannot "needs root"
for tool in podman podman-compose runc curl; do command -v "$tool" >/dev/null 2>&1 || cannot "$tool is missing"; done
# Service names resolve on a CNI network only with the dnsname plugin (netavark networks use aardvark-dns).
backend=$(podman info --format '{{.Host.NetworkBackend}}')
if [ "$backend" = cni ] && [ ! -x /usr/lib/cni/dnsname ] && [ ! -x /opt/cni/bin/dnsname ]; then
  cannot "no container DNS (apt-get install golang-github-containernetworking-plugin-dnsname)"
fi
if ! podman image exists ai-gateway:local; then
  status=0
  bash deploy/local-image-check.sh >"$WORK/image-check.log" 2>&1 || status=$?
  [ "$status" -eq 3 ] && cannot "$(tail -1 "$WORK/image-check.log")"
  [ "$status" -eq 0 ] || { tail -20 "$WORK/image-check.log" >&2; echo "building ai-gateway:local failed" >&2; exit 1; }
fi
for image in library/postgres:17-alpine library/redis:7.4-alpine library/nginx:1.27-alpine prom/prometheus:v3.0.1; do
  podman image exists "docker.io/$image" && continue
  echo "building a stand-in for docker.io/$image from Debian packages"
  name=${image#*/}
  podman build --format docker --pull=never --isolation=chroot --network=host -q \
    -f "deploy/stand-ins/${name%%:*}.Containerfile" -t "docker.io/$image" deploy/stand-ins >/dev/null
done
if ! probe=$(podman run --rm --network host docker.io/library/redis:7.4-alpine true 2>&1); then
  cannot "$probe"
fi

compose() {
  podman-compose -p "$PROJECT" -f compose.yaml -f "$WORK/override.yaml" "$@"
}
# The replicas reach the mock upstream on the host through host.containers.internal (the network's bridge address).
cat >"$WORK/override.yaml" <<EOF
services:
  gateway-1:
    environment:
      OPENAI_BASE_URL: http://host.containers.internal:$MOCK_PORT/v1
  gateway-2:
    environment:
      OPENAI_BASE_URL: http://host.containers.internal:$MOCK_PORT/v1
EOF
cleanup() {
  [ -n "${MOCK:-}" ] && kill "$MOCK" 2>/dev/null
  compose down -t 5 -v >/dev/null 2>&1 || true
  podman network rm -f "$NETWORK" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup

started=$(date +%s)
compose up -d --no-build "${SERVICES[@]}" >"$WORK/up.log" 2>&1 || { tail -20 "$WORK/up.log" >&2; exit 1; }
# The mock upstream listens on the network's bridge address, which exists once a container is attached.
bridge_ip=$(podman network inspect "$NETWORK" --format '{{range .Subnets}}{{.Gateway}}{{end}}')
MOCK_HOST=$bridge_ip bun bench/mock-upstream.ts "$MOCK_PORT" >"$WORK/mock.log" 2>&1 &
MOCK=$!
for _ in $(seq 1 50); do curl -sf -m 1 "http://$bridge_ip:$MOCK_PORT/__bench/stats" >/dev/null && break; sleep 0.2; done
echo "up: ${SERVICES[*]} on $NETWORK (bridge $bridge_ip), mock upstream on $bridge_ip:$MOCK_PORT"

fail() {
  echo "FAIL: $*" >&2
  for service in "${SERVICES[@]}"; do
    echo "--- logs of $service" >&2
    podman logs --tail 15 "${PROJECT}_${service}_1" >&2 2>&1 || true
  done
  exit 1
}
LB=http://127.0.0.1:$PORT
ready=
for _ in $(seq 1 120); do
  ready=$(curl -s -m 3 "$LB/ready" -H "authorization: Bearer $GATEWAY_MASTER_KEY" 2>/dev/null) && echo "$ready" | grep -q '"status":"ready"' && break
  ready=
  sleep 1
done
[ -n "$ready" ] || fail "the load balancer's /ready did not answer ready within 120 s"
echo "$ready" | grep -q '"backend":"postgres","reachable":true' || fail "/ready does not show the postgres store: $ready"
echo "ready through the load balancer after $(($(date +%s) - started)) s: store postgres, reachable"

# The compose health checks, run in each container (podman's health check timers need systemd, absent here);
# Prometheus has none in compose.yaml and is checked through its targets below.
for service in "${HEALTHCHECKED[@]}"; do
  healthy=
  for _ in $(seq 1 30); do
    podman healthcheck run "${PROJECT}_${service}_1" >/dev/null 2>&1 && healthy=1 && break
    sleep 1
  done
  [ -n "$healthy" ] || fail "$service is not healthy"
done
echo "healthy: ${HEALTHCHECKED[*]}"

replica_ip() {
  podman inspect "${PROJECT}_$1_1" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}'
}
R1=http://$(replica_ip gateway-1):8080
R2=http://$(replica_ip gateway-2):8080
for replica in "$R1" "$R2"; do
  curl -sf -m 3 "$replica/ready" -H "authorization: Bearer $GATEWAY_MASTER_KEY" | grep -q '"backend":"postgres"' || fail "replica $replica is not ready on postgres"
done

created=$(curl -s -m 10 "$LB/admin/keys" -H "authorization: Bearer $GATEWAY_MASTER_KEY" -H 'content-type: application/json' \
  -d '{"name":"compose-check","allowed_models":["openai/*"]}')
KEY=$(echo "$created" | sed -n 's/.*"key":"\(sk-gw-[^"]*\)".*/\1/p')
[ -n "$KEY" ] || fail "creating a key through the load balancer: $created"
completion() {
  curl -s -m 10 -o /dev/null -w '%{http_code}' "$1/v1/chat/completions" -H "authorization: Bearer $KEY" \
    -H 'content-type: application/json' -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
}
# Each replica sees the key (created through one of them) once its key snapshot has caught up.
for replica in "$R1" "$R2"; do
  code=
  for _ in $(seq 1 20); do
    code=$(completion "$replica") && [ "$code" = 200 ] && break
    sleep 0.5
  done
  [ "$code" = 200 ] || fail "the new key on replica $replica: HTTP $code"
done
echo "the key created through the load balancer works on both replicas ($R1, $R2)"

# Files live in the volume both replicas mount: uploaded through one, read through the other.
printf '{"custom_id":"a"}\n' >"$WORK/upload.jsonl"
uploaded=$(curl -s -m 10 "$R1/v1/files" -H "authorization: Bearer $KEY" -F purpose=batch -F "file=@$WORK/upload.jsonl")
file_id=$(echo "$uploaded" | sed -n 's/.*"id":"\(file-[^"]*\)".*/\1/p')
[ -n "$file_id" ] || fail "uploading a file through gateway-1: $uploaded"
downloaded=$(curl -s -m 10 "$R2/v1/files/$file_id/content" -H "authorization: Bearer $KEY")
[ "$downloaded" = '{"custom_id":"a"}' ] || fail "the file uploaded through gateway-1 reads '$downloaded' through gateway-2"
echo "a file uploaded through gateway-1 ($file_id) downloads through gateway-2"

served() {
  curl -sf -m 5 "$1/metrics" | awk '/^gateway_requests_total\{/ { n += $NF } END { print n + 0 }'
}
upstream_chats() {
  curl -sf -m 3 "http://$bridge_ip:$MOCK_PORT/__bench/stats" | sed -n 's/.*"chat":\([0-9]*\).*/\1/p'
}
before1=$(served "$R1")
before2=$(served "$R2")
before_upstream=$(upstream_chats)
requests=20
for i in $(seq 1 "$requests"); do
  code=$(completion "$LB")
  [ "$code" = 200 ] || fail "chat completion $i through the load balancer: HTTP $code"
done
s1=$(($(served "$R1") - before1))
s2=$(($(served "$R2") - before2))
upstream=$(($(upstream_chats) - before_upstream))
echo "$requests completions through the load balancer: all 200; answered by gateway-1: $s1, gateway-2: $s2; reached the mock upstream: $upstream"
[ "$s1" -ge 1 ] && [ "$s2" -ge 1 ] || fail "the load balancer did not spread requests over both replicas ($s1, $s2)"
[ "$((s1 + s2))" -eq "$requests" ] || fail "the replicas counted $((s1 + s2)) requests, expected $requests"
[ "$upstream" -eq "$requests" ] || fail "the mock upstream saw $upstream chat requests, expected $requests"
metrics_code=$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$LB/metrics")
[ "$metrics_code" = 404 ] || fail "/metrics through the load balancer: HTTP $metrics_code, expected 404"
echo "/metrics through the load balancer: 404 (scraped per replica on the compose network)"

# The metrics profile: Prometheus (published on :9090 by compose.yaml) scrapes both replicas by service name.
targets=
for _ in $(seq 1 60); do
  targets=$(curl -s -m 3 'http://127.0.0.1:9090/api/v1/targets?state=active' 2>/dev/null || true)
  [ "$(echo "$targets" | grep -o '"health":"up"' | wc -l)" -eq 2 ] && break
  sleep 1
done
for replica in gateway-1 gateway-2; do
  echo "$targets" | grep -q "\"scrapeUrl\":\"http://$replica:8080/metrics\"" || fail "Prometheus has no target $replica: $targets"
done
[ "$(echo "$targets" | grep -o '"health":"up"' | wc -l)" -eq 2 ] || fail "Prometheus does not scrape both replicas: $targets"
scraped=0
for _ in $(seq 1 40); do
  result=$(curl -s -m 3 'http://127.0.0.1:9090/api/v1/query' --data-urlencode 'query=sum(gateway_requests_total{job="ai-gateway"})' || true)
  scraped=$(echo "$result" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9.]*\)"\].*/\1/p')
  scraped=${scraped%.*}
  [ "${scraped:-0}" -ge "$requests" ] && break
  sleep 1
done
[ "${scraped:-0}" -ge "$requests" ] || fail "Prometheus's sum(gateway_requests_total) is ${scraped:-nothing}, expected at least $requests"
echo "Prometheus scrapes gateway-1 and gateway-2: both targets up, sum(gateway_requests_total) = $scraped"

# `podman wait` reports each container's exit code when `down` stops it (before it is removed).
mkdir -p "$WORK/exit"
rm -f "$WORK"/exit/*
for service in gateway-1 gateway-2 postgres; do
  (podman wait "${PROJECT}_${service}_1" >"$WORK/exit/$service" 2>/dev/null || true) &
done
sleep 1
stop_started=$(date +%s)
compose down -t 60 -v >"$WORK/down.log" 2>&1 || true
wait_for_exit_codes=$(date +%s)
while [ "$(ls "$WORK/exit" | wc -l)" -lt 3 ] && [ $(($(date +%s) - wait_for_exit_codes)) -lt 10 ]; do sleep 0.5; done
sleep 0.5
for service in gateway-1 gateway-2 postgres; do
  code=$(cat "$WORK/exit/$service" 2>/dev/null)
  [ "$code" = 0 ] || fail "$service did not stop cleanly under podman-compose down (exit code '${code}')"
done
echo "podman-compose down: gateway-1, gateway-2 and postgres exited 0 in $(($(date +%s) - stop_started)) s"
left=$(podman ps -a -q --filter "label=io.podman.compose.project=$PROJECT" | wc -l)
[ "$left" -eq 0 ] || fail "$left containers left after down"
volumes=$(podman volume ls -q --filter "label=io.podman.compose.project=$PROJECT" | wc -l)
[ "$volumes" -eq 0 ] || fail "$volumes volumes left after down -v"
podman network rm "$NETWORK" >/dev/null
echo "no container, volume or network left"
