#!/usr/bin/env bash
# Steps `base` and `head` of action.yml: `run.sh base` checks out the pull request's base commit
# beside the workspace (git worktree add), `run.sh head` uses the workspace as it is; each then runs
# the `prepare` command there (if any) and `mcpick run SUITE --backend B... --out DIR`.
set -euo pipefail
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
need MCPICK REPORT_DIR INPUT_SUITE BACKENDS RUNNER_TEMP
side=${1:?usage: run.sh base|head}

head_dir=$(cd "${INPUT_WORKING_DIRECTORY:-.}" && pwd)
case "$side" in
  head) dir=$head_dir ;;
  base)
    need BASE_SHA
    top=$(git -C "$head_dir" rev-parse --show-toplevel)
    prefix=$(git -C "$head_dir" rev-parse --show-prefix)
    checkout="$RUNNER_TEMP/mcpick-base"
    git -C "$top" worktree remove --force "$checkout" >/dev/null 2>&1 || rm -rf "$checkout"
    git -C "$top" worktree prune
    # actions/checkout fetches one commit by default: fetch the base if it is not here.
    if ! git -C "$top" cat-file -e "$BASE_SHA^{commit}" 2>/dev/null; then
      echo "mcpick action: fetching the base commit $BASE_SHA"
      git -C "$top" fetch --no-tags --depth=1 origin "$BASE_SHA"
    fi
    git -C "$top" worktree add --detach "$checkout" "$BASE_SHA"
    dir="$checkout/$prefix"
    ;;
  *)
    echo "::error::mcpick action: run.sh takes base or head, not '$side'" >&2
    exit 1
    ;;
esac
cd "$dir"

if [ -n "${INPUT_PREPARE:-}" ]; then
  echo "mcpick action: preparing the $side checkout: $INPUT_PREPARE"
  # The command sees the installed mcpick as $MCPICK (and on PATH).
  MCPICK="$MCPICK" bash -euo pipefail -c "$INPUT_PREPARE"
fi

words "$INPUT_SUITE"
suite=("${WORDS[@]}")
words "$BACKENDS"
backend_args=()
for spec in "${WORDS[@]}"; do backend_args+=(--backend "$spec"); done
words "${INPUT_RUN_ARGS:-}"
run_args=("${WORDS[@]}")

out="$REPORT_DIR/$side"
echo "mcpick action: $side: mcpick run ${suite[*]} ${backend_args[*]} ${run_args[*]} --out $out"
status=0
"$MCPICK" run "${suite[@]}" "${backend_args[@]}" "${run_args[@]}" --no-progress --out "$out" || status=$?
if [ "$status" -ne 0 ]; then
  echo "::error::mcpick action: mcpick run on the $side exited $status (2: nothing run, 3: stopped with trials left); see the log above" >&2
  exit "$status"
fi
set_output run-dir "$out"
