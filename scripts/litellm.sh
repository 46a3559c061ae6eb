#!/usr/bin/env bash
# LiteLLM's proxy, a real OpenAI-compatible server from PyPI, for test/openai-litellm.test.ts.
#   install        makes its virtual environment once (LITELLM_VENV, default under the user's cache
#                  directory), pinned by scripts/litellm/requirements.txt, and prints its path;
#   serve CFG PORT installs if needed, then runs the proxy on 127.0.0.1:PORT with the config file CFG,
#                  offline (the model price map it ships, no telemetry).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${LITELLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-sessions/litellm}
REQ=scripts/litellm/requirements.txt

install() {
  if [ ! -x "$VENV/bin/litellm" ] || ! cmp -s "$REQ" "$VENV/requirements.txt"; then
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ" >&2
    cp "$REQ" "$VENV/requirements.txt"
  fi
}

case "${1:-}" in
  install)
    install
    echo "$VENV"
    ;;
  serve)
    [ $# -eq 3 ] || { echo "usage: $0 serve CONFIG PORT" >&2; exit 2; }
    install
    export LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_TELEMETRY=False LITELLM_LOG=ERROR
    exec "$VENV/bin/litellm" --config "$2" --host 127.0.0.1 --port "$3"
    ;;
  *)
    echo "usage: $0 install | serve CONFIG PORT" >&2
    exit 2
    ;;
esac
