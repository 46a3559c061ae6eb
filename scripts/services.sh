#!/usr/bin/env bash
# Installs (when missing) and starts local Redis and FerretDB for machines without Docker.
# Idempotent: a service that already answers on its port is left alone.
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}"
FERRETDB_VERSION="v1.24.2"
FERRETDB_BIN="$STATE_DIR/bin/ferretdb-$FERRETDB_VERSION"
REDIS_PORT=6379
MONGO_PORT=27017

log() { printf 'services: %s\n' "$*" >&2; }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

wait_for() {
  local name=$1 port=$2 log_file=$3
  for _ in $(seq 1 100); do
    answers "$port" && { log "$name is up on 127.0.0.1:$port"; return 0; }
    sleep 0.2
  done
  log "$name did not start on 127.0.0.1:$port; its log follows"
  tail -n 30 "$log_file" >&2 || true
  return 1
}

start_redis() {
  if answers "$REDIS_PORT"; then log "redis already answers on 127.0.0.1:$REDIS_PORT"; return; fi
  if ! command -v redis-server >/dev/null; then
    log "installing redis-server from Debian's packages"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq redis-server >/dev/null
  fi
  mkdir -p "$STATE_DIR/redis"
  # AOF on: the event log is the system of record for a conversation.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE_DIR/redis" \
    --appendonly yes --appendfsync everysec --logfile "$STATE_DIR/redis/redis.log"
  wait_for redis "$REDIS_PORT" "$STATE_DIR/redis/redis.log"
}

build_ferretdb() {
  command -v go >/dev/null || { log "Go is needed to build FerretDB (https://go.dev/dl/)"; exit 1; }
  log "building FerretDB $FERRETDB_VERSION (about a minute)"
  # `go install ...@v1.24.2` is not used: the module proxy refuses the version list that its deprecation
  # check reads, and the module zip lacks the generated build/version/version.txt that the binary needs
  # at start. So the same module version is downloaded, that file written, and the command built.
  local dir src
  dir=$(cd /tmp && go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { log "could not download the FerretDB module"; exit 1; }
  src=$(mktemp -d)
  cp -r "$dir/." "$src"
  chmod -R u+w "$src"
  echo "$FERRETDB_VERSION" > "$src/build/version/version.txt"
  mkdir -p "$STATE_DIR/bin"
  (cd "$src" && go build -trimpath -o "$FERRETDB_BIN" ./cmd/ferretdb)
  rm -rf "$src"
}

start_ferretdb() {
  if answers "$MONGO_PORT"; then log "a MongoDB-wire server already answers on 127.0.0.1:$MONGO_PORT"; return; fi
  [ -x "$FERRETDB_BIN" ] || build_ferretdb
  mkdir -p "$STATE_DIR/ferretdb/data"
  nohup "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$STATE_DIR/ferretdb/data/" \
    --listen-addr="127.0.0.1:$MONGO_PORT" --debug-addr=127.0.0.1:0 --state-dir="$STATE_DIR/ferretdb" \
    --telemetry=disable --log-level=warn >"$STATE_DIR/ferretdb/ferretdb.log" 2>&1 &
  wait_for ferretdb "$MONGO_PORT" "$STATE_DIR/ferretdb/ferretdb.log"
}

start_redis
start_ferretdb
log "MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT/agent_sessions REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
