# Sourced by the project's shell scripts: `engram_python` prints the project's Python interpreter, by the
# same rule as src/policy/remote/python.ts:
#   1. $ENGRAM_PYTHON, when set;
#   2. the project venv <repo>/.venv/bin/python (scripts/install-test-deps.sh makes it: Debian's python3
#      with its system packages, torch among them, and engram_ml installed editable);
#   3. the first of /usr/bin/python3 and python3 on PATH that imports torch, else /usr/bin/python3.
# Run it from the repo root (the scripts cd there), so `-m engram_ml` works without the venv too.
engram_python() {
  if [[ -n ${ENGRAM_PYTHON:-} ]]; then
    echo "$ENGRAM_PYTHON"
    return
  fi
  local root candidate
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [[ -x $root/.venv/bin/python ]]; then
    echo "$root/.venv/bin/python"
    return
  fi
  for candidate in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [[ -n $candidate ]] && "$candidate" -c "import torch" 2> /dev/null; then
      echo "$candidate"
      return
    fi
  done
  echo /usr/bin/python3
}
