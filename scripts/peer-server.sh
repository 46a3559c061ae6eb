#!/usr/bin/env bash
# LangGraph's local Agent Server for `npm run bench:peer` (bench/peer.ts), installed from PyPI into a
# virtual environment of its own under the state directory scripts/services.sh uses, with pinned
# versions; a venv already holding the same pins is reused.
#   scripts/peer-server.sh install                   installs (when needed) and prints the versions
#   scripts/peer-server.sh serve POLL PORT DIR       writes a one-node echo graph into DIR and runs
#                                                    `langgraph dev` there on 127.0.0.1:PORT (exec: the
#                                                    caller's child is the server)
# POLL is `shipped` (the in-memory runtime as installed: its queue polls every 0.5 s) or `shortened`: the
# `asyncio.sleep(0.5)` in `Runs.next` of langgraph_runtime_inmem/ops.py becomes 1 ms in a copy of the
# package put ahead of the venv's on PYTHONPATH; the installed files are never changed. If that line is
# not where it was, the script stops: the pins and the patch go together.
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}"
PEER_DIR="$STATE_DIR/langgraph-peer"
VENV="$PEER_DIR/venv"
OVERLAY="$PEER_DIR/poll-1ms"
# langgraph-runtime-inmem 0.36.x is the runtime langgraph-api 0.16.7 requires (>=0.36.0.dev0,<0.37);
# 0.36.7 is the release beside it. langgraph-cli[inmem] provides `langgraph dev`.
PINS=(langgraph-api==0.16.7 langgraph-runtime-inmem==0.36.7 "langgraph-cli[inmem]==0.4.40" langgraph==1.2.24)
SHIPPED_POLL="            await asyncio.sleep(0.5)"
SHORT_POLL="            await asyncio.sleep(0.001)  # shortened by scripts/peer-server.sh"

log() { printf 'peer: %s\n' "$*" >&2; }

install() {
  local python="${PEER_PYTHON:-python3}"
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/pins.txt" 2>/dev/null)" = "${PINS[*]}" ]; then return; fi
  log "installing ${PINS[*]} into $VENV (from PyPI)"
  rm -rf "$VENV"
  mkdir -p "$PEER_DIR"
  "$python" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
  printf '%s' "${PINS[*]}" >"$VENV/pins.txt"
}

# A copy of the in-memory runtime with the queue's poll shortened; made afresh each time.
shorten_poll() {
  local site
  site="$("$VENV/bin/python" -c 'import langgraph_runtime_inmem, os; print(os.path.dirname(os.path.dirname(langgraph_runtime_inmem.__file__)))')"
  rm -rf "$OVERLAY"
  mkdir -p "$OVERLAY"
  cp -r "$site/langgraph_runtime_inmem" "$OVERLAY/"
  local ops="$OVERLAY/langgraph_runtime_inmem/ops.py"
  # The line must be the first `sleep(0.5)` after `async def next(wait: bool`, within its first 12 lines.
  local start line
  start="$(grep -n '^    async def next(wait: bool' "$ops" | cut -d: -f1)"
  line="$(grep -nxF "$SHIPPED_POLL" "$ops" | cut -d: -f1 | head -1)"
  if [ -z "$start" ] || [ -z "$line" ] || [ $((line - start)) -lt 1 ] || [ $((line - start)) -gt 12 ] || [ "$(grep -cxF "$SHIPPED_POLL" "$ops")" -ne 1 ]; then
    log "FAILED: '${SHIPPED_POLL# *}' not found once in Runs.next of $ops; the pinned runtime changed, update this script"
    exit 1
  fi
  sed -i "${line}s|.*|$SHORT_POLL|" "$ops"
  local loaded
  loaded="$(cd "$OVERLAY" && PYTHONPATH="$OVERLAY" "$VENV/bin/python" -c 'import langgraph_runtime_inmem.ops as o; print(o.__file__)')"
  if [ "$loaded" != "$ops" ]; then
    log "FAILED: the shortened copy is not the one Python loads ($loaded)"
    exit 1
  fi
  log "queue poll shortened: $ops line $line, Runs.next: 'asyncio.sleep(0.5)' → 'asyncio.sleep(0.001)' (copy ahead on PYTHONPATH)"
}

write_graph() {
  local dir="$1"
  cat >"$dir/echo_graph.py" <<'EOF'
"""One node, no model: the answer is the last message echoed."""
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list, add_messages]


def echo(state: State) -> dict:
    return {"messages": [{"role": "assistant", "content": state["messages"][-1].content}]}


graph = StateGraph(State).add_node("echo", echo).add_edge(START, "echo").add_edge("echo", END).compile()
EOF
  printf '{"dependencies": ["."], "graphs": {"echo": "./echo_graph.py:graph"}}\n' >"$dir/langgraph.json"
}

case "${1:-}" in
  install)
    install
    "$VENV/bin/python" - <<'EOF'
import platform
from importlib.metadata import version
names = ["langgraph-api", "langgraph-runtime-inmem", "langgraph-cli", "langgraph", "langgraph-checkpoint", "uvicorn"]
print("; ".join(f"{n} {version(n)}" for n in names) + f"; Python {platform.python_version()}")
EOF
    ;;
  serve)
    [ $# -eq 4 ] || { log "usage: $0 serve shipped|shortened PORT DIR"; exit 2; }
    poll="$2" port="$3" dir="$4"
    install
    case "$poll" in
      shortened) shorten_poll; export PYTHONPATH="$OVERLAY" ;;
      shipped) log "queue poll as shipped: Runs.next sleeps 0.5 s between polls" ;;
      *) log "POLL is shipped or shortened, not $poll"; exit 2 ;;
    esac
    write_graph "$dir"
    cd "$dir"
    # No tracing, no telemetry, no browser, no reloader (one process); a job slot for each client.
    export LANGSMITH_TRACING=false LANGCHAIN_TRACING_V2=false LANGSMITH_API_KEY="" LANGCHAIN_API_KEY="" LANGGRAPH_CLI_NO_ANALYTICS=1
    exec "$VENV/bin/langgraph" dev --config langgraph.json --host 127.0.0.1 --port "$port" --no-browser --no-reload \
      --n-jobs-per-worker "${PEER_JOBS:-16}" --server-log-level warning
    ;;
  *)
    log "usage: $0 install | serve shipped|shortened PORT DIR"
    exit 2
    ;;
esac
