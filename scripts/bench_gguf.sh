#!/usr/bin/env bash
# A many-GB GGUF file's header read and estimated (issue 12), natively and in the page, each
# beside a baseline in the same run: tests/fixtures/gguf_fixtures --big writes Qwen3-235B-A22B's
# real-size header into a 142 GB sparse file; bench/gguf_bench times `estimate --gguf` in-process
# (and its steps) beside `estimate --config` of the same model; bench/gguf_node.mjs times
# @huggingface/gguf parsing the same file; bench/gguf_page.mjs picks the file in the page
# (headless Chromium) beside the page's import of the config.json. Needs the native-release build
# (and build/wasm-release/web for the page).
# Usage: scripts/bench_gguf.sh [rounds]   (default 21 native, 7 in the page)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
rounds=${1:-21}
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target gguf_bench gguf_fixtures >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
build/native-release/tests/gguf_fixtures --big "$dir"
file="$dir/qwen3-235b-a22b-q4_k_m.gguf"
# The model's config.json (Qwen/Qwen3-235B-A22B), the same model the file's metadata describes.
cat > "$dir/config.json" <<'JSON'
{"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "head_dim": 128, "hidden_act": "silu",
 "hidden_size": 4096, "intermediate_size": 12288, "max_position_embeddings": 40960, "mlp_only_layers": [],
 "model_type": "qwen3_moe", "moe_intermediate_size": 1536, "norm_topk_prob": true, "num_attention_heads": 64,
 "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 94, "num_key_value_heads": 4,
 "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
 "vocab_size": 151936, "decoder_sparse_step": 1}
JSON
echo "file: $(stat -c %s "$file") bytes (sparse; $(du -k "$file" | cut -f1) KiB on disk)"
build/native-release/bench/gguf_bench "$file" "$dir/config.json" "$rounds"
node bench/gguf_node.mjs "$file" "$rounds"
if [ -f build/wasm-release/web/index.html ]; then
  LLMSIZE_WEB_DIR=build/wasm-release/web LLMSIZE_ARTIFACTS="$dir/artifacts" node bench/gguf_page.mjs "$file" "$dir/config.json" 7
else
  echo "page: no build/wasm-release/web (cmake --build --preset wasm-release), skipped"
fi
