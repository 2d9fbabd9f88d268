#!/usr/bin/env bash
# The Python side's tests (`npm test` runs this after node's test runner): pytest over the engram_ml
# package (pyproject.toml's testpaths) on the project's Python (scripts/python.sh: $ENGRAM_PYTHON, the
# venv .venv, else Debian's python3 with torch). Fails when a test fails, or when there is no pytest
# (scripts/install-test-deps.sh installs python3-pytest): a missing tool must not pass as green.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python.sh
PY=$(engram_python)
if ! "$PY" -c "import pytest" 2> /dev/null; then
  echo "test-python: $PY has no pytest (bash scripts/install-test-deps.sh installs python3-pytest)" >&2
  exit 1
fi
# No .pytest_cache or __pycache__ left in the checkout.
export PYTHONDONTWRITEBYTECODE=1
exec "$PY" -m pytest -q "$@"
