#!/usr/bin/env bash
# Last step of action.yml: the action's verdict (pass, fail, refused, or skipped when every backend
# was skipped) and its exit code: 1 for a failed gate unless fail-on-regression is false, 1 for a
# refused comparison (different tasks on the two sides, a run without evidence) unless
# fail-on-refused is false.
set -euo pipefail
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

verdict=${VERDICT:-}
if [ "${RUN:-}" != true ]; then
  verdict=skipped
fi
if [ -z "$verdict" ]; then
  echo "::error::mcpick action: the gate step gave no verdict" >&2
  exit 1
fi
set_output verdict "$verdict"
case "$verdict" in
  pass | skipped) echo "mcpick action: $verdict" ;;
  fail)
    if is_true "${FAIL_ON_REGRESSION:-true}"; then
      echo "::error title=mcpick gate::the pull request's tools are picked worse than the base's (see the comparison above and the pull-request comment)"
      exit 1
    fi
    echo "::warning title=mcpick gate::the pull request's tools are picked worse than the base's; fail-on-regression is false, so the check passes"
    ;;
  refused)
    if is_true "${FAIL_ON_REFUSED:-true}"; then
      echo "::error title=mcpick gate::mcpick compare refused to compare the two runs (exit 2: different tasks, or no evidence); see the log"
      exit 1
    fi
    echo "::warning title=mcpick gate::mcpick compare refused to compare the two runs; fail-on-refused is false, so the check passes"
    ;;
  *)
    echo "::error::mcpick action: unknown verdict '$verdict'" >&2
    exit 1
    ;;
esac
