# MissionCache's hook launcher. hooks/run (what each hooks.json command starts) SOURCES it
# with MISSIONCACHE_HOOK set to hooks/<script>.py, and it runs that script under the user's
# Python, 3.9 or newer.
#
# Why sourced, and builtins only: on Linux and macOS the hook then costs what the plain
# `python3 -S <script>` command did (one shell, one fork of python3; reading this
# file takes microseconds), and it works with nothing on PATH but a Python.
#
# Linux and macOS: python3. Windows (Claude Code runs hooks in Git Bash, which keeps the
# Windows OS=Windows_NT): `python3` is often the Microsoft Store's stub, which exits with
# an error instead of running Python, so the first of python3, python, `py -3` that
# really runs Python 3.9+ is taken, in UTF-8 mode (-X utf8: the console's code page
# would otherwise garble non-ASCII text). Where no python3 exists (either system) the
# same search applies. Claude Code gives CLAUDE_PLUGIN_ROOT with backslashes on
# Windows; they become slashes (Python and Git Bash both take them).
# Never `exit`: hooks/run must still turn any failure into exit 0.
#
# The slash commands' lines RUN it instead (not on the hot path, and they pass arguments):
#   sh "${CLAUDE_PLUGIN_ROOT}/hooks/launch.sh" "<script>.py" ARGS...

if [ -n "${MISSIONCACHE_HOOK:-}" ]; then
  mc_script=$MISSIONCACHE_HOOK
  unset MISSIONCACHE_HOOK # not for the hook's children (the heartbeat's)
  set -- # a hook takes no arguments, whatever the calling shell holds
else
  mc_script=${1:-}
  if [ $# -gt 0 ]; then shift; fi
fi
case $mc_script in
*\\*)
  mc_rest=$mc_script
  mc_script=
  while :; do
    case $mc_rest in
    *\\*)
      mc_script=$mc_script${mc_rest%%\\*}/
      mc_rest=${mc_rest#*\\}
      ;;
    *)
      mc_script=$mc_script$mc_rest
      break
      ;;
    esac
  done
  ;;
esac

if [ "${OS:-}" != Windows_NT ] && command -v python3 >/dev/null 2>&1; then
  python3 -S "$mc_script" "$@"
else
  mc_python=
  for mc_try in python3 python py; do
    command -v "$mc_try" >/dev/null 2>&1 || continue
    mc_flag=-S
    if [ "$mc_try" = py ]; then mc_flag=-3; fi
    # The probe reads no stdin: the hook's payload is left for the hook.
    if "$mc_try" "$mc_flag" -S -c 'import sys; sys.exit(sys.version_info < (3, 9))' \
      </dev/null >/dev/null 2>&1; then
      mc_python=$mc_try
      break
    fi
  done
  if [ -n "$mc_python" ]; then
    "$mc_python" "$mc_flag" -X utf8 -S "$mc_script" "$@"
  else
    echo "MissionCache: no Python 3.9 or newer found (tried python3, python, py -3)" >&2
    false
  fi
fi
