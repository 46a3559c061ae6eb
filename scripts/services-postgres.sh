# FerretDB's PostgreSQL, sourced by services.sh: a cluster of its own on 127.0.0.1:$POSTGRES_PORT (no Unix
# socket) where every connection needs a password (SCRAM). Its superuser `postgres` is this script's; the
# service's role, $MONGO_USERNAME, owns FerretDB's databases and nothing else. FerretDB v1 passes each
# client's credentials through to PostgreSQL (PLAIN), so PostgreSQL is the lock on the MongoDB port too.
# A cluster an earlier version of this script made open (trust) is locked in place, its data kept.

# pg_hba.conf's first line once the cluster is locked.
PG_LOCKED="# agent-sessions: every connection needs its password (scram-sha-256); no Unix socket is opened."

postgres_bin() { find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1; }

# SQL from stdin as `postgres` with the password $1 (empty: none, for a cluster not yet locked), in database $2.
pg_sql() {
  PGPASSWORD="$1" "$PG_BIN/psql" -w -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -d "${2:-postgres}" -v ON_ERROR_STOP=1 -qAt
}

write_pg_hba() {
  printf '%s\nhost all all 127.0.0.1/32 scram-sha-256\n' "$PG_LOCKED" | "${PG_RUN[@]}" tee "$PG_DATA/pg_hba.conf" >/dev/null
}

# Superuser's password first (while trust still lets it in), then the rule that asks for it.
lock_open_postgres() {
  log "PostgreSQL on 127.0.0.1:$POSTGRES_PORT lets anyone in (made by an earlier version of this script): giving it passwords"
  pg_sql "" <<<"ALTER ROLE postgres PASSWORD '$POSTGRES_PASSWORD';"
  write_pg_hba
  "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" reload >/dev/null
}

# The superuser's password is the file's, or the one a rotation cut short left on the server.
check_postgres_password() {
  echo "SELECT 1" | pg_sql "$POSTGRES_PASSWORD" >/dev/null 2>&1 && return
  if [ -n "$PREVIOUS_POSTGRES_PASSWORD" ] && echo "ALTER ROLE postgres PASSWORD '$POSTGRES_PASSWORD';" | pg_sql "$PREVIOUS_POSTGRES_PASSWORD" 2>/dev/null; then
    return
  fi
  log "PostgreSQL on 127.0.0.1:$POSTGRES_PORT refuses the password in $CREDENTIALS; docs/operations.md, \"Local services without Docker\", says how to reset"
  exit 1
}

# The service's role (its password the file's, set every run: how a rotation reaches it) and FerretDB's
# database; then every database the superuser still owns (an open cluster's, made before the role) is
# handed to the role with its schemas and tables, the database itself last, so a run cut short resumes.
ensure_service_role() {
  local db
  pg_sql "$POSTGRES_PASSWORD" <<SQL
SELECT 'CREATE ROLE $MONGO_USERNAME LOGIN CREATEDB' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$MONGO_USERNAME')\gexec
ALTER ROLE $MONGO_USERNAME PASSWORD '$MONGO_PASSWORD';
SELECT 'CREATE DATABASE ferretdb OWNER $MONGO_USERNAME' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'ferretdb')\gexec
SQL
  for db in $(echo "SELECT datname FROM pg_database WHERE datdba = 'postgres'::regrole AND datname NOT IN ('postgres', 'template0', 'template1')" | pg_sql "$POSTGRES_PASSWORD"); do
    log "handing PostgreSQL database $db to $MONGO_USERNAME"
    pg_sql "$POSTGRES_PASSWORD" "$db" <<SQL
DO \$\$ DECLARE r record; BEGIN
  FOR r IN SELECT nspname FROM pg_namespace WHERE nspowner = 'postgres'::regrole AND nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('information_schema', 'public') LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO $MONGO_USERNAME', r.nspname);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relowner = 'postgres'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO $MONGO_USERNAME', r.t);
  END LOOP;
END \$\$;
ALTER DATABASE "$db" OWNER TO $MONGO_USERNAME;
SQL
  done
}

start_postgres() {
  PG_BIN=$(postgres_bin)
  if [ -z "$PG_BIN" ]; then
    log "installing postgresql from Debian's packages"
    apt_install postgresql
    PG_BIN=$(postgres_bin)
  fi
  # PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user, in its home.
  PG_RUN=()
  if [ "$(id -u)" -eq 0 ]; then
    PG_DATA="/var/lib/postgresql/agent-sessions-$POSTGRES_PORT"
    PG_RUN=(runuser -u postgres --)
  else
    PG_DATA="$STATE_DIR/postgres"
  fi
  if [ ! -s "$PG_DATA/PG_VERSION" ]; then
    if answers "$POSTGRES_PORT"; then log "a PostgreSQL this script did not make answers on 127.0.0.1:$POSTGRES_PORT; stop it or set POSTGRES_PORT"; exit 1; fi
    local pwfile
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    [ "$(id -u)" -ne 0 ] || chown postgres "$pwfile"
    "${PG_RUN[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=scram-sha-256 --pwfile="$pwfile" -E UTF8 >/dev/null
    rm -f "$pwfile"
    write_pg_hba
  fi
  if answers "$POSTGRES_PORT"; then
    log "postgresql already answers on 127.0.0.1:$POSTGRES_PORT"
  else
    "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/postgresql.log" -w \
      -o "-p $POSTGRES_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=''" start >/dev/null
    wait_for postgresql "$POSTGRES_PORT" "$PG_DATA/postgresql.log"
  fi
  [ "$("${PG_RUN[@]}" head -n 1 "$PG_DATA/pg_hba.conf")" = "$PG_LOCKED" ] || lock_open_postgres
  check_postgres_password
  ensure_service_role
}
