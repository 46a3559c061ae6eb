#!/usr/bin/env bash
# The contract tested by a third party: schemathesis (pinned, scripts/contract/requirements.txt) runs every
# check it has against the served OpenAPI documents of the core interface and the deployments interface of a
# real service process (role all, mock models), in its examples, coverage, fuzzing and stateful phases (every check is on by
# default; the config file turns one off for one operation, which a CLI `--checks all` would override).
# Prints the requests each interface received; exits non-zero on any failure. Exclusions: docs/decisions/operations-and-ci.md,
# "Contract tested by a third party".
set -euo pipefail
cd "$(dirname "$0")/.."

ST=$(bash scripts/contract/venv.sh)
[ -f dist/src/main.js ] || npm run -s build
node scripts/ensure-services.mjs

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
RUN=contract$(date +%s)$$
PORT=$(free_port)
DEPLOYMENTS_PORT=$(free_port)
# Unset: the local services', with their passwords (the credentials file ensure-services.mjs left), else the defaults.
local_url() { bash scripts/services.sh url "$1" 2>/dev/null || echo "$2"; }
MONGO_BASE=${MONGO_URL:-$(local_url MONGO_URL mongodb://127.0.0.1:27017/agent_sessions)}
export MONGO_URL=$(node -e 'const u=new URL(process.argv[1]);u.pathname="/"+process.argv[2];console.log(u.href)' "$MONGO_BASE" "$RUN") REDIS_URL=${REDIS_URL:-$(local_url REDIS_URL redis://127.0.0.1:6379)} REDIS_KEY_PREFIX=$RUN
# No real model: a generated agent naming an anthropic/ or openai/ model fails its turns instead of spending.
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL MODEL_ENDPOINTS WEB_SEARCH_PROVIDER OUTBOUND_ALLOWED_NETWORKS
export PORT DEPLOYMENTS_PORT HOST=127.0.0.1 ROLE=all LOG_LEVEL=error DEPLOYMENTS_DEFAULT_MODEL=mock/echo \
  DEPLOYMENT_DOCKER=off VAULT_ENCRYPTION_KEY=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))') \
  WORKSPACE_ROOT=$(mktemp -d)
OUT=${CONTRACT_REPORT_DIR:-test-artifacts/contract}
rm -rf "$OUT" && mkdir -p "$OUT"

SERVICE=
cleanup() {
  [ -n "$SERVICE" ] && kill "$SERVICE" 2>/dev/null && wait "$SERVICE" 2>/dev/null
  node scripts/contract/data.mjs drop || true
  rm -rf "$WORKSPACE_ROOT"
}
trap cleanup EXIT

KEY=$(node dist/src/cli/main.js keys create --org "$RUN" 2>/dev/null)
DKEY=$(node dist/src/cli/main.js keys create --org "$RUN" --scopes deployments:read,deployments:write 2>/dev/null)
node dist/src/cli/main.js credits grant --org "$RUN" --usd 100 >/dev/null
node scripts/contract/data.mjs unlimit

node dist/src/main.js >"$OUT/service.log" 2>&1 &
SERVICE=$!

# Per interface: its document, the header its keys travel in, then the report's request count.
status=0
run() {
  local name=$1 base=$2 header=$3 code=0
  "$ST" --config-file scripts/contract/schemathesis.toml run "$base/v1/openapi.json" --wait-for-schema 60 --phases examples,coverage,fuzzing,stateful \
    --header "$header" --max-examples "${CONTRACT_MAX_EXAMPLES:-10}" --seed "${CONTRACT_SEED:-1}" --workers "${CONTRACT_WORKERS:-1}" \
    --no-color --suppress-health-check all --generation-database none --report ndjson --report-ndjson-path "$OUT/$name.ndjson" \
    >"$OUT/$name.txt" 2>&1 || code=$?
  tail -n 40 "$OUT/$name.txt"
  echo "contract: $name: $(node scripts/contract/count.mjs "$OUT/$name.ndjson") requests, schemathesis exit $code" >&2
  [ "$code" = 0 ] || status=1
}
run core "http://127.0.0.1:$PORT" "x-api-key: $KEY"
run deployments "http://127.0.0.1:$DEPLOYMENTS_PORT" "Authorization: Bearer $DKEY"
exit $status
