#!/usr/bin/env bash
# compose.yaml as users run it: deploy/compose-check.sh brings the stack up with podman-compose (two replicas behind
# nginx, PostgreSQL, Redis; stand-in images from Debian packages where the real ones cannot be pulled) and checks it
# from outside (health, readiness on PostgreSQL, a key created through the load balancer working on both replicas,
# completions spread over both replicas to a mock upstream, Prometheus scraping both, a clean `podman-compose down`). Needs root and podman,
# podman-compose, runc, debootstrap and the CNI dnsname plugin from Debian (installed here when missing by
# scripts/run-deploy-check.sh).
# Prints `compose stack: N passed, N failed`; a machine that cannot run it, or a run without root, is reported as
# skipped and counts nothing.
cd "$(dirname "$0")/.."
exec scripts/run-deploy-check.sh 'compose stack' deploy/compose-check.sh podman:podman podman-compose:podman-compose runc:runc debootstrap:debootstrap /usr/lib/cni/dnsname:golang-github-containernetworking-plugin-dnsname
