#!/usr/bin/env bash
# Installs what the test suite needs besides `npm ci`, so that `npm test` skips only the tests that
# need ROS 2 (README: `bash scripts/install-test-deps.sh && npm ci && npm test`; .ci/run calls it):
#   Debian packages for /usr/bin/python3: h5py + Pillow (read the HDF5 export as RoboTwin does),
#     torch, websockets, msgpack, onnx, yaml (the engram_ml package: policy server, training), pytest,
#     setuptools + wheel (to install engram_ml without PyPI)
#   .venv: the project venv (scripts/python.sh, src/policy/remote/python.ts find it): /usr/bin/python3
#     with --system-site-packages (Debian's torch and the rest) and engram_ml installed editable
#     (pyproject.toml; no PyPI), so `python -m engram_ml` works from any directory
#   ffmpeg + ffprobe (LeRobot export videos), openssl (the wss:// test's certificate),
#     chromium (renders report.html headless, as a person opens it)
#   Slurm (slurm-wlm, munge) and a one-node cluster on this machine (launch/slurm/single-node.sh)
#   .ci/venv: PyPI mcap, mcap-ros2-support, pyarrow (independent readers of our files)
#   .ci/openpi-venv: PyPI openpi-client (pins numpy < 2, so a venv of its own)
# Idempotent: each part is checked first and skipped when present, so a second run is a no-op.
# Needs root (or sudo) for apt and Slurm, and network for apt and PyPI. Exits non-zero naming what
# could not be installed. ENGRAM_NO_SLURM=1 leaves Slurm out (its test then skips, saying so).
# `--check` installs nothing: it lists what is missing and exits 1 if anything is.
set -euo pipefail
cd "$(dirname "$0")/.."
check_only=false
case "${1:-}" in
  --check) check_only=true ;;
  "") ;;
  *) echo "usage: bash scripts/install-test-deps.sh [--check] (got '$1')" >&2; exit 2 ;;
esac

SUDO=()
if ! $check_only && [[ $(id -u) -ne 0 ]]; then
  command -v sudo > /dev/null || { echo "install-test-deps: not root and no sudo: cannot apt-get install" >&2; exit 1; }
  SUDO=(sudo)
fi

missing=()
need_module() { # <python module> <Debian package>
  /usr/bin/python3 -c "import $1" 2> /dev/null || missing+=("$2")
}
need_command() { # <command> <Debian package>
  command -v "$1" > /dev/null || missing+=("$2")
}
# The loader's cache is read whole first: piped into `grep -q`, ldconfig is killed by SIGPIPE once grep has its
# match, and under pipefail a cache over the pipe's 64 KiB then reads as "missing".
loader_cache=$(/sbin/ldconfig -p)
need_library() { # <shared library> <Debian package>
  grep -qF "$1" <<< "$loader_cache" || missing+=("$2")
}

need_module h5py python3-h5py
need_module PIL python3-pil
need_module torch python3-torch
# Debian's torch multiplies through the system BLAS: the reference one is several times slower at training.
need_library libopenblas.so.0 libopenblas0-pthread
need_module websockets python3-websockets
need_module msgpack python3-msgpack
need_module onnx python3-onnx
need_module yaml python3-yaml
need_module pytest python3-pytest
need_module ensurepip python3-venv
need_module setuptools python3-setuptools
need_module wheel python3-wheel
need_command ffmpeg ffmpeg
need_command ffprobe ffmpeg
need_command openssl openssl
need_command chromium chromium
if [[ -z ${ENGRAM_NO_SLURM:-} ]]; then
  need_command sinfo slurm-wlm
  need_command slurmctld slurm-wlm
  need_command slurmd slurm-wlm
  need_command munged munge
fi

venv_ok() { # <dir> <import line>
  "$1/bin/python" -c "import $2" 2> /dev/null
}
ROOT=$PWD
project_venv_ok() { # .venv imports torch and this checkout's engram_ml from any directory
  [[ -x .venv/bin/python ]] || return 1
  local where
  where=$(cd / && "$ROOT/.venv/bin/python" -c "import torch, engram_ml; print(engram_ml.__file__)" 2> /dev/null) \
    || return 1
  [[ $where == "$ROOT/engram_ml/__init__.py" ]]
}
slurm_node_up() {
  sinfo -h -o %t 2> /dev/null | grep -Eq 'idle|mix|alloc'
}
VENV_IMPORTS="mcap, mcap_ros2, pyarrow"
OPENPI_IMPORTS="openpi_client.websocket_client_policy"
if $check_only; then
  venv_ok .ci/venv "$VENV_IMPORTS" || missing+=(".ci/venv")
  venv_ok .ci/openpi-venv "$OPENPI_IMPORTS" || missing+=(".ci/openpi-venv")
  project_venv_ok || missing+=(".venv")
  [[ -n ${ENGRAM_NO_SLURM:-} ]] || slurm_node_up || missing+=("a running Slurm node")
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "install-test-deps --check: missing: $(printf '%s\n' "${missing[@]}" | sort -u | paste -sd, -)" >&2
    exit 1
  fi
  echo "install-test-deps --check: all present"
  exit 0
fi

if [[ ${#missing[@]} -gt 0 ]]; then
  mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "install-test-deps: apt-get install ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" > /dev/null
else
  echo "install-test-deps: Debian packages present"
fi

# venv <dir> <import line> <pip packages...>: creates it when the import fails.
venv() {
  local dir=$1 imports=$2
  shift 2
  if venv_ok "$dir" "$imports"; then
    echo "install-test-deps: $dir present"
    return
  fi
  echo "install-test-deps: creating $dir ($*)"
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q "$@"
  "$dir/bin/python" -c "import $imports"
}
venv .ci/venv "$VENV_IMPORTS" mcap mcap-ros2-support pyarrow
# typing_extensions: openpi-client imports it without declaring it.
venv .ci/openpi-venv "$OPENPI_IMPORTS" openpi-client typing_extensions

if project_venv_ok; then
  echo "install-test-deps: .venv present (engram_ml from this checkout)"
else
  echo "install-test-deps: creating .venv (/usr/bin/python3 --system-site-packages, engram_ml editable)"
  /usr/bin/python3 -m venv --clear --system-site-packages .venv
  .venv/bin/python -m pip install -q --no-deps --no-build-isolation --no-index -e .
  if ! project_venv_ok; then
    echo "install-test-deps: .venv cannot import torch and engram_ml from this checkout" >&2
    exit 1
  fi
fi

if [[ -n ${ENGRAM_NO_SLURM:-} ]]; then
  echo "install-test-deps: ENGRAM_NO_SLURM set: no Slurm (test/launch/slurmArray.test.ts will skip)"
elif slurm_node_up; then
  echo "install-test-deps: Slurm node up"
else
  echo "install-test-deps: starting a one-node Slurm (launch/slurm/single-node.sh; 'stop' stops it)"
  "${SUDO[@]}" bash launch/slurm/single-node.sh
fi
echo "install-test-deps: done"
