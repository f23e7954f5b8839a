#!/usr/bin/env bash
# The container image as users get it: deploy/local-image-check.sh builds the Dockerfile with podman and runs the
# image as a real container (health, readiness, a proxied completion, metrics, HEALTHCHECK, the /data volume's
# owner, graceful stop). Needs root and podman, runc and debootstrap from Debian (installed here when missing by
# scripts/run-deploy-check.sh).
# Prints `container image: N passed, N failed`; a machine that cannot run containers at all, or a run without
# root, is reported as skipped and counts nothing.
cd "$(dirname "$0")/.."
exec scripts/run-deploy-check.sh 'container image' deploy/local-image-check.sh podman:podman runc:runc debootstrap:debootstrap
