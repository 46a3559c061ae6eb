# The local stores' credentials, sourced by services.sh. Made once into $SECRETS_DIR/credentials.env (a
# 0600 file in a 0700 directory), read back on every run, with the URLs that carry them beside them: what
# npm start, npm test and the CLI use when MONGO_URL and REDIS_URL are unset (src/local-state.ts), and
# what scripts print with `services.sh url NAME`. Values are single-quoted: the file can be sourced too.
SECRETS_DIR="$STATE_DIR/secrets"
CREDENTIALS="$SECRETS_DIR/credentials.env"
# Left by `services.sh rotate` until every server has taken the new passwords: what they may still hold.
PREVIOUS_CREDENTIALS="$SECRETS_DIR/credentials.previous.env"
# The service's user: FerretDB passes it through to PostgreSQL, where it owns FerretDB's database.
MONGO_USERNAME=agent_sessions

# A value of a credentials file, or nothing.
credential() { if [ -f "$1" ]; then sed -n "s/^$2='\(.*\)'\$/\1/p" "$1" | tail -n 1; fi; }
# 24 random bytes, hex: safe in a URL, a shell word and an SQL literal.
new_secret() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

write_credentials() {
  local tmp line
  tmp=$(mktemp "$SECRETS_DIR/.credentials.XXXXXX")
  {
    echo "# The local stores' passwords and URLs, made once by scripts/services.sh (docs/operations.md: \"Local services"
    echo "# without Docker\"). npm start, npm test and the CLI use the URLs when MONGO_URL and REDIS_URL are unset."
    for line in LOCAL_STORES REDIS_PASSWORD MONGO_USERNAME MONGO_PASSWORD POSTGRES_PASSWORD LOCAL_MONGO_URL LOCAL_REDIS_URL LOCAL_REDIS_CLUSTER_URL; do
      [ -n "${!line}" ] && printf "%s='%s'\n" "${line#LOCAL_}" "${!line}"
    done
  } >"$tmp"
  mv "$tmp" "$CREDENTIALS"
}

# Reads the file (making what is missing) and writes it back before any server is given a password, so a
# password a server holds is never one the file lacks.
load_credentials() {
  mkdir -p "$SECRETS_DIR"
  chmod 700 "$SECRETS_DIR"
  local name
  for name in REDIS_PASSWORD MONGO_PASSWORD POSTGRES_PASSWORD; do
    printf -v "$name" '%s' "$(credential "$CREDENTIALS" "$name")"
    [ -n "${!name}" ] || printf -v "$name" '%s' "$(new_secret)"
    printf -v "PREVIOUS_$name" '%s' "$(credential "$PREVIOUS_CREDENTIALS" "$name")"
  done
  # `docker`: ensure-services.mjs made the stores in Docker containers (a cluster run keeps that).
  LOCAL_STORES=$(credential "$CREDENTIALS" STORES)
  LOCAL_MONGO_URL=$(credential "$CREDENTIALS" MONGO_URL)
  LOCAL_REDIS_URL=$(credential "$CREDENTIALS" REDIS_URL)
  LOCAL_REDIS_CLUSTER_URL=$(credential "$CREDENTIALS" REDIS_CLUSTER_URL)
  write_credentials
}

# `services.sh rotate`: new passwords into the file, the old ones kept aside until every running server
# has taken the new ones. A rotation cut short is finished (not begun again) by the next run.
rotate_credentials() {
  load_credentials
  [ "$LOCAL_STORES" != docker ] || { log "the stores in $CREDENTIALS are Docker containers (scripts/ensure-services.mjs): rotate is for this script's"; exit 1; }
  if [ -f "$PREVIOUS_CREDENTIALS" ]; then log "finishing the rotation begun earlier"; return; fi
  cp -p "$CREDENTIALS" "$PREVIOUS_CREDENTIALS"
  PREVIOUS_REDIS_PASSWORD=$REDIS_PASSWORD PREVIOUS_MONGO_PASSWORD=$MONGO_PASSWORD PREVIOUS_POSTGRES_PASSWORD=$POSTGRES_PASSWORD
  REDIS_PASSWORD=$(new_secret) MONGO_PASSWORD=$(new_secret) POSTGRES_PASSWORD=$(new_secret)
  LOCAL_MONGO_URL=${LOCAL_MONGO_URL/":$PREVIOUS_MONGO_PASSWORD@"/":$MONGO_PASSWORD@"}
  LOCAL_REDIS_URL=${LOCAL_REDIS_URL/":$PREVIOUS_REDIS_PASSWORD@"/":$REDIS_PASSWORD@"}
  LOCAL_REDIS_CLUSTER_URL=${LOCAL_REDIS_CLUSTER_URL/":$PREVIOUS_REDIS_PASSWORD@"/":$REDIS_PASSWORD@"}
  write_credentials
}

# The URLs with their passwords, written once the servers they name answer.
record_url() {
  printf -v "LOCAL_$1" '%s' "$2"
  write_credentials
}
