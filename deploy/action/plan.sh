#!/usr/bin/env bash
# Step `plan` of action.yml: what the gate will run, decided before anything runs.
#   - the base commit: the `base-ref` input, else the event's pull_request.base.sha (a merge
#     group's base_sha);
#   - the backends: a hosted one (openai:MODEL, anthropic:MODEL) whose API key variable is empty is
#     skipped with a notice on a pull request from a fork (GitHub gives those no secrets) and is an
#     error anywhere else; the keyless ones (bm25, embed, random, local, replay:…) always run;
#     a replay:RUN_DIR given relative is made absolute against the head checkout, so the base and
#     the head replay the same recorded replies;
#   - `run` = false when nothing is left to run (the later steps then only say so).
set -euo pipefail
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
need GITHUB_EVENT_PATH RUNNER_TEMP INPUT_SUITE INPUT_BACKENDS

head_dir=$(cd "${INPUT_WORKING_DIRECTORY:-.}" && pwd)
event() {  # event KEY.KEY…: a value of the event payload, empty when absent or null
  python3 -c 'import json, sys
value = json.load(open(sys.argv[1], encoding="utf-8"))
for key in sys.argv[2].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print("" if value is None else value)' "$GITHUB_EVENT_PATH" "$1"
}

base=${INPUT_BASE_REF:-}
[ -n "$base" ] || base=$(event 'pull_request.base.sha')
[ -n "$base" ] || base=$(event 'merge_group.base_sha')
if [ -z "$base" ]; then
  echo "::error::mcpick action: no base commit: this is not a pull_request event (${GITHUB_EVENT_NAME:-unknown}); set the base-ref input" >&2
  exit 1
fi

fork=false
if [ -n "$(event 'pull_request.number')" ]; then
  head_repo=$(event 'pull_request.head.repo.full_name')
  base_repo=$(event 'pull_request.base.repo.full_name')
  # A deleted fork leaves head.repo null: still not this repository.
  [ "$head_repo" = "$base_repo" ] || fork=true
fi
# Dependabot's pull requests come from this repository but get no Actions secrets either.
if [ "${GITHUB_ACTOR:-}" = "dependabot[bot]" ]; then fork=true; fi

# What run-args say about keys: --api-key-env NAME renames the variable, --base-url lets an
# OpenAI-compatible server answer without one.
key_env=""
base_url=false
words "${INPUT_RUN_ARGS:-}"
for ((i = 0; i < ${#WORDS[@]}; i++)); do
  case "${WORDS[i]}" in
    --api-key-env) key_env=${WORDS[i + 1]:-} ;;
    --api-key-env=*) key_env=${WORDS[i]#--api-key-env=} ;;
    --base-url | --base-url=*) base_url=true ;;
  esac
done
# The name is expanded indirectly below; bash would evaluate a subscript in it (`x[$(cmd)]`).
if [ -n "$key_env" ] && ! [[ $key_env =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  echo "::error::mcpick action: --api-key-env '$key_env' in run-args is not a variable name" >&2
  exit 1
fi

kept=()
skipped=()
models=false
words "$INPUT_BACKENDS"
for spec in "${WORDS[@]}"; do
  variable=""
  case "$spec" in
    openai:*) [ "$base_url" = true ] || variable=${key_env:-OPENAI_API_KEY} ;;
    anthropic:*) variable=${key_env:-ANTHROPIC_API_KEY} ;;
    replay:/*) ;;
    replay:*) spec="replay:$head_dir/${spec#replay:}" ;;
    embed | embed:* | local | local:*) models=true ;;
  esac
  if [ -n "$variable" ] && [ -z "${!variable:-}" ]; then
    if [ "$fork" = true ]; then
      echo "::notice title=mcpick: $spec skipped::$variable is empty: a pull request from a fork (or Dependabot's) gets no secrets, so the hosted backend $spec is not run; the keyless backends still are."
      skipped+=("$spec")
      continue
    fi
    echo "::error::mcpick action: backend $spec needs \$$variable, which is empty: pass the secret in the step's env (env: $variable: \${{ secrets.$variable }})" >&2
    exit 1
  fi
  kept+=("$spec")
done

run=true
if [ ${#kept[@]} -eq 0 ]; then
  run=false
  echo "::notice title=mcpick: nothing to run::every backend was skipped (${skipped[*]:-none given}); no comparison is made and the gate does not fail."
fi

report_dir="$RUNNER_TEMP/mcpick-gate"
rm -rf "$report_dir"
mkdir -p "$report_dir"
set_output run "$run"
set_output base-sha "$base"
set_output fork "$fork"
set_output backends "$(printf '%s\n' "${kept[@]}")"
set_output skipped "${skipped[*]}"
set_output needs-models "$models"
set_output report-dir "$report_dir"
set_output cache-dir "$RUNNER_TEMP/mcpick-cache"
echo "mcpick action: base $base, fork $fork, backends: ${kept[*]:-none}${skipped[*]:+; skipped: ${skipped[*]}}"
