#!/usr/bin/env bash
# Installs (when missing) and starts local Redis and FerretDB for machines without Docker, locked: Redis
# requires a password, and FerretDB stores its data in PostgreSQL (installed and started here too), which
# requires one for every connection, FerretDB passing each client's through (scripts/services-postgres.sh).
# The passwords are made once into the state directory's secrets/credentials.env (0600), with the URLs
# that carry them (scripts/services-credentials.sh); npm start, npm test and the CLI read them from there.
# Idempotent: a server it started that already answers is left running, and one that an earlier version
# started open is locked with its data kept (Redis in place; FerretDB started again), and a FerretDB of an
# earlier build is started again as the current one. FERRETDB_BACKEND=sqlite
# keeps FerretDB's data in SQLite instead, where FerretDB v1 has no authentication: that one stays open.
#   scripts/services.sh cluster   a local Redis Cluster of 3 masters (ports REDIS_CLUSTER_PORT..+2, 7001 by
#                                 default; no replicas), for the tests' cluster run, with the same password
#   scripts/services.sh rotate    new passwords for the running servers (then restart the service's processes)
#   scripts/services.sh url NAME  prints MONGO_URL, REDIS_URL or REDIS_CLUSTER_URL from the credentials file
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}"
FERRETDB_VERSION="v1.24.2"
# The build carries scripts/ferretdb-*.patch (FERRETDB_PATCHES, in order); the name changes with the
# patches, so a machine holding an older build builds again.
FERRETDB_BIN="$STATE_DIR/bin/ferretdb-$FERRETDB_VERSION-id-index-pool-release"
FERRETDB_BACKEND="${FERRETDB_BACKEND:-postgresql}"
REDIS_PORT="${REDIS_PORT:-6379}"
MONGO_PORT="${MONGO_PORT:-27017}"
# Not 5432, which a system cluster installed with the package may hold.
POSTGRES_PORT="${POSTGRES_PORT:-54329}"
REDIS_CLUSTER_PORT="${REDIS_CLUSTER_PORT:-7001}"
SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
FERRETDB_PATCHES=("$SCRIPTS/ferretdb-id-index.patch" "$SCRIPTS/ferretdb-pool-release.patch")

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

# redis-cli with a password ($1; none if empty) from the environment, never on a command line (`ps` shows those).
redis_as() {
  local password=$1
  shift
  if [ -n "$password" ]; then REDISCLI_AUTH="$password" redis-cli "$@"; else redis-cli "$@"; fi
}
rcli() { redis_as "$REDIS_PASSWORD" "$@"; }

# The password of every Redis this script starts, in a file only its owner reads (`masterauth` matters
# to the cluster's nodes alone).
redis_conf() {
  (umask 077 && printf 'requirepass %s\nmasterauth %s\n' "$REDIS_PASSWORD" "$REDIS_PASSWORD" >"$SECRETS_DIR/redis.conf")
  echo "$SECRETS_DIR/redis.conf"
}

# A Redis answering on $1 takes the file's password: already, or once given it. One started open by an
# earlier version of this script (its directory is $2) is given it in place, its data and clients kept;
# one locked with the password a rotation replaces is given the new one.
lock_redis() {
  local port=$1 dir=$2 reply old=
  reply=$(redis-cli -p "$port" ping 2>&1 || true)
  if [ "$reply" = PONG ]; then
    if [ "$(redis-cli -p "$port" config get dir | tail -n 1)" != "$(cd "$dir" 2>/dev/null && pwd -P)" ]; then
      log "a Redis this script did not start answers on 127.0.0.1:$port without a password; stop it, or set REDIS_URL to it"
      exit 1
    fi
    log "redis on 127.0.0.1:$port was started without a password (by an earlier version of this script): giving it one"
  elif [ "$(rcli -p "$port" ping 2>&1)" = PONG ]; then
    return
  elif [ -n "$PREVIOUS_REDIS_PASSWORD" ] && [ "$(redis_as "$PREVIOUS_REDIS_PASSWORD" -p "$port" ping 2>&1)" = PONG ]; then
    old=$PREVIOUS_REDIS_PASSWORD
    log "redis on 127.0.0.1:$port: the rotation's new password"
  else
    log "redis on 127.0.0.1:$port refuses the password in $CREDENTIALS ($reply)"
    exit 1
  fi
  local setting
  # requirepass last: the next connection needs it.
  for setting in masterauth requirepass; do
    printf '%s' "$REDIS_PASSWORD" | redis_as "$old" -p "$port" -x config set "$setting" >/dev/null
  done
}

start_redis() {
  ensure_redis_server
  mkdir -p "$STATE_DIR/redis"
  chmod 700 "$STATE_DIR/redis"
  if answers "$REDIS_PORT"; then
    lock_redis "$REDIS_PORT" "$STATE_DIR/redis"
    log "redis already answers on 127.0.0.1:$REDIS_PORT"
  else
    # AOF on: the event log is the system of record for a conversation.
    redis-server "$(redis_conf)" --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE_DIR/redis" \
      --appendonly yes --appendfsync everysec --logfile "$STATE_DIR/redis/redis.log"
    wait_for redis "$REDIS_PORT" "$STATE_DIR/redis/redis.log"
  fi
  record_url REDIS_URL "redis://:$REDIS_PASSWORD@127.0.0.1:$REDIS_PORT"
}

cluster_ports() { echo "$REDIS_CLUSTER_PORT" "$((REDIS_CLUSTER_PORT + 1))" "$((REDIS_CLUSTER_PORT + 2))"; }

# Captured, not piped into `grep -q`: under pipefail a grep that exits early can fail the pipe.
cluster_ok() { [[ "$(rcli -p "$1" cluster info 2>/dev/null)" == *cluster_state:ok* ]]; }

# Three masters, each slot range assigned once: a cluster whose state is already ok is left alone.
start_redis_cluster() {
  local ports port dir
  read -r -a ports <<<"$(cluster_ports)"
  ensure_redis_server
  for port in "${ports[@]}"; do
    dir="$STATE_DIR/redis-cluster/$port"
    mkdir -p "$dir"
    chmod 700 "$STATE_DIR/redis-cluster" "$dir"
    if answers "$port"; then
      lock_redis "$port" "$dir"
      log "redis already answers on 127.0.0.1:$port"
      continue
    fi
    redis-server "$(redis_conf)" --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir" --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
      --appendonly yes --appendfsync everysec --logfile "$dir/redis.log"
    wait_for "redis (cluster node)" "$port" "$dir/redis.log"
  done
  record_url REDIS_CLUSTER_URL "redis+cluster://:$REDIS_PASSWORD@127.0.0.1:${ports[0]}"
  if cluster_ok "${ports[0]}"; then
    log "the Redis Cluster on 127.0.0.1:${ports[0]} is already formed"
    return
  fi
  local attempt out
  for attempt in 1 2 3; do
    # A port that accepts connections may belong to a node still starting: wait for its PONG.
    for port in "${ports[@]}"; do
      for _ in $(seq 1 100); do [ "$(rcli -p "$port" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    done
    if out=$(rcli --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes 2>&1); then
      for _ in $(seq 1 100); do cluster_ok "${ports[0]}" && break; sleep 0.2; done
      cluster_ok "${ports[0]}" && break
      out="$(rcli -p "${ports[0]}" cluster info 2>&1)"
    fi
    log "the Redis Cluster did not form (attempt $attempt of 3); redis-cli said:"
    printf '%s\n' "$out" | tail -n 20 >&2
    # Forget the half-made cluster (the nodes hold no keys yet) and try again.
    for port in "${ports[@]}"; do rcli -p "$port" cluster reset hard >/dev/null 2>&1 || true; done
    sleep 1
  done
  cluster_ok "${ports[0]}" || { log "the Redis Cluster did not form"; exit 1; }
  log "Redis Cluster formed on 127.0.0.1:${ports[0]}-${ports[2]}"
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
  # Lookups by _id use the _id index on both backends; an update gives its query's connection back
  # before it writes, so a bulk of updates cannot hold the whole pool (see each patch's header).
  local patch
  for patch in "${FERRETDB_PATCHES[@]}"; do (cd "$src" && git apply "$patch"); done
  mkdir -p "$STATE_DIR/bin"
  (cd "$src" && go build -trimpath -o "$FERRETDB_BIN" ./cmd/ferretdb)
  rm -rf "$src"
}

# The pid of the FerretDB this script started for $MONGO_PORT (by any version of it), if one runs.
ferretdb_pid() {
  local f cmd
  for f in /proc/[0-9]*/cmdline; do
    cmd=$({ tr '\0' ' ' <"$f"; } 2>/dev/null) || continue
    if [[ "$cmd" == *"--listen-addr=127.0.0.1:$MONGO_PORT "* && "$cmd" == *"--state-dir=$STATE_DIR/ferretdb "* ]]; then
      f=${f#/proc/}
      echo "${f%/cmdline}"
      return 0
    fi
  done
  return 1
}

stop_pid() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}

# On PostgreSQL, the FerretDB that answers must be one that connects as the service's role with each
# client's password: one started by an earlier version (as `postgres`, open) is stopped and started
# again, as is any after a rotation (its pools hold connections made with the old password), and one of
# an earlier build (without the current patches). A running one keeps its backend and PostgreSQL port,
# where its data is; on SQLite it is otherwise left as it is.
start_ferretdb() {
  [ -x "$FERRETDB_BIN" ] || build_ferretdb
  mkdir -p "$STATE_DIR/ferretdb"
  chmod 700 "$STATE_DIR/ferretdb"
  local pid cmd user= outdated= backend re='--postgresql-url=postgres://([^@]*)@127\.0\.0\.1:([0-9]+)/'
  if answers "$MONGO_PORT"; then
    pid=$(ferretdb_pid) || { log "a MongoDB-wire server this script did not start answers on 127.0.0.1:$MONGO_PORT; stop it, or set MONGO_URL to it"; exit 1; }
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
    # A build without the current patches (an earlier version of this script's) is started again as this one.
    [ "$(readlink "/proc/$pid/exe")" = "$FERRETDB_BIN" ] || outdated=1
    if [[ "$cmd" == *--sqlite-url=* ]]; then
      FERRETDB_BACKEND=sqlite
      if [ -z "$outdated" ]; then
        log "FerretDB (SQLite) already answers on 127.0.0.1:$MONGO_PORT"
        return
      fi
    else
      FERRETDB_BACKEND=postgresql
      if [[ "$cmd" =~ $re ]]; then user=${BASH_REMATCH[1]} POSTGRES_PORT=${BASH_REMATCH[2]}; fi
      if [ "$user" = "$MONGO_USERNAME" ] && [ ! -f "$PREVIOUS_CREDENTIALS" ] && [ -z "$outdated" ]; then
        start_postgres
        log "FerretDB already answers on 127.0.0.1:$MONGO_PORT"
        return
      fi
    fi
    if [ -n "$outdated" ]; then
      log "stopping FerretDB (pid $pid), an earlier build, to start $(basename "$FERRETDB_BIN"); its data stays"
    else
      log "stopping FerretDB (pid $pid) to start it again locked, with the passwords of $CREDENTIALS; its data stays in PostgreSQL"
    fi
    stop_pid "$pid"
  fi
  case "$FERRETDB_BACKEND" in
    postgresql)
      start_postgres
      # No password in it: a client that gives none gets nothing from PostgreSQL.
      backend=(--handler=postgresql "--postgresql-url=postgres://$MONGO_USERNAME@127.0.0.1:$POSTGRES_PORT/ferretdb") ;;
    sqlite)
      mkdir -p "$STATE_DIR/ferretdb/data"
      backend=(--handler=sqlite "--sqlite-url=file:$STATE_DIR/ferretdb/data/") ;;
    *) log "FERRETDB_BACKEND must be postgresql or sqlite"; exit 2 ;;
  esac
  nohup "$FERRETDB_BIN" "${backend[@]}" \
    --listen-addr="127.0.0.1:$MONGO_PORT" --debug-addr=127.0.0.1:0 --state-dir="$STATE_DIR/ferretdb" \
    --telemetry=disable --log-level=warn >"$STATE_DIR/ferretdb/ferretdb.log" 2>&1 &
  wait_for ferretdb "$MONGO_PORT" "$STATE_DIR/ferretdb/ferretdb.log"
}

# What the service connects with: PLAIN, the mechanism FerretDB v1 passes through to PostgreSQL.
mongo_url() {
  if [ "$FERRETDB_BACKEND" = sqlite ]; then
    log "FerretDB on SQLite has no authentication (FerretDB v1): its port is open to every local process"
    echo "mongodb://127.0.0.1:$MONGO_PORT/agent_sessions"
  else
    echo "mongodb://$MONGO_USERNAME:$MONGO_PASSWORD@127.0.0.1:$MONGO_PORT/agent_sessions?authMechanism=PLAIN"
  fi
}

# A rotation is over once every running server has the new password: the cluster's nodes too.
finish_rotation() {
  [ -f "$PREVIOUS_CREDENTIALS" ] || return 0
  local port
  for port in $(cluster_ports); do
    answers "$port" && lock_redis "$port" "$STATE_DIR/redis-cluster/$port"
  done
  rm -f "$PREVIOUS_CREDENTIALS"
  log "new passwords in $CREDENTIALS; restart the service's processes so they read them"
}

. "$SCRIPTS/services-credentials.sh"
. "$SCRIPTS/services-postgres.sh"

case "${1:-}" in
  url)
    value=$(credential "$CREDENTIALS" "${2:?usage: services.sh url MONGO_URL|REDIS_URL|REDIS_CLUSTER_URL}")
    [ -n "$value" ] || { log "no $2 in $CREDENTIALS: run scripts/services.sh$([ "$2" != REDIS_CLUSTER_URL ] || echo ' cluster') first"; exit 1; }
    echo "$value"
    exit 0 ;;
  cluster)
    load_credentials
    start_redis_cluster
    log "REDIS_URL for the cluster: in $CREDENTIALS (REDIS_CLUSTER_URL), or scripts/services.sh url REDIS_CLUSTER_URL"
    exit 0 ;;
  rotate) rotate_credentials ;;
  # This script's stores from now on, even where ensure-services.mjs made Docker ones before.
  "") load_credentials && LOCAL_STORES= ;;
  *) log "usage: scripts/services.sh [cluster | rotate | url NAME]"; exit 2 ;;
esac
start_redis
start_ferretdb
record_url MONGO_URL "$(mongo_url)"
finish_rotation
log "MONGO_URL and REDIS_URL, with their passwords: in $CREDENTIALS (npm start, npm test and the CLI read them)"
