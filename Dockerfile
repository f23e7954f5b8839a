# syntax=docker/dockerfile:1
# The gateway as one compiled binary (bun build --compile) on a small Debian base with CA certificates, run as
# a non-root user; SQLite, its audit spill files and other state live in the /data volume.
#   docker build -t ai-gateway .
#   docker run -p 8080:8080 -v gateway-data:/data -e GATEWAY_MASTER_KEY=... -e OPENAI_API_KEY=... ai-gateway
# See README.md, "Run in production".

ARG BUN_VERSION=1.4.5

FROM docker.io/oven/bun:${BUN_VERSION} AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml tsconfig.json ./
RUN bun install --frozen-lockfile
COPY src ./src
COPY plugins ./plugins
# The binary must run here too: `healthcheck` with nothing listening has to exit 1 (not crash).
RUN bun run build && { ./dist/gateway healthcheck; test $? -eq 1; }

FROM docker.io/library/debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 gateway \
 && useradd --system --uid 10001 --gid gateway --home-dir /data --shell /usr/sbin/nologin gateway \
 && mkdir -p /data /files \
 && chown gateway:gateway /data /files
COPY --from=build /src/dist/gateway /usr/local/bin/gateway
USER 10001:10001
WORKDIR /data
# BUN_JSC_forceRAMSize: JavaScriptCore sizes heap growth by the host's RAM, not the container's limit; 512 MiB keeps
# the peak at 50 connections about 25 MiB lower (median 144 against 171 MiB) at CPU per request within the noise
# of the runs (docs/workers.md, "Memory per process").
ENV HOST=0.0.0.0 \
    PORT=8080 \
    GATEWAY_DB_PATH=/data/gateway.db \
    LOG_FORMAT=json \
    BUN_JSC_forceRAMSize=536870912
VOLUME ["/data"]
EXPOSE 8080
# Liveness: the binary probes its own /health (the image has no curl). Readiness is GET /ready (README).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 CMD ["/usr/local/bin/gateway", "healthcheck"]
# SIGTERM stops accepting connections, finishes in-flight requests and drains the audit queue; give it time
# (docker stop -t / stop_grace_period / terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/gateway"]
