#!/usr/bin/env bash
# llama.cpp's own benchmark, llama-bench, as a cross-check of `cargo bench --bench local_model`'s
# in-process figures. llama-cpp-sys-2 vendors llama.cpp without llama-bench's source, so this takes
# the llama.cpp that llama-cpp-python 0.3.36 carries on PyPI (the package tests/peers already pins),
# builds llama-bench with the portable flags mcpick's own build uses (.cargo/config.toml), and runs
# it on each catalogue model present: 512-token prompts and 128 generated tokens, from an empty
# context and after 5,600 tokens (a travel trial's tool list), with 2 threads (`local`'s default when
# it runs alone). Building takes about 6 minutes on 2 cores; the build is kept under $WORK.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${WORK:-${TMPDIR:-/tmp}/mcpick-llama-bench}
models=${MCPICK_MODEL_DIR:-$HOME/.cache/mcpick/models}
mkdir -p "$work"
if [ ! -x "$work/build/bin/llama-bench" ]; then
  python3 -m pip download --quiet --no-binary :all: --no-deps --dest "$work" llama-cpp-python==0.3.36
  tar -xzf "$work"/llama_cpp_python-0.3.36.tar.gz -C "$work"
  cmake -S "$work/llama_cpp_python-0.3.36/vendor/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF >/dev/null
  cmake --build "$work/build" --target llama-bench -j 2 >/dev/null
fi
for file in SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \
  qwen2.5-coder-1.5b-instruct-q4_k_m.gguf; do
  [ -f "$models/$file" ] || continue
  "$work/build/bin/llama-bench" -m "$models/$file" -t 2 -p 512 -n 128 -d 0,5600 -r 2 -o md
done
