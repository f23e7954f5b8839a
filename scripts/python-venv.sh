#!/usr/bin/env bash
# Creates .venv with the Python packages the tests use (test/python/requirements.txt, pinned), once; reruns only
# when the requirements changed. Needs python3 with venv support (Debian: python3-venv, see system-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(sha256sum test/python/requirements.txt | cut -c1-16)
if [ -f .venv/.requirements ] && [ "$(cat .venv/.requirements)" = "$want" ]; then exit 0; fi
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r test/python/requirements.txt
echo "$want" >.venv/.requirements
