#!/usr/bin/env bash
# The system programs the tests need, found or installed: the one setup step of `npm test`
# (scripts/test.sh) and so of .ci/run. A test that needs a program finds it on PATH (nats-server
# also in the sbin folders) and fails clearly when it is absent; this makes it present.
#
#   bash scripts/test-services.sh            # install what is missing (apt-get: as root, else sudo)
#   source scripts/test-services.sh          # the same, and PATH keeps the sbin folders
#
# Debian package per command; add one line per new need (docs/testing.md).
TEST_SERVICES=(
  "chromium chromium"        # test/browser/: playwright-core drives Debian's chromium
  "prometheus prometheus"    # test/observe/prometheus.test.ts: a real Prometheus server
  "nats-server nats-server"  # test/distributed/: a real NATS server with JetStream
)

# Debian installs nats-server to /usr/sbin, which a non-root PATH often lacks.
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" ;; esac

# ensure_test_services: installs the package of every command not on PATH; non-zero when one stays missing.
ensure_test_services() {
  local missing_cmds=() missing_pkgs=() entry cmd pkg
  for entry in "${TEST_SERVICES[@]}"; do
    read -r cmd pkg <<<"$entry"
    command -v "$cmd" >/dev/null 2>&1 || { missing_cmds+=("$cmd"); missing_pkgs+=("$pkg"); }
  done
  [ "${#missing_pkgs[@]}" -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "test setup: missing ${missing_cmds[*]}; as root run: apt-get install -y --no-install-recommends ${missing_pkgs[*]}" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test setup: missing ${missing_cmds[*]} and no apt-get here: install ${missing_pkgs[*]} with this system's package manager" >&2
    return 1
  fi
  echo "test setup: installing ${missing_pkgs[*]} (no ${missing_cmds[*]} on PATH)"
  "${sudo[@]}" apt-get update -qq || return 1
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}" || return 1
  for cmd in "${missing_cmds[@]}"; do
    command -v "$cmd" >/dev/null 2>&1 || { echo "test setup: installed, but '$cmd' is still not on PATH" >&2; return 1; }
  done
}

# Run as a script: do it. Sourced: do it too, and leave PATH as set above.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  ensure_test_services
  exit $?
fi
ensure_test_services
