#!/usr/bin/env bash
# The system tools the test suites use, installed from Debian's packages when missing:
# zstd (compressed Codex rollouts), chromium (the browser tests) and postgresql (the storage tests
# start a throwaway cluster of their own with its initdb and pg_ctl).
set -euo pipefail
need=()
command -v zstd >/dev/null 2>&1 || need+=(zstd)
[ -x /usr/bin/chromium ] || need+=(chromium)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || [ -x "${PG_BIN:-/nonexistent}/initdb" ] || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "cairn: the tests need: ${need[*]} — install them with your package manager" >&2
  exit 1
fi
echo "cairn: installing ${need[*]} for the tests" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
