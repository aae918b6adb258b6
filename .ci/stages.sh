# The stage machinery of .ci/run, sourced by it (and by harness/tests/test_ci_stages.py,
# which pins that a failed stage or a missing interpreter cannot end in a passing run).
# shellcheck shell=bash

stage_names=()
stage_results=()
stage_seconds=()
failed=0

stage() {  # stage NAME COMMAND...: run COMMAND, record its result and duration
  local name=$1 start=$SECONDS status=0
  shift
  echo "== $name"
  "$@" || status=$?
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - start)))
  if [ "$status" -eq 0 ]; then
    stage_results+=("passed")
  else
    stage_results+=("FAILED")
    failed=1
    echo "== $name FAILED (exit $status)" >&2
  fi
}

must() {  # must NAME COMMAND...: a stage the rest cannot run without
  stage "$@"
  if [ "${stage_results[${#stage_results[@]} - 1]}" != "passed" ]; then summary; exit 1; fi
}

fail_with() {  # fail_with MESSAGE: say why a stage failed (on stderr) and fail
  echo "error: $*" >&2
  return 1
}

summary() {
  local i
  echo
  printf '%-44s %-7s %8s\n' "stage" "result" "seconds"
  printf '%-44s %-7s %8s\n' "-----" "------" "-------"
  for i in "${!stage_names[@]}"; do
    printf '%-44s %-7s %8s\n' "${stage_names[$i]}" "${stage_results[$i]}" "${stage_seconds[$i]}"
  done
  if [ "$failed" -ne 0 ]; then echo "CI FAILED"; else echo "CI passed"; fi
}

python_is() {  # python_is VERSION PATH: PATH runs and is that major.minor
  [ -n "$2" ] && [ -x "$2" ] && "$2" -S -c \
    "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$1'.split('.'))))" 2>/dev/null
}
find_python() {
  local version=$1 candidate
  # uv knows the interpreters on PATH and may download one where it can reach the internet.
  candidate=$(uv python find --no-project "$version" 2>/dev/null || true)
  if python_is "$version" "$candidate"; then echo "$candidate"; return 0; fi
  if uv python install "$version" >/dev/null 2>&1; then
    candidate=$(uv python find --no-project "$version" 2>/dev/null || true)
    if python_is "$version" "$candidate"; then echo "$candidate"; return 0; fi
  fi
  for candidate in "$(command -v "python$version" 2>/dev/null || true)" \
    "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version"*/bin/"python$version"; do
    if python_is "$version" "$candidate"; then echo "$candidate"; return 0; fi
  done
  return 1
}
hook_side_tests_under() {  # hook_side_tests_under VERSION: a missing interpreter fails
  local version=$1 python
  python=$(find_python "$version") || {
    fail_with "no Python $version (uv, python$version, pyenv): \`uv python install $version\`"
    return 1
  }
  echo "Python $version: $python"
  MISSIONCACHE_HOOK_PYTHON="$python" uv run pytest -m "not conformance" "${hook_side_tests[@]}"
}
