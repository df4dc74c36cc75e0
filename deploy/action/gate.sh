#!/usr/bin/env bash
# Step `gate` of action.yml: `mcpick compare BASE HEAD --junit FILE` (the verdict: exit 0 pass,
# 1 fail, 2 refused; the JUnit file is written in all three) and `mcpick compare BASE HEAD
# --format markdown` (the pull-request comment's body, opening with its hidden marker line). Never
# fails for a failed gate: the comment goes out first and the last step decides.
set -euo pipefail
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
need MCPICK REPORT_DIR

base="$REPORT_DIR/base"
head="$REPORT_DIR/head"
args=()
[ -z "${INPUT_ALPHA:-}" ] || args+=(--alpha "$INPUT_ALPHA")
[ -z "${INPUT_MIN_SELECTION:-}" ] || args+=(--min-selection "$INPUT_MIN_SELECTION")
words "${INPUT_COMPARE_ARGS:-}"
args+=("${WORDS[@]}")

junit="$REPORT_DIR/junit.xml"
status=0
"$MCPICK" compare "$base" "$head" "${args[@]}" --junit "$junit" || status=$?
case "$status" in
  0) verdict=pass ;;
  1) verdict=fail ;;
  2) verdict=refused ;;
  *)
    echo "::error::mcpick action: mcpick compare exited $status" >&2
    exit "$status"
    ;;
esac
if [ ! -s "$junit" ]; then
  echo "::error::mcpick action: mcpick compare wrote no JUnit file at $junit" >&2
  exit 1
fi

body="$REPORT_DIR/comment.md"
markdown_status=0
"$MCPICK" compare "$base" "$head" "${args[@]}" --format markdown >"$body" || markdown_status=$?
# The same comparison again: 0, 1 or 2 as above; anything else is a failure to write the body.
if [ "$markdown_status" -gt 2 ]; then
  echo "::error::mcpick action: mcpick compare --format markdown exited $markdown_status" >&2
  exit "$markdown_status"
fi
{
  echo
  if [ -n "${SKIPPED:-}" ]; then
    echo "Not run here (a pull request from a fork gets no secrets): \`${SKIPPED// /\`, \`}\`."
    echo
  fi
  # No link to this workflow run: the body stays the same when the result does, so the comment
  # is not rewritten on a push that changed nothing mcpick measures.
} >>"$body"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$body" >>"$GITHUB_STEP_SUMMARY"; fi

echo "mcpick action: verdict $verdict (JUnit: $junit; comment body: $body)"
set_output verdict "$verdict"
set_output junit-file "$junit"
set_output body-file "$body"
