#!/usr/bin/env bash
# Installs the pinned schemathesis in a virtual environment (CONTRACT_VENV, default .venv-contract) once,
# and prints the path of its executable.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${CONTRACT_VENV:-.venv-contract}
REQ=scripts/contract/requirements.txt
PY=$(command -v python3.11 || command -v python3)
if [ ! -x "$VENV/bin/schemathesis" ] || ! cmp -s "$REQ" "$VENV/requirements.txt"; then
  "$PY" -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ" >&2
  cp "$REQ" "$VENV/requirements.txt"
fi
echo "$PWD/$VENV/bin/schemathesis"
