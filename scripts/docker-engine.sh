#!/usr/bin/env bash
# A Docker engine for the `docker` sandbox backend's tests, on a machine that has none running: installs
# Debian's docker.io (when missing), starts dockerd on a socket of its own (no iptables, no bridge, the
# vfs storage driver: what works inside a machine that is itself a container), and imports a small
# image from Debian's busybox-static, since no image registry is reachable. An engine that already
# answers (DOCKER_HOST, or the default socket) is used as it is. Needs root. Prints the DOCKER_HOST to
# use on its last line; exits non-zero when no engine can run here.
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}/docker"
IMAGE="${SANDBOX_TEST_IMAGE:-agent-sessions-sandbox:test}"

log() { printf 'docker-engine: %s\n' "$*" >&2; }

[ "$(id -u)" -eq 0 ] || { log "root is needed to run a Docker engine"; exit 1; }

if ! docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  export DOCKER_HOST="unix://$STATE_DIR/docker.sock"
fi
if ! docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  if ! command -v dockerd >/dev/null || ! command -v busybox >/dev/null; then
    log "installing docker.io and busybox-static from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io busybox-static >/dev/null
  fi
  mkdir -p "$STATE_DIR"
  nohup dockerd --host "$DOCKER_HOST" --data-root "$STATE_DIR/data" --exec-root "$STATE_DIR/exec" \
    --pidfile "$STATE_DIR/dockerd.pid" --iptables=false --ip6tables=false --bridge=none \
    --storage-driver=vfs >"$STATE_DIR/dockerd.log" 2>&1 &
  for _ in $(seq 1 100); do
    docker version --format '{{.Server.Version}}' >/dev/null 2>&1 && break
    sleep 0.2
  done
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || { log "dockerd did not start; its log follows"; tail -n 30 "$STATE_DIR/dockerd.log" >&2; exit 1; }
  log "dockerd is up on $DOCKER_HOST"
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  command -v busybox >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null; }
  rootfs=$(mktemp -d)
  chmod 0755 "$rootfs"
  mkdir -p "$rootfs/bin" "$rootfs/workspace" "$rootfs/tmp" "$rootfs/var/tmp" "$rootfs/etc"
  cp "$(command -v busybox)" "$rootfs/bin/busybox"
  for applet in $(busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"; done
  echo "root:x:0:0:root:/root:/bin/sh" >"$rootfs/etc/passwd"
  tar -C "$rootfs" -c . | docker import --change 'ENV PATH=/bin' - "$IMAGE" >/dev/null
  rm -rf "$rootfs"
  log "imported $IMAGE (busybox)"
fi

echo "${DOCKER_HOST:-unix:///var/run/docker.sock}"
