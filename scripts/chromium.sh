#!/usr/bin/env bash
# Headless Chromium for the web console's browser tests: Debian's `chromium` package, installed when
# missing (Playwright's own browser downloads cannot be reached, and are never used). Prints the
# executable on its last line; exits non-zero when it is absent and cannot be installed here.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
log() { printf 'chromium: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

if [ ! -x "$CHROMIUM" ]; then
  command -v apt-get >/dev/null || { log "no $CHROMIUM and no apt-get to install it"; exit 1; }
  log "installing chromium from Debian's packages"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
fi
[ -x "$CHROMIUM" ] || { log "no $CHROMIUM after installing the package"; exit 1; }
echo "$CHROMIUM"
