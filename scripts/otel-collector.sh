#!/usr/bin/env bash
# A local OpenTelemetry Collector for the tracing test and for operators trying traces out: built once (when
# missing) with the OpenTelemetry Collector Builder from the Go module proxy, holding only the OTLP receiver
# and the contrib file exporter, and cached under the state directory as FerretDB is (scripts/services.sh).
#   scripts/otel-collector.sh build              builds the binary if missing and prints its path
#   scripts/otel-collector.sh run PORT FILE      runs it in the foreground: OTLP over HTTP on 127.0.0.1:PORT,
#                                                every span written to FILE as OTLP JSON, one request a line
set -euo pipefail

STATE_DIR="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}"
# One release for every collector module (the builder, the core's receiver and the contrib exporter); the
# configuration providers are the ones the collector needs to start (env is its default scheme, file its config).
COLLECTOR_VERSION="v0.161.0"
COLLECTOR_BIN="$STATE_DIR/bin/otelcol-files-$COLLECTOR_VERSION"

log() { printf 'otel-collector: %s\n' "$*" >&2; }

build() {
  [ -x "$COLLECTOR_BIN" ] && return
  command -v go >/dev/null || { log "Go is needed to build the collector (https://go.dev/dl/)"; exit 1; }
  log "building the OpenTelemetry Collector $COLLECTOR_VERSION (OTLP receiver, file exporter)"
  local dir
  dir=$(mktemp -d)
  cat >"$dir/manifest.yaml" <<MANIFEST
dist:
  name: otelcol-files
  description: OTLP in, JSON lines out
  output_path: $dir/out
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver $COLLECTOR_VERSION
exporters:
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter $COLLECTOR_VERSION
providers:
  - gomod: go.opentelemetry.io/collector/confmap/provider/envprovider $(provider_version)
  - gomod: go.opentelemetry.io/collector/confmap/provider/fileprovider $(provider_version)
MANIFEST
  (cd "$dir" && GOFLAGS=-trimpath go run "go.opentelemetry.io/collector/cmd/builder@$COLLECTOR_VERSION" --config manifest.yaml >&2)
  mkdir -p "$STATE_DIR/bin"
  mv "$dir/out/otelcol-files" "$COLLECTOR_BIN"
  rm -rf "$dir"
}

# The confmap providers are versioned with the core's stable modules (v1.x), one step per v0 release.
provider_version() {
  local minor=${COLLECTOR_VERSION#v0.}
  minor=${minor%%.*}
  echo "v1.$((minor - 94)).0"
}

run() {
  local port=${1:?usage: otel-collector.sh run PORT FILE} file=${2:?usage: otel-collector.sh run PORT FILE} config
  build
  config=$(mktemp --suffix=.yaml)
  cat >"$config" <<CONFIG
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$port
exporters:
  file:
    path: $file
    format: json
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
CONFIG
  exec "$COLLECTOR_BIN" --config "file:$config"
}

case "${1:-}" in
  build) build; echo "$COLLECTOR_BIN" ;;
  run) shift; run "$@" ;;
  *) log "usage: otel-collector.sh build | run PORT FILE"; exit 2 ;;
esac
