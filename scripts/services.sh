#!/usr/bin/env bash
# Installs (when missing) and starts local Redis and FerretDB for machines without Docker. FerretDB
# stores its data in PostgreSQL (installed and started here too), or in SQLite with
# FERRETDB_BACKEND=sqlite. Idempotent: a service that already answers on its port is left alone.
# `scripts/services.sh cluster` starts instead a local Redis Cluster of 3 masters (ports
# REDIS_CLUSTER_PORT..+2, 7001 by default; no replicas) from the same redis-server, for the tests'
# cluster run (REDIS_URL=redis+cluster://127.0.0.1:7001).
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}"
FERRETDB_VERSION="v1.24.2"
# The build carries scripts/ferretdb-id-index.patch; the name changes with the patch, so a machine
# holding an older build builds again.
FERRETDB_BIN="$STATE_DIR/bin/ferretdb-$FERRETDB_VERSION-id-index"
FERRETDB_PATCH="$(cd "$(dirname "$0")" && pwd)/ferretdb-id-index.patch"
FERRETDB_BACKEND="${FERRETDB_BACKEND:-postgresql}"
REDIS_PORT="${REDIS_PORT:-6379}"
MONGO_PORT="${MONGO_PORT:-27017}"
# Not 5432, which a system cluster installed with the package may hold.
POSTGRES_PORT="${POSTGRES_PORT:-54329}"
REDIS_CLUSTER_PORT="${REDIS_CLUSTER_PORT:-7001}"

log() { printf 'services: %s\n' "$*" >&2; }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

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

ensure_redis_server() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    log "installing redis-server from Debian's packages"
    apt_install redis-server
  fi
}

start_redis() {
  if answers "$REDIS_PORT"; then log "redis already answers on 127.0.0.1:$REDIS_PORT"; return; fi
  ensure_redis_server
  mkdir -p "$STATE_DIR/redis"
  # AOF on: the event log is the system of record for a conversation.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE_DIR/redis" \
    --appendonly yes --appendfsync everysec --logfile "$STATE_DIR/redis/redis.log"
  wait_for redis "$REDIS_PORT" "$STATE_DIR/redis/redis.log"
}

# Captured, not piped into `grep -q`: under pipefail a grep that exits early can fail the pipe.
cluster_ok() { [[ "$(redis-cli -p "$1" cluster info 2>/dev/null)" == *cluster_state:ok* ]]; }

# Three masters, each slot range assigned once: a cluster whose state is already ok is left alone.
start_redis_cluster() {
  local ports=("$REDIS_CLUSTER_PORT" "$((REDIS_CLUSTER_PORT + 1))" "$((REDIS_CLUSTER_PORT + 2))") port dir
  ensure_redis_server
  for port in "${ports[@]}"; do
    if answers "$port"; then log "redis already answers on 127.0.0.1:$port"; continue; fi
    dir="$STATE_DIR/redis-cluster/$port"
    mkdir -p "$dir"
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir" --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
      --appendonly yes --appendfsync everysec --logfile "$dir/redis.log"
    wait_for "redis (cluster node)" "$port" "$dir/redis.log"
  done
  if cluster_ok "${ports[0]}"; then
    log "the Redis Cluster on 127.0.0.1:${ports[0]} is already formed"
    log "REDIS_URL=redis+cluster://127.0.0.1:${ports[0]}"
    return
  fi
  local attempt out
  for attempt in 1 2 3; do
    # A port that accepts connections may belong to a node still starting: wait for its PONG.
    for port in "${ports[@]}"; do
      for _ in $(seq 1 100); do [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    done
    if out=$(redis-cli --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes 2>&1); then
      for _ in $(seq 1 100); do cluster_ok "${ports[0]}" && break; sleep 0.2; done
      cluster_ok "${ports[0]}" && break
      out="$(redis-cli -p "${ports[0]}" cluster info 2>&1)"
    fi
    log "the Redis Cluster did not form (attempt $attempt of 3); redis-cli said:"
    printf '%s\n' "$out" | tail -n 20 >&2
    # Forget the half-made cluster (the nodes hold no keys yet) and try again.
    for port in "${ports[@]}"; do redis-cli -p "$port" cluster reset hard >/dev/null 2>&1 || true; done
    sleep 1
  done
  cluster_ok "${ports[0]}" || { log "the Redis Cluster did not form"; exit 1; }
  log "Redis Cluster formed on 127.0.0.1:${ports[0]}-${ports[2]}"
  log "REDIS_URL=redis+cluster://127.0.0.1:${ports[0]}"
}

postgres_bin() { find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1; }

start_postgres() {
  if answers "$POSTGRES_PORT"; then log "postgresql already answers on 127.0.0.1:$POSTGRES_PORT"; return; fi
  local bin data
  bin=$(postgres_bin)
  if [ -z "$bin" ]; then
    log "installing postgresql from Debian's packages"
    apt_install postgresql
    bin=$(postgres_bin)
  fi
  # PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user, in its home.
  local run=()
  if [ "$(id -u)" -eq 0 ]; then
    data="/var/lib/postgresql/agent-sessions-$POSTGRES_PORT"
    run=(runuser -u postgres --)
  else
    data="$STATE_DIR/postgres"
  fi
  if [ ! -s "$data/PG_VERSION" ]; then
    # Trust: the cluster listens on the loopback address only, and no Unix socket.
    "${run[@]}" "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  "${run[@]}" "$bin/pg_ctl" -D "$data" -l "$data/postgresql.log" -w \
    -o "-p $POSTGRES_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=''" start >/dev/null
  wait_for postgresql "$POSTGRES_PORT" "$data/postgresql.log"
  local psql=("$bin/psql" -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -qAt)
  [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'")" = 1 ] \
    || "${psql[@]}" -c "CREATE DATABASE ferretdb"
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
  # Lookups by _id use the _id index on both backends (see the patch's header).
  (cd "$src" && git apply "$FERRETDB_PATCH")
  mkdir -p "$STATE_DIR/bin"
  (cd "$src" && go build -trimpath -o "$FERRETDB_BIN" ./cmd/ferretdb)
  rm -rf "$src"
}

start_ferretdb() {
  if answers "$MONGO_PORT"; then log "a MongoDB-wire server already answers on 127.0.0.1:$MONGO_PORT"; return; fi
  [ -x "$FERRETDB_BIN" ] || build_ferretdb
  local backend
  case "$FERRETDB_BACKEND" in
    postgresql)
      start_postgres
      backend=(--handler=postgresql "--postgresql-url=postgres://postgres@127.0.0.1:$POSTGRES_PORT/ferretdb") ;;
    sqlite)
      mkdir -p "$STATE_DIR/ferretdb/data"
      backend=(--handler=sqlite "--sqlite-url=file:$STATE_DIR/ferretdb/data/") ;;
    *) log "FERRETDB_BACKEND must be postgresql or sqlite"; exit 2 ;;
  esac
  mkdir -p "$STATE_DIR/ferretdb"
  nohup "$FERRETDB_BIN" "${backend[@]}" \
    --listen-addr="127.0.0.1:$MONGO_PORT" --debug-addr=127.0.0.1:0 --state-dir="$STATE_DIR/ferretdb" \
    --telemetry=disable --log-level=warn >"$STATE_DIR/ferretdb/ferretdb.log" 2>&1 &
  wait_for ferretdb "$MONGO_PORT" "$STATE_DIR/ferretdb/ferretdb.log"
}

if [ "${1:-}" = cluster ]; then
  start_redis_cluster
  exit 0
fi
start_redis
start_ferretdb
log "MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT/agent_sessions REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
