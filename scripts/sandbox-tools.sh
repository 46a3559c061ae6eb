#!/usr/bin/env bash
# The programs the tools' sandbox runs (src/agent-tools/sandbox/isolation.ts): bubblewrap's bwrap, util-linux's nsenter,
# setpriv and prlimit, and socat, the bridge from a sandbox's network to the egress proxy. Installs
# the missing ones from Debian's packages where it can (root, or sudo without a password); elsewhere it
# says what is missing and goes on: the service then refuses the agent's commands (terminal, process,
# execute_code) unless SANDBOX_UNISOLATED=allow. Run before `npm start` and `npm test`.
set -euo pipefail

log() { printf 'sandbox: %s\n' "$*" >&2; }
declare -A PACKAGE=([bwrap]=bubblewrap [nsenter]=util-linux [setpriv]=util-linux [prlimit]=util-linux [socat]=socat)

missing=()
for program in "${!PACKAGE[@]}"; do
  PATH=/usr/local/bin:/usr/bin:/bin command -v "$program" >/dev/null || missing+=("${PACKAGE[$program]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | paste -sd ' ')

if [ "$(id -u)" -eq 0 ]; then run=(); elif sudo -n true 2>/dev/null; then run=(sudo -n); else run=(false); fi
if ! command -v apt-get >/dev/null || [ "${run[0]-}" = false ]; then
  log "missing Debian packages: $packages (cannot install them here); the agent's commands will be refused unless SANDBOX_UNISOLATED=allow"
  exit 0
fi
log "installing $packages from Debian's packages"
"${run[@]}" apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive "${run[@]}" apt-get install -y -qq --no-install-recommends $packages >/dev/null
