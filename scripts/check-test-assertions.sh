#!/usr/bin/env bash
# CI check run by `make test`: fails when a gtest body or a tests/*_test.sh script has no assertion
# (the convention is in scripts/check_test_assertions.py).
set -euo pipefail
exec python3 "$(dirname "$0")/check_test_assertions.py"
