#!/usr/bin/env bash
# Step `install` of action.yml: makes an mcpick command ready and sets the output `bin` to it.
#   install: auto    the `mcpick` input if given, else an mcpick already on PATH, else `release`
#            release the release binary: the asset INPUT_RELEASE_URL names ({version}, {target},
#                    {repo} filled in), a bare binary or a .tar.gz holding one named mcpick
#            docker  the image deploy/Dockerfile builds from the action's own checkout, behind a
#                    small wrapper that mounts the workspace and the runner's temporary folder
#            none    the `mcpick` input or PATH, else stop
set -euo pipefail
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
need RUNNER_TEMP ACTION_PATH

mode=${INPUT_INSTALL:-auto}
given=${INPUT_MCPICK:-}
bin_dir="$RUNNER_TEMP/mcpick-bin"

version() {
  if [ -n "${INPUT_VERSION:-}" ]; then
    echo "${INPUT_VERSION#v}"
  else
    # The action's own version: the release of mcpick the action was tagged with.
    sed -n 's/^version = "\(.*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1
  fi
}

use() {  # use COMMAND HOW: check it answers --version, then hand it on
  local found
  if ! found=$("$1" --version 2>&1); then
    echo "::error::mcpick action: $1 --version failed ($2): $found" >&2
    exit 1
  fi
  echo "mcpick action: using $1 ($2; $found)"
  set_output bin "$1"
  set_output version "${found#mcpick }"
  if [ -n "${GITHUB_PATH:-}" ]; then dirname "$1" >>"$GITHUB_PATH"; fi
  exit 0
}

from_given() {
  case "$given" in
    */*) use "$(cd "$(dirname "$given")" && pwd)/$(basename "$given")" "the mcpick input" ;;
    *)
      local path
      path=$(command -v "$given") || { echo "::error::mcpick action: mcpick input '$given' is not a command" >&2; exit 1; }
      use "$path" "the mcpick input"
      ;;
  esac
}

release() {
  need INPUT_RELEASE_URL
  local v target url archive
  v=$(version)
  [ -n "$v" ] || { echo "::error::mcpick action: no version: set the version input" >&2; exit 1; }
  case "$(uname -m)" in
    x86_64 | amd64) target=x86_64-unknown-linux-gnu ;;
    aarch64 | arm64) target=aarch64-unknown-linux-gnu ;;
    *) echo "::error::mcpick action: no release binary for $(uname -m); use install: docker" >&2; exit 1 ;;
  esac
  url=${INPUT_RELEASE_URL//\{version\}/$v}
  url=${url//\{target\}/$target}
  if [[ $url == *"{repo}"* ]]; then
    # github.action_repository is not promised in a composite action's steps; the action's own
    # folder, .../_actions/OWNER/REPO/REF, names it too.
    local repo=${ACTION_REPOSITORY:-} rest=${ACTION_PATH#*/_actions/}
    if [ -z "$repo" ] && [ "$rest" != "$ACTION_PATH" ]; then repo=$(cut -d/ -f1-2 <<<"$rest"); fi
    [ -n "$repo" ] || { echo "::error::mcpick action: cannot tell the action's repository for {repo}: set release-url" >&2; exit 1; }
    url=${url//\{repo\}/$repo}
  fi
  mkdir -p "$bin_dir"
  archive="$bin_dir/download"
  echo "mcpick action: downloading $url"
  curl --fail --silent --show-error --location --retry 3 --output "$archive" "$url"
  if [ -n "${INPUT_RELEASE_SHA256:-}" ]; then
    echo "${INPUT_RELEASE_SHA256}  $archive" | sha256sum --check --quiet -
  fi
  case "$url" in
    *.tar.gz | *.tgz)
      local unpacked="$bin_dir/unpacked" found
      mkdir -p "$unpacked"
      tar -xzf "$archive" -C "$unpacked"
      found=$(find "$unpacked" -type f -name mcpick | head -n 1)
      [ -n "$found" ] || { echo "::error::mcpick action: $url holds no file named mcpick" >&2; exit 1; }
      mv "$found" "$bin_dir/mcpick"
      rm -rf "$unpacked" "$archive"
      ;;
    *) mv "$archive" "$bin_dir/mcpick" ;;
  esac
  chmod +x "$bin_dir/mcpick"
  use "$bin_dir/mcpick" "release $v"
}

docker_image() {
  local image
  image="mcpick-action:$(version)"
  echo "mcpick action: building $image from $ACTION_PATH/deploy/Dockerfile"
  docker build --file "$ACTION_PATH/deploy/Dockerfile" --tag "$image" "$ACTION_PATH"
  mkdir -p "$bin_dir"
  # The wrapper runs the image in the current folder with the workspace and the runner's temporary
  # folder (where the base checkout and the runs go) mounted at the same paths, and passes on the
  # variables mcpick reads (the keys by name only: their values never enter a file).
  cat >"$bin_dir/mcpick" <<WRAPPER
#!/usr/bin/env bash
set -euo pipefail
exec docker run --rm --user "\$(id -u):\$(id -g)" \\
  --volume "${GITHUB_WORKSPACE:-$PWD}:${GITHUB_WORKSPACE:-$PWD}" --volume "$RUNNER_TEMP:$RUNNER_TEMP" \\
  --workdir "\$PWD" --env MCPICK_CACHE_DIR --env OPENAI_API_KEY --env ANTHROPIC_API_KEY \\
  --env HOME=/tmp "$image" "\$@"
WRAPPER
  chmod +x "$bin_dir/mcpick"
  use "$bin_dir/mcpick" "docker image $image"
}

case "$mode" in
  auto)
    [ -n "$given" ] && from_given
    if path=$(command -v mcpick); then use "$path" "already on PATH"; fi
    release
    ;;
  none)
    [ -n "$given" ] && from_given
    if path=$(command -v mcpick); then use "$path" "already on PATH"; fi
    echo "::error::mcpick action: install: none, and no mcpick input nor mcpick on PATH" >&2
    exit 1
    ;;
  release) release ;;
  docker) docker_image ;;
  *)
    echo "::error::mcpick action: install must be auto, release, docker or none, not '$mode'" >&2
    exit 1
    ;;
esac
