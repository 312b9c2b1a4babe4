// Calibration against published llama.cpp start-up logs (issue 11): the KV cache and recurrent
// state lines llama-server prints, reproduced character for character from the model's config and
// the run's flags. Each case keeps the lines as published and where they were found (public logs
// found by exact-string search; the index names no repository, so the note says what the log is).
#include <algorithm>
#include <cmath>

#include "core/estimate.hpp"
#include "core/figures.hpp"
#include "core/hf_config.hpp"
#include "core/launch.hpp"
#include "core/report.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;
using llmsize::test::with;

namespace {

// The llama.cpp lines llmsize prints for a preset (or config) and a workload given as link keys.
std::vector<std::string> lines(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Workload w = with(kv);
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().llamacpp.has_value());
  return llamacpp_log(*e.value().llamacpp, w.kv_dtype);
}

// The workload (link keys, runtime llama.cpp) and llmsize's estimate for it, its buffers modelled.
std::pair<Workload, Estimate> with_buffers(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Workload w = with(kv);
  w.runtime = Runtime::LlamaCpp;
  auto e = estimate(c, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp_devices);
  return {w, std::move(e).value()};
}

// The buffers llmsize gives llama.cpp for a preset and a workload given as link keys.
LlamaCppBuffers buffers(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
  return *with_buffers(c, kv).second.llamacpp_devices;
}

}  // namespace

namespace {

// The reserved graph's shape for a model on one GPU, every layer there (engine_llamacpp_graph.cpp).
LlamaCppGraphShape graph_shape(const ModelConfig& c, i64 tokens, i64 n_kv, i64 outputs, LlamaCppGraph g) {
  LlamaCppGraphShape s;
  s.d_model = c.d_model, s.n_heads = c.n_heads, s.n_kv_heads = c.n_kv_heads, s.head_dim = c.head_dim, s.d_ff = c.d_ff;
  s.n_layer = c.n_layers, s.vocab = c.vocab, s.tokens = tokens, s.n_kv = n_kv, s.outputs = outputs;
  s.qk_norm = c.norm_qk, s.qkv_bias = c.bias_qkv, s.graph = g;
  if (c.is_moe()) s.n_expert = c.moe.num_experts, s.n_expert_used = c.moe.top_k, s.expert_ffn = c.moe.expert_ffn;
  return s;
}

}  // namespace

TEST_CASE("llama.cpp: gpt-oss-20b's SWA cache holds n_swa + n_ubatch cells, padded to 256", "[calibration][llamacpp]") {
  // A gpt-oss-20b run with -c 131072 -fa on, one slot (a public copy of an ik_llama.cpp issue's log, build 6699):
  //   llama_kv_cache_iswa: creating non-SWA KV cache, size = 131072 cells
  //   llama_kv_cache: size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), K (f16): 1536.00 MiB, V (f16): 1536.00 MiB
  //   llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells
  //   llama_kv_cache: size =   18.00 MiB (   768 cells,  12 layers,  1/1 seqs), K (f16):    9.00 MiB, V (f16):    9.00 MiB
  CHECK(lines(preset("gpt-oss-20b").config, {{"seq", "131072"}, {"np", "1"}, {"kvt", "fp16"}}) ==
        std::vector<std::string>{
            "llama_kv_cache_iswa: creating non-SWA KV cache, size = 131072 cells",
            "llama_kv_cache: size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), K (f16): 1536.00 MiB, V (f16): 1536.00 MiB",
            "llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells",
            "llama_kv_cache: size =   18.00 MiB (   768 cells,  12 layers,  1/1 seqs), K (f16):    9.00 MiB, V (f16):    9.00 MiB"});
  // The server's default, 4 slots on one unified stream (a public Apple M5 run's log): 128 · 4 + 512 = 1,024 SWA cells.
  //   llama_kv_cache: size =   24.00 MiB (  1024 cells,  12 layers,  4/1 seqs), K (f16):   12.00 MiB, V (f16):   12.00 MiB
  const auto server = lines(preset("gpt-oss-20b").config, {{"seq", "131072"}, {"kvt", "fp16"}});
  REQUIRE(server.size() == 4);
  CHECK(server[2] == "llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells");
  CHECK(server[3] ==
        "llama_kv_cache: size =   24.00 MiB (  1024 cells,  12 layers,  4/1 seqs), K (f16):   12.00 MiB, V (f16):   12.00 MiB");
  // --ctx-size 8192 --batch-size 128 -ctk q8_0 -ctv q8_0 -fa on (llama.cpp docs/backend/snapdragon/developer.md):
  // n_ubatch = min(n_batch, 512) = 128, so 128 + 128 = 256 SWA cells.
  //   llama_kv_cache: size =  102.00 MiB (  8192 cells,  12 layers,  1/1 seqs), K (q8_0):   51.00 MiB, V (q8_0):   51.00 MiB
  //   llama_kv_cache: size =    3.19 MiB (   256 cells,  12 layers,  1/1 seqs), K (q8_0):    1.59 MiB, V (q8_0):    1.59 MiB
  const auto q8 = lines(preset("gpt-oss-20b").config, {{"seq", "8192"}, {"ub", "128"}, {"np", "1"}, {"kvt", "q8_0"}});
  REQUIRE(q8.size() == 4);
  CHECK(q8[1] ==
        "llama_kv_cache: size =  102.00 MiB (  8192 cells,  12 layers,  1/1 seqs), K (q8_0):   51.00 MiB, V (q8_0):   51.00 MiB");
  CHECK(q8[3] ==
        "llama_kv_cache: size =    3.19 MiB (   256 cells,  12 layers,  1/1 seqs), K (q8_0):    1.59 MiB, V (q8_0):    1.59 MiB");
  // --swa-full: the SWA layers keep n_ctx cells.
  const auto full = lines(preset("gpt-oss-20b").config, {{"seq", "8192"}, {"np", "1"}, {"kvt", "fp16"}, {"swaf", "1"}});
  CHECK(full[2] == "llama_kv_cache_iswa: creating     SWA KV cache, size = 8192 cells");
}

TEST_CASE("llama.cpp: Gemma 4 E4B's KV-shared layers hold no cache; 24 of 42 layers get tensors", "[calibration][llamacpp]") {
  // A public Gemma 4 E4B run at -c 65536 with a q8_0 cache, one slot:
  //   llama_kv_cache: size =  544.00 MiB ( 65536 cells,   4 layers,  1/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB
  //   llama_kv_cache: size =   21.25 MiB (  1024 cells,  20 layers,  1/1 seqs), K (q8_0):   10.62 MiB, V (q8_0):   10.62 MiB
  const auto g = lines(preset("gemma-4-e4b").config, {{"seq", "65536"}, {"np", "1"}, {"kvt", "q8_0"}});
  REQUIRE(g.size() == 4);
  CHECK(g[1] ==
        "llama_kv_cache: size =  544.00 MiB ( 65536 cells,   4 layers,  1/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB");
  CHECK(g[3] ==
        "llama_kv_cache: size =   21.25 MiB (  1024 cells,  20 layers,  1/1 seqs), K (q8_0):   10.62 MiB, V (q8_0):   10.62 MiB");
}

TEST_CASE("llama.cpp: Gemma 4 26B-A4B's full layers (2 KV heads of 512) and SWA layers (8 of 256)", "[calibration][llamacpp]") {
  // A llama.cpp front-end's test suite quoting "verbatim lines from `llama-cli --verbose -ngl 0` against the real
  // gemma-4-26b-a4b at ctx 262144 / K=V q8_0" (one sequence, n_ubatch 512; build not given):
  //   llama_kv_cache: size = 2720.00 MiB (262144 cells,   5 layers,  1/1 seqs), K (q8_0): 1360.00 MiB, V (q8_0): 1360.00 MiB
  //   llama_kv_cache: size =  159.38 MiB (  1536 cells,  25 layers,  1/1 seqs), K (q8_0):   79.69 MiB, V (q8_0):   79.69 MiB
  // V stays its own tensor on the full layers (attention_k_eq_v shares the projection, not the cache); the SWA
  // cache holds n_swa + n_ubatch = 1,536 cells.
  const ModelConfig c = preset("gemma-4-26b-a4b").config;
  const auto g = lines(c, {{"seq", "262144"}, {"np", "1"}, {"kvt", "q8_0"}, {"ngl", "0"}});
  REQUIRE(g.size() == 4);
  CHECK(g[1] ==
        "llama_kv_cache: size = 2720.00 MiB (262144 cells,   5 layers,  1/1 seqs), K (q8_0): 1360.00 MiB, V (q8_0): 1360.00 MiB");
  CHECK(g[3] ==
        "llama_kv_cache: size =  159.38 MiB (  1536 cells,  25 layers,  1/1 seqs), K (q8_0):   79.69 MiB, V (q8_0):   79.69 MiB");
  // A llama-server start-up (a fork with its own K/V types on the full layers, f16 on the SWA ones) with
  // -np 1 -c 262144 -ub 288 on an RTX 3090 Ti, its SWA cache as upstream sizes it, n_swa + n_ubatch padded to 256:
  //   llama_kv_cache_iswa: creating     SWA KV cache, size = 1536 cells
  //   llama_kv_cache: size =  300.00 MiB (  1536 cells,  25 layers,  1/1 seqs), K (f16):  150.00 MiB, V (f16):  150.00 MiB
  const auto f = lines(c, {{"seq", "262144"}, {"np", "1"}, {"kvt", "fp16"}, {"ub", "288"}});
  REQUIRE(f.size() == 4);
  CHECK(f[2] == "llama_kv_cache_iswa: creating     SWA KV cache, size = 1536 cells");
  CHECK(f[3] ==
        "llama_kv_cache: size =  300.00 MiB (  1536 cells,  25 layers,  1/1 seqs), K (f16):  150.00 MiB, V (f16):  150.00 MiB");
}

TEST_CASE("llama.cpp: dense models on the server's 4 unified slots, and Phi-3 without its window", "[calibration][llamacpp]") {
  // Phi-3.1-mini-4k at the server default (a public log, build 8833); phi3.cpp sets LLAMA_SWA_TYPE_NONE, so
  // its sliding_window (2047) does not make an iswa cache:
  //   llama_kv_cache: size = 1536.00 MiB (  4096 cells,  32 layers,  4/1 seqs), K (f16):  768.00 MiB, V (f16):  768.00 MiB
  CHECK(lines(preset("phi-3-mini").config, {{"seq", "4096"}, {"kvt", "fp16"}}) ==
        std::vector<std::string>{
            "llama_kv_cache: size = 1536.00 MiB (  4096 cells,  32 layers,  4/1 seqs), K (f16):  768.00 MiB, V (f16):  768.00 MiB"});
  // A Qwen3 MoE of 48 layers with 4 KV heads of 128 (Qwen3-30B-A3B's shape) at -c 65536 (a public log):
  //   llama_kv_cache: size = 6144.00 MiB ( 65536 cells,  48 layers,  4/1 seqs), K (f16): 3072.00 MiB, V (f16): 3072.00 MiB
  CHECK(lines(preset("qwen3-30b-a3b").config, {{"seq", "65536"}, {"kvt", "fp16"}}) ==
        std::vector<std::string>{
            "llama_kv_cache: size = 6144.00 MiB ( 65536 cells,  48 layers,  4/1 seqs), K (f16): 3072.00 MiB, V (f16): 3072.00 MiB"});
  // -np 3 without -kvu: n_ctx splits in 3 streams of GGML_PAD(4096 / 3, 256) = 1,536 cells, n_ctx 4,608.
  Workload w = with({{"seq", "4096"}, {"np", "3"}, {"kvt", "fp16"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("phi-3-mini").config, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().llamacpp);
  CHECK(e.value().llamacpp->n_ctx == 4608);
  CHECK(e.value().llamacpp->n_ctx_seq == 1536);
  CHECK(e.value().llamacpp->kv_bytes() == 3 * i64{1536} * 32 * 3072 * 2 * 2);
}

TEST_CASE("llama.cpp: Qwen3.5's recurrent state, f32, one cell per slot, its line naming all layers", "[calibration][llamacpp]") {
  // A Qwen3.5 4B-class model (32 layers: 8 attention, 24 Gated DeltaNet) on 4 slots (a public log, whitespace
  // collapsed there):
  //   llama_kv_cache: size = 4224.00 MiB (135168 cells, 8 layers, 4/1 seqs), K (f16): 2112.00 MiB, V (f16): 2112.00 MiB
  //   llama_memory_recurrent: size = 201.00 MiB (4 cells, 32 layers, 4 seqs), R (f32): 9.00 MiB, S (f32): 192.00 MiB
  // and the current format with one slot (another public log):
  //   llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs  0 rs_seq), R (f32):    2.25 MiB, S (f32):   48.00 MiB
  const auto r = import_hf_config(R"({"model_type": "qwen3_5_text", "hidden_size": 2560, "num_hidden_layers": 32,
    "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 9216, "linear_num_value_heads": 32,
    "max_position_embeddings": 262144})");
  REQUIRE(r.ok());
  const auto four = lines(r->config, {{"seq", "135168"}, {"kvt", "fp16"}});
  REQUIRE(four.size() == 2);
  CHECK(four[0] ==
        "llama_kv_cache: size = 4224.00 MiB (135168 cells,   8 layers,  4/1 seqs), K (f16): 2112.00 MiB, V (f16): 2112.00 MiB");
  CHECK(four[1] ==
        "llama_memory_recurrent: size =  201.00 MiB (     4 cells,  32 layers,  4 seqs  0 rs_seq), R (f32):    9.00 MiB, S (f32):  192.00 MiB");
  const auto one = lines(r->config, {{"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}});
  REQUIRE(one.size() == 2);
  CHECK(one[1] ==
        "llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs  0 rs_seq), R (f32):    2.25 MiB, S (f32):   48.00 MiB");
}

TEST_CASE("llama.cpp: GLM-4.5's nextn layer keeps K and V beside its 46 trunk layers", "[llamacpp]") {
  // No published log at hand: by create_memory's filters (only step35, hy_v3, glm_dsa, mimo2 and
  // deepseek32 leave nextn layers out), GLM-4.5-Air's cache holds 47 layers of 8 KV heads of 128.
  const auto g = lines(preset("glm-4.5-air").config, {{"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}});
  REQUIRE(g.size() == 1);
  CHECK(g[0] ==
        "llama_kv_cache: size =  752.00 MiB (  4096 cells,  47 layers,  1/1 seqs), K (f16):  376.00 MiB, V (f16):  376.00 MiB");
  CHECK(47 * 4096 * 8 * 128 * 2 == 376 * 1024 * 1024);
}

TEST_CASE("llama.cpp: flags it would refuse, and caches not modelled yet, are named", "[calibration][llamacpp]") {
  Workload w = with({{"kvt", "fp8"}});
  w.runtime = Runtime::LlamaCpp;
  auto e = estimate(preset("llama-3-8b").config, w);
  REQUIRE(e.ok());  // the estimate stands; llama.cpp's part is a note
  CHECK_FALSE(e.value().llamacpp);
  REQUIRE_FALSE(e.value().notes.empty());
  CHECK(e.value().notes.back().field == "kvt");
  w = with({{"kvt", "q8_0"}, {"flash", "0"}});
  w.runtime = Runtime::LlamaCpp;
  e = estimate(preset("llama-3-8b").config, w);
  REQUIRE(e.ok());
  CHECK(e.value().notes.back().field == "flash");
}

TEST_CASE("llama.cpp: DeepSeek-V3.2's DSA cache, the MLA latent and the indexer's keys in two caches", "[calibration][llamacpp]") {
  // llama_model::create_memory (LLM_ARCH_DEEPSEEK32) builds a llama_kv_cache_dsa: the MLA cache of the 61
  // trunk layers (K = kv_lora_rank + rope = 576 wide, no V), then "creating indexer KV cache" of the same
  // cells, one 128-wide key head per layer (hparams_lid, still MLA: no V), both in -ctk's type. A public
  // run of that cache on a one-layer model printed, right after the indexer's "creating" line:
  //   llama_kv_cache: size = 0.50 MiB (512 cells, 1 layers, 4/4 seqs), K (f16): 0.50 MiB, V (f16): 0.00 MiB
  // — 512 cells · 4 streams · 256 B: the indexer key is 128 f16 per token.
  const auto dsa = lines(preset("deepseek-v3.2").config, {{"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}});
  CHECK(dsa == std::vector<std::string>{
                   "llama_kv_cache_dsa: creating main KV cache, size = 4096 cells",
                   "llama_kv_cache: size =  274.50 MiB (  4096 cells,  61 layers,  1/1 seqs), K (f16):  274.50 MiB, V (f16):    0.00 MiB",
                   "llama_kv_cache_dsa: creating indexer KV cache, size = 4096 cells",
                   "llama_kv_cache: size =   61.00 MiB (  4096 cells,  61 layers,  1/1 seqs), K (f16):   61.00 MiB, V (f16):    0.00 MiB"});
  // The same one-layer arithmetic: four unified-off slots of 512 cells each hold 4 · 512 · 256 B = 0.50 MiB per layer.
  const auto four = lines(preset("deepseek-v3.2").config, {{"seq", "2048"}, {"np", "4"}, {"kvt", "fp16"}});
  REQUIRE(four.size() == 4);
  CHECK(four[3] == "llama_kv_cache: size =   30.50 MiB (   512 cells,  61 layers,  4/4 seqs), K (f16):   30.50 MiB, V (f16):    0.00 MiB");
  // q8_0 (-ctk q8_0 -fa on): 34 bytes per 32 values in both caches; the estimate's KV is the two caches, with
  // no separate indexer figure beside them.
  Workload w = with({{"seq", "4096"}, {"np", "1"}, {"kvt", "q8_0"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("deepseek-v3.2").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp);
  CHECK(e->llamacpp->dsa);
  CHECK(e->llamacpp->kv_bytes() == 4096LL * 61 * (576 / 32 * 34 + 128 / 32 * 34));
  CHECK(e->inference.kv_cache_bytes == e->llamacpp->kv_bytes());
  CHECK(e->inference.indexer_cache_bytes == 0);
}

TEST_CASE("llama.cpp: the runtime's KV cache figure is llama-server's allocation", "[calibration][llamacpp]") {
  // gpt-oss-20b, -c 131072, one slot, f16: 3072.00 + 18.00 MiB (the published lines above), not
  // 131,072 tokens in every layer: the fit, phases and max context use the engine's cells.
  Workload w = with({{"seq", "131072"}, {"np", "1"}, {"kvt", "fp16"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("gpt-oss-20b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp.has_value());
  CHECK(e->inference.kv_cache_bytes == i64{3072 + 18} * 1048576);
  CHECK(e->inference.kv_cache_bytes == e->llamacpp->kv_bytes());
  // n_ctx padded to 256: a context of 1000 holds 1024 cells.
  Workload small = with({{"seq", "1000"}, {"np", "1"}, {"kvt", "fp16"}});
  small.runtime = Runtime::LlamaCpp;
  const auto q = estimate(preset("qwen2.5-7b").config, small);
  REQUIRE(q.ok());
  CHECK(q->inference.kv_cache_bytes == 1024 * 28 * 2 * 4 * 128 * 2);
  // Another runtime keeps the per-token formula.
  CHECK(estimate(preset("qwen2.5-7b").config, with({{"seq", "1000"}, {"kvt", "fp16"}}))->inference.kv_cache_bytes ==
        1000 * 28 * 2 * 4 * 128 * 2);
  // batch sequences of seq tokens: -c seq · batch, shared by the slots; the printed lines and the
  // figures are the same cache.
  Workload four = with({{"seq", "4096"}, {"batch", "4"}, {"np", "4"}, {"kvt", "fp16"}});
  four.runtime = Runtime::LlamaCpp;
  const auto f = estimate(preset("qwen2.5-7b").config, four);
  REQUIRE(f.ok());
  REQUIRE(f->llamacpp.has_value());
  CHECK(f->llamacpp->n_ctx == 16384);
  CHECK(f->inference.kv_cache_bytes == f->llamacpp->kv_bytes());
  CHECK(llamacpp_log(*f->llamacpp, four.kv_dtype).back() ==
        "llama_kv_cache: size =  896.00 MiB (  4096 cells,  28 layers,  4/4 seqs), K (f16):  448.00 MiB, V (f16):  448.00 MiB");
}

TEST_CASE("llama.cpp: model buffers per device, -ngl and --n-cpu-moe", "[calibration][llamacpp]") {
  // Qwen2.5-Coder-7B-Instruct Q4_K_M, all 29 layers on an RTX 3060 (a public Ollama transcript):
  //   load_tensors:   CPU_Mapped model buffer size =   292.36 MiB
  //   load_tensors:        CUDA0 model buffer size =  4168.09 MiB
  // The token embedding stays mapped on the CPU; everything else, the output layer included, is on the GPU.
  Workload w = with({{"w", "q4_k_m"}, {"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}, {"gpu", "rtx-3090"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("qwen2.5-7b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp_devices.has_value());
  // The same transcript's output buffer line reads 0.59 MiB: (152064 logits + 3584 embeddings) × 4 B,
  // Ollama's runner asks for embeddings too; llama-server does not, so llmsize prints 0.58 MiB.
  //   llama_context:  CUDA_Host  output buffer size =     0.59 MiB
  CHECK(llamacpp_buffer_log(*e->llamacpp_devices) ==
        std::vector<std::string>{"load_tensors: offloading output layer to GPU",
                                 "load_tensors: offloading 27 repeating layers to GPU",
                                 "load_tensors: offloaded 29/29 layers to GPU",
                                 "load_tensors:   CPU_Mapped model buffer size =   292.36 MiB",
                                 "load_tensors:        CUDA0 model buffer size =  4168.09 MiB",
                                 "llama_context:  CUDA_Host  output buffer size =     0.58 MiB"});
  CHECK(e->llamacpp_devices->output_buffer_bytes + 3584 * 4 == 622592);  // 0.59 MiB with Ollama's embeddings rows
  CHECK(e->inference.weights_bytes == e->llamacpp_devices->gpu_model_bytes());  // the GPU holds its buffer, not the embedding
  // Qwen3-4B Q4_K_M (tied embeddings), llama-server -ngl 99 -c 8192 (a public log, 2026-10-08):
  //   load_tensors: offloading output layer to GPU
  //   load_tensors: offloading 35 repeating layers to GPU
  //   load_tensors: offloaded 37/37 layers to GPU
  //   load_tensors:   CPU_Mapped model buffer size =   304.28 MiB
  //   load_tensors:        CUDA0 model buffer size =  2375.91 MiB
  //   llama_context:  CUDA_Host  output buffer size =     2.32 MiB
  // The tied head is token_embd duplicated on the output layer's device; the output buffer holds
  // the logits of the 4 default slots (151936 × 4 × 4 B). llama.cpp counts min(ngl, 36) layers
  // and prints 35 "repeating" ones after the output layer, though all 36 are on the GPU.
  Workload t = with({{"w", "q4_k_m"}, {"seq", "8192"}, {"kvt", "fp16"}, {"ngl", "99"}});
  t.runtime = Runtime::LlamaCpp;
  const auto q = estimate(llmsize::test::import_file("calibration/configs/qwen3-4b.json"), t);
  REQUIRE(q.ok());
  REQUIRE(q->llamacpp_devices.has_value());
  CHECK(llamacpp_buffer_log(*q->llamacpp_devices) ==
        std::vector<std::string>{"load_tensors: offloading output layer to GPU",
                                 "load_tensors: offloading 35 repeating layers to GPU",
                                 "load_tensors: offloaded 37/37 layers to GPU",
                                 "load_tensors:   CPU_Mapped model buffer size =   304.28 MiB",
                                 "load_tensors:        CUDA0 model buffer size =  2375.91 MiB",
                                 "llama_context:  CUDA_Host  output buffer size =     2.32 MiB"});
  // -ngl 10 (llama_model_base::load_tensors: i_gpu_start = n_layer + 1 − ngl = 19): the output
  // layer and layers 19…27 on the GPU, layers 0…18 on the CPU; the cache follows its layers.
  Workload part = w;
  part.n_gpu_layers = 10;
  const auto p = estimate(preset("qwen2.5-7b").config, part);
  REQUIRE(p.ok());
  const LlamaCppBuffers& d = *p->llamacpp_devices;
  CHECK(d.offloaded == 10);
  CHECK(d.output_on_gpu);
  CHECK(d.devices.at(0).first == 19);
  CHECK(d.devices.at(0).count == 9);
  CHECK(d.gpu_model_bytes() + d.cpu_mapped_bytes == e->llamacpp_devices->gpu_model_bytes() + e->llamacpp_devices->cpu_mapped_bytes);
  CHECK(d.gpu_cache_bytes() == 9 * 4096 * 2 * 4 * 128 * 2);
  CHECK(d.cpu_cache_bytes == 19 * 4096 * 2 * 4 * 128 * 2);
  CHECK(p->inference.kv_cache_bytes == d.gpu_cache_bytes());
  CHECK(llamacpp_buffer_log(d).at(1) == "load_tensors: offloading 9 repeating layers to GPU");
  // -ngl 1: only the output layer; -ngl 0: nothing on the GPU, and the output buffer in plain CPU memory.
  part.n_gpu_layers = 1;
  const auto one = estimate(preset("qwen2.5-7b").config, part);
  CHECK(one->llamacpp_devices->output_on_gpu);
  CHECK(one->llamacpp_devices->devices.at(0).count == 0);
  part.n_gpu_layers = 0;
  const auto none = estimate(preset("qwen2.5-7b").config, part);
  CHECK(none->llamacpp_devices->gpu_model_bytes() == 0);
  CHECK(none->llamacpp_devices->output_buffer == "CPU");
  CHECK(llamacpp_buffer_log(*none->llamacpp_devices).front() == "load_tensors: offloading 0 repeating layers to GPU");
  // --n-cpu-moe 8 keeps the first 8 layers' experts on the CPU: 8/48 of Qwen3-30B-A3B's expert bytes move.
  Workload moe = with({{"w", "q8_0"}, {"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}});
  moe.runtime = Runtime::LlamaCpp;
  const auto all = estimate(preset("qwen3-30b-a3b").config, moe);
  moe.n_cpu_moe = 8;
  const auto some = estimate(preset("qwen3-30b-a3b").config, moe);
  REQUIRE(all.ok());
  REQUIRE(some.ok());
  const i64 moved = all->llamacpp_devices->gpu_model_bytes() - some->llamacpp_devices->gpu_model_bytes();
  CHECK(moved == some->llamacpp_devices->cpu_mapped_bytes - all->llamacpp_devices->cpu_mapped_bytes);
  // 8 layers × 128 experts × 3 matrices of 2048 × 768, q8_0 (34 bytes per 32 values).
  CHECK(moved == i64{8} * 128 * 3 * 2048 * 768 / 32 * 34);
}

TEST_CASE("llama.cpp: layers over several devices, --tensor-split", "[calibration][llamacpp]") {
  // Qwen2.5-7B (28 layers + the output layer = 29 to place) on two cards. Without a split,
  // llama.cpp shares by free memory, equal on identical idle cards: split points 0.5 and 1, so
  // layers 0…14 (14/29 < 0.5) on CUDA0 and 15…27 with the output layer on CUDA1.
  // A library caller (every token of the ubatch an output) with a 2025 build's graph (the cache
  // written by set_rows, no embeddings input), as the checked one-card start-up (Ollama's runner).
  Workload w = with({{"w", "q4_k_m"}, {"seq", "4096"}, {"np", "1"}, {"kvt", "fp16"}, {"pp", "2"}, {"gpus", "2"}, {"lcc", "library"},
                     {"lcg", "2025-08"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("qwen2.5-7b").config, w);
  REQUIRE(e.ok());
  const LlamaCppBuffers& d = *e->llamacpp_devices;
  REQUIRE(d.devices.size() == 2);
  CHECK(d.devices[0].name == "CUDA0");
  CHECK(d.devices[0].first == 0);
  CHECK(d.devices[0].count == 15);
  CHECK(d.devices[1].first == 15);
  CHECK(d.devices[1].count == 13);
  CHECK(d.devices[1].output);
  const i64 per_layer = 4096 * 2 * 4 * 128 * 2;  // cells × K and V × 4 KV heads × 128 × f16
  CHECK(d.devices[0].cache_bytes == 15 * per_layer);
  CHECK(d.devices[1].cache_bytes == 13 * per_layer);
  // One device's buffers are the single device's, split: nothing lost, nothing counted twice.
  Workload one = w;
  one.pp = one.gpus = 1;
  const auto s = estimate(preset("qwen2.5-7b").config, one);
  REQUIRE(s.ok());
  CHECK(d.gpu_model_bytes() == s->llamacpp_devices->gpu_model_bytes());
  CHECK(d.cpu_mapped_bytes == s->llamacpp_devices->cpu_mapped_bytes);
  // The per-GPU figures are the most loaded device's: CUDA0's 15 layers' cache or CUDA1's 13 and the head.
  CHECK((e->inference.stage == 0 || e->inference.stage == 1));
  CHECK(e->inference.weights_bytes == d.devices[static_cast<size_t>(e->inference.stage)].model_bytes);
  CHECK(e->inference.kv_cache_bytes == d.devices[static_cast<size_t>(e->inference.stage)].cache_bytes);
  // The KV buffer lines, per device, before the cache's size line (llama_kv_cache's ctx_map order).
  const auto lines = llamacpp_log(*e->llamacpp, KvDtype::F16, &d);
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "llama_kv_cache:      CUDA0 KV buffer size =   120.00 MiB");
  CHECK(lines[1] == "llama_kv_cache:      CUDA1 KV buffer size =   104.00 MiB");
  // Then the compute buffers, each device's from the scheduler's graph: CUDA1 holds the head (the
  // same 304.00 MiB as on one card), CUDA0 its layers' peak; the host's inputs as on one card; the
  // splits: the CPU's token embeddings, CUDA0's layers, CUDA1's.
  CHECK(lines[3] == "llama_context:      CUDA0 compute buffer size =   137.01 MiB");
  CHECK(lines[4] == "llama_context:      CUDA1 compute buffer size =   304.00 MiB");
  CHECK(lines[5] == "llama_context:  CUDA_Host compute buffer size =    15.01 MiB");
  CHECK(lines[6] == "llama_context: graph splits = 3");
  for (const std::string& note : llamacpp_buffer_notes(d, ByteUnit::GiB)) CHECK(note.find("not modelled") == std::string::npos);
  // Today's llama-server (PR #23861) reserves one slot's logits: CUDA1's buffer is then a layer's
  // peak too. The host's inputs gain the embeddings input (512 × 3,584 floats, PR #18898), keep the
  // mask in f16 (4 MiB less, PR #23764) and hold one output id (512 × 4 B less, the one id padded
  // to the host buffer's 32-byte alignment).
  Workload server = w;
  server.llamacpp_caller = LlamaCppCaller::Server;
  server.llamacpp_graph = LlamaCppGraph::F16Mask;
  const auto sv = estimate(preset("qwen2.5-7b").config, server);
  REQUIRE(sv.ok());
  CHECK(sv->llamacpp_devices->compute_outputs == 1);
  CHECK(sv->llamacpp_devices->compute_of(sv->llamacpp_devices->devices[1]) < d.compute_of(d.devices[1]));
  CHECK(sv->llamacpp_devices->host_compute_bytes == d.host_compute_bytes + 512 * 3584 * 4 - 4096 * 512 * 2 - 512 * 4 + 32);

  // -ts 3,1: split points 0.75 and 1: layers 0…21 (21/29 < 0.75 ≤ 22/29) on CUDA0.
  REQUIRE_FALSE(find_field("ts")->set(w, "3,1").has_value());
  const auto t = estimate(preset("qwen2.5-7b").config, w);
  REQUIRE(t.ok());
  CHECK(t->llamacpp_devices->devices[0].count == 22);
  CHECK(t->llamacpp_devices->devices[1].count == 6);
  // -ts 0,1: everything on the second device; the first has no buffer and prints no line.
  REQUIRE_FALSE(find_field("ts")->set(w, "0,1").has_value());
  const auto z = estimate(preset("qwen2.5-7b").config, w);
  REQUIRE(z.ok());
  CHECK(z->llamacpp_devices->devices[0].count == 0);
  CHECK(z->llamacpp_devices->devices[0].model_bytes == 0);
  for (const auto& line : llamacpp_buffer_log(*z->llamacpp_devices)) CHECK(line.find("CUDA0") == std::string::npos);

  // Qwen3-30B-A3B Q4_K_M, -ngl 99, experts on the CPU, RTX 4090 (9862 MiB free) + RTX 5090 (31518 MiB
  // free), mainline build 5622 (ik_llama.cpp issue thread, comment by mtcl of 2025-06-10):
  //   load_tensors:        CUDA0 model buffer size =   135.76 MiB
  //   load_tensors:        CUDA1 model buffer size =   648.66 MiB
  //   llama_context:  CUDA_Host  output buffer size =     0.58 MiB
  //   llama_kv_cache_unified:      CUDA0 KV buffer size =   384.00 MiB
  //   llama_kv_cache_unified:      CUDA1 KV buffer size =  1152.00 MiB
  Workload q = with({{"w", "q4_k_m"}, {"seq", "16384"}, {"np", "1"}, {"kvt", "fp16"}, {"flash", "0"}, {"ncmoe", "48"},
                     {"pp", "2"}, {"gpus", "2"}, {"ts", "9862,31518"}, {"ngl", "99"}});
  q.runtime = Runtime::LlamaCpp;
  const auto m = estimate(preset("qwen3-30b-a3b").config, q);
  REQUIRE(m.ok());
  const auto buffers = llamacpp_buffer_log(*m->llamacpp_devices);
  CHECK(std::find(buffers.begin(), buffers.end(), "load_tensors:        CUDA0 model buffer size =   135.76 MiB") != buffers.end());
  CHECK(std::find(buffers.begin(), buffers.end(), "load_tensors:        CUDA1 model buffer size =   648.66 MiB") != buffers.end());
  CHECK(buffers.back() == "llama_context:  CUDA_Host  output buffer size =     0.58 MiB");
  const auto kv = llamacpp_log(*m->llamacpp, KvDtype::F16, &*m->llamacpp_devices);
  CHECK(kv.at(0) == "llama_kv_cache:      CUDA0 KV buffer size =   384.00 MiB");
  CHECK(kv.at(1) == "llama_kv_cache:      CUDA1 KV buffer size =  1152.00 MiB");
  // The experts on the CPU make its line a file span (17447.91 MiB there): not printed.
  CHECK(m->llamacpp_devices->cpu_span);
  for (const auto& line : buffers) CHECK(line.find("CPU_Mapped") == std::string::npos);

  // One Metal device only, and no row split: said as a note naming the field, the devices left out.
  Workload mac = w;
  mac.tensor_split.clear();
  mac.gpu = "m4-max-128gb";
  const auto a = estimate(preset("qwen2.5-7b").config, mac);
  REQUIRE(a.ok());
  CHECK_FALSE(a->llamacpp_devices.has_value());
  REQUIRE_FALSE(a->notes.empty());
  CHECK(a->notes.back().field == "pp");
  // A share list that does not match the devices is refused by name.
  Workload bad = w;
  bad.tensor_split = {1, 2, 3};
  const auto r = estimate(preset("qwen2.5-7b").config, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues().front().field == "ts");
  CHECK(find_field("ts")->set(bad, "3,").has_value());
  CHECK(find_field("ts")->set(bad, "-1,2").has_value());
  CHECK(find_field("ts")->set(bad, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17").has_value());
}

TEST_CASE("llama.cpp: different cards per device, the fit of each on its own card", "[calibration][llamacpp]") {
  // An RTX 4090 (24 GB) and an RTX 3060 (12 GB), -ts 2,1: CUDA0 holds layers 0…19, CUDA1 layers
  // 20…27 and the output layer. Each device fits on its own card; the figures shown are the device
  // with the least room left, on its card.
  Workload w = with({{"w", "q4_k_m"}, {"seq", "32768"}, {"np", "1"}, {"kvt", "fp16"}, {"pp", "2"}, {"gpus", "2"},
                     {"ts", "2,1"}, {"devs", "rtx-4090,rtx-3060-12gb"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("qwen2.5-7b").config, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  const LlamaCppBuffers& d = *e->llamacpp_devices;
  CHECK(d.devices[0].count == 20);
  CHECK(d.devices[1].count == 8);
  // CUDA1's 8 layers, head and temporaries on 12 GB leave less room than CUDA0's 20 layers on 24 GB.
  CHECK(e->inference.stage == 1);
  CHECK(e->gpu.id == "rtx-3060-12gb");
  CHECK(e->inference.capacity_bytes == find_gpu("rtx-3060-12gb")->usable_bytes());
  CHECK(e->inference.weights_bytes == d.devices[1].model_bytes);
  CHECK(e->inference.kv_cache_bytes == d.devices[1].cache_bytes);
  CHECK(e->inference.fits);
  // The same split on two 3060s leaves the first device (20 layers) the least room: the cards matter.
  Workload same = w;
  same.devices = {"rtx-3060-12gb", "rtx-3060-12gb"};
  const auto s2 = estimate(preset("qwen2.5-7b").config, same);
  REQUIRE(s2.ok());
  CHECK(s2->inference.stage == 0);
  // Refused by name: a list of the wrong length, another runtime, cards of two vendors, an unknown id.
  Workload bad = w;
  bad.devices = {"rtx-4090"};
  CHECK(estimate(preset("qwen2.5-7b").config, bad).issues().front().field == "devs");
  bad = w;
  bad.runtime = Runtime::Vllm;
  CHECK(estimate(preset("qwen2.5-7b").config, bad).issues().front().field == "devs");
  bad = w;
  bad.devices = {"rtx-4090", "mi300x"};
  CHECK(estimate(preset("qwen2.5-7b").config, bad).issues().front().field == "devs");
  CHECK(find_field("devs")->set(bad, "rtx-4090,nonesuch").has_value());
  CHECK(find_field("devs")->set(bad, "rtx-4090,").has_value());
  CHECK_FALSE(find_field("devs")->set(bad, "").has_value());
  CHECK(bad.devices.empty());
}


TEST_CASE("llama.cpp: a prompt is computed a ubatch at a time over the whole cache, not all at once", "[llamacpp]") {
  // llama_context::decode splits a batch into ubatches of n_ubatch tokens; graph_reserve sizes the
  // worst case at min(n_ctx, n_ubatch) tokens over a stream's cells. So without flash attention the
  // scores of one step are H · n_ubatch · n_kv, not H · s²: for Qwen3-8B at 131,072 tokens that is
  // 32 · 512 · 131,072 (published: 9240.00 MiB CUDA0 compute buffer, -fa off, llama.cpp of July 2025),
  // where the whole prompt at once gave 2.2 TB of temporaries and a fit of 92 GPUs.
  auto est = [](std::initializer_list<std::pair<const char*, const char*>> kv) {
    auto e = estimate(preset("qwen3-8b").config, with(kv));
    REQUIRE(e.ok());
    return e.value();
  };
  const auto off = est({{"rt", "llamacpp"}, {"gpu", "rtx-4090"}, {"seq", "131072"}, {"flash", "0"}});
  CHECK(off.inference.chunk == 512);
  CHECK(off.inference.chunk_batch == 1);
  CHECK(off.inference.chunk_keys == 131072);
  // The reserved graph's buffer stands for the temporaries: one layer's f32 scores, soft_max in
  // place over them, beside the f32 mask's copy (131,072 × 512) and a layer's smaller tensors.
  const i64 scores = 32LL * 512 * 131072 * 4, mask = 131072LL * 512 * 4;
  CHECK(off.inference.compute_buffer_bytes == off.inference.prefill.peak);
  CHECK(off.inference.prefill.peak > scores + mask);
  CHECK(off.inference.prefill.peak < scores + mask + (64LL << 20));
  CHECK(off.inference.min_gpus == 2);
  // -ub 2048 holds four times the scores; the slots' own streams (-np 4 without -kvu) each attend their cells.
  const auto ub = est({{"rt", "llamacpp"}, {"gpu", "rtx-4090"}, {"seq", "131072"}, {"flash", "0"}, {"ub", "2048"}});
  CHECK(ub.inference.chunk == 2048);
  const auto split = est({{"rt", "llamacpp"}, {"gpu", "rtx-4090"}, {"seq", "32768"}, {"batch", "4"}, {"np", "4"}});
  CHECK(split.inference.chunk_keys == 32768);
  const auto unified = est({{"rt", "llamacpp"}, {"gpu", "rtx-4090"}, {"seq", "32768"}, {"batch", "4"}, {"np", "4"}, {"kvu", "1"}});
  CHECK(unified.inference.chunk_keys == 131072);
  // Other runtimes keep the prompt (or --prefill-chunk) and every sequence.
  const auto vllm = est({{"rt", "vllm"}, {"gpu", "h100-sxm"}, {"seq", "8192"}, {"batch", "2"}});
  CHECK(vllm.inference.chunk == 8192);
  CHECK(vllm.inference.chunk_batch == 2);
  CHECK(vllm.inference.chunk_keys == 8192);
}

TEST_CASE("llama.cpp: a dense decoder's compute buffers through ggml's graph allocator, build by build", "[calibration][llamacpp]") {
  // The reserved graph (engine_llamacpp_graph.cpp) for a published start-up whose backend llmsize
  // does not name (Vulkan): its buffer types share the graph and the allocator, and every tensor
  // here but the few-KiB inputs is a multiple of 256 bytes, so its alignment does not move the MiB
  // figures.
  auto mib = [](i64 b) { return static_cast<double>(b) / 1048576.0; };
  auto shape = [](const ModelConfig& c, i64 tokens, i64 n_kv, LlamaCppGraph g) { return graph_shape(c, tokens, n_kv, tokens, g); };
  // ikawrakow/ik_llama.cpp discussion "Vulkan support" (ikawrakow, 2025-07-01), mainline build 5781
  // (ba3ef86c5) on an RTX 4080 through Vulkan: Llama 3.1 8B Instruct Q4_0, n_ctx 16384, n_ubatch
  // 1024, flash_attn 1:
  //   llama_context:    Vulkan0 compute buffer size =   613.01 MiB
  //   llama_context: Vulkan_Host compute buffer size =    80.01 MiB
  // A layer sets the device's buffer, not the head (1,024 rows of 128,256 logits: 501 MiB): the f32
  // mask's copy (64 MiB) and its f16 cast (32 MiB) sit below the layers, which then fragment.
  const auto llama = llamacpp_graph_compute(shape(preset("llama-3.1-8b").config, 1024, 16384, LlamaCppGraph::Cpy));
  REQUIRE(llama);
  CHECK(mib(llama->device_bytes) == Approx(613.01).margin(0.005));
  CHECK(mib(llama->host_bytes) == Approx(80.01).margin(0.005));  // 1,024 embeddings of 4,096 floats, the f32 mask 16,384 × 1,024
  // The build's graph matters: set_rows' index inputs (August 2025) move both by 0.02 MiB, and
  // without the mask's cast (build 5505's graph) the head sets the device's buffer.
  const auto rows = llamacpp_graph_compute(shape(preset("llama-3.1-8b").config, 1024, 16384, LlamaCppGraph::SetRows));
  REQUIRE(rows);
  CHECK(mib(rows->device_bytes) == Approx(613.02).margin(0.005));
  const auto uncast = llamacpp_graph_compute(shape(preset("llama-3.1-8b").config, 1024, 16384, LlamaCppGraph::NoCast));
  REQUIRE(uncast);
  CHECK(uncast->device_bytes == i64{1024} * (128256 + 4096) * 4);
  // Sizes past 2^50 bytes are refused, not wrapped.
  auto huge = shape(preset("llama-3.1-8b").config, 1 << 20, i64{1} << 40, LlamaCppGraph::F16Mask);
  CHECK_FALSE(llamacpp_graph_compute(huge).has_value());
}

TEST_CASE("llama.cpp: a MoE decoder's compute buffer through build_moe_ffn", "[calibration][llamacpp]") {
  auto mib = [](i64 b) { return static_cast<double>(b) / 1048576.0; };
  const ModelConfig& c = preset("qwen3-30b-a3b").config;
  auto shape = [&](i64 tokens, i64 n_kv, i64 outputs, LlamaCppGraph g) { return graph_shape(c, tokens, n_kv, outputs, g); };
  // Build 7342, Qwen3-Coder-30B-A3B (Qwen3-30B-A3B's shape), n_ctx 65536, n_ubatch 512, every
  // token an output (before PR #23861), the f32 mask cast before the first attention (the quoted
  // log: tests/fuzz/corpus/engine_log/llamacpp-b7342-qwen3-coder-30b-a3b.log):
  //   llama_context:      CUDA0 compute buffer size =   300.75 MiB
  //   llama_context:  CUDA_Host compute buffer size =   132.01 MiB
  // The head sets the device's buffer; the layers (the mask's copy and cast, 192 MiB, beside one
  // layer's router and experts) stay below it.
  const auto b7342 = llamacpp_graph_compute(shape(512, 65536, 512, LlamaCppGraph::SetRows));
  REQUIRE(b7342);
  CHECK(mib(b7342->device_bytes) == Approx(300.75).margin(0.005));
  CHECK(mib(b7342->host_bytes) == Approx(132.01).margin(0.005));
  // With one output (llama-server since PR #23861) a layer sets it. The f16 mask's copy is live
  // through every layer's attention and sits below the layers: doubling the cells adds exactly its
  // growth, 512 × 131,072 × 2 bytes.
  const auto at128k = llamacpp_graph_compute(shape(512, 131072, 1, LlamaCppGraph::F16Mask));
  const auto at256k = llamacpp_graph_compute(shape(512, 262144, 1, LlamaCppGraph::F16Mask));
  REQUIRE(at128k);
  REQUIRE(at256k);
  CHECK(at256k->device_bytes - at128k->device_bytes == i64{512} * 131072 * 2);
  // Bounds by hand on that layer: at the experts' down projection the mask (n × n_kv f16), the
  // residual ffn_inp (n × d), the router's argsort (n × E int32), the SwiGLU of the chosen experts
  // (n × k × f_e) and the down's result (n × k × d) are all live; at most every tensor of one
  // layer and the inputs' copies are.
  const i64 n = 512, d = c.d_model, E = c.moe.num_experts, k = c.moe.top_k, fe = c.moe.expert_ffn;
  const i64 mask = n * 131072 * 2;
  const i64 live = mask + 4 * (n * d + n * E + n * k * fe + n * k * d);
  const i64 q = n * c.n_heads * c.head_dim * 4, kv = n * c.n_kv_heads * c.head_dim * 4;
  const i64 all = mask + 4 * (2 * n * d) + 4 * (n * d * 6 + 2 * n * E + 2 * n * k + 2 * n + 3 * n * k * fe + 2 * n * k * d) + 3 * q + 4 * kv;
  CHECK(at128k->device_bytes >= live);
  CHECK(at128k->device_bytes <= all);
  // A router of more experts than chosen, or more chosen than exist, is refused.
  auto bad = shape(512, 4096, 1, LlamaCppGraph::F16Mask);
  bad.n_expert_used = bad.n_expert + 1;
  CHECK_FALSE(llamacpp_graph_compute(bad).has_value());
  bad.n_expert_used = 0;
  CHECK_FALSE(llamacpp_graph_compute(bad).has_value());

  // Through the estimate: Qwen3-30B-A3B on one H100 follows the layers. With a dense layer among
  // them (mlp_only_layers, which llama.cpp's qwen3moe graph does not build) only the head is known,
  // and its derivation says so.
  Workload w = with({{"seq", "262144"}, {"lcc", "library"}, {"w", "q8_0"}});
  w.runtime = Runtime::LlamaCpp;
  const auto one = estimate(c, w);
  REQUIRE(one.ok());
  REQUIRE(one->llamacpp_devices);
  CHECK(one->llamacpp_devices->compute_layers);
  const Figure* f = find_figure("inference.activation_bytes");
  REQUIRE(f);
  CHECK(f->derive(c, w, *one, Lang::En).formula.find("through ggml's graph allocator") != std::string::npos);
  ModelConfig mixed = c;
  mixed.moe.dense_layers = {0};
  Workload at8k = with({{"seq", "8192"}, {"lcc", "library"}, {"w", "q8_0"}});
  at8k.runtime = Runtime::LlamaCpp;
  const auto split = estimate(mixed, at8k);
  REQUIRE(split.ok());
  REQUIRE(split->llamacpp_devices);
  CHECK_FALSE(split->llamacpp_devices->compute_layers);
  REQUIRE(split->llamacpp_devices->output_compute_bytes == i64{512} * (c.vocab + d) * 4);
  const std::string head = f->derive(mixed, at8k, *split, Lang::En).formula;
  INFO(head);
  CHECK(head.find("the head of its reserved graph") != std::string::npos);
  CHECK(head.find("through ggml's graph allocator") == std::string::npos);
}

TEST_CASE("llama.cpp: a modelled compute buffer is the device's temporaries in every phase", "[llamacpp]") {
  // Qwen3-8B, one H100, n_ctx 32768: the reserved graph's buffer (held from start) stands for the
  // prefill and decode temporaries; a library caller's is an estimate, llama-server's a lower
  // bound (its backend samplers may join the graph).
  Workload w = with({{"seq", "32768"}, {"lcc", "library"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(preset("qwen3-8b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp_devices);
  const i64 buffer = e->llamacpp_devices->output_compute_bytes;
  CHECK(buffer > 0);
  CHECK(e->inference.compute_buffer_bytes == buffer);
  CHECK(e->inference.prefill.peak == buffer);
  CHECK(e->inference.decode.peak == buffer);
  const Figure* f = find_figure("inference.activation_bytes");
  REQUIRE(f);
  CHECK(f->bound(w, *e) == Bound::Estimate);
  CHECK(f->derive(preset("qwen3-8b").config, w, *e, Lang::En).formula.find("512 tokens of one ubatch over 32,768 cells, 512 outputs") !=
        std::string::npos);
  Workload server = w;
  server.llamacpp_caller = LlamaCppCaller::Server;
  const auto s = estimate(preset("qwen3-8b").config, server);
  REQUIRE(s.ok());
  CHECK(f->bound(server, *s) == Bound::Lower);
  CHECK(s->inference.compute_buffer_bytes < buffer);  // 4 slots' outputs, not 512: the head no longer sets it
  CHECK(s->llamacpp_devices->compute_outputs == 4);
  // An earlier build's server (before PR #23764, so before PR #23861 too) reserved every token's
  // outputs, as a library caller does.
  Workload older = server;
  older.llamacpp_graph = LlamaCppGraph::EmbdInput;
  const auto o = estimate(preset("qwen3-8b").config, older);
  REQUIRE(o.ok());
  CHECK(o->llamacpp_devices->compute_outputs == 512);
  // Without flash attention the layers are followed too: the scores set the buffer.
  Workload eager = w;
  eager.flash_attention = false;
  const auto n = estimate(preset("qwen3-8b").config, eager);
  REQUIRE(n.ok());
  CHECK(n->inference.compute_buffer_bytes > 32LL * 512 * 32768 * 4);
  CHECK(f->bound(eager, *n) == Bound::Estimate);
}
TEST_CASE("llama.cpp: ggml's scheduler over experts kept on the CPU: their copies, the buffers and the splits", "[calibration][llamacpp]") {
  // ikawrakow/ik_llama.cpp discussion #357 ("Qwen3 - early performance comparisons", ubergarm,
  // 2025-04-30) and PR #370 (ubergarm, 2025-05-04), mainline llama-sweep-bench builds 5192 and
  // 5274 on one RTX A6000: Qwen3-235B-A22B Q8_0, -fa -c 32768 -ngl 99, every ffn tensor of blocks
  // 13–93 (14–93 in the second) kept on the CPU by -ot, f16 (q8_0) cache; both print
  //   llama_context:      CUDA0 compute buffer size =  1024.00 MiB
  //   llama_context:  CUDA_Host compute buffer size =    72.01 MiB
  // and "graph splits = 407 (with bs=512)" (402). The scheduler offloads those blocks' FFN ops (512
  // rows) to the GPU, each in a split of its own with a copy of its weight: an expert tensor, 128
  // experts of 4,096 × 1,536 in Q8_0, is 816 MiB of the device's buffer. (tests/fuzz/corpus/
  // engine_log/llamacpp-b5192-qwen3-235b-ot.log and -b5274-qwen3-235b-ot-q8kv.log)
  auto q8 = [](i64 rows, i64 cols) { return rows * cols / 32 * 34; };
  auto mib = [](i64 b) { return static_cast<double>(b) / 1048576.0; };
  for (const auto& [first, splits, cell] : {std::tuple{i64{13}, 407, i64{512 * 2}}, std::tuple{i64{14}, 402, i64{512 / 32 * 34}}}) {
    INFO("CPU experts from block " << first);
    LlamaCppGraphShape s;
    s.d_model = 4096, s.n_heads = 64, s.n_kv_heads = 4, s.head_dim = 128, s.d_ff = 12288, s.n_layer = 94, s.vocab = 151936;
    s.tokens = 512, s.n_kv = 32768, s.outputs = 512, s.qk_norm = true;
    s.n_expert = 128, s.n_expert_used = 8, s.expert_ffn = 1536;
    s.experts_cpu_first = first, s.experts_cpu_count = 94 - first, s.ffn_cpu_all = true;
    s.k_cell_bytes = s.v_cell_bytes = cell;
    LlamaCppLayerWeights lw;
    lw.attn_norm = lw.ffn_norm = 4096 * 4, lw.q_norm = lw.k_norm = 128 * 4;
    lw.wq = q8(4096, 8192), lw.wk = lw.wv = q8(4096, 512), lw.wo = q8(8192, 4096);
    lw.router = 4096 * 128 * 4;  // llama-quantize keeps ffn_gate_inp in f32
    lw.gate_exps = lw.up_exps = lw.down_exps = 128 * q8(4096, 1536);
    s.layer_weights.assign(94, lw);
    s.token_embd = s.output = q8(4096, 151936), s.output_norm = 4096 * 4;
    // Builds of April and May 2025 wrote the cache with ggml_cpy and cast the f32 mask to f16
    // for flash attention: the 2025-07 graph's attention. Without the cast (build 5505's graph)
    // the device's buffer would be 1000.00 MiB: these builds had it.
    s.graph = LlamaCppGraph::Cpy;
    const auto r = llamacpp_graph_compute(s);
    REQUIRE(r);
    CHECK(mib(r->device_bytes) == Approx(1024.00).margin(0.005));
    CHECK(mib(r->host_bytes) == Approx(72.01).margin(0.005));
    CHECK(r->splits == splits);
    s.graph = LlamaCppGraph::NoCast;
    const auto uncast = llamacpp_graph_compute(s);
    REQUIRE(uncast);
    CHECK(mib(uncast->device_bytes) == Approx(1000.00).margin(0.005));
    // With every tensor on the GPU the graph splits twice (the CPU's token embeddings, then the rest).
    s.experts_cpu_count = 0;
    const auto full = llamacpp_graph_compute(s);
    REQUIRE(full);
    CHECK(full->splits == 2);
    CHECK(full->device_bytes < r->device_bytes);
  }
}

TEST_CASE("llama.cpp: gpt-oss's compute buffers through llm_build_openai_moe_iswa, its two caches' inputs", "[calibration][llamacpp]") {
  const ModelConfig& c = preset("gpt-oss-20b").config;
  auto run = [&](std::initializer_list<std::pair<const char*, const char*>> kv) { return buffers(c, kv); };
  auto mib = [](i64 b) { return static_cast<double>(b) / 1048576.0; };
  // A run's printed figures: the device's and the host's compute buffers (MiB), the splits of the
  // ubatch's graph and of one token's; every one of these graphs has 1,352 nodes.
  auto expect = [&](const LlamaCppBuffers& r, double device, double host, int pp, int tg) {
    REQUIRE(r.compute_layers);
    REQUIRE(r.devices.size() == 1);
    CHECK(mib(r.compute_of(r.devices[0])) == Approx(device).margin(0.005));
    CHECK(mib(r.host_compute_bytes) == Approx(host).margin(0.005));
    CHECK(r.splits_pp == pp);
    CHECK(r.splits_tg == tg);
    CHECK(r.graph_nodes == 1352);
  };
  // ggml-org/llama.cpp issue #15297 (truncle, 2025-08-13), version 6139 on an RTX 5070 Ti:
  //   llama-server.exe … -c 16384 --keep -1 -fa -kvu … --gpu-layers 99 --swa-full -m gpt-oss-20b-F16.gguf
  //   llama_kv_cache_unified: size =  384.00 MiB ( 16384 cells,  12 layers,  1/1 seqs), K (f16):  192.00 MiB, V (f16):  192.00 MiB
  //   llama_context:      CUDA0 compute buffer size =   398.38 MiB
  //   llama_context:  CUDA_Host compute buffer size =    69.65 MiB
  //   llama_context: graph nodes  = 1352
  //   llama_context: graph splits = 2
  // Every layer on the GPU: the head (512 rows of 201,088 logits, the server reserving the whole
  // ubatch's outputs then) sets the device's buffer; the host holds both caches' f32 masks
  // (16,384 × 512 each, --swa-full) and the token embeddings.
  const LlamaCppBuffers full = run({{"seq", "16384"}, {"swaf", "1"}, {"flash", "1"}, {"lcg", "2025-08"}, {"np", "1"}, {"kvt", "fp16"}, {"w", "mxfp4_moe"}});
  expect(full, 398.38, 69.65, 2, 2);
  // The issue's anchor build 6699 (tests/fuzz/corpus/engine_log/llamacpp-b6699-gpt-oss-20b-ncmoe.log,
  // checked line by line in check_log_test.cpp): -c 131072 -fa on --n-cpu-moe 99, the SWA cache
  // 768 cells; the same graph. With every expert on the CPU the scheduler runs each
  // expert matmul and its bias add of the ubatch on the GPU, a split of its own with a copy of the
  // weight (six a layer; the token's graph leaves them on the CPU: two a layer):
  //   llama_context:      CUDA0 compute buffer size =   456.98 MiB
  //   llama_context: graph splits = 146 (with bs=512), 50 (with bs=1)
  const LlamaCppBuffers ncmoe =
      run({{"seq", "131072"}, {"flash", "1"}, {"lcg", "2025-08"}, {"np", "1"}, {"kvt", "fp16"}, {"w", "mxfp4_moe"}, {"ncmoe", "99"}, {"lco", "blocks-first"}});
  expect(ncmoe, 456.98, 263.15, 146, 50);
  // Each cache's mask is its own: the host's buffer grows by the full cache's mask alone when
  // the context doubles (the SWA cache keeps its 768 cells), 512 × 131,072 × 4 bytes.
  const LlamaCppBuffers twice =
      run({{"seq", "262144"}, {"flash", "1"}, {"lcg", "2025-08"}, {"np", "1"}, {"kvt", "fp16"}, {"w", "mxfp4_moe"}, {"ncmoe", "99"}, {"lco", "blocks-first"}});
  CHECK(twice.host_compute_bytes - ncmoe.host_compute_bytes == i64{512} * 131072 * 4);
  // Today's graph (2026-05: the f16 masks as inputs, no cast) on llama-server's one output a slot.
  const LlamaCppBuffers now = run({{"seq", "131072"}, {"np", "1"}, {"w", "mxfp4_moe"}});
  REQUIRE(now.compute_layers);
  CHECK(now.compute_of(now.devices[0]) < full.compute_of(full.devices[0]));
  // A graph whose layer list and SWA flags disagree is refused, not guessed.
  LlamaCppGraphShape bad = graph_shape(c, 512, 4096, 512, LlamaCppGraph::SetRows);
  bad.n_kv_swa = 768;
  bad.layer_swa.assign(static_cast<size_t>(c.n_layers - 1), true);
  CHECK_FALSE(llamacpp_graph_compute(bad).has_value());
  bad.layer_swa.assign(static_cast<size_t>(c.n_layers), true);
  bad.n_kv_swa = 0;
  CHECK_FALSE(llamacpp_graph_compute(bad).has_value());
}

TEST_CASE("llama.cpp: Gemma 2's graph on a build without a GPU backend", "[calibration][llamacpp]") {
  // tests/fuzz/corpus/engine_log/llamacpp-b7445-gemma-2-2b-cpu.log: the Windows CPU build 7445,
  // llama-server -np auto (4 unified slots), gemma-2-2b-it Q4_K_M, n_ctx 8192, n_ubatch 512:
  //   llama_kv_cache_iswa: creating     SWA KV cache, size = 8192 cells
  //   llama_context: Flash Attention was auto, set to enabled
  //   llama_context:        CPU compute buffer size =   509.00 MiB
  //   llama_context: graph nodes  = 948
  //   llama_context: graph splits = 1
  // llm_build_gemma2_iswa: the embeddings scaled, Q scaled after rope, the sandwich norms, GEGLU,
  // the logits soft-capped (scale, tanh, scale in place); both caches 8,192 cells (4 slots × the
  // 4,096 window + the ubatch pass n_ctx). One backend: every op on the CPU, one split. The head
  // sets the buffer: 512 rows of 256,000 logits beside the final norm's output.
  const ModelConfig& c = preset("gemma-2-2b").config;
  LlamaCppGraphShape s = graph_shape(c, 512, 8192, 512, LlamaCppGraph::SetRows);
  s.n_devices = 0;
  s.n_kv_swa = 8192;
  for (i64 il = 0; il < c.n_layers; ++il) s.layer_swa.push_back(il % 2 == 0);
  s.embd_scale = s.q_scale = s.post_norms = s.attn_softcap = s.final_softcap = true;
  const auto r = llamacpp_graph_compute(s);
  REQUIRE(r);
  CHECK(r->devices.empty());
  CHECK(static_cast<double>(r->host_bytes) / 1048576.0 == Approx(509.00).margin(0.005));
  CHECK(r->nodes == 948);
  CHECK(r->splits == 1);
}

TEST_CASE("llama.cpp: -ngl 0 on a GPU build offloads the big ops with copies; --device none computes on the CPU", "[llamacpp]") {
  const ModelConfig& c = preset("qwen3-8b").config;
  auto run = [&](std::initializer_list<std::pair<const char*, const char*>> kv) {
    const LlamaCppBuffers b = buffers(c, kv);
    return std::pair{b, llamacpp_compute_log(b)};
  };
  // -ngl 0 with a GPU: every weight on the CPU, but the scheduler runs each op of 512 rows on the
  // GPU (op offload) with a copy of its weight; a library caller's lm_head (512 output rows) too,
  // so the GPU's buffer holds at least the head's weight (151,936 × 4,096 in Q8_0) and its logits.
  const auto [ngl0, ngl0_log] = run({{"seq", "4096"}, {"ngl", "0"}, {"lcc", "library"}, {"w", "q8_0"}, {"np", "1"}});
  REQUIRE(ngl0.compute_layers);
  REQUIRE(ngl0.devices.size() == 1);
  CHECK(ngl0.devices[0].model_bytes == 0);
  CHECK(ngl0.host_buffer == "CUDA_Host");
  const i64 head = i64{151936} * 4096 / 32 * 34, logits = i64{512} * 151936 * 4;
  CHECK(ngl0.compute_of(ngl0.devices[0]) >= head + logits);
  CHECK(ngl0.splits_pp > 2);  // the CPU's norms and the GPU's matmuls alternate
  CHECK(ngl0_log.size() == 3);  // CUDA0, CUDA_Host, the splits
  // --device none (or a CPU-only build): one backend, one split, only the CPU's buffer, which holds
  // the logits and the head's input; no weight is copied.
  const auto [cpu, cpu_log] = run({{"seq", "4096"}, {"lcnogpu", "1"}, {"lcc", "library"}, {"w", "q8_0"}, {"np", "1"}});
  REQUIRE(cpu.compute_layers);
  CHECK(cpu.compute_of(cpu.devices[0]) == 0);
  CHECK(cpu.host_buffer == "CPU");
  CHECK(cpu.splits_pp == 1);
  CHECK(cpu.host_compute_bytes >= logits + i64{512} * 4096 * 4);
  CHECK(cpu.host_compute_bytes < head);
  REQUIRE(cpu_log.size() == 2);
  CHECK(cpu_log[0].find("        CPU compute buffer size") != std::string::npos);
  // No GPU, no device context: the GPU's reserve is 0 unless set (--reserve-mib).
  Workload none = with({{"seq", "4096"}, {"lcnogpu", "1"}});
  none.runtime = Runtime::LlamaCpp;
  const auto bare = estimate(c, none);
  REQUIRE(bare.ok());
  CHECK(bare->inference.reserve_bytes == 0);
  none.llamacpp_no_gpu = false;
  const auto with_gpu = estimate(c, none);
  REQUIRE(with_gpu.ok());
  CHECK(with_gpu->inference.reserve_bytes == i64{512} << 20);
  // Several devices without a GPU are refused, naming the field.
  Workload two = with({{"lcnogpu", "1"}, {"pp", "2"}, {"gpus", "2"}});
  two.runtime = Runtime::LlamaCpp;
  const auto refused = estimate(c, two);
  const bool named = !refused.ok() ? std::any_of(refused.issues().begin(), refused.issues().end(), [](const Issue& i) { return i.field == "pp"; })
                                   : std::any_of(refused->notes.begin(), refused->notes.end(), [](const Issue& i) { return i.field == "pp"; });
  CHECK(named);
}

TEST_CASE("llama.cpp: the host's memory, and --host-mem-gib", "[llamacpp]") {
  const ModelConfig& c = preset("qwen3-8b").config;
  auto run = [&](std::initializer_list<std::pair<const char*, const char*>> kv) { return with_buffers(c, kv); };
  const Figure* host = find_figure("inference.host_bytes");
  const Figure* cap = find_figure("inference.host_capacity_bytes");
  REQUIRE(host);
  REQUIRE(cap);
  // Without a GPU every buffer is the host's: the mapped file (Q4_K_M), the cache (36 layers ×
  // 8,192 cells × 2 × 1,024 × 2 B), the CPU's compute buffer and the logits of 4 slots.
  const auto [w, cpu] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"}});
  const LlamaCppBuffers& d = *cpu.llamacpp_devices;
  CHECK(d.cpu_cache_bytes == i64{36} * 8192 * 2 * 1024 * 2);
  CHECK(d.cpu_mapped_bytes == cpu.inference.weights.total_bytes);
  CHECK(d.output_buffer_bytes == i64{4} * 151936 * 4);
  CHECK(host->value(cpu).whole == d.cpu_mapped_bytes + d.cpu_cache_bytes + d.host_compute_bytes + d.output_buffer_bytes);
  CHECK(host->bound(w, cpu) == Bound::Lower);  // the CPU runs the layers: a CPU_REPACK copy is not counted
  CHECK(cap->value(cpu).whole == 0);           // not given: not checked
  // A whole offload: the host holds the mapped token embedding, the inputs and the logits.
  const auto [gw, gpu] = run({{"seq", "8192"}, {"w", "q4_k_m"}});
  CHECK(gpu.llamacpp_devices->cpu_cache_bytes == 0);
  CHECK(host->value(gpu).whole < host->value(cpu).whole / 4);
  CHECK(host->bound(gw, gpu) == Bound::Estimate);
  // --host-mem-gib: the RAM given, and whether the host's buffers fit in it.
  const auto [w8, small] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"hostmem", "4"}});
  CHECK(small.host_capacity_bytes == i64{4} << 30);
  CHECK_FALSE(small.host_fits);
  const auto [w16, big] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"hostmem", "16"}});
  CHECK(big.host_fits);
  CHECK(cap->value(big).whole == i64{16} << 30);
  // Without a GPU the host is the one device: the per-device figures are its buffers, their sum
  // the host figure, the fit and the longest context against the memory given.
  CHECK(small.inference.weights_bytes == small.llamacpp_devices->cpu_mapped_bytes);
  CHECK(small.inference.kv_cache_bytes == small.llamacpp_devices->cpu_cache_bytes);
  CHECK(small.inference.total_bytes == host->value(small).whole);
  CHECK(small.inference.capacity_bytes == i64{4} << 30);
  CHECK_FALSE(small.inference.fits);
  const auto [w6, six] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"hostmem", "6"}});
  CHECK(six.inference.fits);
  const i64 longest = six.inference.max_context;
  CHECK(longest > 8192);
  CHECK(longest < 40960);
  for (const auto& [seq, fits] : {std::pair{longest, true}, std::pair{longest + 256, false}}) {
    const std::string text = std::to_string(seq);
    const auto [ws, at] = run({{"seq", text.c_str()}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"hostmem", "6"}});
    INFO(seq);
    CHECK(at.inference.fits == fits);
    CHECK(at.host_fits == fits);
  }
  // Another runtime has no host figure; the field refuses a negative size, naming it.
  Workload v = with({{"seq", "8192"}, {"hostmem", "16"}});
  v.runtime = Runtime::Vllm;
  const auto other = estimate(c, v);
  REQUIRE(other.ok());
  CHECK(host->value(*other).whole == 0);
  CHECK(other->host_capacity_bytes == 0);
  Workload bad;
  const auto refused = find_field("hostmem")->set(bad, "-1");
  REQUIRE(refused.has_value());
  CHECK(refused->field == "hostmem");
}

TEST_CASE("llama.cpp: the CPU reads its share of a decode step at the host's bandwidth (--host-bw-gbs)", "[llamacpp]") {
  const ModelConfig& c = preset("qwen3-8b").config;
  auto run = [&](std::initializer_list<std::pair<const char*, const char*>> kv) { return with_buffers(c, kv); };
  const Figure* decode = find_figure("throughput.decode_tokens_per_s");
  REQUIRE(decode);
  // The CPU alone, its bandwidth not given: no decode bound (the GPU's 3.35 TB/s gave 200 tokens/s
  // before), no prefill or training time (the catalog has no CPU's TFLOPS).
  const auto [w0, none] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"}});
  const Throughput& t0 = none.throughput;
  CHECK(t0.host_only);
  CHECK(t0.decode_host_bytes == t0.decode_bytes_per_step);
  CHECK(t0.decode_tokens_per_s == 0);
  CHECK(t0.peak_tflops == 0);
  CHECK(t0.prefill_seconds == 0);
  CHECK_THAT(decode->derive(c, w0, none, Lang::En).formula, Catch::Matchers::Contains("--host-bw-gbs"));
  const std::string text = estimate_text(c, w0, none, ByteUnit::GB);
  CHECK_THAT(text, Catch::Matchers::Contains("decode: no bound"));
  CHECK_THAT(text, Catch::Matchers::Contains("n/a (no TFLOPS figure for the CPU: --host-tflops)"));
  CHECK(text.find("min GPUs") == std::string::npos);  // no GPUs to count
  // Dual-channel DDR5-5600, 89.6 GB/s: one step reads the Q4_K_M file's weights (the token
  // embedding a row) and the 8,192 tokens' cache, 36 layers × 8,192 × 2 × 1,024 × 2 B.
  const auto [w1, host] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"}, {"hostbw", "89.6"}});
  const Throughput& t1 = host.throughput;
  CHECK(t1.decode_kv_bytes == i64{36} * 8192 * 2 * 1024 * 2);
  CHECK(t1.decode_host_bytes == t1.decode_bytes_per_step);
  CHECK(t1.decode_tokens_per_s == Approx(89.6e9 / static_cast<double>(t1.decode_bytes_per_step)).epsilon(1e-12));
  CHECK(t1.decode_bytes_per_step == 5879728384);  // 5.88 GB: 5.02 of weights less the embedding's rows, 1.21 of cache
  CHECK(t1.decode_tokens_per_s == Approx(15.24).margin(0.01));
  CHECK_THAT(decode->derive(c, w1, host, Lang::En).formula, Catch::Matchers::Contains("89.6 GB/s"));
  // --host-tflops: the CPU's rate for the prefill bound, at the workload's utilization.
  const auto [wt, tf] = run({{"seq", "8192"}, {"lcnogpu", "1"}, {"w", "q4_k_m"}, {"hosttf", "2.5"}});
  CHECK(tf.throughput.peak_tflops == 2.5);
  CHECK(tf.throughput.prefill_seconds == Approx(tf.throughput.prefill_flops / (2.5e12 * wt.utilization)).epsilon(1e-12));
  // -ngl 18 of 36 on an H100: layers 0 to 18 on the CPU (the output layer is offloaded first,
  // PR #18148), their tensors and their cache read at the host's 89.6, the rest at 3,350 GB/s.
  const auto [w2, part] = run({{"seq", "8192"}, {"ngl", "18"}, {"w", "q4_k_m"}, {"kvt", "fp16"}, {"hostbw", "89.6"}});
  const LlamaCppBuffers& d = *part.llamacpp_devices;
  i64 cpu_layers = 0, cpu_weights = 0;
  for (size_t l = 0; l < d.layer_device.size(); ++l)
    if (d.layer_device[l] < 0) ++cpu_layers, cpu_weights += part.inference.layer_weights_gpu[l];
  CHECK(cpu_layers == 19);
  CHECK(d.cpu_read_bytes == cpu_weights);
  CHECK(d.cpu_expert_bytes == 0);
  const Throughput& t2 = part.throughput;
  CHECK(t2.decode_host_bytes == cpu_weights + cpu_layers * 8192 * 2 * 1024 * 2);
  const double step = static_cast<double>(t2.decode_bytes_per_step - t2.decode_host_bytes) / 3350e9 +
                      static_cast<double>(t2.decode_host_bytes) / 89.6e9;
  CHECK(t2.decode_tokens_per_s == Approx(1 / step).epsilon(1e-12));
  CHECK_FALSE(t2.host_at_device_rate);
  // Without --host-bw-gbs the CPU's bytes go at the GPU's rate: an upper bound still, and said.
  const auto [w3, loose] = run({{"seq", "8192"}, {"ngl", "18"}, {"w", "q4_k_m"}, {"kvt", "fp16"}});
  CHECK(loose.throughput.host_at_device_rate);
  CHECK(loose.throughput.decode_tokens_per_s == Approx(3350e9 / static_cast<double>(t2.decode_bytes_per_step)).epsilon(1e-12));
  CHECK(loose.throughput.decode_tokens_per_s > 5 * t2.decode_tokens_per_s);
  CHECK_THAT(decode->derive(c, w3, loose, Lang::En).formula, Catch::Matchers::Contains("--host-bw-gbs gives the host's"));
  // A whole offload reads nothing on the CPU: the bandwidth given changes nothing.
  const auto [w4, gpu] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"hostbw", "89.6"}});
  CHECK(gpu.throughput.decode_host_bytes == 0);
  CHECK(gpu.throughput.decode_tokens_per_s == Approx(3350e9 / static_cast<double>(gpu.throughput.decode_bytes_per_step)).epsilon(1e-12));
  // The field refuses a negative bandwidth, naming it.
  Workload bad;
  const auto refused = find_field("hostbw")->set(bad, "-1");
  REQUIRE(refused.has_value());
  CHECK(refused->field == "hostbw");
}

TEST_CASE("llama.cpp --n-cpu-moe: the CPU reads the experts its tokens chose", "[llamacpp]") {
  const auto [w, e] = with_buffers(preset("qwen3-30b-a3b").config, {{"seq", "4096"}, {"ncmoe", "12"}, {"w", "q4_k_m"}, {"hostbw", "89.6"}});
  const LlamaCppBuffers& d = *e.llamacpp_devices;
  // Every layer on the GPU; the first 12 layers' experts (128 of them, 8 chosen a token) on the CPU.
  CHECK(d.cpu_read_bytes == 0);
  CHECK(d.cpu_expert_bytes > 0);
  const Throughput& t = e.throughput;
  CHECK(t.experts_touched == Approx(8));
  CHECK(static_cast<double>(t.decode_host_bytes) == Approx(static_cast<double>(d.cpu_expert_bytes) * 8 / 128).margin(1));
  const double step = static_cast<double>(t.decode_bytes_per_step - t.decode_host_bytes) / 3350e9 +
                      static_cast<double>(t.decode_host_bytes) / 89.6e9;
  CHECK(t.decode_tokens_per_s == Approx(1 / step).epsilon(1e-12));
}

TEST_CASE("llama.cpp on unified memory: the GPU's buffers and the host's draw on one memory", "[llamacpp]") {
  const ModelConfig& c = preset("qwen3-8b").config;
  auto run = [&](std::initializer_list<std::pair<const char*, const char*>> kv) { return with_buffers(c, kv); };
  const Figure* unified = find_figure("inference.unified_bytes");
  REQUIRE(unified);
  // A DGX Spark: the device's total (weights, cache, compute buffer, reserve) and the host's
  // buffers (the mapped token embedding, the CUDA_Host compute buffer, the logits) are one draw.
  const auto [w, spark] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}});
  const i64 host = spark.llamacpp_devices->host_bytes();
  CHECK(host > 0);
  CHECK(spark.unified_bytes == spark.inference.total_bytes + host);
  CHECK(unified->value(spark).whole == spark.unified_bytes);
  CHECK(unified->bound(w, spark) == Bound::Lower);
  CHECK_THAT(estimate_text(c, w, spark, ByteUnit::GB), Catch::Matchers::Contains("Unified memory (llama.cpp)"));
  // --host-mem-gib on unified memory checks the sum: a size above the host's buffers alone and
  // below the sum does not fit.
  const double between = static_cast<double>(spark.inference.total_bytes / 2 + host) / 1073741824.0;
  const std::string given = std::to_string(between);
  const auto [wb, tight] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}, {"hostmem", given.c_str()}});
  CHECK(tight.host_capacity_bytes > host);
  CHECK(tight.host_capacity_bytes < tight.unified_bytes);
  CHECK_FALSE(tight.host_fits);
  CHECK_THAT(find_figure("inference.host_capacity_bytes")->derive(c, wb, tight, Lang::En).formula,
             Catch::Matchers::Contains("the two together do not fit"));
  const auto [wr, roomy] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}, {"hostmem", "64"}});
  CHECK(roomy.host_fits);
  // An Apple GPU too; a card of its own memory, or the CPU alone, has no shared draw.
  const auto [wm, mac] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"gpu", "m4-max-128gb"}});
  CHECK(mac.unified_bytes == mac.inference.total_bytes + mac.llamacpp_devices->host_bytes());
  const auto [wh, h100] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"hostmem", "64"}});
  CHECK(h100.unified_bytes == 0);
  CHECK(h100.host_fits);
  const auto [wc, cpu] = run({{"seq", "8192"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}, {"lcnogpu", "1"}});
  CHECK(cpu.unified_bytes == 0);
  CHECK(unified->value(cpu).whole == 0);
}

TEST_CASE("llama.cpp on a DGX Spark: the unified draw is the sum of the buffers a real run printed", "[calibration][llamacpp]") {
  // llamacpp-2026-qwen3-4b-spark.log (check_log_test.cpp: Qwen3-4B Q4_K_M linked as a library on a
  // DGX Spark, n_ctx 4096, one sequence, the 2026-01 graph), every buffer line matched by check-log:
  //   load_tensors:   CPU_Mapped model buffer size =   304.28 MiB
  //   load_tensors:        CUDA0 model buffer size =  2375.91 MiB
  //   llama_context:  CUDA_Host  output buffer size =     0.58 MiB
  //   llama_kv_cache:      CUDA0 KV buffer size =   576.00 MiB
  //   sched_reserve:      CUDA0 compute buffer size =   301.75 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =    18.01 MiB
  // On the GB10 all six come out of one memory: 3576.53 MiB, and the CUDA context beside them.
  const ModelConfig q = llmsize::test::import_file("calibration/configs/qwen3-4b.json");
  Workload w = with({{"seq", "4096"}, {"np", "1"}, {"kvu", "0"}, {"kvt", "fp16"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"},
                     {"lcc", "library"}, {"lcg", "2026-01"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(q, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp_devices);
  const double printed = 304.28 + 2375.91 + 0.58 + 576.00 + 301.75 + 18.01;
  const double ours = static_cast<double>(e->unified_bytes - e->inference.reserve_bytes) / 1048576.0;
  INFO("llmsize " << ours << " MiB, the log's lines " << printed << " MiB");
  CHECK(std::fabs(ours - printed) <= 6 * 0.005);  // six lines, each rounded to 0.01 MiB
  CHECK(e->inference.reserve_bytes == i64{512} << 20);  // the CUDA context: estimated, not printed
}

TEST_CASE("llama.cpp: Qwen3.5's MTP block is a layer -ngl counts, with no cache, state or weights", "[llamacpp]") {
  // A GGUF the converter wrote with the MTP block (its default since PR #22673, 2026-05-16) has
  // block_count = num_hidden_layers + 1: llama.cpp counts it in "offloaded N/M" and in -ngl's order,
  // gives it no cache or state (create_memory's il < n_main) and skips its weights (PR #26296);
  // its recurrent line prints the trunk's layers (PR #24060).
  const ModelConfig& c = preset("qwen3.5-0.8b").config;
  REQUIRE(c.mtp_layers == 1);
  Workload w = with({{"seq", "8192"}, {"w", "q8_0"}});
  w.runtime = Runtime::LlamaCpp;
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  REQUIRE(e->llamacpp);
  REQUIRE(e->llamacpp_devices);
  const LlamaCppMemory& m = *e->llamacpp;
  REQUIRE(m.layer_bytes.size() == static_cast<size_t>(c.n_layers + 1));
  CHECK(m.layer_bytes.back() == 0);
  CHECK(m.rs_layers == c.n_layers);
  const std::vector<std::string> log = llamacpp_buffer_log(*e->llamacpp_devices);
  CHECK(std::find(log.begin(), log.end(), "load_tensors: offloaded " + std::to_string(c.n_layers + 2) + "/" +
                                               std::to_string(c.n_layers + 2) + " layers to GPU") != log.end());
  // -ngl 3: the output layer, the MTP block and one trunk layer on the GPU.
  Workload three = w;
  three.n_gpu_layers = 3;
  const auto p = estimate(c, three);
  REQUIRE(p.ok());
  REQUIRE(p->llamacpp_devices);
  const LlamaCppDevice& d = p->llamacpp_devices->devices.front();
  CHECK(d.first == c.n_layers - 1);
  CHECK(d.count == 2);
  CHECK(d.output);
  CHECK(d.cache_bytes == p->llamacpp->layer_bytes[static_cast<size_t>(c.n_layers - 1)]);
  // A GGUF without the block (an older converter, or --no-mtp): no extra layer.
  ModelConfig bare = c;
  bare.mtp_layers = 0;
  const auto b = estimate(bare, w);
  REQUIRE(b.ok());
  CHECK(b->llamacpp->layer_bytes.size() == static_cast<size_t>(c.n_layers));
  CHECK(b->llamacpp->kv_bytes() == m.kv_bytes());
  CHECK(b->llamacpp_devices->gpu_model_bytes() == e->llamacpp_devices->gpu_model_bytes());
}

TEST_CASE("llama.cpp: Qwen3.5's hybrid graph, Gated DeltaNet beside gated attention, as two published start-ups print it",
          "[calibration][llamacpp]") {
  // llm_build_qwen35 with the fused ggml_gated_delta_net (engine_llamacpp_graph.cpp qwen35_layers),
  // the 2026-01 graph. A CPU build, 8428 (cd708db0c, MSVC, Windows), llama-server -m
  // Qwen3.5-0.8B.Q4_K_M.gguf with its defaults (4 unified slots, n_ctx 262144, n_ubatch 512, flash
  // attention auto; a build tutorial's log):
  //   llama_context:        CPU  output buffer size =     3.79 MiB
  //   llama_kv_cache:        CPU KV buffer size =  3072.00 MiB
  //   llama_memory_recurrent:        CPU RS buffer size =    77.06 MiB
  //   sched_reserve: fused Gated Delta Net (autoregressive) enabled
  //   sched_reserve: fused Gated Delta Net (chunked) enabled
  //   sched_reserve:        CPU compute buffer size =   786.02 MiB
  //   sched_reserve: graph nodes  = 1377
  //   sched_reserve: graph splits = 1
  // One backend: the f32 mask (262,144 × 512) and its f16 cast live together at the first
  // attention layer (layer 3), beside that layer's tensors; the logits (512 × 248,320) come later.
  const ModelConfig& small = preset("qwen3.5-0.8b").config;
  const auto [cw, cpu] = with_buffers(small, {{"seq", "262144"}, {"w", "q4_k_m"}, {"kvt", "fp16"}, {"lcnogpu", "1"}, {"lcg", "2026-01"}});
  const LlamaCppBuffers& c = *cpu.llamacpp_devices;
  REQUIRE(c.compute_layers);
  CHECK(c.graph_nodes == 18 * 63 + 6 * 39 + 9);  // Gated DeltaNet layers of 63 nodes, attention of 39, 9 around them
  CHECK(c.graph_nodes == 1377);
  CHECK(c.splits_pp == 1);
  const std::vector<std::string> clog = llamacpp_compute_log(c);
  REQUIRE(clog.size() == 2);
  CHECK(clog[0] == "sched_reserve:        CPU compute buffer size =   786.02 MiB");
  CHECK(clog[1] == "sched_reserve: graph splits = 1");
  const std::vector<std::string> cache = llamacpp_log(*cpu.llamacpp, cw.kv_dtype);
  REQUIRE(cache.size() == 2);
  CHECK(cache[0].find("size = 3072.00 MiB (262144 cells,   6 layers,  4/1 seqs)") != std::string::npos);
  CHECK(cache[1].find("size =   77.06 MiB (     4 cells,  24 layers,  4 seqs") != std::string::npos);

  // Qwen3.6-27B Q4_K_M on a DGX Spark, every layer on CUDA0, n_ctx 32768, one sequence, n_ubatch
  // 512, flash attention auto (chungers/motlie's eval harness linking llama.cpp, a failure report's
  // log; its context's destructor checks the sizes to four decimals):
  //   llama_context:  CUDA_Host  output buffer size =     0.95 MiB
  //   llama_kv_cache:      CUDA0 KV buffer size =  2048.00 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =    84.02 MiB
  //   sched_reserve: graph nodes  = 3657
  //   sched_reserve: graph splits = 2
  //   ~llama_context:      CUDA0 compute buffer size is 495.0000 MiB, matches expectation of 495.0000 MiB
  //   ~llama_context:  CUDA_Host compute buffer size is  84.0196 MiB, matches expectation of  84.0196 MiB
  // The head sets the device's buffer (512 rows of 248,320 logits beside the final norm's 512 ×
  // 5,120); the host holds the inputs (the f32 mask 32,768 × 512, the embeddings input) and the
  // token embeddings' rows.
  const ModelConfig big = preset("qwen3.6-27b").config;
  const auto [gw, gpu] = with_buffers(big, {{"seq", "32768"}, {"np", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"}, {"gpu", "dgx-spark"},
                                            {"lcc", "library"}, {"lcg", "2026-01"}});
  const LlamaCppBuffers& g = *gpu.llamacpp_devices;
  REQUIRE(g.compute_layers);
  REQUIRE(g.devices.size() == 1);
  CHECK(g.graph_nodes == 48 * 63 + 16 * 39 + 9);
  CHECK(g.graph_nodes == 3657);
  CHECK(g.splits_pp == 2);
  CHECK(static_cast<double>(g.compute_of(g.devices[0])) / 1048576.0 == Approx(495.0000).margin(0.00005));
  CHECK(g.compute_of(g.devices[0]) == i64{512} * (248320 + 5120) * 4);
  CHECK(static_cast<double>(g.host_compute_bytes) / 1048576.0 == Approx(84.0196).margin(0.00005));
  const std::vector<std::string> glog = llamacpp_compute_log(g);
  REQUIRE(glog.size() == 3);
  CHECK(glog[0] == "sched_reserve:      CUDA0 compute buffer size =   495.00 MiB");
  CHECK(glog[1] == "sched_reserve:  CUDA_Host compute buffer size =    84.02 MiB");

  // The 2026-05 graph (builds after PRs #23764 and #23861, the MTP block's changes) is not
  // followed for Qwen3.5: the compute buffers stay unmodelled, not guessed from the older graph.
  const auto [nw, later] = with_buffers(big, {{"seq", "32768"}, {"np", "1"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}, {"lcg", "2026-05"}});
  CHECK_FALSE(later.llamacpp_devices->compute_layers);
  // Nor without flash attention (V transposed, the scores materialized: not read for this graph).
  const auto [ew, eager] = with_buffers(big, {{"seq", "32768"}, {"np", "1"}, {"w", "q4_k_m"}, {"gpu", "dgx-spark"}, {"lcg", "2026-01"},
                                              {"flash", "0"}});
  CHECK_FALSE(eager.llamacpp_devices->compute_layers);
  // Nor with trunk layers on the CPU beside a GPU and two sequences: sched_reserve's check graph
  // (32 tokens) offloads their big ops and delta net to the GPU, the fused chunked op is turned
  // off, and the unfused graph is not read.
  const auto [pw, partial] = with_buffers(big, {{"seq", "32768"}, {"np", "2"}, {"w", "q4_k_m"}, {"gpu", "rtx-4070-ti"}, {"lcg", "2026-01"},
                                                {"ngl", "26"}});
  CHECK_FALSE(partial.llamacpp_devices->compute_layers);

  // With one sequence the check's 16 tokens stay on the CPU and the fused op stands; the reserved
  // ubatch then runs the CPU layers' matmuls on the GPU with copies of their weights. Build 8586
  // (64ac9ab66), llama-server -m Qwen3.5-27B.Q4_K_S.gguf -c 131072 -np 1 -ngl 26 -b 1024 -ub 1024 on
  // an RTX 4070 (a coding-agent session's transcript; the GGUF has no MTP block: 65 layers with
  // the output), whose compute buffer did not fit:
  //   load_tensors: offloaded 26/65 layers to GPU
  //   llama_kv_cache:        CPU KV buffer size =  4608.00 MiB
  //   llama_kv_cache:      CUDA0 KV buffer size =  3584.00 MiB
  //   llama_memory_recurrent:        CPU RS buffer size =    93.52 MiB
  //   llama_memory_recurrent:      CUDA0 RS buffer size =    56.11 MiB
  //   sched_reserve: fused Gated Delta Net (chunked) enabled
  //   ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1401.75 MiB on device 0: cudaMalloc failed: out of memory
  //   ggml_gallocr_reserve_n_impl: failed to allocate CUDA0 buffer of size 1469841408
  ModelConfig bare = big;
  bare.mtp_layers = 0;
  const auto [ow, one] = with_buffers(bare, {{"seq", "131072"}, {"np", "1"}, {"w", "q4_k_s"}, {"kvt", "fp16"}, {"gpu", "rtx-4070-ti"},
                                             {"lcg", "2026-01"}, {"ngl", "26"}, {"ub", "1024"}});
  const LlamaCppBuffers& o = *one.llamacpp_devices;
  REQUIRE(o.compute_layers);
  CHECK(o.compute_of(o.devices[0]) == 1469841408);  // to the byte
  const std::vector<std::string> olog = llamacpp_log(*one.llamacpp, ow.kv_dtype, &o);
  for (const char* line : {"llama_kv_cache:        CPU KV buffer size =  4608.00 MiB", "llama_kv_cache:      CUDA0 KV buffer size =  3584.00 MiB",
                           "llama_memory_recurrent:        CPU RS buffer size =    93.52 MiB",
                           "llama_memory_recurrent:      CUDA0 RS buffer size =    56.11 MiB"})
    CHECK(std::find(olog.begin(), olog.end(), line) != olog.end());
}

TEST_CASE("llama.cpp: a quantized cache's Hadamard rotation (PR #21038), as two published start-ups print it", "[calibration][llamacpp]") {
  // Since PR #21038 (merged 2026-04-01, the 2026-04 graph) a q8_0 or q4_0 cache holds K and V
  // rotated: build_attn multiplies q and k by K's [n, n] matrix (n the largest power of two that
  // divides the head size, 256 here), v by V's 64-wide one and the attention's output by it
  // again, each reshape, mul_mat, reshape: 12 nodes an attention layer, four new f32 tensors and
  // two matrices among the inputs.
  const ModelConfig big = preset("qwen3.5-27b").config;
  // A Docker image of llama-server (upstream with the MTP pull request before its merge; its build
  // counter prints "build_info: b484-2c4055912"), 2026-05-14, before PR #23764, on an RTX 5090:
  // Qwen3.6-27B-UD-Q4_K_XL (65 blocks with the MTP one), --ctx-size 131072 --flash-attn on
  // --cache-type-k q8_0 --cache-type-v q8_0, n_parallel auto (4, unified); the corpus's
  // llamacpp-2026-05-qwen3.6-27b-q8kv-rtx5090.log:
  //   llama_kv_cache: attn_rot_k = 1, n_embd_head_k_all = 256
  //   llama_kv_cache: attn_rot_v = 1, n_embd_head_k_all = 256
  //   sched_reserve:      CUDA0 compute buffer size =   495.00 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =   276.29 MiB
  //   sched_reserve: graph nodes  = 3849
  //   sched_reserve: graph splits = 2
  const auto [rw, rot] = with_buffers(big, {{"seq", "131072"}, {"np", "4"}, {"kvu", "1"}, {"w", "q4_k_m"}, {"kvt", "q8_0"}, {"gpu", "rtx-5090"},
                                            {"lcg", "2026-04"}});
  const LlamaCppBuffers& r = *rot.llamacpp_devices;
  REQUIRE(r.compute_layers);
  CHECK(r.graph_nodes == 48 * 63 + 16 * (39 + 12) + 9);
  CHECK(r.graph_nodes == 3849);
  CHECK(r.splits_pp == 2);
  const std::vector<std::string> rlog = llamacpp_compute_log(r);
  REQUIRE(rlog.size() == 3);
  CHECK(rlog[0] == "sched_reserve:      CUDA0 compute buffer size =   495.00 MiB");
  CHECK(rlog[1] == "sched_reserve:  CUDA_Host compute buffer size =   276.29 MiB");
  // The same run in the 2026-01 graph (no rotation): the trunk's 3657 nodes, and the host's
  // buffer short of the two matrices' 256 × 256 + 64 × 64 floats.
  const auto [pw, plain] = with_buffers(big, {{"seq", "131072"}, {"np", "4"}, {"kvu", "1"}, {"w", "q4_k_m"}, {"kvt", "q8_0"},
                                              {"gpu", "rtx-5090"}, {"lcg", "2026-01"}});
  const LlamaCppBuffers& p = *plain.llamacpp_devices;
  REQUIRE(p.compute_layers);
  CHECK(p.graph_nodes == 3657);
  CHECK(r.host_compute_bytes - p.host_compute_bytes == (256 * 256 + 64 * 64) * 4);
  // An f16 cache is not rotated: the 2026-04 graph is then the 2026-01 one.
  const auto [fw, f16] = with_buffers(big, {{"seq", "131072"}, {"np", "4"}, {"kvu", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"},
                                            {"gpu", "rtx-5090"}, {"lcg", "2026-04"}});
  CHECK(f16.llamacpp_devices->graph_nodes == 3657);
  // The other followed graphs take the same four rotations an attention layer, the current graph
  // (2026-05) too: Qwen3-4B's 36 layers, and gpt-oss-20b's 24 on its full and sliding caches (each
  // cache its own two matrices, 64 wide for its heads of 64).
  for (const auto& [cfg, layers] : {std::pair{llmsize::test::import_file("calibration/configs/qwen3-4b.json"), 36},
                                    std::pair{preset("gpt-oss-20b").config, 24}}) {
    i64 nodes[2] = {0, 0};
    for (int q = 0; q < 2; ++q) {
      const auto [qw, qe] = with_buffers(cfg, {{"seq", "16384"}, {"np", "1"}, {"w", "q4_k_m"}, {"kvt", q ? "q8_0" : "fp16"}, {"gpu", "rtx-4090"}});
      REQUIRE(qe.llamacpp_devices->compute_layers);
      nodes[q] = qe.llamacpp_devices->graph_nodes;
    }
    CHECK(nodes[1] - nodes[0] == 12 * layers);
  }

  // Build 8946 (0f1bb602d) on an RTX 3090, a Qwen3.5-family 27B with a q8_0 cache at n_ctx 200192,
  // one sequence, as a llama-server status tool's test quotes its start-up (its load lines are
  // abridged: "offloading 63 repeating layers to GPU" beside "offloaded 65/65 layers"):
  //   llama_kv_cache: size = 6647.00 MiB (200192 cells,  16 layers,  1/1 seqs), K (q8_0): 3323.50 MiB, V (q8_0): 3323.50 MiB
  //   llama_memory_recurrent:      CUDA0 RS buffer size =   149.62 MiB
  //   sched_reserve:      CUDA0 compute buffer size =   654.78 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =   411.29 MiB
  // At this context the device's peak is a layer's, not the head's, and the rotation's tensors
  // raise it: without them (the 2026-01 graph) 642.52 and 411.02 MiB.
  for (const auto& [graph, device, host] : {std::tuple{"2026-04", "654.78", "411.29"}, std::tuple{"2026-01", "642.52", "411.02"}}) {
    const auto [w, e] = with_buffers(big, {{"seq", "200192"}, {"np", "1"}, {"w", "q4_k_m"}, {"kvt", "q8_0"}, {"gpu", "rtx-3090"},
                                           {"lcg", graph}});
    const LlamaCppBuffers& b = *e.llamacpp_devices;
    REQUIRE(b.compute_layers);
    const std::vector<std::string> log = llamacpp_compute_log(b);
    REQUIRE(log.size() == 3);
    INFO(graph);
    CHECK(log[0] == std::string("sched_reserve:      CUDA0 compute buffer size =   ") + device + " MiB");
    CHECK(log[1] == std::string("sched_reserve:  CUDA_Host compute buffer size =   ") + host + " MiB");
    if (std::string(graph) == "2026-04") {
      const std::vector<std::string> kv = llamacpp_log(*e.llamacpp, w.kv_dtype, &b);
      CHECK(std::find(kv.begin(), kv.end(),
                      "llama_kv_cache: size = 6647.00 MiB (200192 cells,  16 layers,  1/1 seqs), K (q8_0): 3323.50 MiB, V (q8_0): 3323.50 MiB") !=
            kv.end());
    }
  }
}

TEST_CASE("llama.cpp: Qwen3.5's graph refuses shapes its code cannot build", "[llamacpp]") {
  const ModelConfig big = preset("qwen3.5-27b").config;
  LlamaCppGraphShape s = graph_shape(big, 512, 4096, 512, LlamaCppGraph::EmbdInput);
  for (i64 il = 0; il < big.n_layers; ++il) s.layer_linear.push_back(big.layer_is_linear(il));
  s.gdn_k_heads = big.linear.k_heads, s.gdn_v_heads = big.linear.v_heads, s.gdn_k_dim = big.linear.k_dim;
  s.gdn_v_dim = big.linear.v_dim, s.gdn_conv = big.linear.conv_kernel, s.pos_per_token = 4;
  REQUIRE(llamacpp_graph_compute(s).has_value());
  auto refused = [&](auto change) {
    LlamaCppGraphShape t = s;
    change(t);
    return !llamacpp_graph_compute(t).has_value();
  };
  CHECK(refused([](LlamaCppGraphShape& t) { t.layer_linear.pop_back(); }));           // a flag a layer
  CHECK(refused([](LlamaCppGraphShape& t) { t.gdn_k_dim = t.gdn_v_dim / 2; }));       // the state's reshape needs equal widths
  CHECK(refused([](LlamaCppGraphShape& t) { t.gdn_v_heads = t.gdn_k_heads + 1; }));   // value heads a multiple of key heads
  CHECK(refused([](LlamaCppGraphShape& t) { t.n_seqs = 3; t.n_rs = 3; }));            // 512 tokens are not 3 whole sequences
  CHECK(refused([](LlamaCppGraphShape& t) { t.n_seqs = 2; t.n_rs = 1; }));            // a state cell for each sequence
  CHECK(refused([](LlamaCppGraphShape& t) { t.gdn_conv = 0; }));
  CHECK(refused([](LlamaCppGraphShape& t) { t.gdn_v_heads = i64{1} << 21; }));
  CHECK(refused([](LlamaCppGraphShape& t) { t.shexp_ffn = 512; }));                     // a shared expert needs routed ones
  CHECK(refused([](LlamaCppGraphShape& t) { t.shexp_ffn = -1; }));
  // More sequences: the same nodes, each sequence's state rows gathered and saved.
  LlamaCppGraphShape four = s;
  four.n_seqs = four.n_rs = 4;
  const auto one = llamacpp_graph_compute(s), many = llamacpp_graph_compute(four);
  REQUIRE(many);
  CHECK(many->nodes == one->nodes);
}

namespace {

// Qwen3.5-35B-A3B as its GGUFs describe it (ggml-org/llama.cpp issue #21834's and ROCm/ROCm issue
// #6027's metadata dumps): qwen35moe, 40 layers of 2,048, 16 heads (2 KV) of 256, 256 experts of
// 512 with 8 used and a shared expert of 512, ssm conv 4, state 128, 16 groups, time step rank 32,
// inner 4096, every 4th layer full attention, 248,320 tokens.

}  // namespace

TEST_CASE("llama.cpp: Qwen3.5-MoE's graph, routed experts and a gated shared expert, node for node", "[calibration][llamacpp]") {
  const ModelConfig c = preset("qwen3.5-35b-a3b").config;
  // Issue #21834 (build 8738, llama-server on an RTX 2060 with some layers on the CPU, one sequence):
  //   llama_memory_recurrent: size =   62.81 MiB (     1 cells,  40 layers,  1 seqs), R (f32):    2.81 MiB, S (f32):   60.00 MiB
  //   sched_reserve: fused Gated Delta Net (chunked) enabled
  //   sched_reserve:      CUDA0 compute buffer size =   497.00 MiB
  //   sched_reserve: graph nodes  = 3729
  // The nodes do not depend on where the layers are: build_moe_ffn's 16 + 2 · 8 and the shared
  // expert's 8 replace the dense FFN's 4, so 30 Gated DeltaNet layers of 99 and 10 attention
  // layers of 75, and 9 more (the experts' gate and up as two GGUF tensors, not one gate_up).
  const auto [w, e] = with_buffers(c, {{"seq", "65536"}, {"np", "1"}, {"w", "q4_k_m"}, {"kvt", "fp16"}, {"gpu", "rtx-4090"},
                                       {"lcg", "2026-01"}});
  const LlamaCppBuffers& b = *e.llamacpp_devices;
  REQUIRE(b.compute_layers);
  CHECK(b.graph_nodes == 30 * 99 + 10 * 75 + 9);
  CHECK(b.graph_nodes == 3729);
  CHECK(b.splits_pp == 2);
  const std::vector<std::string> log = llamacpp_log(*e.llamacpp, w.kv_dtype, &b);
  CHECK(std::find(log.begin(), log.end(),
                  "llama_memory_recurrent: size =   62.81 MiB (     1 cells,  40 layers,  1 seqs), R (f32):    2.81 MiB, S (f32):   60.00 MiB") !=
        log.end());
  // That run's placement (two Gated DeltaNet layers' states on the CPU) is not followed. Every
  // layer on the GPU, llmsize's device buffer is the same 497.00 MiB: the head's 512 rows of
  // logits above the last layer's freed blocks, not at the bottom of the buffer.
  CHECK(b.compute_of(b.devices[0]) == i64{497} << 20);
  CHECK(b.compute_of(b.devices[0]) > i64{512} * (248320 + 2048) * 4);
  // The host: the f32 mask (65,536 × 512), the embeddings input and their rows, the small inputs.
  CHECK(static_cast<double>(b.host_compute_bytes) / 1048576.0 == Approx(136.02).margin(0.005));
}

TEST_CASE("llama.cpp: -b caps -ub; a 4,096-token ubatch of Qwen3.6-35B-A3B with its experts on the CPU", "[calibration][llamacpp]") {
  // Qwen3.6-35B-A3B has Qwen3.5-35B-A3B's shape (40 layers of 2,048, 256 experts of 512 with 8
  // used and a shared expert, ssm 4/128/16/32/4096, every 4th layer full attention): its preset
  // shares that config.
  const ModelConfig c = preset("qwen3.6-35b-a3b").config;
  // llama_context clamps n_ubatch by n_batch (2048 by default): -ub 4096 alone is 2048.
  const auto [aw, alone] = with_buffers(c, {{"seq", "150000"}, {"np", "1"}, {"kvu", "1"}, {"ub", "4096"}, {"lcg", "2026-01"}});
  CHECK(alone.llamacpp->n_ubatch == 2048);
  // PR #23861 (drauh's comment, 2026-05-30, from issue #23527): "Setup: Qwen3.6-35B-A3B-UD-Q4_K_XL,
  // `-c 150000 -b 4096 -ub 4096 -fa on -ctk q8_0 -ctv q8_0 --kv-unified --cpu-moe -np 1`, RTX 3080
  // 10 GB", its table's baseline row (a build just before PR #23764, after PR #21038: the 2026-04 graph):
  //   | baseline | 3976 MiB | 2408 MiB | 7981 MiB | 8275 MiB |
  // (CUDA0 compute, CUDA_Host compute, idle and peak VRAM).
  const auto [w, e] = with_buffers(c, {{"seq", "150000"}, {"np", "1"}, {"kvu", "1"}, {"nb", "4096"}, {"ub", "4096"}, {"kvt", "q8_0"},
                                       {"w", "q4_k_m"}, {"gpu", "rtx-3080"}, {"ncmoe", "99"}, {"lcg", "2026-04"}});
  REQUIRE(e.llamacpp->n_ubatch == 4096);
  const LlamaCppBuffers& b = *e.llamacpp_devices;
  REQUIRE(b.compute_layers);
  // The host: the f32 mask (150,016 × 4,096), the embeddings input and their rows: 2408 MiB.
  CHECK(b.host_compute_bytes / (i64{1} << 20) == 2408);
  // MISS, the device: 3944.00 MiB where the run reported 3976 (−0.8%). The head sets it (4,096
  // rows of 248,320 logits, 3,880 MiB, and the final norm's); the 32 MiB under it are not traced.
  // The build rotated its q8_0 cache (the 2026-04 graph, PR #21038): the rotation's tensors stay
  // below the head and move neither buffer. Not modelled there: the file's own expert types,
  // which the GPU copies for the CPU's experts.
  CHECK(b.compute_of(b.devices[0]) == i64{3944} << 20);
  // The launch command (a current llama-server's) carries -b where it is not the default.
  Workload launch = w;
  launch.runtime = Runtime::LlamaCpp;
  launch.llamacpp_graph = LlamaCppGraph::F16Mask;
  const auto command = launch_command(c, launch, "");
  REQUIRE(command.ok());
  const std::string cmd = command->text();
  CHECK(cmd.find(" -b 4096") != std::string::npos);
  CHECK(cmd.find(" -ub 4096") != std::string::npos);
}
