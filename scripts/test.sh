#!/usr/bin/env bash
# `npm test`: node's test runner over test/, then the Python tests (scripts/test-python.sh). When no
# ROS 2 is sourced and scripts/install-ros2.sh has installed its PyPI core (.ci/ros-venv), that core
# is sourced first, so the README's one test command also runs the real ROS 2 tests.
# Most test files spend their time in one-threaded child processes, so they run two at a time; a file
# marked "// Runs alone (scripts/test.sh)" (it asserts on wall time, or shares a DDS domain) runs
# afterwards with nothing beside it. Every pass runs, and the command fails if any failed.
# `--list`: print each test file with its pass ("paired" or "alone") and run nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
case "$#:${1:-}" in
  0: | 1:--list) ;;
  *) echo "usage: bash scripts/test.sh [--list]   (got: $*)" >&2; exit 2 ;;
esac
if [[ -z ${ROS_DISTRO:-} && -x .ci/ros-venv/bin/python ]]; then
  source scripts/ros2-env.sh
fi
mapfile -t all < <(find test -name '*.test.ts' | sort)
mapfile -t alone < <(grep -l '^// Runs alone (scripts/test.sh)' "${all[@]}")
mapfile -t paired < <(printf '%s\n' "${all[@]}" | grep -vxF -f <(printf '%s\n' "${alone[@]}"))
if [[ ${1:-} == --list ]]; then
  printf 'paired %s\n' "${paired[@]}"
  printf 'alone %s\n' "${alone[@]}"
  exit 0
fi
failed=()
# An empty list would let node discover test files itself, outside these passes.
if ((${#paired[@]})); then
  node --import tsx --test --test-concurrency=2 "${paired[@]}" || failed+=("node tests, two at a time")
fi
if ((${#alone[@]})); then
  node --import tsx --test --test-concurrency=1 "${alone[@]}" || failed+=("node tests run alone")
fi
bash scripts/test-python.sh || failed+=("python tests")
if ((${#failed[@]})); then
  printf 'test.sh: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
