#!/usr/bin/env bash
# `npm test` (and .ci/run): the system programs the tests need (scripts/test-services.sh), then
# type check, lint, the deterministic test project and the serial timing project
# (docs/testing.md). Every step runs even when one before it failed — a failing unit test does
# not hide the timing results — and the command fails when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/test-services.sh
source scripts/test-services.sh || { echo "npm test: the system programs the tests need are missing (above)" >&2; exit 1; }

failed=()
for step in typecheck lint test:default test:timing; do
  echo "npm test: npm run $step"
  npm run "$step" || failed+=("$step")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "npm test: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "npm test: all passed (typecheck, lint, test:default, test:timing)"
