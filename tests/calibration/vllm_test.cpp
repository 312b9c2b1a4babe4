// Calibration against published vLLM start-up logs (issue 11): the budget, the profiling run,
// the KV cache memory left and the blocks, tokens and concurrency vLLM 0.19 prints, term by term.
//
// Source of the forty 0.19 runs: llm-d-incubation/llm-d-planner, accuracy/results/v0.19.0/logs/ at
// commit d3121e059da88662db39a926a3ead964be97359b ("Add logs", 2026-04-22; removed again by a later
// commit). One H100 80GB per rank ("Free memory on device (78.68/79.19 GiB)"), `vllm serve` with
// max_model_len 8192, gpu_memory_utilization 0.95 (gpt-oss: the 0.90 default), prefix caching off,
// "Defaulting max_num_batched_tokens to 8192 / max_num_seqs to 1024 for OPENAI_API_SERVER usage
// context", block size 16. Lines are quoted as logged (TP runs: rank 0).
//
// What each case asserts (the issue's rules): weights within 1%, the torch peak to the 0.01 GiB
// vLLM prints, the tokens and concurrency lines exactly when vLLM's own block count is given
// (--kv-cache-memory of exactly those blocks: the groups, padding and rounding), and the end-to-end
// capacity within 5% (dense) or 10% (MoE). A term that misses says by how much and why, and
// the test pins that error so a change in it is seen.
#include <cmath>

#include <algorithm>
#include <tuple>
#include "core/estimate.hpp"
#include "core/hf_config.hpp"
#include "core/json_util.hpp"
#include "core/model_fields.hpp"
#include "core/engine_log.hpp"
#include "core/launch.hpp"
#include "core/report.hpp"
#include "core/torch_allocator.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;
using llmsize::test::with;
using llmsize::test::check_settings;

namespace {

constexpr double kGiB = 1073741824.0;

// vLLM's figures for a model and a workload (runtime vllm); the estimate must give them.
VllmMemory vllm_of(const ModelConfig& c, Workload w) {
  w.runtime = Runtime::Vllm;
  const auto e = estimate(c, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  INFO((e.value().notes.empty() ? std::string() : e.value().notes.front().message));
  REQUIRE(e.value().vllm.has_value());
  return *e.value().vllm;
}

// The same for a workload given as link keys (H100 SXM, 8192 unless the keys give "seq").
VllmMemory vllm(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Workload w = with(kv);
  w.gpu = "h100-sxm";
  if (std::none_of(kv.begin(), kv.end(), [](const auto& p) { return std::string_view(p.first) == "seq"; })) w.seq = 8192;
  return vllm_of(c, w);
}

// What a run logged, per term.
struct Logged {
  double weights_gib, peak_gib, non_torch_gib, available_gib;
  i64 tokens;
  const char* concurrency;  // "%.2f"
  i64 blocks;               // "num_gpu_blocks is: N"
};

double gib(i64 b) { return static_cast<double>(b) / kGiB; }
double rel(double ours, double theirs) { return ours / theirs - 1.0; }
std::string two(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", x);
  return b;
}

// vLLM's own block count given back: --kv-cache-memory of exactly `blocks` blocks (one block of
// every layer group each) under workload w gives back num_blocks, the tokens line, the concurrency
// line and, where given, the available line as logged.
void check_own_blocks(const ModelConfig& c, Workload w, const VllmMemory& m, i64 blocks, i64 tokens, const char* concurrency,
                      const char* available = nullptr) {
  const i64 block_bytes = m.groups.front().page_bytes * m.group_size;
  REQUIRE_FALSE(find_field("kvmem")->set(w, std::to_string(blocks * block_bytes)));
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& g = *e.value().vllm;
  CHECK(g.num_blocks == blocks);
  CHECK(g.kv_tokens == tokens);
  CHECK(two(g.max_concurrency) == concurrency);
  if (available) CHECK(vllm_gib(g.kv_available_bytes) == available);
}

// The same for a workload given as link keys, as vllm() builds it (H100 SXM, 8192 unless given).
void check_blocks(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv, const VllmMemory& m,
                  const Logged& log) {
  Workload w = with(kv);
  w.runtime = Runtime::Vllm;
  w.gpu = "h100-sxm";
  if (std::none_of(kv.begin(), kv.end(), [](const auto& p) { return std::string_view(p.first) == "seq"; })) w.seq = 8192;
  check_own_blocks(c, w, m, log.blocks, log.tokens, log.concurrency);
}

}  // namespace

TEST_CASE("vLLM: GiB as Python's str(round(x, 2))", "[calibration][vllm]") {
  CHECK(vllm_gib(62396416000) == "58.11");   // 58.1112…
  CHECK(vllm_gib(61740154880) == "57.5");    // 57.5001…: str() drops the trailing zero
  CHECK(vllm_gib(16106127360) == "15.0");
  CHECK(vllm_gib(0) == "0.0");
  CHECK(vllm_gib(-2297807503) == "-2.14");  // a negative KV budget (vLLM then refuses to start)
}

TEST_CASE("vLLM 0.19: Llama-3.1-8B on one H100, bf16 and fp8 KV", "[calibration][vllm]") {
  // meta-llama-llama-3-1-8b---h100-80gb--tp1pp1dp1--8192.log:
  //   Model loading took 14.99 GiB memory and 14.429680 seconds
  //   Memory profiling takes 17.96 seconds. Total non KV cache memory: 17.12GiB; torch peak memory increase: 1.89GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 14.99GiB.
  //   Available KV cache memory: 58.11 GiB
  //   GPU KV cache size: 476,016 tokens
  //   Maximum concurrency for 8,192 tokens per request: 58.11x
  //   … num_gpu_blocks is: 29751
  const ModelConfig c = preset("llama-3.1-8b").config;
  const Logged log{14.99, 1.89, 0.25, 58.11, 476016, "58.11", 29751};
  const VllmMemory m = vllm(c, {{"util", "0.95"}});
  CHECK(m.budget_bytes == 80777700967);  // ceil(0.95 × 85,029,158,912): "(0.95, 75.23 GiB)"
  CHECK(vllm_gib(m.weights_bytes) == "14.99");  // 8,030,261,248 × 2 B + the 32 MiB rotary cache (131072 × 128 × 2 B)
  CHECK(vllm_gib(m.activation_peak_bytes) == "1.89");  // the sampler's [1024, 128256] logits and their fp32 copies
  CHECK(vllm_gib(m.non_torch_bytes) == "0.25");
  // "17.12" and "58.11" in the log: the measured non-torch growth was a little under 0.25 GiB
  // (0.245–0.2465 GiB by the printed totals); llmsize takes 0.25, 4 blocks (8 MiB) fewer.
  CHECK(vllm_gib(m.non_kv_bytes) == "17.13");
  CHECK(m.num_blocks == log.blocks - 2);
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 1e-4);
  check_blocks(c, {{"util", "0.95"}}, m, log);
  // kv_cache_dtype fp8 (…--8192-dtbf16-kvfp8.log): the same 58.11 GiB holds twice the tokens.
  //   GPU KV cache size: 952,032 tokens / Maximum concurrency for 8,192 tokens per request: 116.21x / num_gpu_blocks is: 59502
  const VllmMemory f = vllm(c, {{"util", "0.95"}, {"kvt", "fp8"}});
  CHECK(f.groups.front().page_bytes * 2 == m.groups.front().page_bytes);
  check_blocks(c, {{"util", "0.95"}, {"kvt", "fp8"}}, f, {14.99, 1.89, 0.25, 58.11, 952032, "116.21", 59502});
}

TEST_CASE("vLLM 0.19: Qwen3-8B reproduced line for line", "[calibration][vllm]") {
  // qwen-qwen3-8b--h100-80gb--tp1pp1dp1--8192.log:
  //   Model loading took 15.27 GiB memory and 15.294531 seconds
  //   Memory profiling takes 23.00 seconds. Total non KV cache memory: 17.73GiB; torch peak memory increase: 2.21GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 15.27GiB.
  //   Available KV cache memory: 57.5 GiB
  //   GPU KV cache size: 418,688 tokens
  //   Maximum concurrency for 8,192 tokens per request: 51.11x
  const ModelConfig c = preset("qwen3-8b").config;
  const VllmMemory m = vllm(c, {{"util", "0.95"}});
  CHECK(vllm_log(m) == std::vector<std::string>{
                           "Model loading took 15.27 GiB memory and ... seconds",
                           "Memory profiling takes ... seconds. Total non KV cache memory: 17.73GiB; torch peak memory increase: "
                           "2.21GiB; non-torch forward increase memory: 0.25GiB; weights memory: 15.27GiB.",
                           "Available KV cache memory: 57.5 GiB",
                           "GPU KV cache size: 418,688 tokens",
                           "Maximum concurrency for 8,192 tokens per request: 51.11x"});
  CHECK(m.num_blocks == 26168);  // num_gpu_blocks is: 26168
}

TEST_CASE("vLLM 0.19: dense models at TP 2 (Llama-3.3-70B W8A8, Qwen2.5-72B)", "[calibration][vllm]") {
  // redhatai-llama-3-3-70b-i--h100-80gb--tp2pp1dp1--8192.log (compressed-tensors W8A8, int8 weights with
  // per-channel scales; Llama-3.3-70B has Llama-3.1-70B's shapes):
  //   Model loading took 33.88 GiB memory and 20.060388 seconds
  //   Memory profiling takes 43.50 seconds. Total non KV cache memory: 37.95GiB; torch peak memory increase: 1.96GiB;
  //     non-torch forward increase memory: 2.11GiB; weights memory: 33.88GiB.
  //   Available KV cache memory: 37.28 GiB
  //   GPU KV cache size: 244,304 tokens / Maximum concurrency for 8,192 tokens per request: 29.82x / num_gpu_blocks is: 15269
  {
    const ModelConfig c = preset("llama-3.1-70b").config;
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}, {"w", "int8"}};
    const Logged log{33.88, 1.96, 2.11, 37.28, 244304, "29.82", 15269};
    const VllmMemory m = vllm(c, kv);
    CHECK(vllm_gib(m.weights_bytes) == "33.88");
    // Torch peak 1.966 GiB ("1.97"): 0.006 GiB over the log, which measured 1.955–1.965.
    CHECK(std::abs(gib(m.activation_peak_bytes) - log.peak_gib) < 0.01);
    // Non-torch memory at TP 2 is a measured constant (2.09 GiB; this run 2.11).
    CHECK(std::abs(gib(m.non_torch_bytes) - log.non_torch_gib) < 0.03);
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.05);
    check_blocks(c, kv, m, log);
  }
  // qwen-qwen2-5-72b-instruc--h100-80gb--tp2pp1dp1--8192.log (bf16; config.json of Qwen/Qwen2.5-72B-Instruct):
  //   Model loading took 67.8 GiB memory and 101.493961 seconds
  //   Memory profiling takes 35.86 seconds. Total non KV cache memory: 72.19GiB; torch peak memory increase: 2.29GiB;
  //     non-torch forward increase memory: 2.09GiB; weights memory: 67.8GiB.
  //   Available KV cache memory: 3.04 GiB
  //   GPU KV cache size: 19,920 tokens / Maximum concurrency for 8,192 tokens per request: 2.43x / num_gpu_blocks is: 1245
  {
    const ModelConfig c = llmsize::test::import_file("calibration/configs/qwen2.5-72b-instruct.json");
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}};
    const Logged log{67.8, 2.29, 2.09, 3.04, 19920, "2.43", 1245};
    const VllmMemory m = vllm(c, kv);
    // Weights 67.72 GiB, 0.08 GiB (0.12%) under the log: not traced (load-time buffers of this model).
    CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.01);
    CHECK(vllm_gib(m.activation_peak_bytes) == "2.29");
    CHECK(vllm_gib(m.non_torch_bytes) == "2.09");
    // With 3 GiB left for the KV cache, the 0.08 GiB of weights is 2.7% of the capacity.
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.05);
    check_blocks(c, kv, m, log);
  }
}

TEST_CASE("vLLM 0.19: Qwen2.5-72B at TP 4 on four PCIe-only L40S", "[calibration][vllm]") {
  // gnosia93/eks-agentic-ai, the vLLM lesson's start-up on a g6e.12xlarge ("L40S 48GB * 4EA, TP=4"):
  // `vllm serve` of version 0.19.0 with non-default args {'model': 'Qwen/Qwen2.5-72B-Instruct',
  // 'max_model_len': 8192, 'served_model_name': ['qwen'], 'tensor_parallel_size': 4}, so
  // gpu_memory_utilization 0.9 and, under 70 GiB, 2,048 batched tokens ("compile range (1, 2048)"):
  //   SymmMemCommunicator: Device capability 8.9 not supported, communicator is not available.
  //   Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs.
  //   Model loading took 33.98 GiB memory and 81.566250 seconds
  //   Available KV cache memory: 5.11 GiB
  //   GPU KV cache size: 67,024 tokens
  //   Maximum concurrency for 8,192 tokens per request: 8.18x
  //   CUDA graph pool memory: 2.62 GiB (actual), 2.73 GiB (estimated), difference: 0.11 GiB (4.3%).
  const ModelConfig c = llmsize::test::import_file("calibration/configs/qwen2.5-72b-instruct.json");
  Workload w = with({{"tp", "4"}, {"gpus", "4"}, {"gpu", "l40s"}, {"seq", "8192"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  CHECK(m.max_num_batched_tokens == 2048);
  CHECK(m.max_num_seqs == 256);
  CHECK(m.budget_bytes == 43023237120);  // ceil(0.9 × 47,803,596,800)
  // Weights 33.87 GiB, 0.11 GiB (0.32%) under the log, the same load-time excess as at TP 2 on H100.
  CHECK(std::abs(rel(gib(m.weights_bytes), 33.98)) < 0.01);
  // Without NVLink the non-torch growth is the one-GPU figure, not H100's 2.17 GiB at TP 4 (which
  // would leave 3.4 GiB, 44,528 tokens: 34% under). The log's budget implies 0.34 GiB with this
  // torch peak: MISS of +4.0% in tokens (69,696), 0.11 GiB of weights and 0.09 GiB of non-torch.
  CHECK(m.non_torch_bytes == i64{1} << 28);
  CHECK(m.kv_tokens == 69696);
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 67024.0)) < 0.05);
  // vLLM's own 4,189 blocks (5.11 GiB) give back its tokens and concurrency lines: 80 layers × 2 KV
  // heads on this rank × 128 × 2 × 2 B per token.
  CHECK(m.groups.front().page_bytes * m.group_size == 16 * 81920);
  check_own_blocks(c, w, m, 4189, 67024, "8.18", "5.11");
}

TEST_CASE("vLLM 0.19: MoE models (Qwen3-30B-A3B, gpt-oss-20b at TP 2, DeepSeek-V2-Lite's MLA)", "[calibration][vllm]") {
  // qwen-qwen3-30b-a3b--h100-80gb--tp1pp1dp1--8192.log:
  //   Model loading took 56.88 GiB memory and 56.260796 seconds
  //   Memory profiling takes 25.66 seconds. Total non KV cache memory: 59.82GiB; torch peak memory increase: 2.68GiB;
  //     non-torch forward increase memory: 0.27GiB; weights memory: 56.88GiB.
  //   Available KV cache memory: 15.41 GiB
  //   GPU KV cache size: 168,288 tokens / Maximum concurrency for 8,192 tokens per request: 20.54x / num_gpu_blocks is: 10518
  {
    const ModelConfig c = preset("qwen3-30b-a3b").config;
    const Logged log{56.88, 2.68, 0.27, 15.41, 168288, "20.54", 10518};
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    CHECK(vllm_gib(m.weights_bytes) == "56.88");
    // The fused-MoE workspace (0.5 GiB) stays allocated through the sampler run: without it, 2.17.
    CHECK(m.workspace_bytes == 512 * 1048576 + 32 * 1048576);
    CHECK(vllm_gib(m.activation_peak_bytes) == "2.68");
    // This run's non-torch growth was 0.27 GiB, llmsize's constant 0.25: 11 blocks (0.1%) more.
    CHECK(m.num_blocks - log.blocks == 11);
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.10);
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
  // openai-gpt-oss-20b--h100-80gb--tp2pp1dp1--8192.log (MXFP4 experts, gpu_memory_utilization 0.90):
  //   Model loading took 7.01 GiB memory and 12.429379 seconds
  //   Memory profiling takes 5.39 seconds. Total non KV cache memory: 11.95GiB; torch peak memory increase: 2.87GiB;
  //     non-torch forward increase memory: 2.07GiB; weights memory: 7.01GiB.
  //   Available KV cache memory: 59.32 GiB
  //   GPU KV cache size: 2,591,776 tokens / Maximum concurrency for 8,192 tokens per request: 316.07x / num_gpu_blocks is: 323972
  {
    const ModelConfig c = preset("gpt-oss-20b").config;
    // The checkpoint: MXFP4 experts, every self_attn module, the router and the embeddings in bf16
    // (its quantization_config's modules_to_not_convert).
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"tp", "2"}, {"gpus", "2"}, {"w", "mxfp4"}, {"kattn", "yes"}};
    const Logged log{7.01, 2.87, 2.07, 59.32, 2591776, "316.07", 323972};
    const VllmMemory m = vllm(c, kv);
    // Two KV cache groups of 12 layers (sliding 128, full): the tokens line is blocks / 2 × 16,
    // and a request takes 512 full + 513 sliding blocks (min(127 + 8192, 8192) tokens, plus one).
    REQUIRE(m.groups.size() == 2);
    CHECK(m.group_size == 12);
    CHECK(m.blocks_per_request == 1025);
    CHECK(vllm_gib(m.activation_peak_bytes) == "2.87");
    // The experts as vLLM's Triton MXFP4 backend holds them on Hopper: 0.41 GiB over the checkpoint's
    // bytes on each GPU (the expert width 1,440 padded to 1,472, the scales kept twice, fp32 biases).
    CHECK(m.mxfp4_layout_bytes == 444923904);
    CHECK(m.mxfp4_checkpoint_bytes + m.mxfp4_layout_bytes == 24 * i64{230322176});
    // MISS, weights: 6.84 GiB, 2.4% under the log's 7.01. Not traced: the Hopper value layout of
    // triton_kernels (its padding, if any) and what else load_model keeps. It costs 0.17 GiB of the
    // 59 GiB KV budget: +0.25% capacity.
    CHECK(vllm_gib(m.weights_bytes) == "6.84");
    CHECK(rel(gib(m.weights_bytes), log.weights_gib) == Approx(-0.024).margin(0.002));
    CHECK(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens)) == Approx(0.0025).margin(0.001));
    check_blocks(c, kv, m, log);
  }
  // deepseek-ai-deepseek-v2---h100-80gb--tp1pp1dp1--8192.log (DeepSeek-V2-Lite-Chat, MLA):
  //   Model loading took 29.43 GiB memory and 28.446389 seconds
  //   Memory profiling takes 22.62 seconds. Total non KV cache memory: 31.62GiB; torch peak memory increase: 1.93GiB;
  //     non-torch forward increase memory: 0.26GiB; weights memory: 29.43GiB.
  //   Available KV cache memory: 43.61 GiB
  //   GPU KV cache size: 1,505,552 tokens / Maximum concurrency for 8,192 tokens per request: 183.78x / num_gpu_blocks is: 94097
  {
    const ModelConfig c = preset("deepseek-v2-lite").config;
    const Logged log{29.43, 1.93, 0.26, 43.61, 1505552, "183.78", 94097};
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    CHECK(m.groups.front().page_bytes == 16 * 576 * 2);  // MLAAttentionSpec: 16 tokens × (512 + 64) × 2 B, one "head"
    // Weights 29.28 GiB, 0.15 GiB (0.5%) under the log: not traced (MLA's load-time weight copies are a candidate).
    CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.01);
    CHECK(vllm_gib(m.activation_peak_bytes) == "1.93");
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.10);
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
}

TEST_CASE("vLLM 0.19: multimodal checkpoints served from their text configs", "[calibration][vllm]") {
  // These runs load a vision tower and profile its encoder. The KV cache groups and block arithmetic
  // are exact; the towers are counted in the weights; the encoder's profile is modelled for Gemma 3
  // and Mistral 3 (Pixtral).
  // google-gemma-3-{4b,12b,27b}-it--h100-80gb--tp1pp1dp1--8192.log (vLLM 0.19, util 0.95, max_model_len 8192):
  //   Model loading took 8.58 GiB memory and 20.812816 seconds                      (4b)
  //   Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 32 image items of the maximum feature size.
  //   Memory profiling takes 29.72 seconds. Total non KV cache memory: 12.72GiB; torch peak memory increase: 3.89GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 8.58GiB.
  //   Available KV cache memory: 62.51 GiB
  //   GPU KV cache size: 468,144 tokens / Maximum concurrency for 8,192 tokens per request: 57.05x / num_gpu_blocks is: 204817
  //   Model loading took 23.31 GiB memory and 61.511970 seconds                     (12b)
  //   Memory profiling takes 33.32 seconds. Total non KV cache memory: 27.51GiB; torch peak memory increase: 3.94GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 23.31GiB.
  //   Available KV cache memory: 47.72 GiB
  //   GPU KV cache size: 130,304 tokens / Maximum concurrency for 8,192 tokens per request: 15.88x / num_gpu_blocks is: 48867
  //   Model loading took 51.45 GiB memory and 122.713348 seconds                    (27b)
  //   Memory profiling takes 35.21 seconds. Total non KV cache memory: 55.7GiB; torch peak memory increase: 3.99GiB;
  //     non-torch forward increase memory: 0.26GiB; weights memory: 51.45GiB.
  //   Available KV cache memory: 19.53 GiB
  //   Add 8 padding layers, may waste at most 15.38% KV cache memory
  //   GPU KV cache size: 36,560 tokens / Maximum concurrency for 8,192 tokens per request: 4.46x / num_gpu_blocks is: 15997
  //   (each of the three prints the "Encoder cache" line with 32 image items)
  for (const auto& [id, log, d, head, groups] :
       {std::tuple{"gemma-3-4b", Logged{8.58, 3.89, 0.25, 62.51, 468144, "57.05", 204817}, 2560, 256, 7},
        std::tuple{"gemma-3-12b", Logged{23.31, 3.94, 0.25, 47.72, 130304, "15.88", 48867}, 3840, 256, 6},
        std::tuple{"gemma-3-27b", Logged{51.45, 3.99, 0.26, 19.53, 36560, "4.46", 15997}, 5376, 128, 7}}) {
    INFO(id);
    const ModelConfig c = preset(id).config;
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    CHECK(m.groups.size() == static_cast<size_t>(groups));
    // Weights: the checkpoint and the tower, and two rotary caches (gemma3.py): the sliding layers'
    // unscaled one of 131,072 rows, the full layers' linear-scaled one of 131,072 × 8 rows
    // (LinearScalingRotaryEmbedding: max_position × factor), head_dim wide in bf16. Without the
    // second cache's 8× rows the weights were 0.32–0.55 GiB under.
    CHECK(m.rope_bytes == (131072 + 131072 * 8) * head * 2);
    CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.0025);  // −0.12%, −0.21%, −0.14%
    // The profile's images (gemma3_mm.py, gpu_model_runner.py profile_run): 8,192 / 256 = 32 images of 896²
    // px; their 256 soft tokens each (the projector's 4 × 4 pool of 64 × 64 patches) and pixels stay
    // allocated beside the sampler's peak: the three logged peaks to the 0.01 GiB printed.
    CHECK(c.vision.merge == 4);
    CHECK(m.mm_tokens_per_item == 256);
    CHECK(m.mm_items == 32);
    CHECK(m.encoder_profile_bytes == i64{32} * 256 * d * 2 + i64{32} * 3 * 896 * 896 * 2);
    CHECK(vllm_gib(m.activation_peak_bytes) == vllm_gib(static_cast<i64>(log.peak_gib * kGiB)));
    const auto lines = vllm_log(m);
    CHECK(std::find(lines.begin(), lines.end(), "Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 32 image "
                                                "items of the maximum feature size.") != lines.end());
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.005);  // +0.02%, +0.12%, +0.44%
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
  {
    // 27b: 52 sliding layers in 6 groups of 10 (8 padding layers), 10 full layers in one: 7 groups.
    const VllmMemory m = vllm(preset("gemma-3-27b").config, {{"util", "0.95"}});
    CHECK(m.group_size == 10);
    CHECK(m.padding_layers == 8);
    const auto lines = vllm_log(m);
    CHECK(std::find(lines.begin(), lines.end(), "Add 8 padding layers, may waste at most 15.38% KV cache memory") != lines.end());
  }
  // mistralai-mistral-small---h100-80gb--tp1pp1dp1--8192.log (Mistral-Small-3.1-24B-Instruct-2503):
  //   Model loading took 44.76 GiB memory and 45.831509 seconds
  //   Memory profiling takes 21.11 seconds. Total non KV cache memory: 47.04GiB; torch peak memory increase: 2.03GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 44.76GiB.
  //   Available KV cache memory: 28.19 GiB
  //   GPU KV cache size: 184,752 tokens / Maximum concurrency for 8,192 tokens per request: 22.55x / num_gpu_blocks is: 11547
  {
    const ModelConfig c = preset("mistral-small-24b").config;
    const Logged log{44.76, 2.03, 0.25, 28.19, 184752, "22.55", 11547};
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    // The Pixtral tower and the mistral3 projector (438,958,080 parameters, 0.82 GiB) are in the weights:
    // the text-only preset was 1.84% under and its tokens 3.2% over.
    CHECK(c.vision.kind == VisionKind::Pixtral);
    CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.001);
    // The profile's images (gpu_model_runner.py profile_run): two of 1540² px, 55 × 55 features each after the
    // 2 × 2 merge (3,080 placeholder tokens with the row breaks, within the 8,192-token budget), their
    // features (2 × 3,025 × 5,120 × 2 B) and pixels (2 × 3 × 1540² × 2 B) held beside the sampler's peak:
    // "2.03", as logged.
    CHECK(m.mm_budget_tokens == 8192);
    CHECK(m.mm_tokens_per_item == 3080);
    CHECK(m.mm_items == 2);
    CHECK(m.encoder_profile_bytes == 2 * 3025 * 5120 * 2 + 2 * 3 * 1540 * 1540 * 2);
    CHECK(vllm_gib(m.activation_peak_bytes) == "2.03");
    const auto lines = vllm_log(m);
    CHECK(std::find(lines.begin(), lines.end(), "Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 2 image "
                                                "items of the maximum feature size.") != lines.end());
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.005);
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
  // w8a8-mistral-small-24b--h100-80gb--tp1pp1dp1--8192.log and …--tp2pp1dp1--8192.log
  // (RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8: compressed-tensors int8 weights,
  // the Pixtral tower and the projector kept in bf16):
  //   Model loading took 24.07 GiB memory and 22.705708 seconds
  //   Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 2 image items of the maximum feature size.
  //   Memory profiling takes 24.83 seconds. Total non KV cache memory: 26.5GiB; torch peak memory increase: 2.18GiB;
  //     non-torch forward increase memory: 0.26GiB; weights memory: 24.07GiB.
  //   Available KV cache memory: 48.73 GiB
  //   GPU KV cache size: 319,344 tokens / Maximum concurrency for 8,192 tokens per request: 38.98x / num_gpu_blocks is: 19959
  // and at TP 2 (rank 0):
  //   Model loading took 12.11 GiB memory and 18.911944 seconds
  //   Memory profiling takes 31.49 seconds. Total non KV cache memory: 16.21GiB; torch peak memory increase: 2.03GiB;
  //     non-torch forward increase memory: 2.07GiB; weights memory: 12.11GiB.
  //   Available KV cache memory: 59.02 GiB
  //   GPU KV cache size: 773,584 tokens / Maximum concurrency for 8,192 tokens per request: 94.43x / num_gpu_blocks is: 48349
  {
    const ModelConfig c = preset("mistral-small-24b").config;
    for (const auto& [tp, log] : {std::pair{"1", Logged{24.07, 2.18, 0.26, 48.73, 319344, "38.98", 19959}},
                                  std::pair{"2", Logged{12.11, 2.03, 2.07, 59.02, 773584, "94.43", 48349}}}) {
      INFO("tp " << tp);
      const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"tp", tp}, {"gpus", tp}, {"w", "int8"}};
      const VllmMemory m = vllm(c, kv);
      CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.01);  // TP 1: −0.04%; TP 2: −0.5%
      CHECK(m.mm_items == 2);  // "profiled with 2 image items"
      if (std::string_view(tp) == "2") {
        CHECK(vllm_gib(m.activation_peak_bytes) == "2.03");  // the sampler's peak and the two images
      } else {
        // MISS, torch peak at TP 1: 2.03 GiB where vLLM measured 2.18. The W8A8 forward on one GPU (its
        // FFN 32,768 wide, activations quantized to int8 per token) outgrows the sampler there; llmsize's
        // forward (the bf16 model's widest FFN moment, 1.66 GiB) leaves that out. Capacity +0.3%.
        CHECK(log.peak_gib - gib(m.activation_peak_bytes) == Approx(0.15).margin(0.01));
      }
      CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.01);
      check_blocks(c, kv, m, log);
    }
  }
  // meta-llama-llama-4-scout--h100-80gb--tp4pp1dp1--8192.log (TP 4):
  //   Model loading took 53.12 GiB memory and 934.140592 seconds
  //   Memory profiling takes 40.70 seconds. Total non KV cache memory: 58.48GiB; torch peak memory increase: 3.19GiB;
  //     non-torch forward increase memory: 2.17GiB; weights memory: 53.12GiB.
  //   Available KV cache memory: 16.75 GiB
  //   GPU KV cache size: 365,968 tokens / Maximum concurrency for 8,192 tokens per request: 44.68x / num_gpu_blocks is: 91495
  {
    const ModelConfig c = preset("llama-4-scout").config;
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"tp", "4"}, {"gpus", "4"}};
    const Logged log{53.12, 3.19, 2.17, 16.75, 365968, "44.68", 91495};
    const VllmMemory m = vllm(c, kv);
    // 36 chunked-attention layers (chunks of 8192) in 3 groups and 12 full ones: 4 groups.
    CHECK(m.groups.size() == 4);
    CHECK(vllm_gib(m.non_torch_bytes) == "2.17");
    // The log's model is the Instruct one ("model   meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    // max_position_embeddings 10,485,760: the rotary cos_sin_cache every rank holds is
    // 10,485,760 × 128 × 2 B = 2.5 GiB of the 53.12 (the preset's former base-model config, 262,144
    // positions, left 2.46 GiB of the load unexplained, 4.6% under, and the capacity 15% over).
    CHECK(m.rope_bytes == 10485760LL * 128 * 2);
    CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.01);
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.10);  // MoE: ≤ 10%
    CHECK(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens)) == Approx(0.0075).margin(0.002));
    check_blocks(c, kv, m, log);
  }
  // moonshotai-kimi-vl-a3b-i--h100-80gb--tp{1,2}pp1dp1--8192.log (moonshotai/Kimi-VL-A3B-Instruct, util 0.95,
  // max_model_len 8192; tensor parallel 1 and 2):
  //   Model loading took 30.74 GiB memory and 30.765737 seconds                                   (TP 1)
  //   Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 7 image items of the maximum feature size.
  //   Memory profiling takes 23.31 seconds. Total non KV cache memory: 33.91GiB; torch peak memory increase: 2.92GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 30.74GiB.
  //   Available KV cache memory: 41.32 GiB
  //   GPU KV cache size: 1,426,368 tokens / Maximum concurrency for 8,192 tokens per request: 174.12x / num_gpu_blocks is: 89148
  //   Model loading took 15.53 GiB memory and 27.773756 seconds                                   (TP 2)
  //   Memory profiling takes 22.13 seconds. Total non KV cache memory: 20.45GiB; torch peak memory increase: 2.85GiB;
  //     non-torch forward increase memory: 2.07GiB; weights memory: 15.53GiB.
  //   Available KV cache memory: 54.78 GiB
  //   GPU KV cache size: 1,890,896 tokens / Maximum concurrency for 8,192 tokens per request: 230.82x / num_gpu_blocks is: 118181
  // The config (calibration/configs/kimi-vl-a3b-instruct.json): KimiVLConfig's wrapper around the
  // language model Kimi-VL's report names, Moonlight-16B-A3B (its config.json at revision 4e735b07,
  // verbatim as a public MLA converter's tests quote it), and MoonViT-SO-400M's vision_config
  // (verbatim as a public MLX port's tests quote it). The Hub checkpoint's own text_config was not
  // found to quote: its max_position_embeddings (a 128K context) is not Moonlight's 8,192, which moves
  // only the rotary cache (rows × 64 × 2 B: 1 MiB here, at most 16 MiB for 131,072 rows).
  // The tower and projector are counted (MoonViT: 27 blocks of 1,152 wide; the projector over 2 × 2
  // patches joined: 16,407,656,048 parameters with the language model, the Hub's "16.4B"); the MLA
  // cache is every rank's whole (576 values a token a layer). KV blocks and tokens from the log's
  // KV memory: exact at both sizes.
  // MISS, torch peak: 2.78 GiB where vLLM measured 2.92 (TP 1), 2.71 where it measured 2.85 (TP 2).
  // kimi_vl.py's encoder profile (7 images of the maximum feature size through MoonViT before the
  // dummy forward) is not modelled; what llmsize prints is the sampler's and the forward's peak.
  // Weights: 30.56 GiB at TP 1, 0.59% under. MISS at TP 2: 15.35 where the log has 15.53, 1.17%
  // under: the same 0.18 GiB as at TP 1, missing at both sizes and not traced (not the checkpoint:
  // its total matches the Hub's). The projector, the patch embedding and the position grid, which
  // vLLM keeps whole on each rank (ReplicatedLinear, Conv2dLayer, a Parameter), are counted so
  // (0.03 GiB; before, llmsize split them and missed by 1.35%). Capacity: +0.76% (TP 1) and +0.55%
  // (TP 2), within the MoE bound.
  {
    const ModelConfig c = llmsize::test::import_file("calibration/configs/kimi-vl-a3b-instruct.json");
    REQUIRE(c.vision.kind == VisionKind::MoonVit);
    CHECK(c.vision.positions == 64 * 64);
    CHECK(c.vision.merge == 2);
    for (const auto& [tp, log] : {std::pair{1, Logged{30.74, 2.92, 0.25, 41.32, 1426368, "174.12", 89148}},
                                  std::pair{2, Logged{15.53, 2.85, 2.07, 54.78, 1890896, "230.82", 118181}}}) {
      INFO("TP " << tp);
      const std::string t = std::to_string(tp);
      const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"tp", t.c_str()}, {"gpus", t.c_str()}};
      const VllmMemory m = vllm(c, kv);
      CHECK(m.groups.front().page_bytes == 16 * 576 * 2);
      if (tp == 1) CHECK(std::abs(rel(gib(m.weights_bytes), log.weights_gib)) < 0.01);
      else CHECK(rel(gib(m.weights_bytes), log.weights_gib) == Approx(-0.0117).margin(0.001));  // the stated MISS
      CHECK(gib(m.activation_peak_bytes) - log.peak_gib == Approx(-0.14).margin(0.01));        // the stated MISS
      CHECK(std::abs(gib(m.non_torch_bytes) - log.non_torch_gib) < 0.03);
      CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.10);  // MoE: ≤ 10%
      CHECK(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens)) == Approx(tp == 1 ? 0.0076 : 0.0055).margin(0.0005));
      check_blocks(c, kv, m, log);
    }
  }
}

TEST_CASE("vLLM 0.19: the other llm-d start-ups, term by term (quantized, fp16, TP 2 and 4, other families)", "[calibration][vllm]") {
  // The same source as above (llm-d-planner's v0.19.0 logs at d3121e05): every further run whose
  // model llmsize has, as logged (rank 0). Kimi-Dev-72B is a Qwen2.5-72B fine-tune (its config's
  // shapes); the fp8-dynamic, W8A8 and W4A16 checkpoints are Llama-3.3-70B's (Llama-3.1-70B's
  // shapes), Llama-3.1-8B's and Qwen2.5-7B's, with their lm_head and embedding unquantized.
  struct Case {
    const char* model;  // a preset, or "cfg:" and a file in calibration/configs
    std::initializer_list<std::pair<const char*, const char*>> kv;  // its array lives as long as `cases` (an aggregate's member)
    Logged log;
  };
  const Case cases[] = {
      // fp8dyn-llama-3-3-70b--h100-80gb--tp2pp1dp1--8192.log (RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic):
      //   Model loading took 33.88 GiB memory / torch peak memory increase: 1.96GiB; non-torch forward increase memory: 2.1GiB /
      //   Available KV cache memory: 37.28 GiB / GPU KV cache size: 244,304 tokens / Maximum concurrency for 8,192 tokens per request: 29.82x / num_gpu_blocks is: 15269
      {"llama-3.1-70b", {{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}, {"w", "fp8"}}, {33.88, 1.96, 2.1, 37.28, 244304, "29.82", 15269}},
      // fp8dyn-llama-3-3-70b--h100-80gb--tp4pp1dp1--8192.log (RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic):
      //   Model loading took 16.96 GiB memory / torch peak memory increase: 1.97GiB; non-torch forward increase memory: 2.21GiB /
      //   Available KV cache memory: 54.09 GiB / GPU KV cache size: 708,992 tokens / Maximum concurrency for 8,192 tokens per request: 86.55x / num_gpu_blocks is: 44312
      {"llama-3.1-70b", {{"util", "0.95"}, {"tp", "4"}, {"gpus", "4"}, {"w", "fp8"}}, {16.96, 1.97, 2.21, 54.09, 708992, "86.55", 44312}},
      // fp8dyn-redhatai-qwen2-5---h100-80gb--tp1pp1dp1--8192.log (RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic):
      //   Model loading took 8.14 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.24GiB /
      //   Available KV cache memory: 64.64 GiB / GPU KV cache size: 1,210,304 tokens / Maximum concurrency for 8,192 tokens per request: 147.74x / num_gpu_blocks is: 75644
      {"qwen2.5-7b", {{"util", "0.95"}, {"w", "fp8"}}, {8.14, 2.21, 0.24, 64.64, 1210304, "147.74", 75644}},
      // w8a8-redhatai-qwen2-5-7b--h100-80gb--tp1pp1dp1--8192.log (RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8):
      //   Model loading took 8.14 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 64.64 GiB / GPU KV cache size: 1,210,272 tokens / Maximum concurrency for 8,192 tokens per request: 147.74x / num_gpu_blocks is: 75642
      {"qwen2.5-7b", {{"util", "0.95"}, {"w", "int8"}}, {8.14, 2.21, 0.25, 64.64, 1210272, "147.74", 75642}},
      // w8a8-redhatai-llam--h100-80gb--tp1pp1dp1--8192-dtf16.log (RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8):
      //   Model loading took 8.49 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 64.6 GiB / GPU KV cache size: 529,200 tokens / Maximum concurrency for 8,192 tokens per request: 64.60x / num_gpu_blocks is: 33075
      {"llama-3.1-8b", {{"util", "0.95"}, {"w", "int8"}, {"dtype", "fp16"}, {"kvt", "fp16"}}, {8.49, 1.89, 0.25, 64.6, 529200, "64.60", 33075}},
      // w4a16-redhatai-lla--h100-80gb--tp1pp1dp1--8192-dtf16.log (RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16):
      //   Model loading took 5.38 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 67.71 GiB / GPU KV cache size: 554,704 tokens / Maximum concurrency for 8,192 tokens per request: 67.71x / num_gpu_blocks is: 34669
      {"llama-3.1-8b", {{"util", "0.95"}, {"w", "gptq-int4"}, {"dtype", "fp16"}, {"kvt", "fp16"}}, {5.38, 1.89, 0.25, 67.71, 554704, "67.71", 34669}},
      // meta-llama-llama-3---h100-80gb--tp1pp1dp1--8192-qfp8.log (meta-llama/Llama-3.1-8B-Instruct):
      //   Model loading took 8.49 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 64.61 GiB / GPU KV cache size: 529,248 tokens / Maximum concurrency for 8,192 tokens per request: 64.61x / num_gpu_blocks is: 33078
      {"llama-3.1-8b", {{"util", "0.95"}, {"w", "fp8"}}, {8.49, 1.89, 0.25, 64.61, 529248, "64.61", 33078}},
      // meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf16.log (meta-llama/Llama-3.1-8B-Instruct):
      //   Model loading took 14.99 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 58.11 GiB / GPU KV cache size: 476,016 tokens / Maximum concurrency for 8,192 tokens per request: 58.11x / num_gpu_blocks is: 29751
      {"llama-3.1-8b", {{"util", "0.95"}, {"dtype", "fp16"}, {"kvt", "fp16"}}, {14.99, 1.89, 0.25, 58.11, 476016, "58.11", 29751}},
      // meta-llama-llama-3-1-8b---h100-80gb--tp2pp1dp1--8192.log (meta-llama/Llama-3.1-8B-Instruct):
      //   Model loading took 7.51 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 2.07GiB /
      //   Available KV cache memory: 63.76 GiB / GPU KV cache size: 1,044,688 tokens / Maximum concurrency for 8,192 tokens per request: 127.53x / num_gpu_blocks is: 65293
      {"llama-3.1-8b", {{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}}, {7.51, 1.89, 2.07, 63.76, 1044688, "127.53", 65293}},
      // meta-llama-llama-3-1-8b---h100-80gb--tp4pp1dp1--8192.log (meta-llama/Llama-3.1-8B-Instruct):
      //   Model loading took 3.77 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 2.13GiB /
      //   Available KV cache memory: 67.44 GiB / GPU KV cache size: 2,209,792 tokens / Maximum concurrency for 8,192 tokens per request: 269.75x / num_gpu_blocks is: 138112
      {"llama-3.1-8b", {{"util", "0.95"}, {"tp", "4"}, {"gpus", "4"}}, {3.77, 1.89, 2.13, 67.44, 2209792, "269.75", 138112}},
      // meta-llama-llama-3-1-8b--h100-80gb--tp1pp1dp1--32768.log (meta-llama/Llama-3.1-8B-Instruct):
      //   Model loading took 14.99 GiB memory / torch peak memory increase: 1.89GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 58.11 GiB / GPU KV cache size: 476,016 tokens / Maximum concurrency for 32,768 tokens per request: 14.53x / num_gpu_blocks is: 29751
      {"llama-3.1-8b", {{"util", "0.95"}, {"seq", "32768"}}, {14.99, 1.89, 0.25, 58.11, 476016, "14.53", 29751}},
      // qwen-qwen2-5-7b-instruct--h100-80gb--tp1pp1dp1--8192.log (Qwen/Qwen2.5-7B-Instruct):
      //   Model loading took 14.25 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.24GiB /
      //   Available KV cache memory: 58.53 GiB / GPU KV cache size: 1,096,000 tokens / Maximum concurrency for 8,192 tokens per request: 133.79x / num_gpu_blocks is: 68500
      {"qwen2.5-7b", {{"util", "0.95"}}, {14.25, 2.21, 0.24, 58.53, 1096000, "133.79", 68500}},
      // qwen-qwen2-5-7b-instruct--h100-80gb--tp2pp1dp1--8192.log (Qwen/Qwen2.5-7B-Instruct):
      //   Model loading took 7.12 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 2.06GiB /
      //   Available KV cache memory: 63.84 GiB / GPU KV cache size: 2,390,592 tokens / Maximum concurrency for 8,192 tokens per request: 291.82x / num_gpu_blocks is: 149412
      {"qwen2.5-7b", {{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}}, {7.12, 2.21, 2.06, 63.84, 2390592, "291.82", 149412}},
      // qwen-qwen2-5-7b-instruct--h100-80gb--tp4pp1dp1--8192.log (Qwen/Qwen2.5-7B-Instruct):
      //   Model loading took 3.55 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 2.13GiB /
      //   Available KV cache memory: 67.34 GiB / GPU KV cache size: 5,043,280 tokens / Maximum concurrency for 8,192 tokens per request: 615.63x / num_gpu_blocks is: 315205
      {"qwen2.5-7b", {{"util", "0.95"}, {"tp", "4"}, {"gpus", "4"}}, {3.55, 2.21, 2.13, 67.34, 5043280, "615.63", 315205}},
      // qwen-qwen2---h100-80gb--tp1pp1dp1--8192-dtbf16-kvfp8.log (Qwen/Qwen2.5-7B-Instruct):
      //   Model loading took 14.25 GiB memory / torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.24GiB /
      //   Available KV cache memory: 58.53 GiB / GPU KV cache size: 2,192,000 tokens / Maximum concurrency for 8,192 tokens per request: 267.58x / num_gpu_blocks is: 137000
      {"qwen2.5-7b", {{"util", "0.95"}, {"kvt", "fp8"}}, {14.25, 2.21, 0.24, 58.53, 2192000, "267.58", 137000}},
      // google-gemma-2-2b-it--h100-80gb--tp1pp1dp1--8192.log (google/gemma-2-2b-it):
      //   Model loading took 4.9 GiB memory / torch peak memory increase: 3.62GiB; non-torch forward increase memory: 0.24GiB /
      //   Available KV cache memory: 66.47 GiB / GPU KV cache size: 670,160 tokens / Maximum concurrency for 8,192 tokens per request: 81.73x / num_gpu_blocks is: 83770
      {"gemma-2-2b", {{"util", "0.95"}}, {4.9, 3.62, 0.24, 66.47, 670160, "81.73", 83770}},
      // google-gemma-2-9b-it--h100-80gb--tp1pp1dp1--8192.log (google/gemma-2-9b-it):
      //   Model loading took 17.22 GiB memory / torch peak memory increase: 3.65GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 54.12 GiB / GPU KV cache size: 168,880 tokens / Maximum concurrency for 8,192 tokens per request: 20.60x / num_gpu_blocks is: 21110
      {"gemma-2-9b", {{"util", "0.95"}}, {17.22, 3.65, 0.25, 54.12, 168880, "20.60", 21110}},
      // google-gemma-2-27b-it--h100-80gb--tp1pp1dp1--8192.log (google/gemma-2-27b-it):
      //   Model loading took 50.72 GiB memory / torch peak memory increase: 3.66GiB; non-torch forward increase memory: 0.26GiB /
      //   Available KV cache memory: 20.59 GiB / GPU KV cache size: 58,672 tokens / Maximum concurrency for 8,192 tokens per request: 7.16x / num_gpu_blocks is: 7335
      {"gemma-2-27b", {{"util", "0.95"}}, {50.72, 3.66, 0.26, 20.59, 58672, "7.16", 7335}},
      // google-gemma-7b--h100-80gb--tp1pp1dp1--8192.log (google/gemma-7b):
      //   Model loading took 15.91 GiB memory / torch peak memory increase: 3.63GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 55.44 GiB / GPU KV cache size: 129,760 tokens / Maximum concurrency for 8,192 tokens per request: 15.84x / num_gpu_blocks is: 8110
      {"gemma-7b", {{"util", "0.95"}}, {15.91, 3.63, 0.25, 55.44, 129760, "15.84", 8110}},
      // microsoft-phi-2--h100-80gb--tp1pp1dp1--2048.log (microsoft/phi-2):
      //   Model loading took 5.19 GiB memory / torch peak memory increase: 0.79GiB; non-torch forward increase memory: 0.24GiB /
      //   Available KV cache memory: 69.0 GiB / GPU KV cache size: 226,112 tokens / Maximum concurrency for 2,048 tokens per request: 110.41x / num_gpu_blocks is: 14132
      {"phi-2", {{"util", "0.95"}, {"seq", "2048"}}, {5.19, 0.79, 0.24, 69.0, 226112, "110.41", 14132}},
      // microsoft-phi-4--h100-80gb--tp1pp1dp1--8192.log (microsoft/phi-4):
      //   Model loading took 27.39 GiB memory / torch peak memory increase: 1.52GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 46.08 GiB / GPU KV cache size: 241,568 tokens / Maximum concurrency for 8,192 tokens per request: 29.49x / num_gpu_blocks is: 15098
      {"phi-4", {{"util", "0.95"}}, {27.39, 1.52, 0.25, 46.08, 241568, "29.49", 15098}},
      // mistralai-mixtral-8x7b-i--h100-80gb--tp2pp1dp1--8192.log (mistralai/Mixtral-8x7B-Instruct-v0.1):
      //   Model loading took 43.51 GiB memory / torch peak memory increase: 1.21GiB; non-torch forward increase memory: 2.07GiB /
      //   Available KV cache memory: 28.44 GiB / GPU KV cache size: 465,936 tokens / Maximum concurrency for 8,192 tokens per request: 56.88x / num_gpu_blocks is: 29121
      {"mixtral-8x7b", {{"util", "0.95"}, {"tp", "2"}, {"gpus", "2"}}, {43.51, 1.21, 2.07, 28.44, 465936, "56.88", 29121}},
      // qwen-qwen1-5-moe-a2-7b--h100-80gb--tp1pp1dp1--8192.log (Qwen/Qwen1.5-MoE-A2.7B):
      //   Model loading took 26.67 GiB memory / torch peak memory increase: 2.47GiB; non-torch forward increase memory: 0.25GiB /
      //   Available KV cache memory: 45.83 GiB / GPU KV cache size: 250,304 tokens / Maximum concurrency for 8,192 tokens per request: 30.55x / num_gpu_blocks is: 15644
      {"qwen1.5-moe-a2.7b", {{"util", "0.95"}}, {26.67, 2.47, 0.25, 45.83, 250304, "30.55", 15644}},
      // moonshotai-kimi-dev-72b--h100-80gb--tp4pp1dp1--8192.log (moonshotai/Kimi-Dev-72B):
      //   Model loading took 34.01 GiB memory / torch peak memory increase: 2.29GiB; non-torch forward increase memory: 2.21GiB /
      //   Available KV cache memory: 36.72 GiB / GPU KV cache size: 481,296 tokens / Maximum concurrency for 8,192 tokens per request: 58.75x / num_gpu_blocks is: 30081
      {"cfg:qwen2.5-72b-instruct", {{"util", "0.95"}, {"tp", "4"}, {"gpus", "4"}}, {34.01, 2.29, 2.21, 36.72, 481296, "58.75", 30081}},
  };
  for (const Case& k : cases) {
    const std::string id = k.model;
    const ModelConfig c = id.rfind("cfg:", 0) == 0 ? llmsize::test::import_file("calibration/configs/" + id.substr(4) + ".json")
                                                   : preset(id).config;
    const auto kv = k.kv;
    INFO(id << " " << k.log.tokens);
    const VllmMemory m = vllm(c, kv);
    CHECK(std::abs(rel(gib(m.weights_bytes), k.log.weights_gib)) < 0.01);
    CHECK(std::abs(gib(m.activation_peak_bytes) - k.log.peak_gib) < 0.015);  // to the 0.01 GiB printed
    CHECK(std::abs(gib(m.non_torch_bytes) - k.log.non_torch_gib) < 0.15);
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(k.log.tokens))) < (c.is_moe() ? 0.10 : 0.05));
    check_blocks(c, kv, m, k.log);
  }
}

TEST_CASE("vLLM 0.19: llm-d's pipeline-parallel and fp32 start-ups, with their misses", "[calibration][vllm]") {
  // meta-llama-llama-3-1-8b---h100-80gb--tp1pp2dp1--8192.log (Llama-3.1-8B-Instruct, PP 2), each stage's profile:
  //   Model loading took 7.51 GiB memory
  //   … torch peak memory increase: 1.1GiB; non-torch forward increase memory: 0.07GiB; weights memory: 7.51GiB.   (stage 0)
  //   Available KV cache memory: 66.54 GiB
  //   … torch peak memory increase: 2.01GiB; non-torch forward increase memory: 0.07GiB; weights memory: 7.51GiB.   (stage 1)
  //   GPU KV cache size: 1,075,312 tokens / Maximum concurrency for 8,192 tokens per request: 131.26x / num_gpu_blocks is: 67207
  // …--tp1pp4dp1--8192.log (PP 4): stages 1 and 2 "torch peak memory increase: 1.05GiB" (weights 3.28GiB), stage 0
  //   1.1GiB (4.26GiB), stage 3 2.01GiB (4.26GiB); "Available KV cache memory: 69.8 GiB" (stage 0);
  //   "GPU KV cache size: 2,257,264 tokens", "Maximum concurrency … 275.54x", "num_gpu_blocks is: 141079".
  const ModelConfig llama = preset("llama-3.1-8b").config;
  for (const auto& [pp, log] : {std::pair{"2", Logged{7.51, 1.10, 0.07, 66.54, 1075312, "131.26", 67207}},
                                std::pair{"4", Logged{4.26, 1.10, 0.07, 69.8, 2257264, "275.54", 141079}}}) {
    INFO("pp " << pp);
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"pp", pp}, {"gpus", pp}};
    const VllmMemory m = vllm(llama, kv);
    CHECK(vllm_gib(m.weights_bytes) == vllm_gib(static_cast<i64>(log.weights_gib * kGiB)));
    // The last stage's profile (the sampler's) to the 0.01 GiB printed.
    CHECK(vllm_gib(m.ranks.back().activation_peak_bytes) == "2.01");
    // Non-torch growth on a pipeline stage: the measured 0.07 GiB (these runs are where that constant comes from).
    CHECK(vllm_gib(m.non_torch_bytes) == "0.07");
    // MISS, the other stages' torch peak: 0.81 GiB where vLLM measured 1.10 (first) and 1.05 (middle):
    // their dummy forward holds about 0.25–0.29 GiB more than the widest FFN moment llmsize models
    // (not traced), so stage 0's "Available KV cache memory" is 0.29 GiB over the log. The capacity is
    // the last stage's, whose terms all match: its tokens within 0.01% and the concurrency line to
    // 0.01x (131.27x, 275.55x).
    CHECK(log.peak_gib - gib(m.activation_peak_bytes) == Approx(0.29).margin(0.01));
    CHECK(gib(m.kv_available_bytes) - log.available_gib == Approx(0.29).margin(0.01));
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.0002);
    CHECK(std::abs(m.max_concurrency - std::stod(log.concurrency)) < 0.015);
  }
  // meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf32.log (--dtype float32: fp32 weights, activations and KV cache):
  //   Model loading took 29.98 GiB memory
  //   … torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.25GiB; weights memory: 29.98GiB.
  //   Available KV cache memory: 42.8 GiB
  //   GPU KV cache size: 175,296 tokens / Maximum concurrency for 8,192 tokens per request: 21.40x / num_gpu_blocks is: 10956
  {
    const std::initializer_list<std::pair<const char*, const char*>> kv{{"util", "0.95"}, {"w", "fp32"}, {"dtype", "fp32"}, {"kvt", "fp32"}};
    const Logged log{29.98, 2.21, 0.25, 42.8, 175296, "21.40", 10956};
    const VllmMemory m = vllm(llama, kv);
    CHECK(vllm_gib(m.weights_bytes) == "29.98");  // the rotary cache in fp32 too
    // MISS, torch peak: 1.59 GiB where vLLM measured 2.21: in fp32 the forward, not the sampler, sets
    // the peak, and it holds more than llmsize's widest FFN moment (the same untraced excess as the
    // pipeline stages above, doubled). Capacity +1.4%.
    CHECK(log.peak_gib - gib(m.activation_peak_bytes) == Approx(0.62).margin(0.01));
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.02);
    check_blocks(llama, kv, m, log);
  }
}

TEST_CASE("vLLM 0.19: CodeLlama and Granite 3.3 (small vocabularies), with their misses", "[calibration][vllm]") {
  // Sources: llm-d-incubation/llm-d-planner accuracy/results/v0.19.0/logs (util 0.95, max_model_len 8192, H100 80GB).
  // codellama-codellama-7b-h--h100-80gb--tp1pp1dp1--8192.log (codellama/CodeLlama-7b-hf; config
  // calibration/configs/codellama-7b-hf.json, the Hub's config.json):
  //   Model loading took 12.56 GiB memory and 38.074301 seconds
  //   Memory profiling takes 17.55 seconds. Total non KV cache memory: 13.57GiB; torch peak memory increase: 0.77GiB;
  //     non-torch forward increase memory: 0.25GiB; weights memory: 12.56GiB.
  //   Available KV cache memory: 61.66 GiB
  //   GPU KV cache size: 126,256 tokens / Maximum concurrency for 8,192 tokens per request: 15.41x / num_gpu_blocks is: 7891
  {
    const ModelConfig c = llmsize::test::import_file("calibration/configs/codellama-7b-hf.json");
    const Logged log{12.56, 0.77, 0.25, 61.66, 126256, "15.41", 7891};
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    CHECK(vllm_gib(m.weights_bytes) == "12.56");  // 6,738,546,688 bf16 parameters and the 16,384-row rotary cache
    CHECK(vllm_gib(m.non_torch_bytes) == "0.25");
    // MISS, torch peak: 0.66 GiB where vLLM measured 0.77. With a 32,016-word vocabulary the sampler's
    // peak is small and the dummy forward of 8,192 tokens sets it; vLLM's compiled forward holds about
    // 7k elements a token more than llmsize's widest FFN moment (the untraced excess of the pipeline
    // stages and the fp32 run). Capacity +0.18%.
    CHECK(log.peak_gib - gib(m.activation_peak_bytes) == Approx(0.11).margin(0.01));
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.005);
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
  // ibm-granite-granite-3-3---h100-80gb--tp1pp1dp1--8192.log (ibm-granite/granite-3.3-8b-instruct: the
  // granite-3.3-8b preset, the Hub's config.json):
  //   Model loading took 15.25 GiB memory and 14.664702 seconds
  //   Memory profiling takes 22.12 seconds. Total non KV cache memory: 16.57GiB; torch peak memory increase: 0.85GiB;
  //     non-torch forward increase memory: 0.46GiB; weights memory: 15.25GiB.
  //   Available KV cache memory: 58.66 GiB
  //   GPU KV cache size: 384,432 tokens / Maximum concurrency for 8,192 tokens per request: 46.93x / num_gpu_blocks is: 24027
  // (granite-3-1-8b--…--8192.log, granite-3.1-8b-instruct, prints the same five figures.)
  {
    const ModelConfig c = preset("granite-3.3-8b").config;
    CHECK(c.family == Family::Granite);
    const Logged log{15.25, 0.85, 0.46, 58.66, 384432, "46.93", 24027};
    const VllmMemory m = vllm(c, {{"util", "0.95"}});
    CHECK(vllm_gib(m.weights_bytes) == "15.25");  // 8,170,864,640 parameters, tied embeddings
    // MISSES: the torch peak, 0.79 GiB where vLLM measured 0.85 (the forward sets it, as above), and
    // the non-torch growth, 0.25 GiB where every Granite 3 run of these logs prints 0.46 (not traced;
    // the other dense models on one GPU print 0.24–0.26). Capacity +0.47%.
    CHECK(log.peak_gib - gib(m.activation_peak_bytes) == Approx(0.06).margin(0.01));
    CHECK(log.non_torch_gib - gib(m.non_torch_bytes) == Approx(0.21).margin(0.01));
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(log.tokens))) < 0.005);
    check_blocks(c, {{"util", "0.95"}}, m, log);
  }
}

TEST_CASE("vLLM 0.19: refusals and the engine's own errors", "[calibration][vllm]") {
  const ModelConfig llama = preset("llama-3.1-8b").config;
  auto note_of = [](const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.runtime = Runtime::Vllm;
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    CHECK_FALSE(e.value().vllm.has_value());
    REQUIRE_FALSE(e.value().notes.empty());
    return e.value().notes.front();
  };
  CHECK(note_of(llama, {{"gpu", "h800"}}).field == "gpu");  // no CUDA total recorded for the H800
  CHECK(note_of(llama, {{"kvt", "q8_0"}}).field == "kvt");
  CHECK(note_of(preset("gemma-2-9b").config, {{"pp", "2"}, {"gpus", "2"}}).field == "pp");  // stage placement not followed
  CHECK(note_of(preset("qwen2.5-vl-7b").config, {{"pp", "2"}, {"gpus", "2"}}).field == "pp");  // where the tower sits
  CHECK(note_of(preset("gpt-oss-20b").config, {{"pp", "2"}, {"gpus", "2"}}).field == "pp");
  CHECK(note_of(llama, {{"mbt", "2048"}, {"mns", "4096"}}).field == "mbt");  // fewer batched tokens than sequences
  CHECK(note_of(preset("qwen3.5-0.8b").config, {{"gpu", "b200"}}).field == "gpu");  // Blackwell's block alignment
  CHECK(note_of(preset("deepseek-v3.2").config, {{"gpus", "16"}, {"tp", "8"}, {"pp", "2"}}).field == "pp");  // two specs per layer
  // bf16 below compute capability 8.0 (platforms/cuda.py check_if_supports_dtype), as published
  // runs on T4 and V100 met it: "Bfloat16 is only supported on GPUs with compute capability of at
  // least 8.0. Your Tesla T4 GPU has compute capability 7.5."; fp16 starts.
  const Issue t4 = note_of(llama, {{"gpu", "t4"}, {"seq", "2048"}});
  CHECK(t4.field == "dtype");
  CHECK(t4.message.find("compute capability 7.5") != std::string::npos);
  CHECK(message_in(t4, Lang::Zh).find("计算能力 7.5") != std::string::npos);
  CHECK(note_of(llama, {{"gpu", "v100-32gb"}}).field == "dtype");
  CHECK(vllm(preset("qwen2.5-0.5b").config, {{"dtype", "fp16"}, {"kvt", "fp16"}}).error.empty());
  Workload t4_fp16 = with({{"gpu", "t4"}, {"seq", "2048"}, {"dtype", "fp16"}, {"kvt", "fp16"}});
  t4_fp16.runtime = Runtime::Vllm;
  const auto half = estimate(preset("qwen2.5-0.5b").config, t4_fp16);
  REQUIRE(half.ok());
  CHECK(half.value().vllm.has_value());
  // The model and the context do not fit: vLLM's own ValueError, with its estimated maximum length.
  const VllmMemory m = vllm(preset("llama-3.1-70b").config, {{"util", "0.95"}});
  CHECK(m.kv_available_bytes < 0);
  CHECK(m.error.rfind("ValueError: No available memory for the cache blocks.", 0) == 0);
  const VllmMemory s = vllm(preset("qwen3-30b-a3b").config, {{"util", "0.76"}});  // 0.37 GiB left, 0.75 GiB needed
  REQUIRE_FALSE(s.error.empty());
  CHECK(s.error.find("To serve at least one request with the models's max seq len (8192)") != std::string::npos);
  CHECK(s.estimated_max_model_len > 0);
  CHECK(s.estimated_max_model_len < 8192);
}

TEST_CASE("vLLM 0.19: Gemma 4's full layers, of their own size, take the sliding layers' page (unify_kv_cache_spec_page_size)",
          "[calibration][vllm]") {
  // No published start-up pins these figures yet; they follow kv_cache_utils.py as the Gemma 3 runs above
  // check it, with one step more: get_kv_cache_groups → unify_kv_cache_spec_page_size raises the block_size
  // of the smaller pages until every page is the largest, then _get_kv_cache_groups_uniform_page_size.
  {
    // 26B-A4B: sliding layers 8 KV heads of 256 (16 × 8 × 256 × 2 × 2 = 131,072 B a block), full layers 2 of
    // 512 (65,536 B): the full layers' blocks hold 32 tokens. 25 sliding layers in 5 groups of 5, the 5 full
    // in one: 6 groups.
    const VllmMemory m = vllm(preset("gemma-4-26b-a4b").config, {{"seq", "32768"}});
    REQUIRE(m.groups.size() == 6);
    CHECK(m.group_size == 5);
    for (const VllmGroup& g : m.groups) {
      INFO(static_cast<int>(g.kind));
      CHECK(g.page_bytes == 131072);
      CHECK(g.layers == 5);
      CHECK(g.block_size == (g.kind == AttnKind::Full ? 32 : 16));
    }
    CHECK(m.num_blocks == m.kv_available_bytes / 131072 / 5);
    CHECK(m.kv_tokens == m.num_blocks / 6 * 16);
  }
  {
    // E4B: its 18 KV-shared layers hold no spec; 20 sliding layers of 2 × 256 (32,768 B a block) grow to 32
    // tokens a block to match the 4 full layers' 65,536 B: 5 groups of 4 and one; the smallest block 16.
    const VllmMemory m = vllm(preset("gemma-4-e4b").config, {{"seq", "32768"}});
    REQUIRE(m.groups.size() == 6);
    CHECK(m.group_size == 4);
    for (const VllmGroup& g : m.groups) CHECK(g.block_size == (g.kind == AttnKind::Full ? 16 : 32));
    CHECK(m.kv_tokens == m.num_blocks / 6 * 16);
  }
}

TEST_CASE("vLLM (April 2026): Gemma 4 26B-A4B on an A100 80GB, eager, its proportional RoPE cache and K loaded as V",
          "[calibration][vllm]") {
  // A public deployment note ("[AI] vLLM 部署地端模型系統訊息記錄 A100", 2026-04-18): `vllm serve google/gemma-4-26B-A4B
  // --max-model-len 131072 --enforce-eager --enable-chunked-prefill … --gpu-memory-utilization 0.9` on an A100 (80 GB:
  // 48.5 + 21.5 GiB at 0.9 leave no other card), bf16; the version banner is not quoted (a Gemma 4 build, April 2026;
  // eager, so no CUDA graph estimate either way). Quoted from its log:
  //   Model loading took 48.5 GiB memory and 10.090812 seconds
  //   Available KV cache memory: 21.5 GiB
  // The base checkpoint has the -it one's config. Its token lines are not quoted.
  Workload w = with({{"gpu", "a100-80gb"}, {"seq", "131072"}, {"ee", "1"}, {"util", "0.9"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(preset("gemma-4-26b-a4b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->vllm.has_value());
  const VllmMemory& m = *e->vllm;
  // The two rotary caches (gemma4.py get_rope per layer type): the sliding layers' 262,144 × 256 and the full
  // layers' proportional one (gemma4_rope.py: rotary_dim = head_size) of 262,144 × 512, bf16.
  CHECK(m.rope_bytes == i64{262144} * (256 + 512) * 2);
  // The 5 full layers' K (2 heads of 512) loaded again into qkv_proj's V slot: 5 × 2816 × 1024 × 2 B.
  CHECK(m.k_as_v_bytes == i64{5} * 2816 * 1024 * 2);
  // Without them the load was 48.19 GiB (−0.64%) and the KV memory 21.71 (+0.98%).
  CHECK(vllm_gib(m.weights_bytes) == "48.47");
  CHECK(std::abs(rel(gib(m.weights_bytes), 48.5)) < 0.001);            // −0.06%
  CHECK(std::abs(rel(gib(m.kv_available_bytes), 21.5)) < 0.004);       // −0.28%: the profile's peak, 0.03 GiB over
  CHECK(m.max_num_batched_tokens == 2048);  // an A100: get_batch_defaults' smaller defaults
}

TEST_CASE("vLLM 0.19: pipeline stages, each worker profiled on its own layers", "[calibration][vllm]") {
  // The published pipeline-parallel start-ups (llm-d's PP 2 and PP 4 runs, checked in the test
  // below) print stage 0's "Available KV cache memory" and every stage's profile; these check the
  // rules of the code followed, term by term.
  // get_pp_indices: ⌊32 / 3⌋ = 10 each, the 2 left over to stages 1 and 0 (P − 2, P − 3), logged.
  const ModelConfig llama = preset("llama-3.1-8b").config;
  const VllmMemory m = vllm(llama, {{"pp", "3"}, {"gpus", "3"}});
  REQUIRE(m.ranks.size() == 3);
  CHECK(m.ranks[0].layers == 11);
  CHECK(m.ranks[1].layers == 11);
  CHECK(m.ranks[2].layers == 10);
  CHECK(m.ranks[2].first_layer == 22);
  const auto lines = vllm_log(m);
  CHECK(lines.front() == "Hidden layers were unevenly partitioned: [11,11,10]. This can be manually overridden using the "
                         "VLLM_PP_LAYER_PARTITION environment variable");
  // The docstring's example: 30 layers over 4 stages are [7, 8, 8, 7].
  ModelConfig thirty = llama;
  thirty.n_layers = 30;
  const VllmMemory t = vllm(thirty, {{"pp", "4"}, {"gpus", "4"}});
  REQUIRE(t.ranks.size() == 4);
  CHECK((t.ranks[0].layers == 7 && t.ranks[1].layers == 8 && t.ranks[2].layers == 8 && t.ranks[3].layers == 7));

  // Weights by stage (llama.py): the embedding on the first, norm and lm_head on the last. Llama-3.1-8B
  // is untied: 128256 × 4096 bf16 = 1,050,673,152 B each for the embedding and the head; a layer
  // 218,112,000 parameters (436,224,000 B); the rotary cache (131072 × 128 × 2 B) on every stage.
  const i64 vocab = 128256LL * 4096 * 2, layer = 218112000LL * 2, rope = 131072LL * 128 * 2;
  CHECK(m.ranks[0].weights_bytes == vocab + 11 * layer + rope);
  CHECK(m.ranks[1].weights_bytes == 11 * layer + rope);
  CHECK(m.ranks[2].weights_bytes == 10 * layer + 4096 * 2 + vocab + rope);
  CHECK(m.weights_bytes == m.ranks[0].weights_bytes);  // the lines are stage 0's
  // A tied model (Llama-3.2-1B) keeps the embedding on the last stage too, the head being that tensor.
  const VllmMemory tied = vllm(preset("llama-3.2-1b").config, {{"pp", "2"}, {"gpus", "2"}});
  REQUIRE(tied.ranks.size() == 2);
  CHECK(tied.ranks[1].weights_bytes == tied.ranks[0].weights_bytes + 2048 * 2);  // + the final norm
  // Qwen3-MoE builds embed_tokens, norm and lm_head on every stage (qwen3_moe.py has no stage check).
  const VllmMemory moe = vllm(preset("qwen3-30b-a3b").config, {{"pp", "2"}, {"gpus", "2"}});
  REQUIRE(moe.ranks.size() == 2);
  CHECK(moe.ranks[0].weights_bytes == moe.ranks[1].weights_bytes);

  // The profile: the intermediate tensors (hidden states and residual of 8,192 rows, the full
  // width) on stages after the first, the sampler's dummy run on the last only.
  CHECK(m.ranks[0].intermediate_bytes == 0);
  CHECK(m.ranks[1].intermediate_bytes == 2 * 8192 * 4096 * 2);
  CHECK(m.ranks[2].activation_peak_bytes > m.ranks[1].activation_peak_bytes);
  for (const auto& k : m.ranks) {
    CHECK(k.kv_available_bytes == m.budget_bytes - k.weights_bytes - k.activation_peak_bytes - m.non_torch_bytes);
    CHECK(k.num_blocks == k.kv_available_bytes / (16 * 8 * 128 * 2 * 2) / k.layers);
  }
  // Every worker shrunk to the fewest blocks; the tokens and concurrency from them.
  i64 fewest = m.ranks[0].num_blocks;
  for (const auto& k : m.ranks) fewest = std::min(fewest, k.num_blocks);
  CHECK(m.num_blocks == fewest);
  CHECK(m.ranks[static_cast<size_t>(m.bottleneck_rank)].num_blocks == fewest);
  CHECK(m.kv_tokens == fewest * 16);
  CHECK(m.max_concurrency == Approx(static_cast<double>(fewest) / 512));
  // The estimate's fit is vLLM's: sequences of max_model_len from those blocks.
  Workload w = with({{"pp", "3"}, {"gpus", "3"}, {"seq", "8192"}, {"gpu", "h100-sxm"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(llama, w);
  REQUIRE(e.ok());
  CHECK(e->inference.max_sequences == fewest / 512);
  // A stage that cannot hold one request: vLLM's ValueError from that worker.
  const VllmMemory tight = vllm(preset("llama-3.1-70b").config, {{"pp", "2"}, {"gpus", "2"}, {"util", "0.86"}});
  REQUIRE_FALSE(tight.error.empty());
  CHECK(tight.ranks[static_cast<size_t>(tight.bottleneck_rank)].kv_available_bytes <
        static_cast<i64>(40) * 8192 * 8 * 128 * 2 * 2);
}

TEST_CASE("vLLM 0.19: hybrid models, the attention block grown to hold a recurrent state", "[calibration][vllm]") {
  // vllm-project/vllm#40691 ("vLLM version: 0.19.0", H20, `vllm serve Qwen3.5-27B --max-model-len 32768
  // --max-num-seqs 16 --max-num-batched-token 16384 --load-format dummy`):
  //   INFO [kv_cache_utils.py:1319] GPU KV cache size: 290,864 tokens
  //   INFO [kv_cache_utils.py:1324] Maximum concurrency for 32,768 tokens per request: 33.04x
  // Qwen3.5-27B (its config: 64 layers, 48 Gated DeltaNet and every fourth full attention of 4 KV
  // heads × 256; llmsize counts 26,895,998,464 language-model parameters as published): a token
  // of a full layer 4,096 B; a DeltaNet state conv (3, 10240) bf16 + SSM (48, 128, 128) fp32 =
  // 3,207,168 B; B = 16 · ⌈3,207,168 / (16 · 4,096)⌉ = 784 tokens, pages of 3,211,264 B. The run's
  // free memory is not printed, so the blocks are given as --kv-cache-memory: 1,487 blocks of 16
  // layers (4 groups) → ⌊1487 / 4⌋ × 784 tokens and 1487 / (⌈32768 / 784⌉ + 3) concurrency.
  const ModelConfig q = preset("qwen3.5-27b").config;
  const std::string kvmem = std::to_string(1487LL * 16 * 3211264);
  const VllmMemory m = vllm(q, {{"mns", "16"}, {"mbt", "16384"}, {"seq", "32768"}, {"kvmem", kvmem.c_str()}});
  CHECK(m.mamba_page_bytes == 3207168);
  CHECK(m.block_size == 784);
  CHECK(m.groups.size() == 4);
  CHECK(m.groups.front().page_bytes == 3211264);
  CHECK(m.num_blocks == 1487);
  const auto lines = vllm_log(m);
  CHECK(lines[0] == "Setting attention block size to 784 tokens to ensure that attention page size is >= mamba page size.");
  CHECK(lines[1] == "Padding mamba page size by 0.13% to ensure that mamba page size and attention page size are exactly equal.");
  CHECK(lines[lines.size() - 2] == "GPU KV cache size: 290,864 tokens");
  CHECK(lines.back() == "Maximum concurrency for 32,768 tokens per request: 33.04x");

  // vllm-project/vllm#37467 (March 2026), NVIDIA-Nemotron-3-Nano-30B-A3B at TP 4:
  //   layer_spec.block_size=16, layer_spec.page_size_bytes=8192
  //   layer_spec.block_size=262144, layer_spec.page_size_bytes=540672
  // (a Mamba layer's page, its block max_model_len): conv (3, 6144 / 4) bf16 + SSM (64 / 4, 64, 128)
  // fp32 = 533,504 B, one KV head of 128 per rank → B = 1,056, 540,672 B.
  const VllmMemory n = vllm(preset("nemotron-3-nano-30b-a3b").config, {{"tp", "4"}, {"gpus", "4"}, {"seq", "262144"}});
  CHECK(n.mamba_page_bytes == 533504);
  CHECK(n.block_size == 1056);
  for (const auto& g : n.groups) {
    CHECK(g.page_bytes == 540672);
    if (g.kind == AttnKind::Mamba) CHECK(g.block_size == 262144);
  }
  // vllm-gaudi#1453: "528 is required for Granite 4.0-H (granitemoehybrid) without prefix caching
  // (16-token FA alignment)": 8 KV heads × 128 → 4,096 B a token; Mamba-2 conv (3, 8448) + SSM
  // (128, 64, 128), both bf16, = 2,147,840 B → 16 · ⌈32.8⌉ = 528, padded 0.69%.
  const VllmMemory g = vllm(preset("granite-4.0-h-small").config, {});
  CHECK(g.mamba_page_bytes == 2147840);
  CHECK(g.block_size == 528);
  CHECK(vllm_log(g)[1] == "Padding mamba page size by 0.69% to ensure that mamba page size and attention page size are exactly equal.");
  // --block-size sets the alignment (Platform._align_hybrid_block_size: max(backend minimum, block_size)).
  const VllmMemory g64 = vllm(preset("granite-4.0-h-small").config, {{"bs", "64"}});
  CHECK(g64.block_size == 576);
  // Qwen3-Next at TP 4 keeps its SSM state in the model dtype (no mamba_ssm_dtype in its config): conv (3, 8192 / 4) +
  // SSM (32 / 4, 128, 128), both bf16, = 274,432 B; one KV head of 256 per rank (1,024 B a token) → 16 · ⌈268 / 16⌉ = 272.
  const VllmMemory next = vllm(preset("qwen3-next-80b-a3b").config, {{"tp", "4"}, {"gpus", "4"}});
  CHECK(next.mamba_page_bytes == 274432);
  CHECK(next.block_size == 272);
}

TEST_CASE("vLLM: the batch defaults of `vllm serve` and the LLM class by card", "[vllm]") {
  // engine/arg_utils.py get_batch_defaults: 70 GiB and more, not an A100 (an H100: 79.19 GiB)
  // against the rest (an A100 80GB, an L40S).
  struct Row {
    const char* gpu;
    VllmEntry entry;
    i64 tokens, seqs;
  };
  const Row rows[] = {{"h100-sxm", VllmEntry::Serve, 8192, 1024}, {"h100-sxm", VllmEntry::Llm, 16384, 1024},
                      {"a100-80gb", VllmEntry::Serve, 2048, 256}, {"a100-80gb", VllmEntry::Llm, 8192, 256},
                      {"l40s", VllmEntry::Serve, 2048, 256},      {"l40s", VllmEntry::Llm, 8192, 256}};
  for (const Row& r : rows) {
    INFO(r.gpu << " " << to_string(r.entry));
    const VllmBatchDefaults d = vllm_batch_defaults(*find_gpu(r.gpu), r.entry);
    CHECK(d.max_num_batched_tokens == r.tokens);
    CHECK(d.max_num_seqs == r.seqs);
  }
  // The exported command is `vllm serve`: for the LLM class it passes the LLM class's tokens.
  Workload w = with({{"gpu", "l40s"}, {"ventry", "llm"}, {"seq", "4096"}});
  w.runtime = Runtime::Vllm;
  const auto cmd = launch_command(preset("llama-3.1-8b").config, w, "meta-llama/Llama-3.1-8B-Instruct");
  REQUIRE(cmd.ok());
  bool found = false;
  for (const auto& f : cmd->flags) found = found || (f.flag == "--max-num-batched-tokens" && f.value == "8192");
  CHECK(found);
}

TEST_CASE("vLLM 0.19.1: Qwen3-8B on one A100-SXM4-40GB with `vllm serve`'s defaults, end to end", "[calibration][vllm]") {
  // A public write-up of a first vLLM deployment ("running on a 4 x A100 machine, but only selecting
  // a single A100 for this post"; nvidia-smi: "NVIDIA A100-SXM4-40GB … 40960MiB", the chosen GPU
  // idle before): `vllm serve` 0.19.1 with non-default args {'model_tag': 'Qwen/Qwen3-8B', 'host':
  // '172.17.0.1', 'port': 8001, 'model': 'Qwen/Qwen3-8B', 'served_model_name': ['Qwen/Qwen3-8B']},
  // so gpu_memory_utilization 0.9, max_model_len 40960 from the config, 2,048 batched tokens under
  // 70 GiB ("compile range (1, 2048)") and 256 sequences:
  //   Model loading took 15.27 GiB memory and 4.543456 seconds
  //   Estimated CUDA graph memory: 2.35 GiB total
  //   Available KV cache memory: 19.36 GiB
  //   … increase --gpu-memory-utilization from 0.9000 to 0.9596 to maintain the same effective KV cache size.
  //   GPU KV cache size: 140,960 tokens
  //   Maximum concurrency for 40,960 tokens per request: 3.44x
  //   Graph capturing finished in 4 secs, took 2.44 GiB
  // The catalog's A100 40GB total (42,405,855,232 B, 39.49 GiB) is the one the budget follows.
  Workload w = with({{"gpu", "a100-40gb"}, {"seq", "40960"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(preset("qwen3-8b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  CHECK(m.max_num_batched_tokens == 2048);
  CHECK(m.max_num_seqs == 256);
  CHECK(vllm_gib(m.weights_bytes) == "15.27");  // as logged
  // The log implies 0.9 × 39.49 − 15.27 − 19.36 = 0.91 GiB of torch peak and non-torch memory;
  // llmsize has 0.60 + 0.25 = 0.85 (the 2,048-token forward and the 256-row sampler). The 0.06 GiB
  // left is the compiled forward's excess seen in the H100 runs (not traced): KV +0.36%.
  CHECK(vllm_gib(m.activation_peak_bytes) == "0.6");
  CHECK(vllm_gib(m.kv_available_bytes) == "19.43");
  CHECK(m.kv_tokens == 141488);  // +0.37%
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 140960.0)) < 0.05);
  CHECK(two(m.max_concurrency) == "3.45");
  // vLLM's own 8,810 blocks (36 layers × 8 KV heads × 128 × 2 × 2 B = 147,456 B a token) give back
  // its lines.
  CHECK(m.groups.front().page_bytes * m.group_size == 16 * 147456);
  check_own_blocks(preset("qwen3-8b").config, w, m, 8810, 140960, "3.44", "19.36");
}

TEST_CASE("vLLM 0.19.1: an fp8 checkpoint on an A100 runs through Marlin (Qwen3-Coder-30B-A3B-Instruct-FP8)", "[calibration][vllm]") {
  // DurangoDavid/private-ai-inference@4bd44287, docs/runtime/vllm-startup.log (its README: "GPU: A100
  // SXM4"; the 40GB card, as the log's own advice says: an estimate of 1.21 GiB moves the utilization
  // from 0.9000 to 0.9306, 1.21 / 0.0306 = 39.5 GiB): `vllm serve` 0.19.1 with non-default args
  // {'model_tag': 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', …, 'max_model_len': 32768, …,
  // 'enable_prefix_caching': True}, so gpu_memory_utilization 0.9, 2,048 batched tokens, 256 sequences:
  //   Selected MarlinFP8ScaledMMLinearKernel for Fp8LinearMethod
  //   Using MARLIN Fp8 MoE backend out of potential backends: [...]
  //   Your GPU does not have native support for FP8 computation but FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel. …
  //   Model loading took 29.54 GiB memory and 96.210335 seconds
  //   Available KV cache memory: 5.03 GiB
  //   GPU KV cache size: 54,912 tokens
  //   Maximum concurrency for 32,768 tokens per request: 1.68x
  // Qwen3-Coder-30B-A3B has Qwen3-30B-A3B's shapes (48 layers, 128 experts of 768, 32 / 4 heads);
  // its block-fp8 checkpoint (128 × 128 blocks) is --weights fp8-block.
  Workload w = with({{"gpu", "a100-40gb"}, {"seq", "32768"}, {"w", "fp8-block"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(preset("qwen3-30b-a3b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  // Marlin's group scales beyond the checkpoint's block scales, by hand: (in / 128) · out · 2 −
  // ⌈in/128⌉ · ⌈out/128⌉ · 4 a matrix. Per layer q 129,024, k and v 16,128 each, o 129,024, and
  // 128 experts × (gate, up and down 24,192 each): 9,580,032; × 48 layers.
  CHECK(m.fp8_marlin_bytes == i64{9580032} * 48);
  // Weights 29.47 GiB, 0.23% under (before Marlin's scales: 29.04, 1.7% under). The checkpoint's
  // config is not quoted here: its context of 262,144 (the model card's "Context Length: 262,144
  // natively") against the preset's 40,960 would add 0.05 GiB of rotary cache.
  CHECK(vllm_gib(m.weights_bytes) == "29.47");
  CHECK(std::abs(rel(gib(m.weights_bytes), 29.54)) < 0.01);
  // KV +1.6% (was +10.1%), tokens +1.66% (was +10.2%): within the MoE bound.
  CHECK(vllm_gib(m.kv_available_bytes) == "5.11");
  CHECK(m.kv_tokens == 55824);
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 54912.0)) < 0.10);
  // Hopper has fp8 tensor cores: nothing moves there; below 8.0 Marlin cannot run it: named.
  Workload h100 = w;
  h100.gpu = "h100-sxm";
  const auto h = estimate(preset("qwen3-30b-a3b").config, h100);
  REQUIRE(h.ok());
  REQUIRE(h.value().vllm.has_value());
  CHECK(h.value().vllm->fp8_marlin_bytes == 0);
  Workload v100 = w;
  v100.gpu = "v100-32gb";
  v100.dtype = ComputeDtype::F16;
  const auto v = estimate(preset("qwen3-30b-a3b").config, v100);
  REQUIRE(v.ok());
  CHECK_FALSE(v.value().vllm.has_value());
  REQUIRE_FALSE(v.value().notes.empty());
  CHECK(v.value().notes.front().field == "w");
  // A tensor-scaled fp8 checkpoint keeps one channel scale row a matrix: out · 2 − 4 bytes.
  Workload tensor = w;
  tensor.weights = WeightFormat::Fp8;
  const auto ts = estimate(preset("qwen3-30b-a3b").config, tensor);
  REQUIRE(ts.ok());
  REQUIRE(ts.value().vllm.has_value());
  // Per layer: q, k, v, o (out 4,096 + 512 + 512 + 2,048 = 7,168): 7,168 · 2 − 4 · 4 = 14,320;
  // 128 experts × ((768 + 768 + 2,048) · 2 − 3 · 4) = 915,968.
  CHECK(ts.value().vllm->fp8_marlin_bytes == i64{48} * (14320 + 915968));
}

TEST_CASE("vLLM 0.18, --enforce-eager: Qwen2.5-7B-Instruct in fp16 on a V100 32GB, end to end", "[calibration][vllm]") {
  // wangpeiwen/gpu-util-interference@5c553eac, mlwd/sensitivity/data_bak.md: the LLM class of vLLM
  // 0.18.0 on one V100 in a Kubernetes pod (mlwd/config.py: "V100_NUM_SMS = 80", "V100_CUDA_ARCH = 70";
  // the log: "FA2 is only supported on devices with compute capability >= 8"; 14.25 + 13.1 GiB rule
  // out the 16 GB card), with non-default args {'trust_remote_code': True, 'dtype': 'float16',
  // 'disable_log_stats': True, 'enforce_eager': True, 'model': '/data/Qwen/Qwen2.5-7B-Instruct'}, so
  // gpu_memory_utilization 0.9, max_model_len 32768 from the config and 256 sequences:
  //   Chunked prefill is enabled with max_num_batched_tokens=8192.
  //   Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent to setting -cc.mode=none -cc.cudagraph_mode=none
  //   Model loading took 14.25 GiB memory and 345.277135 seconds
  //   Available KV cache memory: 13.1 GiB
  //   GPU KV cache size: 245,360 tokens
  //   Maximum concurrency for 32,768 tokens per request: 7.49x
  // The profile follows 0.19, whose accounting of an eager start-up is the same (no CUDA graph
  // estimate, none captured). The config: calibration/configs/qwen2.5-7b-instruct.json, the Hub's.
  const ModelConfig q = llmsize::test::import_file("calibration/configs/qwen2.5-7b-instruct.json");
  Workload w = with({{"gpu", "v100-32gb"}, {"seq", "32768"}, {"ventry", "llm"}, {"dtype", "fp16"}, {"kvt", "fp16"}, {"ee", "1"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(q, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  CHECK(m.max_num_batched_tokens == 8192);  // the LLM class's default under 70 GiB, as logged
  CHECK(m.max_num_seqs == 256);
  CHECK(m.budget_bytes == 30665303655);  // ceil(0.9 × 34,072,559,616)
  CHECK(vllm_log(m).front() ==
        "Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent to setting -cc.mode=none -cc.cudagraph_mode=none");
  // Weights 14.19 GiB, 0.40% under: the same 0.06 GiB as vLLM 0.19's H100 runs of this checkpoint
  // (14.25 there too), not traced.
  CHECK(vllm_gib(m.weights_bytes) == "14.19");
  CHECK(std::abs(rel(gib(m.weights_bytes), 14.25)) < 0.01);
  // The log implies 0.9 × 31.73 − 14.25 − 13.1 = 1.21 GiB of torch peak and non-torch memory:
  // llmsize's 0.98 (the 8,192-token forward: residual, normed input, gate_up and its activation in
  // fp16, and cuBLAS's 8 MiB before Hopper) + 0.25 = 1.23.
  CHECK(vllm_gib(m.activation_peak_bytes) == "0.98");
  CHECK(vllm_gib(m.kv_available_bytes) == "13.13");
  CHECK(m.kv_tokens == 245872);  // +0.21%
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 245360.0)) < 0.05);
  CHECK(two(m.max_concurrency) == "7.50");
  // No CUDA graphs: the term is there, exactly 0; without the flag it is not modelled and absent,
  // and 0.19's KV figure is the same (the graphs are captured afterwards, outside the budget).
  const auto terms = vllm_terms(m, w, *find_gpu("v100-32gb"));
  const auto graphs = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& t) { return t.key == "cuda_graph_bytes"; });
  REQUIRE(graphs != terms.end());
  CHECK(graphs->value == 0);
  CHECK(graphs->bound == "exact");
  Workload compiled = w;
  compiled.enforce_eager = false;
  const auto c = estimate(q, compiled);
  REQUIRE(c.ok());
  REQUIRE(c.value().vllm.has_value());
  CHECK(c.value().vllm->kv_available_bytes == m.kv_available_bytes);
  CHECK(vllm_log(*c.value().vllm).front().rfind("Model loading took", 0) == 0);
  const auto plain = vllm_terms(*c.value().vllm, compiled, *find_gpu("v100-32gb"));
  CHECK(std::none_of(plain.begin(), plain.end(), [](const EngineTerm& t) { return t.key == "cuda_graph_bytes"; }));
  // vLLM's own 15,335 blocks (245,360 / 16; 28 layers × 4 KV heads × 128 × 2 × 2 B a token) give
  // back its tokens and concurrency lines.
  CHECK(m.groups.front().page_bytes * m.group_size == 16 * 57344);
  check_own_blocks(q, w, m, 15335, 245360, "7.49", "13.1");
}

TEST_CASE("vLLM 0.19: Qwen3.5-9B on one L40S, end to end", "[calibration][vllm]") {
  // A published notebook ("L40s 48G - Pytorch Jupyter notebook"): `LLM(model="Qwen/Qwen3.5-9B")`
  // with vLLM 0.19.0, so gpu_memory_utilization 0.9, max_model_len 262144 from the config and the
  // LLM class's defaults on a card under 70 GiB, 8,192 batched tokens ("Chunked prefill is enabled
  // with max_num_batched_tokens=8192") and 256 sequences:
  //   Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.
  //   Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are exactly equal.
  //   Model loading took 17.66 GiB memory and 26.884630 seconds
  //   Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.
  //   Available KV cache memory: 20.27 GiB
  //   GPU KV cache size: 165,792 tokens
  //   Maximum concurrency for 262,144 tokens per request: 2.52x
  const ModelConfig q = preset("qwen3.5-9b").config;
  Workload w = with({{"gpu", "l40s"}, {"seq", "262144"}, {"ventry", "llm"}});
  w.runtime = Runtime::Vllm;
  const auto e = estimate(q, w);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  CHECK(m.max_num_batched_tokens == 8192);  // `vllm serve` would take 2,048 here
  CHECK(m.max_num_seqs == 256);
  const auto lines = vllm_log(m);
  CHECK(lines[0] == "Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.");
  CHECK(lines[1] == "Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are exactly equal.");
  // Weights (with the vision tower) 17.56 GiB: 0.57% under.
  CHECK(std::abs(rel(gib(m.weights_bytes), 17.66)) < 0.01);
  // MISS of +4.7% in the KV memory (21.22 GiB), +4.8% in tokens (173,712) and +4.4% in concurrency
  // (2.63x): 0.10 GiB of weights and the vision encoder's profiling pass on one image of the
  // largest size (its 16,384-token budget), which llmsize's torch peak (the text model's, 1.04 GiB)
  // leaves out.
  CHECK(vllm_gib(m.kv_available_bytes) == "21.22");
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 165792.0)) < 0.05);
  CHECK(std::abs(rel(m.max_concurrency, 2.52)) < 0.05);
}

TEST_CASE("vLLM 0.19: DeepSeek-V3.2's sparse attention (the indexer keys beside the MLA latent)", "[calibration][vllm]") {
  const ModelConfig c = preset("deepseek-v3.2").config;
  REQUIRE(c.n_layers == 61);
  REQUIRE(c.mla.index_topk == 2048);
  // Per layer two MLAAttentionSpecs in one UniformTypeKVCacheSpecs group, blocks of 64 tokens
  // whatever --block-size says: the latent (576 values, bf16: 1,152 B) and the indexer's keys
  // (128 fp8 + 4 B scale = 132 B).
  const VllmMemory m = vllm(c, {{"gpus", "8"}, {"tp", "8"}, {"w", "fp8-block"}, {"bs", "16"}, {"kvmem", "20000000000"}});
  CHECK(m.block_size == 64);
  CHECK(m.sparse_block_forced);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.uniform_type);
  CHECK(m.groups.front().layers == 122);
  CHECK(m.groups.front().page_bytes == 61 * 64 * (1152 + 132));  // 5,012,736
  CHECK(m.num_blocks == 20000000000 / 5012736);
  CHECK(m.kv_tokens == m.num_blocks * 64);
  CHECK(m.blocks_per_request == 8192 / 64);
  // Loaded with the weights: topk_indices_buffer, max_num_batched_tokens (8,192 on an H100) × 2,048 int32.
  CHECK(m.topk_buffer_bytes == 8192 * 2048 * 4);
  // The profile run's indexer buffer: max_model_len × 40 rows of 132 B and the copies of its columns.
  CHECK(m.indexer_profile_bytes == i64{8192} * 40 * 264);
  const std::vector<std::string> lines = vllm_log(m);
  CHECK(lines.front() == "Forcing kv cache block size to 64 for FlashMLASparse backend.");
  // --kv-cache-dtype fp8 becomes fp8_ds_mla: 512 fp8 values, 4 fp32 scales and 64 bf16 rope values (656 B).
  const VllmMemory f = vllm(c, {{"gpus", "8"}, {"tp", "8"}, {"w", "fp8-block"}, {"kvt", "fp8"}, {"kvmem", "20000000000"}});
  CHECK(f.groups.front().page_bytes == 61 * 64 * (656 + 132));  // 3,076,352
  // vllm-project/vllm#31903 (vllm serve DeepSeek-V3.2 -tp=8 -pp=4; its GPU and memory lines not
  // quoted, so only the block arithmetic is checked, one stage's blocks standing for the bottleneck's):
  //   [kv_cache_utils.py:1305] GPU KV cache size: 1,214,464 tokens
  //   [kv_cache_utils.py:1310] Maximum concurrency for 163,840 tokens per request: 7.41x
  const VllmMemory p = vllm(c, {{"gpus", "8"}, {"tp", "8"}, {"w", "fp8-block"}, {"seq", "163840"},
                                {"kvmem", std::to_string(i64{18976} * 5012736).c_str()}});
  CHECK(p.kv_tokens == 1214464);
  CHECK(two(p.max_concurrency) == "7.41");
}

TEST_CASE("vLLM 0.19: Mamba-1 (Jamba), short-convolution (LFM2) and attention-beside-Mamba (Falcon-H1) states, with the hybrid block alignment", "[calibration][vllm]") {
  // No published start-up of either; the pages follow mamba_utils.py (MambaStateShapeCalculator
  // mamba1_state_shape / short_conv_state_shape, dtypes "auto": the model's) and the alignment the
  // Qwen3.5 start-ups above check.
  // Jamba 1.5 Mini at TP 2: conv (4 − 1) × 8,192 / 2 and SSM 8,192 / 2 × 16, bf16: 155,648 B per layer;
  // an attention token on this rank is 4 heads × 128 × 2 × 2 = 2,048 B, so the block grows to
  // 16 · ⌈155,648 / (16 · 2,048)⌉ = 80 tokens and the state page is padded to 80 × 2,048 = 163,840 B.
  const VllmMemory j = vllm(preset("jamba-1.5-mini").config, {{"gpus", "2"}, {"tp", "2"}});
  CHECK(j.mamba_page_bytes == 3 * 4096 * 2 + 4096 * 16 * 2);
  CHECK(j.attn_block_size == 80);
  CHECK(j.groups.front().page_bytes == 80 * 2048);
  const std::vector<std::string> jl = vllm_log(j);
  CHECK(jl[0] == "Setting attention block size to 80 tokens to ensure that attention page size is >= mamba page size.");
  CHECK(jl[1] == "Padding mamba page size by 5.26% to ensure that mamba page size and attention page size are exactly equal.");
  // 28 Mamba-1 layers and 4 attention layers: groups of 4 layers, 7 of states and 1 of attention.
  CHECK(j.group_size == 4);
  CHECK(j.groups.size() == 8);
  // LFM2-1.2B: conv (3 − 1) × 2,048, bf16: 8,192 B, within a 16-token attention page (16 × 2,048 B):
  // no growth, the state padded by 300%; 10 convolution and 6 attention layers make groups of 6 with
  // two padding layers.
  const VllmMemory l = vllm(preset("lfm2-1.2b").config, {});
  CHECK(l.mamba_page_bytes == 2 * 2048 * 2);
  CHECK(l.attn_block_size == 0);
  CHECK(l.groups.front().page_bytes == 16 * 2048);
  CHECK(l.group_size == 6);
  CHECK(l.padding_layers == 2);
  CHECK(vllm_log(l).front() == "Padding mamba page size by 300.00% to ensure that mamba page size and attention page size are exactly equal.");
  // Falcon-H1-0.5B: every layer holds attention (2 KV heads × 64, 512 B a token) and a Mamba-2 mixer,
  // conv (4 − 1) × (1,536 + 2 · 128) and SSM 24 × 64 × 128, bf16: 403,968 B; the block grows to
  // 16 · ⌈403,968 / (16 · 512)⌉ = 800 tokens; 36 attention and 36 state specs make two groups of 36.
  const VllmMemory f = vllm(preset("falcon-h1-0.5b").config, {});
  CHECK(f.mamba_page_bytes == 3 * 1792 * 2 + 24 * 64 * 128 * 2);
  CHECK(f.attn_block_size == 800);
  CHECK(f.group_size == 36);
  REQUIRE(f.groups.size() == 2);
  CHECK(f.groups[0].page_bytes == 800 * 512);
  CHECK(vllm_log(f)[1] == "Padding mamba page size by 1.39% to ensure that mamba page size and attention page size are exactly equal.");
}

TEST_CASE("vLLM 0.19 on a DGX Spark: the budget must be free at start-up (request_memory)", "[calibration][vllm]") {
  // On unified memory vLLM's MemorySnapshot reads the system's available memory, and request_memory
  // refuses a budget above it before loading anything. Published from Sparks (vLLM's own lines):
  //   "Free memory on device (114.54/121.69 GiB) on startup. Desired GPU memory utilization is (0.9, 109.52 GiB)"
  //   "ValueError: Free memory on device cuda:0 (85.92/121.69 GiB) on startup is less than desired GPU
  //    memory utilization (0.92, 111.95 GiB)." (a Spark installer's test, quoting a crash-looping container)
  // The catalog takes the first node's free share, 0.94 of 121.69 GiB (gpus.json's note).
  auto run = [](const char* util) {
    Workload w = with({{"gpu", "dgx-spark"}, {"util", util}, {"seq", "8192"}});
    w.runtime = Runtime::Vllm;
    auto e = estimate(preset("qwen3-8b").config, w);
    REQUIRE(e.ok());
    REQUIRE(e->vllm.has_value());
    return std::move(e).value();
  };
  const Estimate ok = run("0.9");
  const VllmMemory& v = *ok.vllm;
  CHECK(v.free_at_start_bytes == find_gpu("dgx-spark")->usable_bytes());
  CHECK_FALSE(v.startup_refused);
  CHECK(v.error.empty());
  CHECK(vllm_gib(v.budget_bytes) == "109.52");  // the published budget at 0.9
  CHECK(ok.inference.fits);
  // At 0.95 the budget (115.6 GiB) is more than is free: vLLM's ValueError, nothing loaded.
  const Estimate high = run("0.95");
  const VllmMemory& r = *high.vllm;
  CHECK(r.startup_refused);
  CHECK(r.error ==
        "ValueError: Free memory on device cuda:0 (114.39/121.69 GiB) on startup is less than desired GPU memory utilization "
        "(0.95, 115.6 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.");
  CHECK(vllm_log(r) == std::vector<std::string>{r.error});
  CHECK_FALSE(high.inference.fits);
  CHECK(high.inference.max_sequences == 0);
  // A discrete card records no free memory at start: no such check.
  CHECK(vllm(preset("qwen3-8b").config, {{"util", "0.99"}}).free_at_start_bytes == 0);
  // check-log reads the refusal: the budget and the total are vLLM's, its free memory the node's.
  const auto log = parse_engine_log(
      "(EngineCore pid=253) ValueError: Free memory on device cuda:0 (85.92/121.69 GiB) on startup is less than desired GPU "
      "memory utilization (0.92, 111.95 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n");
  REQUIRE(log.ok());
  check_settings(*log, {{"util", "0.92"}});
  Workload w = with({{"gpu", "dgx-spark"}, {"seq", "8192"}});
  const auto c = check_log(*log, preset("qwen3-8b").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  auto row = [&](std::string_view key) -> const LogCheckRow& {
    const auto it = std::find_if(c->rows.begin(), c->rows.end(), [&](const LogCheckRow& x) { return x.key == key; });
    REQUIRE(it != c->rows.end());
    return *it;
  };
  CHECK(row("budget_bytes").same_text);
  CHECK(row("total_bytes").same_text);
  CHECK(row("free_at_start_bytes").logged == "85.92 GiB");
  CHECK(row("free_at_start_bytes").ours == "114.39 GiB");
}

TEST_CASE("vLLM 0.27.1 (Model Runner V2): Qwen3-8B on an RTX 4090, warm start, end to end", "[calibration][vllm]") {
  // alexostapiuk11/coldstart-recon-worker@5e10909, fixtures/vllm_logs/startup_1.log (RunPod, an RTX 4090 whose
  // CUDA total is 23.52 GiB, the second start of the same server: "Directly load AOT compilation from path …",
  // "torch.compile took 0.30 s in total"): `vllm serve Qwen/Qwen3-8B` with max_model_len 8192 alone, so
  // gpu_memory_utilization 0.92 (0.27's default), 2,048 batched tokens ("'compile_ranges_endpoints': [2048]")
  // and 256 sequences:
  //   [gpu_worker.py:385] Using V2 Model Runner
  //   [model_runner.py:329] Model loading took 15.27 GiB and 5.853948 seconds
  //   [gpu_worker.py:563] Available KV cache memory: 5.91 GiB
  //   [kv_cache_utils.py:2235] GPU KV cache size: 43,040 tokens
  //   [kv_cache_utils.py:2236] Maximum concurrency for 8,192 tokens per request: 5.25x
  //   [gpu_worker.py:789] Free memory on device (22.64/23.52 GiB) on startup. Desired GPU memory utilization is
  //   (0.92, 21.64 GiB). Actual usage is 15.54 GiB for consumed memory (weights + non-torch), 0.19 GiB for peak
  //   activation, and 0.56 GiB for CUDAGraph memory. …
  Workload w = with({{"gpu", "rtx-4090"}, {"gtot", "24084.48"}, {"seq", "8192"}, {"vver", "0.27"}});
  w.runtime = Runtime::Vllm;
  const ModelConfig c = preset("qwen3-8b").config;
  const auto e = estimate(c, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  INFO((e.value().notes.empty() ? std::string() : e.value().notes.front().message));
  REQUIRE(e.value().vllm.has_value());
  const VllmMemory& m = *e.value().vllm;
  CHECK(m.version() == "vLLM 0.27 (0.27.1, Model Runner V2)");
  CHECK(m.gpu_memory_utilization == 0.92);
  CHECK(m.max_num_batched_tokens == 2048);
  CHECK(m.max_num_seqs == 256);
  CHECK(vllm_gib(m.budget_bytes) == "21.64");
  CHECK(vllm_gib(m.weights_bytes) == "15.27");
  // The compiled forward's widest moment: the piece's inputs (the attention's output, 4,096 wide, and the
  // residual) beside the normed input, gate_up and the activation, 2,048 × 2 B × (2 × 4,096 + 4,096 + 3 ×
  // 12,288) = 201,326,592 B; the sampler (the hidden states, 256 rows of bf16 logits) stays below it.
  CHECK(m.forward_peak_bytes == 201326592);
  CHECK(m.sampler_peak_bytes < m.forward_peak_bytes);
  CHECK(vllm_gib(m.activation_peak_bytes) == "0.19");  // as logged
  // Consumed memory: the weights, 0.25 GiB of non-torch memory (0.19's constant) and the 8 MiB cuBLAS workspace:
  // 15.52 GiB for the log's 15.54 (−0.13%).
  CHECK(vllm_gib(m.consumed_bytes) == "15.52");
  CHECK(std::abs(rel(gib(m.consumed_bytes), 15.54)) < 0.002);
  // Hence the KV cache memory 5.93 GiB for 5.91 (+0.3%), and the tokens 43,152 for 43,040 (+0.26%).
  CHECK(vllm_gib(m.kv_available_bytes) == "5.93");
  CHECK(m.kv_tokens == 43152);
  CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), 43040.0)) < 0.005);
  CHECK(m.kv_tokens == m.num_blocks * 16);  // 8,192 a whole number of blocks: int(concurrency × 8,192) is the blocks' tokens
  // vLLM's own 2,690 blocks give back its lines.
  CHECK(m.groups.front().page_bytes * m.group_size == 16 * 147456);
  check_own_blocks(c, w, m, 2690, 43040, "5.25", "5.91");
  // The lines as 0.27.1 prints them: what llmsize cannot know (the seconds, the free memory at start, the
  // graphs' size and the advice from them) is "...".
  const std::vector<std::string> lines = vllm_log(m);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "Using V2 Model Runner");
  CHECK(lines[1] == "Model loading took 15.27 GiB and ... seconds");
  CHECK(lines[2] == "Available KV cache memory: 5.93 GiB");
  CHECK(lines[5] ==
        "Free memory on device (.../23.52 GiB) on startup. Desired GPU memory utilization is (0.92, 21.64 GiB). Actual usage is "
        "15.52 GiB for consumed memory (weights + non-torch), 0.19 GiB for peak activation, and ... GiB for CUDAGraph memory. ... "
        "Current kv cache memory in use is 5.93 GiB.");
  // Each term with its formula and 0.27's source.
  const auto terms = vllm_terms(m, w, e.value().gpu);
  const auto term = [&](std::string_view key) {
    const auto it = std::find_if(terms.begin(), terms.end(), [&](const EngineTerm& t) { return t.key == key; });
    REQUIRE(it != terms.end());
    return *it;
  };
  CHECK(term("consumed_bytes").label == "consumed memory (weights + non-torch)");
  CHECK(term("activation_peak_bytes").label == "peak activation");
  CHECK(term("activation_peak_bytes").source.find("v1/worker/gpu/model_runner.py, profile_run") != std::string::npos);
  CHECK(term("kv_tokens").formula == "int(max_concurrency × max_model_len) = int(5.267578 × 8,192) = 43,152");
  CHECK(term("kv_available_bytes").formula.rfind("budget − (consumed + peak activation) = ", 0) == 0);
  const auto zh = vllm_terms(m, w, e.value().gpu, Lang::Zh);
  CHECK(std::any_of(zh.begin(), zh.end(), [](const EngineTerm& t) { return t.formula.rfind("预算 − (已占用 + 峰值激活)", 0) == 0; }));
}

TEST_CASE("vLLM 0.27.1 (Model Runner V2): Qwen3-32B on RTX PRO 6000 cards, an 8,192-token profile, a miss stated",
          "[calibration][vllm]") {
  // kubesimplify/website@8b1d2a5, content/blog/running-a-single-llm-across-two-gpus-with-vllm.md (2026-08-18): "vllm
  // 0.27.1", torch 2.13.0+cu130, RTX PRO 6000 Blackwell Server Edition cards of "95.01 GiB sm_120", no NVLink;
  // `vllm/vllm-openai:latest Qwen/Qwen3-32B --gpu-memory-utilization 0.426 --max-model-len 32768` (every other flag
  // vLLM's default: on a card above 70 GiB, 8,192 batched tokens and 1,024 sequences). At --tensor-parallel-size 1:
  //   INFO [weight_utils.py:867] Filesystem type for checkpoints: EXT4. Checkpoint size: 61.02 GiB. …
  //   INFO [model_runner.py:329] Model loading took 61.03 GiB and 16.146783 seconds
  //   INFO [gpu_worker.py:563] Available KV cache memory: -24.42 GiB
  //   ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`
  // and at --tensor-parallel-size 2 (and at --pipeline-parallel-size 2):
  //   (Worker_TP0 pid=611) INFO [model_runner.py:329] Model loading took 30.59 GiB and 20.690370 seconds
  //   (Worker_TP0 pid=611) INFO [gpu_worker.py:563] Available KV cache memory: 8.22 GiB
  //   (EngineCore pid=411) INFO [kv_cache_utils.py:2235] GPU KV cache size: 67,296 tokens
  //   (EngineCore pid=411) INFO [kv_cache_utils.py:2236] Maximum concurrency for 32,768 tokens per request: 2.05x
  //   (Worker_PP0 pid=611) INFO [model_runner.py:329] Model loading took 30.52 GiB and 9.017490 seconds
  //   (Worker_PP0 pid=611) INFO [gpu_worker.py:563] Available KV cache memory: 6.92 GiB
  //   (EngineCore pid=411) INFO [kv_cache_utils.py:2235] GPU KV cache size: 56,640 tokens
  const ModelConfig c = llmsize::test::import_file("calibration/configs/qwen3-32b.json");
  Workload w = with({{"gpu", "rtx-pro-6000-blackwell-server"}, {"gtot", "97290.24"}, {"util", "0.426"}, {"seq", "32768"},
                     {"vver", "0.27"}});
  w.runtime = Runtime::Vllm;
  const VllmMemory m = vllm_of(c, w);
  CHECK(m.version() == "vLLM 0.27 (0.27.1, Model Runner V2)");
  CHECK(m.max_num_batched_tokens == 8192);
  CHECK(m.max_num_seqs == 1024);
  // The weights as loaded: the checkpoint's 61.02 GiB and the rotary cache (40,960 × 128 × 2 B), as logged.
  CHECK(vllm_gib(m.weights_bytes) == "61.03");
  // Both fail for want of memory, with vLLM's own error.
  CHECK(m.error.rfind("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`", 0) == 0);
  // MISS, stated: the memory beside the weights. llmsize's profile gives 1.73 GiB (the compiled forward's widest
  // moment, 8,192 × 2 B × (8,192 + 2 × 5,120 + 51,200 + 25,600) = 1.45 GiB; 0.25 GiB of non-torch memory; the 32 MiB
  // cuBLAS workspace), so −22.29 GiB available where the card printed −24.42: 2.13 GiB more than llmsize accounts
  // for. Not traced: every other 0.27 anchor is a 2,048-token profile on a 24 GiB card of compute capability 8.x
  // (within 0.02 GiB there); this one profiles 8,192 tokens on Blackwell (12.0), and its TP 2 run's figures (30.59 +
  // 8.22 of a 40.47 GiB budget: 1.66 GiB beside the weights, the forward and sampler halved or less) do not separate
  // the two. vLLM 0.27 at TP or PP above 1 is refused by name (no published start-up gives its non-torch memory).
  CHECK(m.forward_peak_bytes == i64{8192} * 2 * (8192 + 2 * 5120 + 51200 + 25600));
  CHECK(vllm_gib(m.kv_available_bytes) == "-22.29");
  CHECK(gib(m.kv_available_bytes) - -24.42 == Approx(2.13).margin(0.01));
  // The peak's formula says so wherever the profile is larger than the anchored 2,048 tokens.
  const auto peak_formula = [&](const VllmMemory& v, const Workload& wl) {
    const auto terms = vllm_terms(v, wl, *find_gpu(wl.gpu));
    const auto it = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& x) { return x.key == "activation_peak_bytes"; });
    REQUIRE(it != terms.end());
    return it->formula;
  };
  CHECK(peak_formula(m, w).find("Not anchored at 8,192 batched tokens") != std::string::npos);
  Workload w2048 = w;
  w2048.max_num_batched_tokens = 2048;
  CHECK(peak_formula(vllm_of(c, w2048), w2048).find("Not anchored") == std::string::npos);
  Workload tp2 = w;
  REQUIRE_FALSE(find_field("tp")->set(tp2, "2"));
  REQUIRE_FALSE(find_field("gpus")->set(tp2, "2"));
  const auto e2 = estimate(c, tp2);
  REQUIRE(e2.ok());
  CHECK_FALSE(e2->vllm.has_value());
  REQUIRE_FALSE(e2->notes.empty());
  CHECK(e2->notes.front().field == "vver");
}

TEST_CASE("vLLM 0.27: what its profile follows, the rest refused by name; 0.19's the default", "[calibration][vllm]") {
  const ModelConfig llama = preset("llama-3.1-8b").config;
  auto note_of = [](const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.runtime = Runtime::Vllm;
    REQUIRE_FALSE(find_field("vver")->set(w, "0.27"));
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    CHECK_FALSE(e.value().vllm.has_value());
    REQUIRE_FALSE(e.value().notes.empty());
    return e.value().notes.front();
  };
  // A MoE model runs the first runner, whose CUDA graph estimate is measured at start: given, or --enforce-eager.
  CHECK(note_of(preset("qwen3-30b-a3b").config, {}).field == "vcg");
  CHECK(note_of(preset("qwen3-30b-a3b").config, {}).message.find("MoE") != std::string::npos);
  // Qwen2-MoE runs Model Runner V2 (DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES), whose MoE profile is not modelled.
  CHECK(note_of(preset("qwen1.5-moe-a2.7b").config, {{"ee", "1"}}).message.find("DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES") !=
        std::string::npos);
  // The first runner's MoE kernels are followed where 0.27's oracle picks Triton's: bf16 or fp16 experts on Hopper.
  CHECK(note_of(preset("qwen3-30b-a3b").config, {{"ee", "1"}, {"gpu", "a100-80gb"}}).message.find("Hopper") != std::string::npos);
  CHECK(note_of(preset("qwen3-30b-a3b").config, {{"ee", "1"}, {"w", "fp8"}}).message.find("fp8") != std::string::npos);
  CHECK(note_of(preset("gpt-oss-20b").config, {{"ee", "1"}, {"w", "mxfp4"}}).field == "vver");
  CHECK(note_of(llama, {{"tp", "2"}, {"gpus", "2"}}).field == "vver");
  CHECK(note_of(llama, {{"gpu", "dgx-spark"}}).field == "vver");
  // A hybrid model runs the first runner too: its graph estimate; MLA layers are not followed.
  CHECK(note_of(preset("nemotron-nano-9b-v2").config, {}).field == "vcg");
  CHECK(note_of(preset("deepseek-v3").config, {{"ee", "1"}}).message.find("mla") != std::string::npos);
  CHECK(note_of(preset("qwen2.5-vl-7b").config, {}).field == "vver");
  CHECK(message_in(note_of(llama, {{"tp", "2"}, {"gpus", "2"}}), Lang::Zh).find("--vllm-version 0.19") != std::string::npos);
  // The default line is 0.19 (util 0.9); an explicit util stands under either line.
  const VllmMemory v19 = vllm(llama, {});
  CHECK(v19.version() == kVllmVersion);
  CHECK(v19.gpu_memory_utilization == 0.9);
  CHECK(v19.consumed_bytes == 0);
  const VllmMemory v27 = vllm(llama, {{"vver", "0.27"}});
  CHECK(v27.gpu_memory_utilization == 0.92);
  CHECK(vllm(llama, {{"vver", "0.27"}, {"util", "0.95"}}).gpu_memory_utilization == 0.95);
  // Llama-3.1-8B on an H100 (8,192 tokens and 1,024 sequences by default): the compiled forward, 8,192 × 2 B ×
  // (2 × 4,096 + 4,096 + 3 × 14,336); the workspace moves from the peak into the consumed memory.
  CHECK(v27.forward_peak_bytes == i64{8192} * 2 * (3 * 4096 + 3 * 14336));
  CHECK(v27.activation_peak_bytes == std::max(v27.forward_peak_bytes, v27.sampler_peak_bytes));
  CHECK(v27.consumed_bytes == v27.weights_bytes + v27.non_torch_bytes + v27.workspace_bytes);
  CHECK(v27.non_kv_bytes == v27.consumed_bytes + v27.activation_peak_bytes);
  // --enforce-eager: LlamaMLP frees gate_up before down_proj (3h + 3f); Qwen2MLP keeps it (4h + 3f).
  CHECK(vllm(llama, {{"vver", "0.27"}, {"ee", "1"}}).forward_peak_bytes == i64{8192} * 2 * (3 * 4096 + 3 * 14336));
  const ModelConfig qwen = preset("qwen3-8b").config;
  CHECK(vllm(qwen, {{"vver", "0.27"}, {"ee", "1"}}).forward_peak_bytes == i64{8192} * 2 * (4 * 4096 + 3 * 12288));
  const VllmMemory eager = vllm(qwen, {{"vver", "0.27"}, {"ee", "1"}});
  CHECK(vllm_log(eager).back().find(", and 0.0 GiB for CUDAGraph memory.") != std::string::npos);
  // A max_model_len that is no whole number of blocks: 0.27's tokens are int(concurrency × max_model_len),
  // 0.19's the blocks' tokens.
  const VllmMemory odd = vllm(llama, {{"vver", "0.27"}, {"seq", "8100"}});
  CHECK(odd.kv_tokens == static_cast<i64>(static_cast<double>(odd.num_blocks) / static_cast<double>(odd.blocks_per_request) * 8100.0));
  CHECK(odd.kv_tokens < odd.num_blocks * 16);
  CHECK(vllm(llama, {{"seq", "8100"}}).kv_tokens % 16 == 0);
  // Sliding windows (Gemma 2: 4,096 tokens beside full layers, 21 of each): a request holds its window and
  // the tokens in flight, two batches under 0.27 (Model Runner V2 schedules asynchronously) where 0.19 had one:
  // (⌈min(4,095 + 2 × 1,024, 8,192) / 16⌉ + 1) × page.
  const ModelConfig gemma = preset("gemma-2-9b").config;
  const VllmMemory g27 = vllm(gemma, {{"vver", "0.27"}, {"mbt", "1024"}});
  const VllmMemory g19 = vllm(gemma, {{"mbt", "1024"}});
  const auto sliding = [](const VllmMemory& v) {
    const auto it = std::find_if(v.groups.begin(), v.groups.end(), [](const VllmGroup& g) { return g.kind == AttnKind::Sliding; });
    REQUIRE(it != v.groups.end());
    return *it;
  };
  CHECK(sliding(g27).max_request_bytes == (ceil_div(4095 + 2 * 1024, 16) + 1) * sliding(g27).page_bytes);
  CHECK(sliding(g19).max_request_bytes == (ceil_div(4095 + 1024, 16) + 1) * sliding(g19).page_bytes);
  CHECK(g27.groups.size() == g19.groups.size());
  CHECK(g27.kv_tokens == static_cast<i64>(g27.max_concurrency * 8192.0));
}

TEST_CASE("vLLM 0.27's first model runner (MoE models): 0.19's profile, 0.27's accounting, the CUDA graph estimate given",
          "[calibration][vllm]") {
  // No published 0.27 or 0.28 start-up of a MoE model on one GPU was found (a search of vLLM issues and public
  // logs for Qwen3-30B-A3B, Qwen3-Coder-30B-A3B, gpt-oss, Mixtral, GLM-4.5-Air and Llama 4 Scout found 0.19 and
  // older only; the one 0.27.1 MoE summary line, Qwen3-235B-A22B-FP8 at TP 4 on RTX PRO 6000 cards, is cut before
  // its estimate and is above one GPU). What this profile follows is each checked on its own: the first runner's
  // profile_run, which 0.27.1 keeps (the same _dummy_run and sampler path, TritonExperts.workspace_shapes
  // unchanged), against 0.19's published Qwen3-30B-A3B start-up above; 0.27's accounting against the published
  // Model Runner V2 start-ups below. The checks here are that arithmetic.
  const ModelConfig c = preset("qwen3-30b-a3b").config;
  const VllmMemory v19 = vllm(c, {{"util", "0.95"}});
  const VllmMemory eager = vllm(c, {{"vver", "0.27"}, {"util", "0.95"}, {"ee", "1"}});
  CHECK_FALSE(eager.mrv2);
  CHECK(eager.version() == "vLLM 0.27 (0.27.1, the first model runner)");
  // The same profile run: the forward, the sampler and the workspaces (the fused-MoE one and cuBLAS's) as 0.19's,
  // whose torch peak printed 2.68 GiB; 0.27 counts the workspaces in the consumed memory (they stay allocated),
  // the transient peak apart, and the sum is the same.
  CHECK(eager.forward_peak_bytes == v19.forward_peak_bytes);
  CHECK(eager.sampler_peak_bytes == v19.sampler_peak_bytes);
  // The sampler's top-k buffer stays cached after the profile (ops/topk_topp_triton.py _TRITON_BUFFER_CACHE): 0.27
  // counts it as consumed, and takes it out of the headroom. 1,024 rows on 132 SMs: 132 rows of 151,936 fp32.
  CHECK(eager.topk_buffer_cached_bytes == fresh_block_bytes(132 * 151936 * 4));
  CHECK(eager.workspace_bytes == v19.workspace_bytes + eager.topk_buffer_cached_bytes);
  CHECK(eager.consumed_bytes == eager.weights_bytes + eager.non_torch_bytes + eager.workspace_bytes);
  CHECK(eager.activation_peak_bytes == std::max(eager.forward_peak_bytes, eager.sampler_peak_bytes) - eager.topk_buffer_cached_bytes);
  CHECK(eager.non_kv_bytes == v19.non_kv_bytes);
  CHECK(eager.kv_available_bytes == v19.kv_available_bytes);
  // 0.27's tokens line: int(max_concurrency × max_model_len).
  CHECK(eager.kv_tokens == static_cast<i64>(eager.max_concurrency * 8192.0));
  // A CUDA graph estimate as a start-up printed it (here 1,200 MiB) is added to the peak activation and taken from
  // the KV cache memory, MiB for MiB (gpu_worker.py determine_available_memory).
  const VllmMemory graphs = vllm(c, {{"vver", "0.27"}, {"util", "0.95"}, {"vcg", "1200"}});
  CHECK(graphs.cuda_graph_estimate_bytes == 1200 * i64{1048576});
  CHECK(graphs.activation_peak_bytes == eager.activation_peak_bytes + 1200 * i64{1048576});
  CHECK(graphs.kv_available_bytes == eager.kv_available_bytes - 1200 * i64{1048576});
  CHECK(graphs.num_blocks < eager.num_blocks);
  // --enforce-eager: no graphs, so a given estimate is not applied.
  CHECK(vllm(c, {{"vver", "0.27"}, {"util", "0.95"}, {"vcg", "1200"}, {"ee", "1"}}).cuda_graph_estimate_bytes == 0);
  // The lines as the first runner prints them: no "Using V2 Model Runner", "Model loading took … GiB memory", and the
  // advice on gpu_memory_utilization with the estimate's share of the total (79.19 GiB on an H100 SXM).
  const std::vector<std::string> lines = vllm_log(graphs);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "Model loading took 56.88 GiB memory and ... seconds");
  CHECK(lines[1] == "Available KV cache memory: " + vllm_gib(graphs.kv_available_bytes) + " GiB");
  const double share = 1200.0 / 1024.0 / gib(graphs.total_bytes);
  char advice[400];
  std::snprintf(advice, sizeof advice,
                "CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9500 is "
                "equivalent to --gpu-memory-utilization=%.4f without CUDA graph memory profiling. To maintain the same effective KV "
                "cache size as before, increase --gpu-memory-utilization to %.4f. To disable, set "
                "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
                0.95 - share, 0.95 + share);
  CHECK(lines[2] == advice);
  CHECK(lines[2].find("equivalent to --gpu-memory-utilization=0.9352 ") != std::string::npos);
  CHECK(lines[5].find(" GiB for peak activation, and ... GiB for CUDAGraph memory.") != std::string::npos);
  // Each term with its formula and source; the estimate as given.
  Workload w = with({{"vver", "0.27"}, {"util", "0.95"}, {"vcg", "1200"}});
  w.gpu = "h100-sxm";
  w.seq = 8192;
  const auto terms = vllm_terms(graphs, w, *find_gpu("h100-sxm"));
  const auto term = [&](std::string_view key) {
    const auto it = std::find_if(terms.begin(), terms.end(), [&](const EngineTerm& t) { return t.key == key; });
    REQUIRE(it != terms.end());
    return *it;
  };
  CHECK(term("cuda_graph_estimate_bytes").bound == "given");
  CHECK(term("cuda_graph_estimate_bytes").formula.find("1,200 MiB = 1,258,291,200") != std::string::npos);
  CHECK(term("activation_peak_bytes").source.find("v1/worker/gpu_model_runner.py, profile_run") != std::string::npos);
  CHECK(term("activation_peak_bytes").formula.find(" − " + with_commas(graphs.topk_buffer_cached_bytes) + " + 1,258,291,200 = ") !=
        std::string::npos);
  const auto zh = vllm_terms(graphs, w, *find_gpu("h100-sxm"), Lang::Zh);
  CHECK(std::any_of(zh.begin(), zh.end(), [](const EngineTerm& t) { return t.formula.find("CUDA 图估计") != std::string::npos; }));
}

TEST_CASE("vLLM 0.27: hybrid models keep prefix caching's recurrent states (align: two a request), checked on 14 published boots",
          "[calibration][vllm]") {
  // A public test file of a throughput tool ("Pins for the vLLM width calculator against banked boot logs. Every
  // constant here is a line printed by a real engine boot"; found by exact-string search, the index names no
  // repository) banks (Available KV cache memory, max_model_len, Maximum concurrency) of 0.27-line builds:
  //   Qwen3.6-27B merged, bf16, vLLM 0.27.1.post1+fork, H200 NVL, and the same model on an RTX PRO 6000 WS:
  //     INFO [gpu_worker.py:563] Available KV cache memory: 70.64 GiB
  //     INFO [kv_cache_utils.py:2235] GPU KV cache size: 1,062,081 tokens
  //     INFO [kv_cache_utils.py:2236] Maximum concurrency for 53,248 tokens per request: 19.95x
  //     (70.64, 20,480, 44.73x), PRO 6000 (30.64, 28,672, 14.88x)
  //   the 9B on an RTX 3090, vLLM 0.27.2.dev87, prefix caching on (vLLM's default) and off, and on an RTX 5090 with
  //   prefix caching off ("fp8 is vLLM's load-time --quantization fp8; bf16 is the same base unquantized"):
  //     on (0.96, 4,096, 4.21x) (1.01, 8,192, 2.82x) (0.97, 12,288, 2.00x) (1.01, 20,480, 1.38x)
  //     off (0.66, 4,096, 3.64x) (0.94, 12,288, 2.15x) (1.01, 20,480, 1.48x)
  //     5090 off (14.72, 8,192, 48.05x) (14.72, 32,768, 13.83x) (7.94, 8,192, 25.95x) (7.95, 32,768, 7.47x)
  // Its authors' finding: "vLLM sets mamba_cache_mode='align' for Qwen3_5 when prefix caching is on, and
  // MambaSpec.max_memory_usage_bytes charges page_size x (2 + spec) there against page_size x 1 in none mode".
  // Those builds carry vLLM PR #50991 ("[Mamba] enable prefix cache by default", after 0.27.1, in 0.28); 0.27.1
  // itself keeps it opt-in for hybrid models (engine/arg_utils.py), so they are given --enable-prefix-caching.
  // Each boot's block count is the unknown its two printed figures pin: a count whose pool prints as the logged
  // GiB and whose concurrency, over llmsize's blocks per request, prints as the logged one. With one state a
  // request (prefix caching off) the prefix-caching boots find none; 0.19 keeps the same states when prefix caching
  // is asked for (models/config.py MambaModelConfig is the same there), so it finds the same count.
  struct Boot {
    const char *model, *gpu;
    double gib;
    i64 len;
    const char* concurrency;
    bool prefix_caching;
  };
  const Boot boots[] = {
      {"qwen3.6-27b", "h200", 70.64, 53248, "19.95", true},   {"qwen3.6-27b", "h200", 70.64, 20480, "44.73", true},
      {"qwen3.6-27b", "rtx-pro-6000-blackwell-server", 30.64, 28672, "14.88", true},
      {"qwen3.5-9b", "rtx-3090", 0.96, 4096, "4.21", true},   {"qwen3.5-9b", "rtx-3090", 1.01, 8192, "2.82", true},
      {"qwen3.5-9b", "rtx-3090", 0.97, 12288, "2.00", true},  {"qwen3.5-9b", "rtx-3090", 1.01, 20480, "1.38", true},
      {"qwen3.5-9b", "rtx-3090", 0.66, 4096, "3.64", false},  {"qwen3.5-9b", "rtx-3090", 0.94, 12288, "2.15", false},
      {"qwen3.5-9b", "rtx-3090", 1.01, 20480, "1.48", false}, {"qwen3.5-9b", "rtx-5090", 14.72, 8192, "48.05", false},
      {"qwen3.5-9b", "rtx-5090", 14.72, 32768, "13.83", false}, {"qwen3.5-9b", "rtx-5090", 7.94, 8192, "25.95", false},
      {"qwen3.5-9b", "rtx-5090", 7.95, 32768, "7.47", false},
      // A run record of Qwen3.8-27B-FP8 on a 32 GiB card (vLLM 0.28.0, `--max-model-len 16384 --max-num-seqs 1
      // --gpu-memory-utilization 0.97 --language-model-only --enforce-eager --no-enable-prefix-caching`; found by
      // exact-string search, the index names no repository):
      //   [gpu_worker.py:578] Available KV cache memory: 2.42 GiB
      //   [kv_cache_utils.py:1869] GPU KV cache size: 34,133 tokens, Maximum concurrency for 16,384 tokens per request: 2.08x
      {"qwen3.8-27b", "rtx-5090", 2.42, 16384, "2.08", false},
  };
  for (const Boot& b : boots) {
    INFO(b.model << " on " << b.gpu << ", " << b.len << " tokens, prefix caching " << b.prefix_caching);
    const ModelConfig c = preset(b.model).config;
    const auto run = [&](VllmLine line, i64 kvmem, const char* pc = nullptr) {
      if (!pc) pc = b.prefix_caching ? "yes" : "auto";
      Workload w = with({{"seq", std::to_string(b.len).c_str()}, {"kvmem", std::to_string(kvmem).c_str()}, {"pc", pc}});
      w.gpu = b.gpu;
      w.vllm_line = line;
      return vllm_of(c, w);
    };
    // The pool a block takes (the page of a group's layer, times the layers a group holds), from a first run.
    const VllmMemory probe = run(VllmLine::V027, i64{1} << 34);
    const i64 per_block = probe.groups.front().page_bytes * probe.group_size;
    CHECK(probe.mamba_cache_mode == (b.prefix_caching ? MambaCacheMode::Align : MambaCacheMode::None));
    // The counts an available memory printed as the logged GiB (within its 0.005) divides into.
    const i64 lo = static_cast<i64>((b.gib - 0.005) * kGiB) / per_block, hi = static_cast<i64>((b.gib + 0.005) * kGiB) / per_block;
    const auto consistent = [&](VllmLine line, const char* pc = nullptr) {
      std::vector<i64> found;
      for (i64 n = lo; n <= hi; ++n) {
        const VllmMemory m = run(line, n * per_block, pc);
        if (m.num_blocks == n && two(m.max_concurrency) == b.concurrency) found.push_back(n);
      }
      return found;
    };
    const std::vector<i64> found = consistent(VllmLine::V027);
    REQUIRE(found.size() == 1);
    if (b.prefix_caching) {
      CHECK(consistent(VllmLine::V027, "no").empty());
      if (find_gpu(b.gpu)->cuda_cc < 10.0) CHECK(consistent(VllmLine::V019) == found);  // 0.19 refuses Blackwell's
    }
    // The tokens lines: int(19.95… × 53,248) and int(2.08… × 16,384).
    if (b.len == 53248) CHECK(run(VllmLine::V027, found.front() * per_block).kv_tokens == 1062081);
    if (b.len == 16384) CHECK(run(VllmLine::V027, found.front() * per_block).kv_tokens == 34133);
  }
  // 0.27.1 itself, prefix caching at its default (off for hybrid models): a bring-up README of Qwen3.8-27B-FP8 on one
  // H100 80GB HBM3 (`vllm serve Qwen/Qwen3.8-27B-FP8 --max-model-len 8192 --max-num-seqs 256
  // --gpu-memory-utilization 0.90`; found by exact-string search, the index names no repository):
  //   [gpu_model_runner.py:5405] Model loading took 28.54 GiB memory and 405.34 seconds
  //   [kv_cache_utils.py:2235] GPU KV cache size: 485,083 tokens
  //   [kv_cache_utils.py:2236] Maximum concurrency for 8,192 tokens per request: 59.21x
  // One state a request (none): 11 blocks of 784 tokens and 3 state pages, and 829 blocks give both lines; two
  // states (align, 17 blocks a request) give neither for any count.
  const ModelConfig q38 = preset("qwen3.8-27b").config;
  const auto h100 = [&](const char* pc, i64 blocks) {
    Workload w = with({{"seq", "8192"}, {"mns", "256"}, {"pc", pc}, {"kvmem", std::to_string(blocks * 16 * 3211264).c_str()}});
    w.gpu = "h100-sxm";
    w.vllm_line = VllmLine::V027;
    return vllm_of(q38, w);
  };
  // --language-model-only (models/interfaces.py _mark_tower_model): the vision tower and its merger are not built.
  {
    Workload w = with({{"seq", "8192"}, {"kvmem", "1000000000"}});
    w.runtime = Runtime::Vllm;
    w.gpu = "h100-sxm";
    w.vllm_line = VllmLine::V027;
    const auto full = estimate(q38, w);
    w.language_model_only = true;
    const auto text = estimate(q38, w);
    REQUIRE((full.ok() && text.ok() && full.value().vllm && text.value().vllm));
    CHECK(full.value().inference.vision_weights_bytes > 0);
    CHECK(full.value().vllm->weights_bytes - text.value().vllm->weights_bytes == full.value().inference.vision_weights_bytes);
    CHECK(text.value().vllm->vision_weights_bytes == 0);
  }
  const VllmMemory none = h100("auto", 829);
  CHECK(none.mamba_cache_mode == MambaCacheMode::None);
  CHECK(none.blocks_per_request == 14);
  CHECK(none.kv_tokens == 485083);
  CHECK(two(none.max_concurrency) == "59.21");
  CHECK(h100("yes", 829).blocks_per_request == 17);
  for (i64 n = 900; n < 1100; ++n) {
    const VllmMemory a = h100("yes", n);
    CHECK_FALSE((two(a.max_concurrency) == "59.21" && a.kv_tokens == 485083));
  }
}

TEST_CASE("vLLM: --mamba-cache-dtype and --mamba-ssm-cache-dtype set a hybrid model's state page, checked on a 0.28.0 boot",
          "[calibration][vllm]") {
  // A task brief quoting a live server's start-up (found by exact-string search, the index names no repository):
  // Qwen3.8-27B-W4A16-AutoRound on one RTX 3090 ("NVIDIA GeForce RTX 3090, 24064 MiB, 24576 MiB"), vLLM 0.28.0 in an
  // image that carries patches of its own, with
  //   non-default args: {… 'max_model_len': 131072, … 'gpu_memory_utilization': 0.96, 'kv_cache_dtype': 'fp8',
  //     'enable_prefix_caching': True, 'mamba_ssm_cache_dtype': 'float16', 'mamba_cache_mode': 'align',
  //     'language_model_only': True, 'max_num_batched_tokens': 2048, 'max_num_seqs': 64, …}
  //   [kv_cache_utils.py:2065] GPU KV cache size: 215,112 tokens, Maximum concurrency for 131,072 tokens per request: 1.64x
  // Its available memory is not in the excerpt, so the block count is the unknown, as for the boots above.
  const ModelConfig c = preset("qwen3.8-27b").config;
  // 0.28's own defaults: prefix caching on for a hybrid model (the log's 'enable_prefix_caching': True is 0.28's
  // default), so mamba_cache_mode align.
  const auto run = [&](const char* mscd, i64 kvmem) {
    Workload w = with({{"seq", "131072"}, {"kvt", "fp8"}, {"mscd", mscd}, {"lmo", "1"}, {"mbt", "2048"}, {"mns", "64"},
                       {"util", "0.96"}, {"kvmem", std::to_string(kvmem).c_str()}});
    w.gpu = "rtx-3090";
    w.vllm_line = VllmLine::V028;
    return vllm_of(c, w);
  };
  // The float16 SSM state: 3 × 10,240 × 2 B of convolution + 48 × 128 × 128 × 2 B = 1,634,304 B, so the attention's
  // block is 16 × ceil(1,634,304 / (16 × 2,048 B)) = 800 tokens (1,568 with the config's float32 state).
  const VllmMemory probe = run("float16", i64{1} << 34);
  CHECK(probe.mamba_page_bytes == 3 * 10240 * 2 + 48 * 128 * 128 * 2);
  CHECK(probe.block_size == 800);
  CHECK(probe.mamba_ssm_dtype == "float16");
  CHECK(probe.mamba_conv_dtype == "bfloat16");
  CHECK(run("auto", i64{1} << 34).block_size == 1568);
  CHECK(run("auto", i64{1} << 34).mamba_ssm_dtype == "float32");
  // Every count a pool of up to 2^34 B could hold: one gives both printed figures with the float16 state (279 blocks of
  // 170 a request: int(279 / 170 × 131,072)), none with the float32 one.
  const auto matches = [&](const char* mscd) {
    const VllmMemory p = run(mscd, i64{1} << 34);
    const i64 per_block = p.groups.front().page_bytes * p.group_size;
    std::vector<i64> found;
    for (i64 n = 1; n * per_block < (i64{1} << 34); ++n) {
      const VllmMemory m = run(mscd, n * per_block);
      if (m.kv_tokens == 215112 && two(m.max_concurrency) == "1.64") found.push_back(n);
    }
    return found;
  };
  CHECK(matches("float16") == std::vector<i64>{279});
  CHECK(matches("auto").empty());
  // The line as 0.28 prints it, tokens and concurrency together.
  const VllmMemory at = run("float16", 279 * probe.groups.front().page_bytes * probe.group_size);
  CHECK(at.mamba_cache_mode == MambaCacheMode::Align);
  const std::vector<std::string> printed = vllm_log(at);
  CHECK(std::find(printed.begin(), printed.end(),
                  "GPU KV cache size: 215,112 tokens, Maximum concurrency for 131,072 tokens per request: 1.64x") != printed.end());
  // 0.27.1 keeps prefix caching off by default: one state a request, and the two lines.
  Workload w27 = with({{"seq", "131072"}, {"kvt", "fp8"}, {"mscd", "float16"}, {"kvmem", "8000000000"}});
  w27.gpu = "h100-sxm";
  w27.vllm_line = VllmLine::V027;
  CHECK(vllm_of(c, w27).mamba_cache_mode == MambaCacheMode::None);
  // The formula names each dtype and its flag (on an H100, where the bf16 checkpoint's weights fit, with room for one
  // request: else vLLM refuses to start and the terms stop at the KV memory).
  Workload w = with({{"seq", "131072"}, {"kvt", "fp8"}, {"pc", "yes"}, {"mscd", "float16"}, {"kvmem", "8000000000"}});
  w.gpu = "h100-sxm";
  w.vllm_line = VllmLine::V027;
  const auto terms = vllm_terms(vllm_of(c, w), w, *find_gpu("h100-sxm"));
  const auto page = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& t) { return t.key == "mamba_page_bytes"; });
  REQUIRE(page != terms.end());
  CHECK(page->formula.find("bfloat16: --mamba-cache-dtype") != std::string::npos);
  CHECK(page->formula.find("float16: --mamba-ssm-cache-dtype) = 1,634,304") != std::string::npos);
}

TEST_CASE("vLLM: each family's recurrent state dtypes, 0.19's refusal of bfloat16, and --mamba-cache-mode", "[vllm]") {
  // mamba_utils.py MambaStateDtypeCalculator._mamba_state_dtype: the SSM state's auto is the convolution state's, after
  // models/config.py has set it from the model (Qwen3.5, Nemotron-H: float32).
  const auto page = [](const char* name, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.gpu = "h100-sxm";
    w.seq = 8192;
    w.kv_cache_memory = i64{1} << 33;
    return vllm_of(preset(name).config, w);
  };
  // Nemotron Nano 9B v2, whose config has no mamba_ssm_cache_dtype: NemotronHForCausalLMConfig's
  // default, getattr(hf_config, "mamba_ssm_cache_dtype", "float16") at 0.19.0 and
  // DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32" from 0.20.0; the flag wins on either line.
  const VllmMemory n = page("nemotron-nano-9b-v2", {{"vver", "0.27"}});
  const VllmMemory n19 = page("nemotron-nano-9b-v2", {{"vver", "0.19"}});
  const VllmMemory n16 = page("nemotron-nano-9b-v2", {{"mscd", "float16"}, {"vver", "0.27"}});
  const VllmMemory n19_32 = page("nemotron-nano-9b-v2", {{"mscd", "float32"}, {"vver", "0.19"}});
  CHECK(preset("nemotron-nano-9b-v2").config.mamba.ssm_cache_dtype == MambaDtype::Auto);
  CHECK(n.mamba_ssm_dtype == "float32");
  CHECK(n19.mamba_ssm_dtype == "float16");
  CHECK(n16.mamba_ssm_dtype == "float16");
  CHECK(n19_32.mamba_ssm_dtype == "float32");
  const Mamba2Config& nm = preset("nemotron-nano-9b-v2").config.mamba;
  CHECK(n.mamba_page_bytes - n16.mamba_page_bytes == nm.heads * nm.head_dim * nm.state * 2);
  CHECK(n19.mamba_page_bytes == n16.mamba_page_bytes);
  // Nemotron 3 Nano's config says float32, which the hook takes on both lines; a config's bfloat16
  // is not a MambaDType at 0.19 (refused on the model field), a float16 one is taken from 0.20 too.
  ModelConfig nano = preset("nemotron-3-nano-30b-a3b").config;
  CHECK(nano.mamba.ssm_cache_dtype == MambaDtype::F32);
  const auto nano_w = [](const char* line) {
    Workload w = with({{"vver", line}});
    w.runtime = Runtime::Vllm;
    w.gpu = "h100-sxm";
    w.seq = 8192;
    w.kv_cache_memory = i64{1} << 33;
    return w;
  };
  for (const char* line : {"0.19", "0.27"}) CHECK(vllm_of(nano, nano_w(line)).mamba_ssm_dtype == "float32");
  nano.mamba.ssm_cache_dtype = MambaDtype::F16;
  CHECK(vllm_of(nano, nano_w("0.27")).mamba_ssm_dtype == "float16");
  nano.mamba.ssm_cache_dtype = MambaDtype::BF16;
  CHECK(vllm_of(nano, nano_w("0.27")).mamba_ssm_dtype == "bfloat16");
  const auto refused19 = estimate(nano, nano_w("0.19"));  // the estimate stands, without vLLM's profile
  REQUIRE(refused19.ok());
  CHECK_FALSE(refused19->vllm.has_value());
  REQUIRE_FALSE(refused19->notes.empty());
  CHECK(refused19->notes.front().field == "msc");
  // The model field round-trips through its own row (links, the model panel).
  ModelConfig f = preset("nemotron-nano-9b-v2").config;
  REQUIRE_FALSE(find_model_field("msc")->set(f, "float32"));
  CHECK(f.mamba.ssm_cache_dtype == MambaDtype::F32);
  CHECK(find_model_field("msc")->get(f) == "float32");
  CHECK(find_model_field("msc")->set(f, "fp8").has_value());
  // Granite 4.0-H: no entry, so --mamba-cache-dtype float32 moves both states (the SSM's auto follows it).
  const VllmMemory g = page("granite-4.0-h-small", {});
  const VllmMemory g32 = page("granite-4.0-h-small", {{"mcd", "float32"}});
  CHECK(g.mamba_ssm_dtype == "bfloat16");
  CHECK((g32.mamba_conv_dtype == "float32" && g32.mamba_ssm_dtype == "float32"));
  CHECK(g32.mamba_page_bytes == 2 * g.mamba_page_bytes);
  // Qwen3.5: the config's float32 SSM state stays when only the convolution's dtype is set.
  const VllmMemory q = page("qwen3.5-9b", {{"mcd", "float32"}});
  CHECK((q.mamba_conv_dtype == "float32" && q.mamba_ssm_dtype == "float32"));
  // LFM2's short convolution: one state, in --mamba-cache-dtype's dtype; no SSM part.
  const VllmMemory l = page("lfm2-1.2b", {{"mcd", "float32"}, {"mscd", "float16"}});
  CHECK(l.mamba_page_bytes == 2 * 2048 * 4);
  CHECK(l.mamba_ssm_dtype.empty());
  // Jamba (Mamba-1): both states in the model dtype unless set.
  const VllmMemory j = page("jamba-1.5-mini", {{"mscd", "float32"}});
  CHECK(j.mamba_page_bytes == 3 * 8192 * 2 + 8192 * 16 * 4);
  // bfloat16 is a MambaDType from vLLM 0.22 (config/cache.py); the 0.19 profile refuses it, naming the field.
  for (const char* key : {"mcd", "mscd"}) {
    Workload w = with({{key, "bfloat16"}, {"vver", "0.19"}});
    w.runtime = Runtime::Vllm;
    w.gpu = "h100-sxm";
    w.seq = 8192;
    const auto e = estimate(preset("qwen3.5-9b").config, w);
    const bool named = !e.ok() && std::any_of(e.issues().begin(), e.issues().end(), [&](const Issue& i) { return i.field == key; });
    const bool in_notes = e.ok() && std::any_of(e.value().notes.begin(), e.value().notes.end(), [&](const Issue& i) { return i.field == key; });
    CHECK((named || in_notes));
  }
  // An unknown dtype is the field's error, with the allowed names.
  Workload w;
  const auto bad = find_field("mscd")->set(w, "fp8");
  REQUIRE(bad.has_value());
  CHECK(bad->field == "mscd");
  CHECK(bad->message.find("float16") != std::string::npos);
  // --mamba-cache-mode with prefix caching (models/config.py MambaModelConfig.verify_and_update_config, 0.19 and 0.27.1
  // alike): none asks for the model's default, all for Nemotron-H, whose block is then a whole number of its chunk size;
  // align keeps two states with the smallest block; all, which Qwen3.5 lacks, falls back to align with a warning; any
  // mode without prefix caching is set to none, with a warning.
  for (const char* line : {"0.19", "0.27"}) {
    INFO("vLLM " << line);
    const ModelConfig nc = preset("nemotron-nano-9b-v2").config;
    const VllmMemory dflt = page("nemotron-nano-9b-v2", {{"pc", "yes"}, {"vver", line}});
    const VllmMemory al = page("nemotron-nano-9b-v2", {{"pc", "yes"}, {"mcm", "align"}, {"vver", line}});
    const i64 one = dflt.groups.front().page_bytes / dflt.block_size;  // the attention's bytes a token, all layers of a group
    REQUIRE(nc.mamba.chunk > 0);
    CHECK(dflt.mamba_cache_mode == MambaCacheMode::All);
    CHECK(dflt.block_size % std::lcm<i64>(nc.mamba.chunk, 16) == 0);
    CHECK(dflt.block_size == std::lcm<i64>(nc.mamba.chunk, 16) * ceil_div(ceil_div(dflt.mamba_page_bytes, one), std::lcm<i64>(nc.mamba.chunk, 16)));
    CHECK(al.mamba_cache_mode == MambaCacheMode::Align);
    CHECK(al.block_size == 16 * ceil_div(al.mamba_page_bytes, 16 * one));
    CHECK(al.block_size < dflt.block_size);
    const VllmMemory fb = page("qwen3.5-9b", {{"pc", "yes"}, {"mcm", "all"}, {"vver", line}});
    CHECK(fb.mamba_cache_mode == MambaCacheMode::Align);
    CHECK(vllm_log(fb).front().find("falling back to 'align' mode") != std::string::npos);
    const VllmMemory off = page("qwen3.5-9b", {{"pc", "no"}, {"mcm", "align"}, {"vver", line}});
    CHECK(off.mamba_cache_mode == MambaCacheMode::None);
    CHECK(vllm_log(off).front() == "Mamba cache mode is set to 'none' when prefix caching is disabled");
  }
  // The launch command passes them on; check-log reads them from the non-default args.
  Workload x = with({{"mcd", "float32"}, {"mscd", "float16"}, {"pc", "yes"}, {"mcm", "align"}});
  x.runtime = Runtime::Vllm;
  const auto cmd = launch_command(preset("qwen3.5-9b").config, x, "Qwen/Qwen3.5-9B");
  REQUIRE(cmd.ok());
  const auto has = [&](const char* flag, const char* value) {
    return std::any_of(cmd->flags.begin(), cmd->flags.end(), [&](const auto& f) { return f.flag == flag && f.value == value; });
  };
  CHECK(has("--mamba-cache-dtype", "float32"));
  CHECK(has("--mamba-ssm-cache-dtype", "float16"));
  CHECK(has("--mamba-cache-mode", "align"));
  const auto log = parse_engine_log(
      "(APIServer pid=1) INFO 09-26 08:08:56 [api_utils.py:272] non-default args: {'model': '/app/models/Qwen3.8-27B-W4A16-AutoRound', "
      "'max_model_len': 131072, 'gpu_memory_utilization': 0.96, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, "
      "'mamba_ssm_cache_dtype': 'float16', 'mamba_cache_mode': 'align', 'language_model_only': True}\n"
      "(EngineCore pid=392) INFO 09-26 08:09:41 [kv_cache_utils.py:2065] GPU KV cache size: 215,112 tokens, Maximum concurrency for "
      "131,072 tokens per request: 1.64x\n");
  REQUIRE(log.ok());
  check_settings(*log, {{"mscd", "float16"}, {"lmo", "1"}, {"mcm", "align"}});
}

TEST_CASE("A config's mamba_ssm_dtype: read, and the SSM state vLLM and SGLang give it", "[vllm][sglang]") {
  // Qwen3.5's released configs say "mamba_ssm_dtype": "float32" in text_config (the presets carry it). A copy of
  // Qwen3.5-9B's with it changed, removed, or misspelt:
  auto doc = json_util::parse(llmsize::test::read_text("../presets/models/184c-qwen3.5-9b.json"), "preset", kMaxConfigBytes,
                              kMaxConfigDepth);
  REQUIRE(doc.ok());
  const auto imported = [&](const char* value) {
    json_util::json cfg = (*doc)["config"];
    if (value) cfg["text_config"]["mamba_ssm_dtype"] = value;
    else cfg["text_config"].erase("mamba_ssm_dtype");
    return import_hf_config(cfg.dump());
  };
  REQUIRE(imported("float32").ok());
  CHECK(imported("float32")->config.linear.ssm_dtype == MambaDtype::F32);
  CHECK(imported("float32")->config.linear == preset("qwen3.5-9b").config.linear);
  const ModelConfig bf = imported("bfloat16")->config, none = imported(nullptr)->config;
  CHECK(bf.linear.ssm_dtype == MambaDtype::BF16);
  CHECK(none.linear.ssm_dtype == MambaDtype::Auto);
  const auto bad = imported("fp8");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues().front().field == "text_config.mamba_ssm_dtype");
  CHECK(bad.issues().front().message.find("bfloat16") != std::string::npos);
  json_util::json number = (*doc)["config"];
  number["text_config"]["mamba_ssm_dtype"] = 32;
  const auto not_text = import_hf_config(number.dump());
  REQUIRE_FALSE(not_text.ok());
  CHECK(not_text.issues().size() == 1);  // named once: not a string
  CHECK(not_text.issues().front().field == "text_config.mamba_ssm_dtype");
  // vLLM (models/config.py Qwen3_5ForConditionalGenerationConfig): the config's dtype for an auto
  // --mamba-ssm-cache-dtype; none in the config leaves auto, the convolution state's dtype; a flag that differs
  // wins, with vLLM's warning. 24 Gated DeltaNet layers' state a page: conv 3 × 8,192 × 2 B + SSM 32 × 128 × 128.
  const auto page = [](const ModelConfig& c, const char* mscd) {
    Workload w = with({{"mscd", mscd}, {"vver", "0.27"}});
    w.gpu = "h100-sxm";
    w.seq = 8192;
    w.kv_cache_memory = i64{1} << 33;
    return vllm_of(c, w);
  };
  const i64 conv = 3 * 8192 * 2, ssm = 32 * 128 * 128;
  CHECK(page(preset("qwen3.5-9b").config, "auto").mamba_page_bytes == conv + 4 * ssm);
  CHECK(page(bf, "auto").mamba_page_bytes == conv + 2 * ssm);
  CHECK(page(bf, "auto").mamba_ssm_dtype == "bfloat16");
  CHECK(page(none, "auto").mamba_ssm_dtype == "bfloat16");  // the model dtype, through the convolution state's
  const VllmMemory over = page(bf, "float32");
  CHECK(over.mamba_page_bytes == conv + 4 * ssm);
  const auto lines = vllm_log(over);
  CHECK(std::find(lines.begin(), lines.end(),
                  "Qwen3.5 model specifies mamba_ssm_dtype='bfloat16' in its config, but --mamba-ssm-cache-dtype='float32' was "
                  "passed. Using the user-specified value.") != lines.end());
  const auto same = vllm_log(page(bf, "bfloat16"));
  CHECK(std::none_of(same.begin(), same.end(), [](const std::string& l) { return l.find("specifies mamba_ssm_dtype") != std::string::npos; }));
  // vLLM 0.19's MambaDType has no bfloat16: the config's is refused by name there.
  Workload w19 = with({{"vver", "0.19"}});
  w19.runtime = Runtime::Vllm;
  w19.gpu = "h100-sxm";
  const auto e19 = estimate(bf, w19);
  REQUIRE(e19.ok());
  CHECK_FALSE(e19->vllm.has_value());
  REQUIRE_FALSE(e19->notes.empty());
  CHECK(e19->notes.front().field == "lsd");
  // SGLang (configs/mamba_utils.py mamba2_state_dtype): float32, else the config's, else --mamba-ssm-dtype. The March
  // 2026 build reads the config; under late 2025's, whose flag defaulted to float32, a config's other dtype is refused
  // by name (field lsd) unless --mamba-ssm-dtype says which.
  const auto sglang = [](const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.runtime = Runtime::Sglang;
    return estimate(c, w);
  };
  const auto b26 = sglang(bf, {{"mfs", "0.8"}, {"sgb", "2026-03"}});
  REQUIRE(b26.ok());
  REQUIRE(b26->sglang.has_value());
  CHECK(b26->sglang->mamba_ssm_dtype == "bfloat16");
  CHECK(b26->sglang->mamba_ssm_bytes == 24 * 2 * ssm);
  const auto b25 = sglang(bf, {{"mfs", "0.8"}});
  REQUIRE(b25.ok());
  CHECK_FALSE(b25->sglang.has_value());
  REQUIRE_FALSE(b25->notes.empty());
  CHECK(b25->notes.front().field == "lsd");
  const auto given = sglang(bf, {{"mfs", "0.8"}, {"msd", "float32"}});
  REQUIRE(given.ok());
  REQUIRE(given->sglang.has_value());
  CHECK(given->sglang->mamba_ssm_bytes == 24 * 4 * ssm);
  CHECK(sglang(none, {{"mfs", "0.8"}})->sglang->mamba_ssm_dtype == "float32");  // no config dtype: SGLang's float32
  // The model field round-trips through its own row (links, the model panel).
  ModelConfig f = preset("qwen3.5-9b").config;
  REQUIRE_FALSE(find_model_field("lsd")->set(f, "bfloat16"));
  CHECK(f.linear.ssm_dtype == MambaDtype::BF16);
  CHECK(find_model_field("lsd")->get(f) == "bfloat16");
  CHECK(find_model_field("lsd")->set(f, "fp8").has_value());
}

TEST_CASE("vLLM: TurboQuant KV caches, a hybrid's 3,072-token blocks checked on two boots", "[calibration][vllm]") {
  // The packed slot a head (TurboQuantConfig.slot_size_aligned) against the presets' own compression claims over a bf16
  // K and V of head_dim 128 (512 B): "turboquant_k8v4: FP8 keys + 4-bit values, 2.6x", "turboquant_4bit_nc: … 3.8x".
  CHECK(turboquant_slot_bytes(KvDtype::TqK8V4, 128) == 128 + 64 + 4);
  CHECK(turboquant_slot_bytes(KvDtype::Tq4bitNc, 128) == 66 + 68);
  CHECK(turboquant_slot_bytes(KvDtype::TqK3V4Nc, 128) == 50 + 68);
  CHECK(turboquant_slot_bytes(KvDtype::Tq3bitNc, 128) == 50 + 52);
  CHECK(two(512.0 / 196) == "2.61");
  CHECK(two(512.0 / 134) == "3.82");
  CHECK(turboquant_slot_bytes(KvDtype::Tq4bitNc, 255) == 128 + 2 + 128 + 4);  // 262, already even
  CHECK(turboquant_slot_bytes(KvDtype::Tq3bitNc, 255) == 96 + 2 + 96 + 4);  // 198, already even
  CHECK(turboquant_slot_bytes(KvDtype::TqK3V4Nc, 255) == 96 + 2 + 128 + 4);      // 230, already even
  CHECK(turboquant_slot_bytes(KvDtype::TqK8V4, 255) == 255 + 128 + 4 + 1);       // 387, rounded up to even
  CHECK_FALSE(turboquant_slot_bytes(KvDtype::Fp8, 128).has_value());
  // A repository's test data (yeasah/vllm-golite, tests/data/vllm-start-qwen3.8-27b.log and vllm-start-warm-cache.log:
  // "Same configuration, same card, cache cold in one capture and hit in the other"), a vLLM dev build after 0.28
  // (0.1.dev20058+g1f1617e26) on a 15.51 GiB card:
  //   non-default args: {… 'max_model_len': -1, … 'kv_cache_dtype': 'turboquant_4bit_nc', 'enable_prefix_caching': True,
  //     'language_model_only': True, 'max_num_seqs': 1, …}
  //   Setting attention block size to 3072 tokens to ensure that attention page size is >= mamba page size.
  //   Padding mamba page size by 0.38% to ensure that mamba page size and attention page size are exactly equal.
  //   cold: Available KV cache memory: 3.01 GiB
  //         Auto-fit max_model_len: reduced from 262144 to 172032 to fit in available GPU memory (3.01 GiB available …)
  //         GPU KV cache size: 172,032 tokens, Maximum concurrency for 172,032 tokens per request: 1.00x
  //   warm: Available KV cache memory: 3.41 GiB
  //         Auto-fit max_model_len: reduced from 262144 to 196608 …
  //         GPU KV cache size: 196,608 tokens, Maximum concurrency for 196,608 tokens per request: 1.00x
  // Qwen3.8-27B's 16 attention layers keep 4 heads of 256: a 262-byte slot each, 1,048 B a token and layer; the
  // float32 Gated DeltaNet state of 3,207,168 B needs 16 × ceil(3,207,168 / (16 × 1,048)) = 3,072 tokens (3,219,456 B,
  // +0.38%). Hybrid models keep no layer unquantized (get_boundary_skip_layers).
  const ModelConfig c = preset("qwen3.8-27b").config;
  const auto run = [&](i64 seq, i64 kvmem) {
    Workload w = with({{"seq", std::to_string(seq).c_str()}, {"kvt", "turboquant_4bit_nc"}, {"pc", "yes"}, {"lmo", "1"}, {"mns", "1"},
                       {"kvmem", std::to_string(kvmem).c_str()}});
    w.gpu = "h100-sxm";  // the card's model is not printed; the block and the counts do not depend on it
    w.vllm_line = VllmLine::V027;
    return vllm_of(c, w);
  };
  const i64 cold = static_cast<i64>(3.01 * kGiB);
  const VllmMemory probe = run(262144, i64{1} << 36);
  CHECK(probe.block_size == 3072);
  CHECK(probe.mamba_page_bytes == 3207168);
  CHECK(probe.groups.front().page_bytes == 3072 * 1048);
  const std::vector<std::string> lines = vllm_log(probe);
  CHECK(std::find(lines.begin(), lines.end(), "Setting attention block size to 3072 tokens to ensure that attention page size is >= mamba page size.") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "Padding mamba page size by 0.38% to ensure that mamba page size and attention page size are exactly equal.") != lines.end());
  // Auto-fit (kv_cache_utils.py _estimate_max_model_len_from_groups, the search max_model_len_fit follows): any
  // memory printed as 3.01 GiB fits 172,032 tokens; of the memories printed as 3.41 GiB, those below 71 blocks
  // (3,657,302,016 B, 3.4061 GiB) fit 196,608 and the rest 199,680: the log's own figures place its memory there.
  for (double gib_printed : {3.005, 3.01, 3.0149}) CHECK(run(262144, static_cast<i64>(gib_printed * kGiB)).max_model_len_fit == 172032);
  for (double gib_printed : {3.405, 3.406}) CHECK(run(262144, static_cast<i64>(gib_printed * kGiB)).max_model_len_fit == 196608);
  CHECK(run(262144, 71 * i64{51511296}).max_model_len_fit == 199680);
  // At those lengths, the blocks, tokens and concurrency as printed: 62 blocks (56 for the attention, 2 states in each of
  // the three Gated DeltaNet groups), and 70.
  const VllmMemory a = run(172032, cold);
  CHECK(a.num_blocks == 62);
  CHECK(a.kv_tokens == 172032);
  CHECK(two(a.max_concurrency) == "1.00");
  const VllmMemory b = run(196608, static_cast<i64>(3.4055 * kGiB));
  CHECK(b.num_blocks == 70);
  CHECK(b.kv_tokens == 196608);
  CHECK(two(b.max_concurrency) == "1.00");
  // The boots' own --max-model-len -1 (kv_cache_utils.py _auto_fit_max_model_len): the profile runs at the model's
  // 262,144, then max_model_len is lowered and printed; the blocks and the merged KV line follow from it.
  const auto fitted = [&](i64 kvmem) {
    Workload w = with({{"vaf", "1"}, {"kvt", "turboquant_4bit_nc"}, {"pc", "yes"}, {"lmo", "1"}, {"mns", "1"},
                       {"kvmem", std::to_string(kvmem).c_str()}});
    w.gpu = "h100-sxm";
    w.vllm_line = VllmLine::V027;
    return vllm_of(c, w);
  };
  const VllmMemory fa = fitted(cold), fb = fitted(static_cast<i64>(3.4055 * kGiB));
  CHECK((fa.auto_fit_from == 262144 && fa.max_model_len == 172032 && fa.num_blocks == 62 && fa.kv_tokens == 172032));
  CHECK((fb.auto_fit_from == 262144 && fb.max_model_len == 196608 && fb.num_blocks == 70 && fb.kv_tokens == 196608));
  const std::vector<std::string> fl = vllm_log(fa);
  CHECK(std::find(fl.begin(), fl.end(),
                  "Auto-fit max_model_len: reduced from 262144 to 172032 to fit in available GPU memory (3.01 GiB available for KV cache)") !=
        fl.end());
  CHECK(std::find(fl.begin(), fl.end(), "Maximum concurrency for 172,032 tokens per request: 1.00x") != fl.end());
  // Enough memory for the model's whole length: kept, with the other line; none for one token: vLLM's ValueError.
  const VllmMemory whole = fitted(i64{1} << 36);
  CHECK((whole.max_model_len == 262144 && whole.auto_fit_from == 262144));
  const std::vector<std::string> wl = vllm_log(whole);
  CHECK(std::find(wl.begin(), wl.end(), "Auto-fit max_model_len: full model context length 262144 fits in available GPU memory") != wl.end());
  CHECK(fitted(1000).error.find("Cannot auto-fit max_model_len") != std::string::npos);
  // The JSON names the start of the search and the state's dtypes.
  {
    Workload w = with({{"vaf", "1"}, {"kvt", "turboquant_4bit_nc"}, {"pc", "yes"}, {"kvmem", std::to_string(cold).c_str()}});
    w.runtime = Runtime::Vllm;
    w.gpu = "h100-sxm";
    w.vllm_line = VllmLine::V027;
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    const std::string j = estimate_json(c, w, e.value(), false);
    CHECK(j.find("\"auto_fit_from\": 262144") != std::string::npos);
    CHECK(j.find("\"mamba_ssm_dtype\": \"float32\"") != std::string::npos);
    CHECK(j.find("\"mamba_conv_dtype\": \"bfloat16\"") != std::string::npos);
  }
  // Without TurboQuant (bf16 KV) the block is 784 tokens: the slot is what moves it.
  CHECK(vllm(c, {{"vver", "0.27"}, {"pc", "yes"}, {"kvmem", "4000000000"}}).block_size == 784);
}

TEST_CASE("vLLM: TurboQuant on a model of full attention keeps its first and last two layers in the model dtype", "[vllm]") {
  // engine/arg_utils.py: TurboQuantConfig.get_boundary_skip_layers(n = 2) for a model that is not hybrid; attention.py:
  // those layers' kv_cache_dtype is "auto". platforms/interface.py _align_heterogeneous_kv_block_size: the primary
  // page a token as FullAttentionSpec over uint8 (2 × 8 heads × 128 = 2,048 B for Qwen3-8B), the bf16 layers' 4,096 B
  // at 16 tokens covered by 16 × ⌈16 × 4,096 / (16 × 2,048)⌉ = 32 tokens; one uniform-type group of 36 pages a block:
  // 32 TQ layers of 32 × 8 × 134 B and 4 bf16 layers of 32 × 8 × 512 B.
  const ModelConfig c = preset("qwen3-8b").config;
  const i64 sum = 32 * (32 * 8 * 134) + 4 * (32 * 8 * 512);
  Workload w = with({{"vver", "0.27"}, {"kvt", "turboquant_4bit_nc"}, {"kvmem", std::to_string(1000 * sum + 5).c_str()}});
  w.gpu = "h100-sxm";
  w.seq = 8192;
  const VllmMemory m = vllm_of(c, w);
  CHECK(m.tq_block_size == 32);
  CHECK(m.block_size == 32);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.uniform_type);
  CHECK(m.groups.front().page_bytes == sum);
  CHECK(m.num_blocks == 1000);
  CHECK(m.blocks_per_request == 8192 / 32);
  const std::vector<std::string> lines = vllm_log(m);
  CHECK(std::find(lines.begin(), lines.end(),
                  "Setting attention block size to 32 tokens so the quantized primary KV page covers the higher-precision padded-spec page.") !=
        lines.end());
  // The generic estimate counts the same bytes a token: 32 × 8 × 134 + 4 × 8 × 512.
  Workload g = with({{"kvt", "turboquant_4bit_nc"}});
  g.seq = 8192;
  const auto e = estimate(c, g);
  REQUIRE(e.ok());
  CHECK(e.value().inference.kv_bytes_per_token == 32 * 8 * 134 + 4 * 8 * 512);
  // fp32: the unquantized page is four times the primary, a 64-token block; --block-size 32 is already enough for bf16.
  Workload f = w;
  f.dtype = ComputeDtype::F32;
  f.weights = WeightFormat::F32;
  CHECK(vllm_of(c, f).block_size == 64);
  Workload b32 = w;
  b32.block_size = 32;
  const VllmMemory m32 = vllm_of(c, b32);
  CHECK((m32.block_size == 32 && m32.tq_block_size == 0));
}

TEST_CASE("vLLM: TurboQuant's attention workspace, taken after the KV cache is sized", "[vllm]") {
  // turboquant_attn.py TurboQuantMetadataBuilder._reserve_workspace through WorkspaceManager.get_simultaneous (each
  // tensor to 256 B, one buffer grown to the largest request). Qwen3-8B on an H100 (1,024 sequences, 8,192 batched
  // tokens), 32 query heads of 128: the decode's splits 1,024 × 32 × 32 × 129 × 4 + 1,024 × 32 × 128 × 2 + 1,024 × 32 ×
  // 4 = 549,584,896 B; a continuation prefill's K and V at max_model_len 32,768 (32-token blocks): 2 × 8 × 32,768 ×
  // 128 × 2 = 134,217,728 B. The larger is taken; no printed figure moves.
  const ModelConfig c = preset("qwen3-8b").config;
  Workload w = with({{"vver", "0.28"}, {"kvt", "turboquant_k8v4"}, {"seq", "32768"}});
  w.gpu = "h100-sxm";
  const VllmMemory m = vllm_of(c, w);
  CHECK(m.tq_decode_workspace_bytes == 549584896);
  CHECK(m.tq_prefill_workspace_bytes == 134217728);
  CHECK(m.tq_workspace_bytes == 549584896);
  Workload plain = w;
  plain.kv_dtype = KvDtype::BF16;
  CHECK(vllm_of(c, plain).tq_workspace_bytes == 0);
  // At the model's 40,960 positions with 64 sequences the prefill's buffers are the larger: 2 × 8 × 40,960 × 128 × 2.
  Workload few = with({{"vver", "0.28"}, {"kvt", "turboquant_k8v4"}, {"seq", "40960"}, {"mns", "64"}});
  few.gpu = "h100-sxm";
  const VllmMemory f = vllm_of(c, few);
  CHECK(f.tq_prefill_workspace_bytes == i64{2} * 8 * 40960 * 128 * 2);
  CHECK(f.tq_workspace_bytes == f.tq_prefill_workspace_bytes);
  // 128 batched tokens or fewer: no continuation prefill buffer.
  Workload small = with({{"vver", "0.28"}, {"kvt", "turboquant_k8v4"}, {"seq", "32768"}, {"mbt", "128"}, {"mns", "64"}});
  small.gpu = "h100-sxm";
  CHECK(vllm_of(c, small).tq_prefill_workspace_bytes == 0);
  // The term, with its source; the report's line beside the CUDA graphs'.
  const auto terms = vllm_terms(m, w, *find_gpu("h100-sxm"));
  const auto t = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& x) { return x.key == "tq_workspace_bytes"; });
  REQUIRE(t != terms.end());
  CHECK(t->value == 549584896.0);
  CHECK(t->source.find("TurboQuantMetadataBuilder._reserve_workspace") != std::string::npos);
  CHECK(t->label == "TurboQuant workspace (after the KV cache)");
  Workload r = w;
  r.runtime = Runtime::Vllm;
  const auto e = estimate(c, r);
  REQUIRE(e.ok());
  CHECK(estimate_text(c, r, e.value(), ByteUnit::GB).find("(TurboQuant's attention workspace: vLLM takes 0.55 GB when it initialises") !=
        std::string::npos);
  // A MoE model's profile has already grown the workspace (its Triton experts' buffers): only the excess is new.
  Workload q = with({{"vver", "0.28"}, {"kvt", "turboquant_4bit_nc"}, {"seq", "32768"}, {"vcg", "900"}});
  q.gpu = "h100-sxm";
  const VllmMemory moe = vllm_of(preset("qwen3.6-35b-a3b").config, q);
  CHECK(moe.tq_decode_workspace_bytes > 0);
  CHECK(moe.tq_workspace_bytes < std::max(moe.tq_decode_workspace_bytes, moe.tq_prefill_workspace_bytes));
}

TEST_CASE("TurboQuant: refused where it is not followed, passed on and read where it is", "[vllm]") {
  const auto refused = [](const char* name, Runtime rt, std::initializer_list<std::pair<const char*, const char*>> kv, const char* field) {
    Workload w = with(kv);
    w.runtime = rt;
    w.gpu = "h100-sxm";
    w.seq = 8192;
    const auto e = estimate(preset(name).config, w);
    const auto named = [&](const std::vector<Issue>& v) {
      return std::any_of(v.begin(), v.end(), [&](const Issue& i) { return i.field == field; });
    };
    return e.ok() ? named(e.value().notes) : named(e.issues());
  };
  // Not followed, by name: hybrids other than Qwen3.5 and Qwen3-Next, MLA, sliding windows.
  CHECK(refused("nemotron-nano-9b-v2", Runtime::PyTorch, {{"kvt", "turboquant_k8v4"}}, "kvt"));
  CHECK(refused("deepseek-v2-lite", Runtime::PyTorch, {{"kvt", "turboquant_k8v4"}}, "kvt"));
  CHECK(refused("gemma-3-27b", Runtime::PyTorch, {{"kvt", "turboquant_k8v4"}}, "kvt"));
  CHECK(refused("qwen3.8-27b", Runtime::Vllm, {{"kvt", "turboquant_k8v4"}, {"vver", "0.19"}}, "kvt"));  // from vLLM 0.20
  CHECK(refused("qwen3.8-27b", Runtime::Sglang, {{"kvt", "turboquant_k8v4"}}, "kvt"));
  CHECK(refused("qwen3.8-27b", Runtime::LlamaCpp, {{"kvt", "turboquant_k8v4"}}, "kvt"));
  // The generic estimate of a Qwen3.5 hybrid counts the packed slots: each attention layer (one in four) × its KV heads
  // × the slot of its head size, a token.
  Workload w = with({{"kvt", "turboquant_4bit_nc"}});
  w.seq = 8192;
  const auto e = estimate(preset("qwen3.5-9b").config, w);
  REQUIRE(e.ok());
  const ModelConfig q = preset("qwen3.5-9b").config;
  const i64 attn_layers = q.n_layers / 4;
  CHECK(e.value().inference.kv_bytes_per_token == attn_layers * q.n_kv_heads * *turboquant_slot_bytes(KvDtype::Tq4bitNc, q.head_dim));
  // vLLM's launch command passes the preset; check-log reads it.
  Workload x = with({{"kvt", "turboquant_3bit_nc"}, {"vver", "0.27"}});
  x.runtime = Runtime::Vllm;
  const auto cmd = launch_command(q, x, "Qwen/Qwen3.5-9B");
  REQUIRE(cmd.ok());
  CHECK(std::any_of(cmd->flags.begin(), cmd->flags.end(),
                    [](const LaunchFlag& f) { return f.flag == "--kv-cache-dtype" && f.value == "turboquant_3bit_nc"; }));
  const auto log = parse_engine_log(
      "(APIServer pid=367441) INFO 09-07 22:16:27 [api_utils.py:272] non-default args: {'model': "
      "'/home/ypell/ckpt/Qwen3.8-27B-exl3-3.00bpw-bq', 'max_model_len': -1, 'kv_cache_dtype': 'turboquant_4bit_nc', "
      "'enable_prefix_caching': True, 'language_model_only': True, 'max_num_seqs': 1}\n"
      "(EngineCore pid=367614) INFO 09-07 22:17:32 [gpu_worker.py:578] Available KV cache memory: 3.01 GiB\n");
  REQUIRE(log.ok());
  check_settings(*log, {{"kvt", "turboquant_4bit_nc"}, {"vaf", "1"}});
  CHECK(std::none_of(log->settings.begin(), log->settings.end(), [](const auto& kv) { return kv.first == "seq"; }));
  // --max-model-len -1 in the launch command; the auto-fit line read as a figure.
  Workload af = with({{"vaf", "1"}});
  af.runtime = Runtime::Vllm;
  const auto afc = launch_command(q, af, "Qwen/Qwen3.5-9B");
  REQUIRE(afc.ok());
  CHECK(std::any_of(afc->flags.begin(), afc->flags.end(), [](const LaunchFlag& f) { return f.flag == "--max-model-len" && f.value == "-1"; }));
  const auto fit_log = parse_engine_log(
      "INFO 09-07 22:17:32 [kv_cache_utils.py:2045] Auto-fit max_model_len: reduced from 262144 to 172032 to fit in available GPU "
      "memory (3.01 GiB available for KV cache)\n");
  REQUIRE(fit_log.ok());
  REQUIRE(fit_log->find("max_model_len") != nullptr);
  CHECK(fit_log->find("max_model_len")->value == 172032);
}

TEST_CASE("vLLM 0.27.1 and 0.28.0 (Model Runner V2): warm start-ups of Llama-3.1-8B AWQ and Qwen2.5-0.5B, end to end",
          "[calibration][vllm]") {
  struct Run {
    const char* what;
    ModelConfig config;
    std::initializer_list<std::pair<const char*, const char*>> keys;
    const char *load, *consumed, *peak, *available;
    i64 tokens, logged_tokens;
  };
  const Run runs[] = {
      // yuchia329/kvroute@09a8add, docs/measurements/2026-09-11-pcie-arithmetic/engine.log (one RTX 3090, "Free memory
      // on device (23.3/23.56 GiB)"; the compile cache warm: "Directly load AOT compilation", "torch.compile took 0.27 s
      // in total"): vLLM 0.28.0, non-default args {'model': 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
      // 'max_model_len': 8192, 'quantization': 'awq_marlin', 'block_size': 16, 'gpu_memory_utilization': 0.9,
      // 'max_num_seqs': 256, …}, dtype=torch.float16, 'compile_ranges_endpoints': [2048]:
      //   [gpu_worker.py:396] Using V2 Model Runner
      //   [model_runner.py:380] Model loading took 5.39 GiB memory and 4.637201 seconds
      //   [gpu_worker.py:578] Available KV cache memory: 15.38 GiB
      //   [kv_cache_utils.py:1869] GPU KV cache size: 125,952 tokens, Maximum concurrency for 8,192 tokens per request: 15.38x
      //   [gpu_worker.py:804] … Desired GPU memory utilization is (0.9, 21.2 GiB). Actual usage is 5.62 GiB for consumed
      //   memory (weights + non-torch), 0.2 GiB for peak activation, and 0.57 GiB for CUDAGraph memory. …
      // (the same machine's second boot, 2026-09-11-roofline/evidence/serve.log, printed the same figures).
      {"Llama-3.1-8B-Instruct AWQ, RTX 3090",
       preset("llama-3.1-8b").config,
       {{"gpu", "rtx-3090"}, {"gtot", "24125.44"}, {"w", "awq-int4"}, {"dtype", "fp16"}, {"kvt", "fp16"}, {"util", "0.9"},
        {"mns", "256"}, {"seq", "8192"}},
       "5.37", "5.62", "0.21", "15.37", 125904, 125952},
      // enginrect/llmso@06bc0e5, labs/environment-setup.md, attempt 7 (an RTX 4090 under WSL2, "Free memory on device
      // (22.45/23.99 GiB)", "(compilation: 0.11 s)"): vLLM 0.27.1, `vllm serve Qwen/Qwen2.5-0.5B-Instruct` with
      // {'max_model_len': 2048, 'gpu_memory_utilization': 0.85}, its lines from model_runner.py (Model Runner V2):
      //   [model_runner.py:329] Model loading took 0.93 GiB and 2.060686 seconds
      //   [gpu_worker.py:563] Available KV cache memory: 19.06 GiB
      //   [kv_cache_utils.py:2235] GPU KV cache size: 1,665,392 tokens
      //   [gpu_worker.py:789] … Desired GPU memory utilization is (0.85, 20.39 GiB). Actual usage is 1.25 GiB for consumed
      //   memory (weights + non-torch), 0.08 GiB for peak activation, and 0.28 GiB for CUDAGraph memory. …
      // (the base model's preset: the Instruct checkpoint has the same shapes).
      {"Qwen2.5-0.5B-Instruct, RTX 4090 under WSL2",
       preset("qwen2.5-0.5b").config,
       {{"gpu", "rtx-4090"}, {"gtot", "24565.76"}, {"util", "0.85"}, {"seq", "2048"}},
       "0.92", "1.18", "0.08", "19.13", 1671840, 1665392},
  };
  for (const Run& r : runs) {
    INFO(r.what);
    Workload w = with(r.keys);
    w.runtime = Runtime::Vllm;
    w.vllm_line = VllmLine::V027;
    const auto e = estimate(r.config, w);
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    REQUIRE(e.value().vllm.has_value());
    const VllmMemory& m = *e.value().vllm;
    CHECK(m.max_num_batched_tokens == 2048);  // `vllm serve` under 70 GiB
    CHECK(vllm_gib(m.weights_bytes) == r.load);
    CHECK(vllm_gib(m.consumed_bytes) == r.consumed);
    CHECK(vllm_gib(m.activation_peak_bytes) == r.peak);
    CHECK(vllm_gib(m.kv_available_bytes) == r.available);
    CHECK(m.kv_tokens == r.tokens);
    CHECK(std::abs(rel(static_cast<double>(m.kv_tokens), static_cast<double>(r.logged_tokens))) < 0.005);
  }
  // Llama AWQ: loading 5.37 GiB for 5.39 (−0.4%); consumed as logged; the peak 0.21 GiB for 0.2 (the compiled
  // forward with the attention's output live beside the MLP, which Qwen3-8B's 0.19 GiB needs, is 0.016 GiB above
  // what this Llama's implies: not traced); KV memory −0.07%, tokens 125,904 for 125,952 (−0.04%).
  // Qwen2.5-0.5B: the sampler's 256 rows of bf16 logits (77.8 MB) are the peak here, as logged; the consumed memory
  // is 1.18 GiB for 1.25 (−5.6%): WSL2's CUDA holds 0.32 GiB beside the weights where the native 0.27.1 runs hold
  // 0.26–0.27; so the KV memory is +0.37%, the tokens 1,671,840 for 1,665,392 (+0.39%).
}
