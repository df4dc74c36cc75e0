# Shared by the action's step scripts (sourced, never run): writing step outputs and environment
# values the way GitHub Actions reads them, and the checks every script makes first.
# shellcheck shell=bash

# set_output NAME VALUE: one step output, in the heredoc form so a value may hold newlines.
set_output() {
  local delimiter
  delimiter="mcpick_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this as a step of the action}"
}

# need VAR...: stop with the variable's name when one is unset or empty.
need() {
  local name
  for name in "$@"; do
    if [ -z "${!name:-}" ]; then
      echo "::error::mcpick action: $name is not set" >&2
      exit 1
    fi
  done
}

# words TEXT: TEXT split on whitespace (spaces, tabs, newlines) into the array WORDS; no globbing,
# no quotes: an input such as `backends` or `run-args` is a list of plain words.
words() {
  WORDS=()
  local line
  local -a part
  while IFS= read -r line; do
    read -r -a part <<<"$line"
    WORDS+=("${part[@]}")
  done <<<"$1"
}

# is_true VALUE: the action's boolean inputs ('true' / 'false').
is_true() {
  case "${1,,}" in
    true | yes | 1 | on) return 0 ;;
    *) return 1 ;;
  esac
}
