#!/usr/bin/env bash
# Shared by scripts/capture-fixtures.sh (the training fixtures) and scripts/capture-heldout.sh (the
# held-out set): the environment, the JS and Python tool folders, and `cap`/`proj`. Source it after
# setting OUT (where fixtures go) and, optionally, ONLY (a pattern id) and ONLY_TOOL (tool names, space-separated).
set -uo pipefail

WORK="${FXWORK:-/tmp/loop-fixtures}"
FXTOOLS="${FXTOOLS:-/tmp/fxtools}"
ONLY="${ONLY:-}"
ONLY_TOOL="${ONLY_TOOL:-}"
export NO_COLOR=1 FORCE_COLOR=0 CI=1 TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8
export GIT_CONFIG_GLOBAL="$WORK/gitconfig" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
PY_SYS=/usr/bin/python3
# A venv for Python tools Debian lacks (ruff, wheel), from the machine's local package index.
FXPY="${FXPY:-/tmp/fxpy}"
if [ ! -x "$FXPY/bin/ruff" ]; then
  python3 -m venv "$FXPY" && "$FXPY/bin/pip" install -q --index-url file:///opt/pypi/simple wheel setuptools ruff >/dev/null 2>&1
fi

rm -rf "$WORK" && mkdir -p "$WORK"
printf '[user]\n\tname = Fixture\n\temail = fixture@example.invalid\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n' >"$GIT_CONFIG_GLOBAL"

if [ ! -x "$FXTOOLS/node_modules/.bin/eslint" ]; then
  mkdir -p "$FXTOOLS" && (cd "$FXTOOLS" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund eslint@9 @eslint/js@9 prettier@3 @biomejs/biome jest@29 mocha vitest typescript \
      secretlint @secretlint/secretlint-rule-preset-recommend eslint-formatter-compact eslint-formatter-unix >/dev/null 2>&1)
fi
BIN="$FXTOOLS/node_modules/.bin"

# cap ID TOOL DIR COMMAND...: run COMMAND in DIR (a fresh folder under $WORK), save its output.
cap() {
  local id="$1" tool="$2" dir="$3"
  shift 3
  if [ -n "$ONLY" ] && [ "$ONLY" != "$id" ]; then return; fi
  if [ -n "$ONLY_TOOL" ]; then case " $ONLY_TOOL " in *" $tool "*) ;; *) return ;; esac; fi
  # A missing tool is reported, and the fixture it would overwrite is kept.
  local program="$1"
  [ "$program" = env ] && program="$(for a in "${@:2}"; do case "$a" in *=*) ;; *) echo "$a"; break ;; esac; done)"
  if ! command -v "$program" >/dev/null 2>&1; then
    printf '%-22s %-26s SKIPPED: %s is not installed\n' "$id" "$tool" "$program"
    return
  fi
  mkdir -p "$OUT/$id"
  (cd "$dir" && timeout 120 "$@") >"$OUT/$id/$tool.txt" 2>&1
  local code=$?
  printf '%-22s %-26s exit %3s  %6s bytes\n' "$id" "$tool" "$code" "$(wc -c <"$OUT/$id/$tool.txt")"
}
# proj NAME: a fresh project folder; files are written by the caller.
proj() { rm -rf "${WORK:?}/$1" && mkdir -p "$WORK/$1" && echo "$WORK/$1"; }

