#!/usr/bin/env bash
# The Python side's tests (`npm test` runs this after node's test runner): pytest over the engram_ml
# package on the project's Python (scripts/python.sh: $ENGRAM_PYTHON, the venv .venv, else Debian's python3
# with torch). Fails when a test fails, when the package has no test_*.py (they live beside the code, so
# none means the tests went missing), or when there is no pytest (scripts/install-test-deps.sh installs
# python3-pytest): a missing tool must not pass as green.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python.sh
if [[ -z $(find engram_ml -name 'test_*.py' -print -quit 2> /dev/null) ]]; then
  echo "test-python: no test_*.py under engram_ml/ (the Python tests live beside the code)" >&2
  exit 1
fi
PY=$(engram_python)
if ! "$PY" -c "import pytest" 2> /dev/null; then
  echo "test-python: $PY has no pytest (bash scripts/install-test-deps.sh installs python3-pytest)" >&2
  exit 1
fi
# No .pytest_cache or __pycache__ left in the checkout.
export PYTHONDONTWRITEBYTECODE=1
exec "$PY" -m pytest -q -p no:cacheprovider "$@" engram_ml
