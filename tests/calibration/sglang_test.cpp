// Calibration against published SGLang start-ups (issue 11): the token pool SGLang sizes from the
// free memory before and after the weights load and mem_fraction_static, and its "KV Cache is
// allocated" line. The logs are the fuzz corpus's (tests/fuzz/corpus/engine_log/sglang-*.log),
// verbatim excerpts; where a run's flags were printed in a part of the log not kept (the
// server_args line), the test passes them and says so.
//   sglang-llama-3.1-8b-2025-01.log — SGLang docs quick-start, 2025-01-23 (server_args: mem_fraction_static=0.88)
//   sglang-llama-3.1-8b-fa3.log — sgl-project/sglang PR #4760 (2025-03-25, default flags: 0.88 at TP 1 then)
//   sglang-qwq-32b-4xl4.log — a public README, 4 × L4, TP 4 (server_args: mem_fraction_static=0.85)
//   sglang-qwen3-14b-4x4090.log — a public deployment note, 4 × RTX 4090, --tp-size 4 --mem-fraction-static 0.80
//   sglang-qwen3-0.6b-5080.log — a public README (MinerU image), RTX 5080 16303 MiB, defaults of mid-2025 (0.818)
//   sglang-llama-3.1-8b-24gb.log — a public README, a 24 GB card, defaults of mid-2025 (0.879 at 24564 MiB)
//   sglang-deepseek-v3.2-tp8.log — sgl-project/sglang PR #11309 (8 × B200, TP 8 with DP attention, fp8 KV)
//   sglang-qwen3-235b-fp8-tp4.log — vllm-project/vllm issue #21348 (4 × H100, --tp 4 --mem-fraction-static 0.93)
//   sglang-mimo-v2-flash-swa.log — sgl-project/sglang PR #15464 (2025-12-19, MiMo-V2-Flash TP 4, hybrid pool)
//   sglang-mimo-v2-flash-ratio.log — sgl-project/sglang PR #18039 (2026-01-31, its "main branch" run, --page-size 64)
//   sglang-lfm2-700m.log — public notes (sglang 0.5.6.post2, 2025-12-29, bench_one_batch, a 16 GB card, default mfs)
//   sglang-2026-04-qwen3-8b-b200.log, sglang-2026-05-qwen3-8b-b300.log — public debugging notes quoting
//       "Reference: Clean Startup Log (TP=1, Qwen3-8B)" (SGLang main, `sglang serve` with every default)
//   sglang-kimi-k2.5-mi355x-tp8.log — ajith-sirra-amd/Issues, Kimi-K2.5-MI355X-SGLANG-ERROR.md (2026-02-26, SGLang
//       v0.5.8.post1 ROCm image, 8 × MI355X, `sglang serve --model-path moonshotai/Kimi-K2.5 --tp 8`; its server_args:
//       context_length=None, page_size=1, mem_fraction_static=0.8260405859375; the run later failed in graph capture;
//       its server_args line and every rank's lines up to the graph capture)
//   sglang-glm-5-fp8-mi355x-tp8.log — ajith-sirra-amd/Issues, GLM-5-FP8-MI355X-SGLANG-ERROR.md (2026-02-26, its first
//       start-up: image rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218, 8 × MI355X, `python3 -m sglang.launch_server
//       --attention-backend triton --model-path zai-org/GLM-5-FP8 --tp-size 8 --kv-cache-dtype fp8_e4m3`; its server_args:
//       mem_fraction_static=0.908, page_size=1, context_length=None; its server_args line and every rank's lines up to
//       the graph capture)
//   sglang-qwen2.5-0.5b-docs-ci.log — SGLang's documentation page "SGLang Native APIs" as its CI rendered it
//       (main of 2026-02-04, Qwen/Qwen2.5-0.5B-Instruct on an 80 GB Hopper card; its server_args, not in the
//       excerpt: max_total_tokens=20480, max_running_requests=128, context_length=None, page_size=1)
//   sglang-0.5.11-qwen2.5-7b-rtxpro6000.log, sglang-0.5.11-qwen2.5-72b-awq-rtxpro6000.log — syseeker/inference-pipeline-benchmark
//       benchmarks/results/rtx_pro6000/coloc/_baselines/solo-sglang-qwen2.5-{7b@4-068a1123,72b@2-521691cc}/llm.server.log
//       (commit df2820b, 2026-08-05; the repo pins sglang==0.5.11; one RTX PRO 6000 Blackwell Server, solo;
//       --context-length=8192 --mem-fraction-static 0.45 / 0.52; the "[2026-…" lines up to max_total_num_tokens)
//   sglang-2026-03-gpt-oss-120b-rtxpro6000.log — sgl-project/sglang PR #19718 (a comment of 2026-03-06, repeated in PR
//       #20040): `sglang serve --model-path openai/gpt-oss-120b --reasoning-parser gpt-oss --tool-call-parser gpt-oss`
//       on one RTX PRO 6000 Blackwell Server, SGLang main of that day; the lines from "Using KV cache dtype" on
//   sglang-qwen3.5-9b-tp2.log — public notes (a main build of 2026-04-14, 2 × RTX 4090, --tp-size 2 --mem-fraction-static 0.8
//       --context-length 262144)
#include "core/engine_log.hpp"
#include "core/estimate.hpp"
#include "core/presets.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;
using llmsize::test::read_text;
using llmsize::test::with;

namespace {

constexpr double kGiB = 1073741824.0;

LogCheck checked(const std::string& file, const ModelConfig& c, const std::vector<std::pair<const char*, const char*>>& kv) {
  auto log = parse_engine_log(read_text("fuzz/corpus/engine_log/" + file));
  INFO(file << ": " << join(log.issues()));
  REQUIRE(log.ok());
  CHECK(log->engine == LogEngine::SGLang);
  Workload w;
  for (const auto& [k, v] : kv) REQUIRE_FALSE(find_field(k)->set(w, v));
  auto c2 = check_log(*log, c, w);
  INFO(join(c2.issues()));
  REQUIRE(c2.ok());
  return c2.value();
}

const LogCheckRow& row(const LogCheck& c, std::string_view key) {
  for (const auto& r : c.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return c.rows.front();
}

// The pool's shape (cell, page, padding) for a model, with nominal free memory: for checking the
// "KV Cache is allocated" sizes at a log's own #tokens.
SglangMemory pool_of(const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Workload w = with(kv);
  w.runtime = Runtime::Sglang;
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  auto m = sglang_memory(c, e->plan, e->inference, w, e->gpu, std::make_pair(1000.0, 900.0));
  INFO(join(m.issues()));
  REQUIRE(m.ok());
  return m.value();
}

}  // namespace

TEST_CASE("SGLang: the token pool from the logged free memory, within the log's rounding", "[calibration][sglang]") {
  // Each log prints its free memory to 0.01 GiB (±0.005 after the load, ±0.01 before it), which moves
  // the pool by up to 40–200 tokens: the checks allow that band and no more.
  struct Case {
    const char* file;
    ModelConfig config;
    std::vector<std::pair<const char*, const char*>> flags;
    i64 logged, ours;  // #tokens: the log's and llmsize's from the log's own free memory
  };
  const Case cases[] = {
      // [2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB
      // [2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.72 GB
      // [2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, max_running_requests=2049, context_len=131072
      {"sglang-llama-3.1-8b-2025-01.log", preset("llama-3.1-8b").config, {{"mfs", "0.88"}}, 444500, 444520},
      // Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.48 GB, mem usage=15.11 GB.
      // KV Cache is allocated. #tokens: 442750, K size: 27.02 GB, V size: 27.02 GB
      {"sglang-llama-3.1-8b-fa3.log", preset("llama-3.1-8b").config, {{"mfs", "0.88"}}, 442750, 442771},
      // Load weight begin. avail mem=21.63 GB / Load weight end. … avail mem=6.09 GB, mem usage=15.54 GB.
      // KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: 1.42 GB
      {"sglang-qwq-32b-4xl4.log", import_file("calibration/configs/qwq-32b.json"),
       {{"mfs", "0.85"}, {"tp", "4"}, {"gpus", "4"}, {"gpu", "l4"}}, 46611, 46620},
      // Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=16.00 GB, mem usage=7.08 GB.
      // KV Cache is allocated. #tokens: 298447, K size: 5.69 GB, V size: 5.69 GB
      {"sglang-qwen3-14b-4x4090.log", import_file("calibration/configs/qwen3-14b.json"),
       {{"tp", "4"}, {"gpus", "4"}, {"gpu", "rtx-4090"}}, 298447, 298424},
      // Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=7.37 GB, mem usage=15.02 GB.
      // KV Cache is allocated. #tokens: 38141, K size: 2.33 GB, V size: 2.33 GB
      {"sglang-llama-3.1-8b-24gb.log", preset("llama-3.1-8b").config, {{"mfs", "0.879"}, {"gpu", "rtx-4090"}}, 38141, 38181},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    const LogCheck c = checked(k.file, k.config, k.flags);
    CHECK(row(c, "kv_tokens").logged_value == static_cast<double>(k.logged));
    CHECK(row(c, "kv_tokens").ours_value == static_cast<double>(k.ours));
    CHECK(std::abs(k.ours - k.logged) <= 60);
    // The K and V sizes at the log's own #tokens: the cell and the page padding, to the printed 0.01 GB.
    CHECK(row(c, "k_bytes").same_text);
    if (c.rows.size() > 2) CHECK(row(c, "v_bytes").same_text);
  }
}

TEST_CASE("SGLang: what a log does not explain is stated, not fitted", "[calibration][sglang]") {
  // Qwen3-0.6B on an RTX 5080 with mid-2025's default mem_fraction_static (0.818 for 16303 MiB):
  //   Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=13.91 GB, mem usage=1.25 GB.
  //   KV Cache is allocated. #tokens: 104273, K size: 5.57 GB, V size: 5.57 GB
  // MISS: 124 tokens (13.6 MiB) over, outside the rounding band; the log implies 0.8171 rather than
  // 0.818, or 73 MiB taken between the start and the load (not determined).
  const LogCheck c = checked("sglang-qwen3-0.6b-5080.log", import_file("calibration/configs/qwen3-0.6b.json"),
                             {{"mfs", "0.818"}, {"gpu", "rtx-5090"}});
  CHECK(row(c, "kv_tokens").ours_value - row(c, "kv_tokens").logged_value == 124);
  CHECK(row(c, "k_bytes").same_text);
  // "mem usage" is free memory before minus after, so it holds more than the weights: the
  // allocator's cached blocks and handles made while loading. 1.25 GB logged, 1.13 GB of weights
  // and rotary cache; at TP 4 for Qwen3-14B 7.08 against 6.90 GB.
  CHECK(row(c, "weights_bytes").rel_diff == Approx(-0.096).margin(0.01));
}

TEST_CASE("SGLang on Blackwell (SM100): trtllm_mha's pages of 64 tokens, with the default fraction", "[calibration][sglang]") {
  // Two clean start-ups of `sglang serve --model-path Qwen/Qwen3-8B` with every default, quoted as
  // reference logs in public debugging notes (SGLang main of 2026-04-27 on a B200, 2026-05-24 on a B300):
  //   Attention backend not specified. Use trtllm_mha backend by default.
  //   TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64.
  //   [B200] Load weight begin. avail mem=177.57 GB / Load weight end. … avail mem=162.30 GB, mem usage=15.28 GB.
  //   [B200] KV Cache is allocated. #tokens: 992896, K size: 68.18 GB, V size: 68.18 GB
  //   [B300] Load weight begin. avail mem=275.75 GB / Load weight end. … avail mem=260.48 GB, mem usage=15.28 GB.
  //   [B300] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1707904, K size: 117.28 GB, V size: 117.28 GB
  // Both counts are whole pages (15,514 and 26,686 × 64); so are llmsize's now.
  struct Case {
    const char* file;
    const char* gpu;
    i64 logged, ours;
  };
  for (const Case& k : {Case{"sglang-2026-04-qwen3-8b-b200.log", "b200", 992896, 996928},
                        Case{"sglang-2026-05-qwen3-8b-b300.log", "b300", 1707904, 1705984}}) {
    INFO(k.file);
    const LogCheck c = checked(k.file, preset("qwen3-8b").config, {{"gpu", k.gpu}});
    CHECK(row(c, "kv_tokens").logged_value == static_cast<double>(k.logged));
    CHECK(row(c, "kv_tokens").ours_value == static_cast<double>(k.ours));
    CHECK(k.ours % 64 == 0);
    CHECK(row(c, "k_bytes").same_text);
    CHECK(row(c, "v_bytes").same_text);
    CHECK(c.lines.at(0) == "Attention backend not specified. Use trtllm_mha backend by default.");
    CHECK(c.lines.at(1) == "TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64.");
    // MISS on the B200, +0.41% (4,032 tokens, 0.27 GiB): that main implies mem_fraction_static
    // 0.854 where the late-2025 rule gives 0.857 for its 183,359 MiB; the B300 is within 0.11%.
    CHECK(std::abs(row(c, "kv_tokens").rel_diff) < 0.005);
  }
  // Hopper keeps fa3 and pages of one token; so do MLA models on Blackwell (their own backends).
  const SglangMemory h100 = pool_of(preset("qwen3-8b").config, {{"gpu", "h100-sxm"}});
  CHECK(h100.page_size == 1);
  CHECK_FALSE(h100.trtllm_mha);
  const SglangMemory b200 = pool_of(preset("qwen3-8b").config, {{"gpu", "b200"}});
  CHECK(b200.page_size == 64);
  CHECK(b200.trtllm_mha);
  const SglangMemory v2 = pool_of(preset("deepseek-v2-lite").config, {{"gpu", "b200"}});
  CHECK(v2.page_size == 1);
  // --page-size: any size elsewhere; one trtllm_mha cannot take becomes 64, as SGLang says.
  CHECK(pool_of(preset("qwen3-8b").config, {{"gpu", "h100-sxm"}, {"psz", "16"}}).page_size == 16);
  CHECK(pool_of(preset("qwen3-8b").config, {{"gpu", "b200"}, {"psz", "32"}}).page_size == 32);
  const SglangMemory b1 = pool_of(preset("qwen3-8b").config, {{"gpu", "b200"}, {"psz", "1"}});
  CHECK(b1.page_size == 64);
  const auto b1_lines = sglang_log(b1);
  CHECK(b1_lines.at(1) == "TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from 1 to 64.");
  CHECK(sglang_log(pool_of(preset("qwen3-8b").config, {{"gpu", "b200"}, {"psz", "32"}})).at(1).rfind("Load weight end.", 0) == 0);
  // The log's own words: a flag it overrode, or none (the profile's default then picks the pages).
  auto flagged = parse_engine_log("TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from 1 to 64.\n"
                                  "KV Cache is allocated. #tokens: 640, K size: 1.00 GB, V size: 1.00 GB\n");
  REQUIRE(flagged.ok());
  llmsize::test::check_settings(*flagged, {{"psz", "1"}});
  auto unflagged = parse_engine_log("TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64.\n"
                                    "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', page_size=64, tp_size=1)\n"
                                    "KV Cache is allocated. #tokens: 640, K size: 1.00 GB, V size: 1.00 GB\n");
  REQUIRE(unflagged.ok());
  CHECK(std::none_of(unflagged->settings.begin(), unflagged->settings.end(), [](const auto& s) { return s.first == "psz"; }));
}

TEST_CASE("SGLang: MLA and the DeepSeek-V3.2 indexer keys in the pool's size line", "[calibration][sglang]") {
  // [2025-10-07 23:17:19 DP0 TP0] KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB
  // fp8 KV on B200 (SGLang's default there): per layer 656 B of latent (512 fp8 + 4 scales per 128
  // + 64 bf16 rope) and 132 B of indexer key and scale, 61 layers, pages of 64 tokens.
  const SglangMemory ds = pool_of(preset("deepseek-v3.2").config, {{"kvt", "fp8"}, {"tp", "8"}, {"gpus", "8"}, {"mfs", "0.8"}});
  CHECK(ds.mla);
  CHECK(ds.page_size == 64);
  // The pool's size counts the latent as 576 fp8 bytes (get_cell_size_per_token); it stores 656.
  CHECK(ds.cell_bytes == 61 * (576 + 132));
  CHECK(ds.nsa_fp8_latent);
  auto at = sglang_with_tokens(ds, 975424);
  REQUIRE(at.ok());
  CHECK(sglang_log(*at)[1] == "KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB");
  // Qwen3-235B-A22B-FP8 at TP 4: 4 KV heads split over 4 GPUs, 94 layers, bf16 cache:
  //   KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB
  const ModelConfig q = preset("qwen3-235b-a22b").config;
  const SglangMemory qm = pool_of(q, {{"tp", "4"}, {"gpus", "4"}, {"mfs", "0.93"}});
  auto qa = sglang_with_tokens(qm, 367404);
  REQUIRE(qa.ok());
  CHECK(sglang_log(*qa)[1] == "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB");
}

TEST_CASE("SGLang: defaults by card, refusals, and the estimate without a log", "[calibration][sglang]") {
  // The late-2025 heuristic on an H100 (nvidia-smi 81559 MiB) at TP 1: chunked prefill 8192, CUDA graphs
  // up to 256, reserve max(512 + 1.5 × 8192 + 2 × 256 + 128, 10240) = 13440 MiB → 0.835.
  Workload w = with({{"rt", "sglang"}, {"seq", "131072"}});
  const auto e = estimate(preset("llama-3.1-8b").config, w);
  REQUIRE(e.ok());
  REQUIRE(e->sglang.has_value());
  const SglangMemory& m = *e->sglang;
  CHECK(m.mfs_default);
  CHECK(m.chunked_prefill_size == 8192);
  CHECK(m.cuda_graph_max_bs == 256);
  CHECK(m.reserved_mib == 13440);
  CHECK(m.mem_fraction_static == 0.835);
  // Without a log the free memory before the load is the CUDA total less 0.51 GiB of context: the
  // published quick-start (78.81 GiB free) at its 0.88 gives 444,500 tokens; llmsize from the catalog 0.08% fewer.
  const auto q = estimate(preset("llama-3.1-8b").config, with({{"rt", "sglang"}, {"seq", "131072"}, {"mfs", "0.88"}}));
  REQUIRE(q.ok());
  CHECK(static_cast<double>(q->sglang->max_total_tokens) / 444500 - 1 == Approx(-0.0008).margin(0.0005));
  CHECK(q->inference.max_sequences == q->sglang->max_total_tokens / 131072);
  // Refusals name their field.
  auto note = [](const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload x = with(kv);
    x.runtime = Runtime::Sglang;
    const auto r = estimate(c, x);
    REQUIRE(r.ok());
    CHECK_FALSE(r->sglang.has_value());
    REQUIRE_FALSE(r->notes.empty());
    return r->notes.front().field;
  };
  CHECK(note(preset("llama-3.1-8b").config, {{"gpu", "h800"}}) == "mfs");  // no nvidia-smi total recorded
  CHECK(note(preset("llama-3.1-8b").config, {{"gpu", "h800"}, {"mfs", "0.9"}}) == "gpu");  // nor a CUDA total
  CHECK(note(preset("granite-4.0-h-small").config, {}) == "rt");  // its state path in SGLang is not established
  CHECK(note(preset("gemma-4-31b").config, {}) == "rt");  // later than the version followed
  CHECK(note(preset("llama-3.1-8b").config, {{"kvt", "q4_0"}}) == "kvt");
  // Too little memory: SGLang's own error.
  const auto tight = estimate(preset("llama-3.1-70b").config, with({{"rt", "sglang"}, {"w", "fp8"}}));
  REQUIRE(tight.ok());
  REQUIRE(tight->sglang.has_value());
  CHECK(tight->sglang->error == "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.");
  CHECK_FALSE(tight->inference.fits);
}

TEST_CASE("SGLang: the hybrid sliding-window pool's lines, sized as published", "[calibration][sglang]") {
  // MiMo-V2-Flash is not a family llmsize reads, so its pools' rows are given from its config
  // (hidden 4096, 48 layers; 39 sliding with 8 KV heads, 9 full with 4; head_dim 192, v_head_dim 128;
  // TP 4 → 2 and 1 heads per rank, bf16): the sizes of each pool's tensors from its #tokens and page.
  SglangMemory m;
  m.hybrid = true;
  m.swa_ratio = 0.8;
  m.page_size = 64;
  m.context_len = 4096;
  m.swa_k_row_bytes = 39 * 2 * 192 * 2;
  m.swa_v_row_bytes = 39 * 2 * 128 * 2;
  m.k_row_bytes = 9 * 1 * 192 * 2;
  m.v_row_bytes = 9 * 1 * 128 * 2;
  // PR #18039: "[2026-01-31 13:50:39 TP2] Use sliding window memory pool. full_layer_tokens=375360, swa_layer_tokens=300288"
  //            "[2026-01-31 13:50:39 TP1] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB"
  auto b = sglang_with_tokens(m, 375360);  // the sliding pool from the ratio: int(375360 × 0.8) to whole pages
  REQUIRE(b.ok());
  CHECK(b->swa_tokens == 300288);
  const auto lines = sglang_log(*b);
  REQUIRE(lines.size() >= 5);
  CHECK(lines[1] == "Use sliding window memory pool. full_layer_tokens=375360, swa_layer_tokens=300288");
  CHECK(lines[2] == "KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB");
  // PR #15464 (before the ratio was applied to MiMo: both pools 1496958 tokens, page 1):
  //   "KV Cache is allocated. #tokens: 1496958, K size: 41.76 GB, V size: 27.84 GB"
  //   "KV Cache is allocated. #tokens: 1496958, K size: 4.82 GB, V size: 3.21 GB"
  //   "SWAKVPool mem usage: 77.63 GB, swa size: 1496958, full size: 1496958"
  m.page_size = 1;
  auto a = sglang_with_tokens(m, 1496958, "log", 1496958);
  REQUIRE(a.ok());
  const auto al = sglang_log(*a);
  CHECK(al[2] == "KV Cache is allocated. #tokens: 1496958, K size: 41.76 GB, V size: 27.84 GB");
  CHECK(al[3] == "KV Cache is allocated. #tokens: 1496958, K size: 4.82 GB, V size: 3.21 GB");
  CHECK(al[4] == "SWAKVPool mem usage: 77.63 GB, swa size: 1496958, full size: 1496958");

  // The logs read back: each pool's line to its own figures (by size where the log gives both
  // sizes, else the sliding pool's line first).
  for (const char* file : {"sglang-mimo-v2-flash-swa.log", "sglang-mimo-v2-flash-ratio.log"}) {
    INFO(file);
    auto log = parse_engine_log(read_text(std::string("fuzz/corpus/engine_log/") + file));
    REQUIRE(log.ok());
    CHECK(log->engine == LogEngine::SGLang);
    REQUIRE(log->find("swa_tokens"));
    REQUIRE(log->find("swa_k_bytes"));
  }
  auto ratio = parse_engine_log(read_text("fuzz/corpus/engine_log/sglang-mimo-v2-flash-ratio.log"));
  CHECK(ratio->find("kv_tokens")->value == 375360);
  CHECK(ratio->find("swa_tokens")->value == 300288);
  CHECK(ratio->find("k_bytes") == nullptr);  // its full pool's line is not in the excerpt
  auto swa = parse_engine_log(read_text("fuzz/corpus/engine_log/sglang-mimo-v2-flash-swa.log"));
  CHECK(swa->find("swa_k_bytes")->value == Approx(41.76 * 1073741824.0));
  CHECK(swa->find("k_bytes")->value == Approx(4.82 * 1073741824.0));
  CHECK(swa->find("kv_bytes")->value == Approx(77.63 * 1073741824.0));
}

TEST_CASE("SGLang: Llama 4's chunked layers in the hybrid pool, as late 2025 splits it", "[calibration][sglang]") {
  // Llama-4-Scout at TP 4 on H100: 48 layers, every fourth full, the rest chunked (8,192 tokens);
  // 8 KV heads of 128 → 2 per rank, bf16: 512 B of K and of V per layer and token.
  const auto e = estimate(preset("llama-4-scout").config,
                          with({{"rt", "sglang"}, {"tp", "4"}, {"gpus", "4"}, {"seq", "8192"}, {"mfs", "0.85"}}));
  REQUIRE(e.ok());
  REQUIRE(e->sglang.has_value());
  const SglangMemory& m = *e->sglang;
  CHECK(m.hybrid);
  CHECK(m.full_layers == 12);
  CHECK(m.swa_layers == 36);
  CHECK(m.window == 8192);
  CHECK(m.cell_bytes == 48 * 1024);  // get_cell_size_per_token: every layer, the sliding ones too
  // set_num_tokens_hybrid_swa: total_tokens = T × num_hidden_layers; full = int(total / (0.8 × 36 + 12));
  // swa = int(full × 0.8) (page 1).
  CHECK(m.max_total_tokens == static_cast<i64>(static_cast<double>(m.profiled_tokens * 48) / (0.8 * 36 + 12)));
  CHECK(m.swa_tokens == static_cast<i64>(static_cast<double>(m.max_total_tokens) * 0.8));
  CHECK(m.swa_k_bytes == (m.swa_tokens + 1) * 36 * 512);
  CHECK(m.k_bytes == (m.max_total_tokens + 1) * 12 * 512);
  // The split spends what the plain pool would, to a cell: (full × 12 + swa × 36) ≈ T × 48 rows.
  CHECK(std::abs((m.max_total_tokens * 12 + m.swa_tokens * 36) - m.profiled_tokens * 48) <= 48);
  const auto lines = sglang_log(m);
  CHECK(lines[1].rfind("Use sliding window memory pool. full_layer_tokens=", 0) == 0);
  CHECK(lines[4].rfind("SWAKVPool mem usage: ", 0) == 0);
  // Requests of 8,192 tokens: the full layers' pool / 8,192 and the sliding layers' / min(8,192, chunk).
  CHECK(e->inference.max_sequences == std::min(m.max_total_tokens / 8192, m.swa_tokens / 8192));
  // Its own lines read back by check-log: every row the same text.
  Workload w = with({{"tp", "4"}, {"gpus", "4"}, {"seq", "8192"}, {"mfs", "0.85"}});
  std::string text;
  for (const auto& l : lines) text += "[2026-01-01 00:00:00 TP0] " + l + "\n";
  auto log = parse_engine_log(text);
  REQUIRE(log.ok());
  auto c = check_log(*log, preset("llama-4-scout").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  // Its pools' sizes at the log's #tokens exactly; the tokens resized from the free memory the log
  // prints to 0.01 GB, within that rounding.
  for (const char* key : {"k_bytes", "v_bytes", "swa_k_bytes", "swa_v_bytes", "kv_bytes"}) {
    INFO(key);
    CHECK(row(*c, key).same_text);
  }
  CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 0.001);
  CHECK(std::abs(row(*c, "swa_tokens").rel_diff) < 0.001);
  // --disable-hybrid-swa-memory: one pool, every layer at full length (the profiled tokens).
  const auto one = estimate(preset("llama-4-scout").config,
                            with({{"rt", "sglang"}, {"tp", "4"}, {"gpus", "4"}, {"seq", "8192"}, {"mfs", "0.85"}, {"dhswa", "1"}}));
  REQUIRE(one.ok());
  REQUIRE(one->sglang.has_value());
  CHECK_FALSE(one->sglang->hybrid);
  CHECK(one->sglang->max_total_tokens == m.profiled_tokens);
  // A lower ratio gives the full layers more.
  const auto half = estimate(preset("llama-4-scout").config,
                             with({{"rt", "sglang"}, {"tp", "4"}, {"gpus", "4"}, {"seq", "8192"}, {"mfs", "0.85"}, {"swar", "0.5"}}));
  REQUIRE(half.ok());
  CHECK(half->sglang->max_total_tokens > m.max_total_tokens);
  CHECK(half->sglang->swa_tokens == static_cast<i64>(static_cast<double>(half->sglang->max_total_tokens) * 0.5));
}

TEST_CASE("SGLang from March 2026: gpt-oss keeps the hybrid sliding-window pool unless trtllm_mha", "[calibration][sglang]") {
  // server_args.py of 2026: "Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention
  // backend" — the pool stays on elsewhere; gpt-oss's sliding_attention layers (layer_types) are the
  // sliding pool's. The log (SGLang main of 2026-03-06, gpt-oss-120b on an RTX PRO 6000, every default):
  //   Use sliding window memory pool. full_layer_tokens=318715, swa_layer_tokens=254972
  //   KV Cache is allocated. #tokens: 254972, K size: 4.38 GB, V size: 4.38 GB
  //   KV Cache is allocated. #tokens: 318715, K size: 5.47 GB, V size: 5.47 GB
  //   SWAKVPool mem usage: 19.70 GB, swa size: 254972, full size: 318715
  // 36 layers, 18 sliding (window 128) and 18 full, 8 KV heads of 64: 1,024 B of K a layer and token.
  const ModelConfig oss = preset("gpt-oss-120b").config;
  const auto pool = [&](std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.runtime = Runtime::Sglang;
    w.weights = WeightFormat::Mxfp4;
    const auto e = estimate(oss, w);
    REQUIRE(e.ok());
    REQUIRE(e->sglang);
    return *e->sglang;
  };
  const SglangMemory m = pool({{"gpu", "rtx-pro-6000-blackwell-server"}, {"sgb", "2026-03"}});
  CHECK(m.hybrid);
  CHECK(m.full_layers == 18);
  CHECK(m.swa_layers == 18);
  CHECK(m.window == 128);
  CHECK(m.swa_k_row_bytes == 18 * 8 * 64 * 2);
  CHECK(m.version == sglang_version(SglangBuild::Mar2026));
  // At the log's own tokens every line is the log's.
  auto at = sglang_with_tokens(m, 318715);
  REQUIRE(at.ok());
  CHECK(at->swa_tokens == 254972);  // int(318,715 × 0.8), pages of 1
  const auto lines = sglang_log(*at);
  CHECK(std::find(lines.begin(), lines.end(), "Use sliding window memory pool. full_layer_tokens=318715, swa_layer_tokens=254972") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "KV Cache is allocated. #tokens: 254972, K size: 4.38 GB, V size: 4.38 GB") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "KV Cache is allocated. #tokens: 318715, K size: 5.47 GB, V size: 5.47 GB") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "SWAKVPool mem usage: 19.70 GB, swa size: 254972, full size: 318715") != lines.end());
  // check-log takes the build from the log: a gpt-oss pool with the sliding pool's lines.
  {
    auto log = parse_engine_log(read_text("fuzz/corpus/engine_log/sglang-2026-03-gpt-oss-120b-rtxpro6000.log"));
    REQUIRE(log.ok());
    Workload w = with({{"gpu", "rtx-pro-6000-blackwell-server"}, {"w", "mxfp4"}});
    auto c = check_log(*log, oss, w);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(c->workload.sglang_build == SglangBuild::Mar2026);
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& i) { return i.field == "sgb"; }));
    for (const char* key : {"k_bytes", "v_bytes", "swa_k_bytes", "swa_v_bytes", "kv_bytes"}) {
      INFO(key);
      CHECK(row(*c, key).same_text);
    }
    // MISS, stated: 356,445 full tokens where the log has 318,715 (+11.8%). The excerpt has no load
    // lines: its pool and "Memory pool end. avail mem=12.33 GB" leave about 2.4 GB more taken before
    // the pool than llmsize's 59.49 GB of MXFP4 experts and bf16 rest (SGLang's MXFP4 MoE layout on
    // this card is not traced), at the same default fraction (0.863 for 97,887 MiB).
    CHECK(row(*c, "kv_tokens").rel_diff == Approx(0.1184).margin(0.001));
  }
  // On SM100 gpt-oss takes trtllm_mha, and with it one pool (and pages of 64); so does late 2025 anywhere.
  const SglangMemory b200 = pool({{"gpu", "b200"}, {"sgb", "2026-03"}});
  CHECK_FALSE(b200.hybrid);
  CHECK(b200.trtllm_mha);
  CHECK_FALSE(pool({{"gpu", "rtx-pro-6000-blackwell-server"}}).hybrid);
  CHECK_FALSE(pool({{"gpu", "rtx-pro-6000-blackwell-server"}, {"sgb", "2026-03"}, {"dhswa", "1"}}).hybrid);
}

TEST_CASE("SGLang: sliding-window layers outside its hybrid list are sized at full length", "[calibration][sglang]") {
  // server_args.py disables the hybrid pool for Gemma 2/3 and (late 2025) gpt-oss; the pool holds
  // every layer's K and V for every token.
  for (const char* id : {"gemma-3-27b", "gpt-oss-20b", "gemma-2-9b"}) {
    INFO(id);
    const auto e = estimate(preset(id).config, with({{"rt", "sglang"}, {"mfs", "0.85"}}));
    REQUIRE(e.ok());
    REQUIRE(e->sglang.has_value());
    CHECK_FALSE(e->sglang->hybrid);
    CHECK(e->sglang->layers == preset(id).config.n_layers);
  }
}

TEST_CASE("SGLang: hybrid models' state slots (MambaPool) beside the full layers' token pool", "[calibration][sglang]") {
  // LFM2-700M (16 layers: 10 short convolutions of d = 1536 keeping conv_L_cache − 1 = 2 rows, 6 attention of 8 KV
  // heads × 64), sglang 0.5.6.post2:
  //   Load weight begin. avail mem=15.33 GB / Load weight end. … avail mem=13.81 GB, mem usage=1.52 GB.
  //   Mamba Cache is allocated. max_mamba_cache_size: 85292, conv_state size: 4.88GB, ssm_state size: 0.00GB
  //   KV Cache is allocated. #tokens: 473854, K size: 2.71 GB, V size: 2.71 GB
  // handle_max_mamba_cache: 0.9 / 1.9 of the rest in whole slots of 61,440 B, the rest to 12,288 B tokens.
  {
    const LogCheck c = checked("sglang-lfm2-700m.log", import_file("calibration/configs/lfm2-700m.json"),
                               {{"mfs", "0.771"}, {"gpu", "rtx-4090"}});
    // The free memory printed to 0.01 GB moves the slots by up to ±50 and the tokens by ±300.
    CHECK(std::abs(row(c, "mamba_slots").ours_value - 85292) <= 50);
    CHECK(std::abs(row(c, "kv_tokens").ours_value - 473854) <= 300);
    for (const char* key : {"mamba_conv_bytes", "mamba_ssm_bytes", "k_bytes", "v_bytes"}) {
      INFO(key);
      CHECK(row(c, key).same_text);  // each pool's tensors at the log's own counts, to the printed 0.01 GB
    }
  }
  // Qwen3.5-9B at TP 2 (24 Gated DeltaNet layers: conv (4096, 3) bf16 + SSM (16, 128, 128) fp32 = 1,073,152 B each; 8
  // full layers of 2 KV heads × 256 per rank): a 2026 main build that runs Qwen3.5 —
  //   Init torch distributed ends. elapsed=1.15 s, mem usage=0.19 GB
  //   Load weight begin. avail mem=22.93 GB
  //   Load weight end. … avail mem=14.08 GB, mem usage=8.85 GB.
  //   Mamba Cache is allocated. max_mamba_cache_size: 186, conv_state size: 0.10GB, ssm_state size: 4.38GB
  //   KV Cache is allocated. #tokens: 327310, K size: 2.50 GB, V size: 2.50 GB
  //   max_total_num_tokens=327310, …, max_running_requests=62, context_len=262144
  const ModelConfig q = preset("qwen3.5-9b").config;
  const LogCheck c = checked("sglang-qwen3.5-9b-tp2.log", q, {{"mfs", "0.8"}, {"tp", "2"}, {"gpus", "2"}, {"gpu", "rtx-4090"}});
  for (const char* key : {"mamba_conv_bytes", "mamba_ssm_bytes", "k_bytes", "v_bytes", "max_running_requests"}) {
    INFO(key);
    CHECK(row(c, key).same_text);  // 187 × 24 × 1 MiB of SSM state, the +1 padding slot; 62 = 186 / 3
  }
  // MISS: one slot. From "Load weight begin" (22.93) the split gives 187 slots and 328,234 tokens; this build
  // measures the free memory before its distributed init, 0.19 GB earlier: from 23.12 the split is the log's
  // 186 slots and 327,316 tokens (6 over, the 0.01 GB rounding).
  CHECK(row(c, "mamba_slots").ours_value == 187);
  Workload w = with({{"mfs", "0.8"}, {"tp", "2"}, {"gpus", "2"}, {"gpu", "rtx-4090"}, {"seq", "262144"}});
  w.runtime = Runtime::Sglang;
  const auto e = estimate(q, w);
  REQUIRE(e.ok());
  auto early = sglang_memory(q, e->plan, e->inference, w, e->gpu, std::make_pair(22.93 + 0.19, 14.08));
  REQUIRE(early.ok());
  CHECK(early->mamba_slots == 186);
  CHECK(early->max_total_tokens - 327310 == 6);
  CHECK(early->max_running_requests == 62);
  // The estimate's concurrency is at most the running requests the slots allow.
  REQUIRE(e->sglang.has_value());
  CHECK(e->inference.max_sequences <= e->sglang->mamba_slots / 3);
  // Families whose state path in SGLang is not followed are refused by name.
  Workload j = with({{"mfs", "0.85"}});
  j.runtime = Runtime::Sglang;
  const auto jamba = estimate(preset("jamba-1.5-mini").config, j);
  REQUIRE(jamba.ok());
  CHECK_FALSE(jamba->sglang.has_value());
  CHECK(jamba->notes.front().field == "rt");
}

TEST_CASE("SGLang: Falcon-H1's layers hold a state slot and K and V", "[calibration][sglang]") {
  // No published start-up; configs/falcon_h1.py lists every layer both as a Mamba-2 layer
  // (mamba2_cache_params) and among full_attention_layer_ids. Falcon-H1-0.5B, 36 layers: a slot of
  // conv 36 × (4 − 1) × (1,536 + 2 · 128) × 2 B and SSM 36 × 24 × 64 × 128 × 4 B (float32), and a
  // token of 36 × 2 KV heads × 64 × 2 (K and V) × 2 B.
  const SglangMemory f = pool_of(preset("falcon-h1-0.5b").config, {{"mfs", "0.8"}});
  CHECK(f.mamba_layers == 36);
  CHECK(f.mamba_conv_bytes == 36 * 3 * 1792 * 2);
  CHECK(f.mamba_ssm_bytes == 36 * 24 * 64 * 128 * 4);
  CHECK(f.layers == 36);
  CHECK(f.cell_bytes == 36 * 2 * 64 * 2 * 2);
  CHECK(f.mamba_slots > 0);
  CHECK(f.max_total_tokens > 0);
}

TEST_CASE("SGLang: --mamba-ssm-dtype bfloat16 halves a slot's SSM state, as published start-ups print it", "[calibration][sglang]") {
  // The SSM state's dtype (configs/mamba_utils.py mamba2_state_dtype: float32 unless --mamba-ssm-dtype, through
  // SGLANG_MAMBA_SSM_DTYPE, says otherwise); the convolution state stays bf16. MambaPool prints each state over
  // slots + 1 rows (slot 0 pads).
  const auto gb = [](i64 per_slot, i64 slots) { return fixed(static_cast<double>(per_slot * (slots + 1)) / kGiB, 2); };
  // KI-KUBE/dgxarley@31e6af1, TESTLOGS/sglang_nn4_tp4_ep1/nemotron-3-nano-omni-30b-a3b-reasoning-nvfp4/
  // TESTLOG_sglang-0.5.21-sm121_nemotron-3-nano-omni-30b-a3b-reasoning-nvfp4_4n.md (2026-10-08, SGLang 0.5.21, TP 4 over
  // four GB10 nodes; the Omni checkpoint's language model is Nemotron-3 Nano 30B-A3B): case 01, "mamba_ssm_dtype None
  // (model default float32)":
  //   Mamba Cache is allocated. max_mamba_cache_size: 2211, conv_state size: 0.44GB, ssm_state size: 24.84GB
  // and case 04, "mamba_ssm_dtype: bfloat16", everything else as case 01, in the log's words: "max_mamba_cache_size
  // doubles (2211 to 4348, ssm_state 24.42 GB)".
  const ModelConfig n = preset("nemotron-3-nano-30b-a3b").config;
  const std::initializer_list<std::pair<const char*, const char*>> tp4 = {{"mfs", "0.8"}, {"tp", "4"}, {"gpus", "4"}};
  const SglangMemory f32 = pool_of(n, tp4);
  Workload w = with(tp4);
  REQUIRE_FALSE(find_field("msd")->set(w, "bfloat16"));
  w.runtime = Runtime::Sglang;
  const auto e = estimate(n, w);
  REQUIRE(e.ok());
  const auto bf16 = sglang_memory(n, e->plan, e->inference, w, e->gpu, std::make_pair(1000.0, 900.0));
  REQUIRE(bf16.ok());
  // 23 Mamba-2 layers at TP 4: conv (6,144 / 4, 3) bf16 = 9,216 B and SSM (64 / 4, 64, 128) = 524,288 B fp32 each.
  CHECK(f32.mamba_layers == 23);
  CHECK(f32.mamba_ssm_dtype == "float32");
  CHECK(f32.mamba_conv_bytes == 23 * 9216);
  CHECK(f32.mamba_ssm_bytes == 23 * 524288);
  CHECK(gb(f32.mamba_conv_bytes, 2211) == "0.44");
  CHECK(gb(f32.mamba_ssm_bytes, 2211) == "24.84");
  CHECK(bf16->mamba_ssm_dtype == "bfloat16");
  CHECK(bf16->mamba_conv_bytes == f32.mamba_conv_bytes);
  CHECK(bf16->mamba_ssm_bytes * 2 == f32.mamba_ssm_bytes);
  CHECK(gb(bf16->mamba_ssm_bytes, 4348) == "24.42");
  // The slots themselves: the state pool takes 0.9 / 1.9 of what is left, in whole slots, so the count grows as the
  // slot shrinks: 12,270,592 B to 6,241,280 B (the convolution state keeps its size), 1.966 times. The log's own
  // counts: 2,211 × 12,270,592 / 6,241,280 = 4,346.9 slots in the same memory, where case 04 printed 4,348 (the
  // boots' free memory differs by a few MB: the file's fp32 cases alone print 2,211 to 2,244).
  const i64 per32 = f32.mamba_conv_bytes + f32.mamba_ssm_bytes, per16 = bf16->mamba_conv_bytes + bf16->mamba_ssm_bytes;
  CHECK(per32 == 12270592);
  CHECK(per16 == 6241280);
  CHECK(std::abs(bf16->mamba_slots - f32.mamba_slots * per32 / per16) <= 2);  // each count floored: ≤ 1.966 + 1 apart
  CHECK(std::abs(2211.0 * static_cast<double>(per32) / static_cast<double>(per16) - 4348.0) < 2.0);
  // ausboss/qwen38-5090-lab@8386267, skills/qwen38-local/references/memory-model.md (SGLang 0.5.17, an RTX 5090):
  // Qwen3.8-27B with bin/serve.sh's "--mamba-ssm-dtype bfloat16 … --max-mamba-cache-size 10" (the author elides the
  // convolution state's figure):
  //   Mamba Cache is allocated. max_mamba_cache_size: 10, ... ssm_state size: 0.77GB
  // 48 Gated DeltaNet layers, SSM (48, 128, 128) bf16 = 1,572,864 B each.
  const SglangMemory q = pool_of(preset("qwen3.8-27b").config, {{"mfs", "0.92"}, {"msd", "bfloat16"}, {"gpu", "rtx-5090"}});
  CHECK(q.mamba_layers == 48);
  CHECK(q.mamba_ssm_bytes == 48 * 1572864);
  CHECK(gb(q.mamba_ssm_bytes, 10) == "0.77");
  // The fields as SGLang spells them; float16 is refused by name (not shown to be a choice in the builds followed).
  Workload h = with({{"mfs", "0.8"}, {"msd", "float16"}});
  h.runtime = Runtime::Sglang;
  const auto half = estimate(n, h);
  REQUIRE(half.ok());
  CHECK_FALSE(half->sglang.has_value());
  REQUIRE_FALSE(half->notes.empty());
  CHECK(half->notes.front().field == "msd");
  CHECK(half->notes.front().message.find("float16") != std::string::npos);
  // A model without a recurrent state ignores it.
  CHECK(pool_of(preset("qwen3-8b").config, {{"mfs", "0.8"}, {"msd", "bfloat16"}}).mamba_layers == 0);
  // check-log reads it from server_args (0.5.6 prints mamba_ssm_dtype='float32' by default; later builds None, the
  // config's) or from a launch line, and sizes the slot with it.
  for (const auto& [line, want] : {std::pair{"server_args=ServerArgs(model_path='Qwen/Qwen3.5-9B', tp_size=2, mamba_ssm_dtype='bfloat16', "
                                             "mem_fraction_static=0.8)",
                                             "bfloat16"},
                                   std::pair{"python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --mamba-ssm-dtype bfloat16", "bfloat16"},
                                   std::pair{"sglang serve --model-path Qwen/Qwen3.5-9B --mamba-ssm-dtype float32", "float32"},
                                   // A command wrapped with '\': the flag on a continued line.
                                   std::pair{"python3 -m sglang.launch_server \\\n  --model-path Qwen/Qwen3.5-9B \\ \n  --tp 2 \\\n"
                                             "  --mamba-ssm-dtype bfloat16",
                                             "bfloat16"}}) {
    INFO(line);
    auto log = parse_engine_log(std::string(line) + "\nMamba Cache is allocated. max_mamba_cache_size: 186, conv_state size: 0.10GB, "
                                                    "ssm_state size: 4.38GB\n");
    REQUIRE(log.ok());
    CHECK(log->engine == LogEngine::SGLang);
    const auto it = std::find_if(log->settings.begin(), log->settings.end(), [](const auto& kv) { return kv.first == "msd"; });
    REQUIRE(it != log->settings.end());
    CHECK(it->second == want);
  }
  // The wrapped command gave --tp 2 too; a line after the command ends is not part of it.
  auto wrapped = parse_engine_log("python3 -m sglang.launch_server \\\n  --tp 2 \\\n  --model-path Qwen/Qwen3.5-9B\n"
                                  "echo --mamba-ssm-dtype bfloat16\n"
                                  "Mamba Cache is allocated. max_mamba_cache_size: 186, conv_state size: 0.10GB, ssm_state size: 4.38GB\n");
  REQUIRE(wrapped.ok());
  llmsize::test::check_settings(*wrapped, {{"tp", "2"}});
  CHECK(std::none_of(wrapped->settings.begin(), wrapped->settings.end(), [](const auto& kv) { return kv.first == "msd"; }));
  auto none = parse_engine_log("server_args=ServerArgs(model_path='Qwen/Qwen3.5-9B', mamba_ssm_dtype=None, mem_fraction_static=0.8)\n"
                               "Mamba Cache is allocated. max_mamba_cache_size: 186, conv_state size: 0.10GB, ssm_state size: 4.38GB\n");
  REQUIRE(none.ok());
  CHECK(std::none_of(none->settings.begin(), none->settings.end(), [](const auto& kv) { return kv.first == "msd"; }));
}

TEST_CASE("SGLang: the free memory after the pools (\"Memory pool end\"), at the log's own #tokens", "[calibration][sglang]") {
  // init_memory_pool allocates, after the load, req_to_token (max_num_reqs rows of context_len + 4
  // int32), one K and one V tensor per layer ((#tokens + page) rows, each a segment rounded up to
  // 2 MiB) and the allocator's int64 free indices, then prints the free memory left. Every input
  // is printed to 0.01 GB (the free memory after the load ±0.005), so the line is checked to 0.02 GB.
  struct Case {
    const char* file;
    ModelConfig config;
    std::vector<std::pair<const char*, const char*>> flags;
    const char* logged;
    double ours_gib;
  };
  const Case cases[] = {
      // [2026-04-27 02:36:06] Load weight end. elapsed=1.97 s, type=Qwen3ForCausalLM, avail mem=162.30 GB, mem usage=15.28 GB.
      // [2026-04-27 02:36:06] KV Cache is allocated. #tokens: 992896, K size: 68.18 GB, V size: 68.18 GB
      // [2026-04-27 02:36:06] Memory pool end. avail mem=25.26 GB
      // (`sglang serve` with every default: the model's own context, 40,960, which this excerpt does not print)
      {"sglang-2026-04-qwen3-8b-b200.log", preset("qwen3-8b").config, {{"gpu", "b200"}, {"seq", "40960"}}, "25.26 GB", 25.267},
      // [2026-05-24 00:52:54] Load weight end. elapsed=2.62 s, type=Qwen3ForCausalLM, avail mem=260.48 GB, mem usage=15.28 GB.
      // [2026-05-24 00:52:54] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1707904, K size: 117.28 GB, V size: 117.28 GB
      // [2026-05-24 00:52:54] Memory pool end. avail mem=25.28 GB
      {"sglang-2026-05-qwen3-8b-b300.log", preset("qwen3-8b").config, {{"gpu", "b300"}}, "25.28 GB", 25.290},
      // [2026-08-27 03:45:53] Load weight end. elapsed=12.02 s, type=Qwen3MoeForCausalLM, quant=fp8, fmt=e4m3, avail mem=49.33 GB, mem usage=29.15 GB.
      // [2026-08-27 03:45:54] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 392920, K size: 17.99 GB, V size: 17.99 GB
      // [2026-08-27 03:45:54] Memory pool end. avail mem=12.70 GB
      {"sglang-qwen3-30b-a3b-fp8.log", preset("qwen3-30b-a3b").config, {{"gpu", "h100-sxm"}}, "12.70 GB", 12.700},
      // [2025-08-08 03:34:38] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=13.91 GB, mem usage=1.25 GB.
      // [2025-08-08 03:34:38] KV Cache is allocated. #tokens: 104273, K size: 5.57 GB, V size: 5.57 GB
      // [2025-08-08 03:34:38] Memory pool end. avail mem=2.43 GB
      {"sglang-qwen3-0.6b-5080.log", import_file("calibration/configs/qwen3-0.6b.json"), {{"mfs", "0.818"}, {"gpu", "rtx-5090"}},
       "2.43 GB", 2.439},
      // [2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.72 GB
      // [2025-01-23 19:35:20 TP0] KV Cache is allocated. K size: 27.13 GB, V size: 27.13 GB.
      // [2025-01-23 19:35:20 TP0] Memory pool end. avail mem=8.34 GB
      // (#tokens from its max_total_num_tokens=444500; that build's pool had max_num_reqs + 1 rows, within the same segment)
      {"sglang-llama-3.1-8b-2025-01.log", preset("llama-3.1-8b").config, {{"mfs", "0.88"}}, "8.34 GB", 8.340},
      // QwQ-32B on 4 × L4, TP 4 (2025-03-08): a rank's two KV heads of its 64 layers, 12 MiB segments each
      // [2025-03-08 12:29:21 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=6.09 GB, mem usage=15.54 GB.
      // [2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: 1.42 GB
      // [2025-03-08 12:29:21 TP0] Memory pool end. avail mem=2.09 GB
      {"sglang-qwq-32b-4xl4.log", import_file("calibration/configs/qwq-32b.json"),
       {{"mfs", "0.85"}, {"tp", "4"}, {"gpus", "4"}, {"gpu", "l4"}}, "2.09 GB", 2.088},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    const LogCheck c = checked(k.file, k.config, k.flags);
    const LogCheckRow& r = row(c, "pool_end_bytes");
    CHECK(r.logged == k.logged);
    CHECK(r.ours_value / kGiB == Approx(k.ours_gib).margin(0.0005));
    CHECK(std::abs(r.ours_value - r.logged_value) <= 0.02 * kGiB);
    // The printed line is llmsize's own start-up (its own #tokens, which differ from the log's by up to 0.41%).
    CHECK(std::count_if(c.lines.begin(), c.lines.end(), [](const std::string& l) { return l.rfind("Memory pool end. avail mem=", 0) == 0; }) == 1);
  }
  // MISS: two Llama-3.1-8B start-ups of 2025 (context 131,072) free less than the pools explain (a build
  // of the same month as the QwQ run above matches, so it is not the version's pools alone):
  //   PR #4760 (2025-03-25): avail mem=63.48 GB after the load, 442,750 tokens, "Memory pool end. avail mem=8.26 GB"
  //     where the pools leave 8.35 (0.09 GB more allocated);
  //   the 24 GB card (2025-07-14): avail mem=7.37 GB, 38,141 tokens, "Memory pool end. avail mem=1.46 GB" where they
  //     leave 1.62 (0.16 GB more). What those builds allocated besides req_to_token, the KV tensors and the free
  //     indices is not traced; the six start-ups above match.
  const LogCheck fa3 = checked("sglang-llama-3.1-8b-fa3.log", preset("llama-3.1-8b").config, {{"mfs", "0.88"}, {"seq", "131072"}});
  CHECK(row(fa3, "pool_end_bytes").ours_value / kGiB == Approx(8.35).margin(0.005));
  CHECK(row(fa3, "pool_end_bytes").logged == "8.26 GB");
  const LogCheck small = checked("sglang-llama-3.1-8b-24gb.log", preset("llama-3.1-8b").config, {{"mfs", "0.879"}, {"gpu", "rtx-4090"}});
  CHECK(row(small, "pool_end_bytes").ours_value / kGiB == Approx(1.618).margin(0.0005));
  CHECK(row(small, "pool_end_bytes").logged == "1.46 GB");
}

TEST_CASE("SGLang: req_to_token and the pools' segments, term by term", "[calibration][sglang]") {
  // Qwen3-8B on a B200 at the log's 992,896 tokens (pages of 64), context 40,960:
  // max_num_reqs = min(max(int(992896 / 40960 × 512), 2048), 4096) = 4096 rows of 40,964 int32;
  // K and V: 992,960 rows × 8 heads × 128 × 2 B = 2,033,582,080 B each, a segment of 2,034,237,440 (970 × 2 MiB);
  // the free pages: 15,514 int64.
  SglangMemory m = pool_of(preset("qwen3-8b").config, {{"gpu", "b200"}, {"seq", "40960"}});
  auto at = sglang_with_tokens(m, 992896);
  REQUIRE(at.ok());
  CHECK(at->max_num_reqs == 4096);
  CHECK(at->req_to_token_bytes == 4096LL * 40964 * 4);
  CHECK(at->kv_segment_bytes == 72LL * 970 * 2097152);
  CHECK(at->free_index_bytes == 15514LL * 8);
  CHECK(at->pool_segment_bytes == 321LL * 2097152 + 72LL * 970 * 2097152 + 124416);
  // A short context: 2,048 requests is the floor; a pool of one-token pages keeps a slot per token.
  m.context_len = 4096;
  auto short_ctx = sglang_with_tokens(m, 100000);
  REQUIRE(short_ctx.ok());
  CHECK(short_ctx->max_num_reqs == 4096);  // int(100000 / 4096 × 512) = 12,500, capped at 4,096
  m.context_len = 131072;
  auto long_ctx = sglang_with_tokens(m, 100000);
  CHECK(long_ctx->max_num_reqs == 2048);
  CHECK(long_ctx->req_to_token_bytes == 2048LL * 131076 * 4);
  // Pools the line is not modelled for print nothing: a sliding-window pool, a state pool, NSA's indexer.
  const SglangMemory scout = pool_of(preset("llama-4-scout").config, {{"gpu", "h100-sxm"}, {"tp", "4"}, {"gpus", "4"}});
  CHECK(scout.hybrid);
  CHECK(scout.pool_segment_bytes == 0);
  // A log of such a pool keeps its line, named as not compared (LFM2's state pool):
  //   [2025-12-29 18:33:03 TP0] Memory pool end. avail mem=2.43 GB
  const LogCheck lfm2 = checked("sglang-lfm2-700m.log", import_file("calibration/configs/lfm2-700m.json"), {{"mfs", "0.771"}, {"gpu", "rtx-4090"}});
  CHECK(std::none_of(lfm2.rows.begin(), lfm2.rows.end(), [](const LogCheckRow& r) { return r.key == "pool_end_bytes"; }));
  CHECK(std::any_of(lfm2.notes.begin(), lfm2.notes.end(),
                    [](const Issue& n) { return n.message.find("Memory pool end. avail mem=2.43 GB") != std::string::npos; }));
}

TEST_CASE("SGLang: pools that need more than the load left free stop the start-up", "[calibration][sglang]") {
  // Llama-3.1-8B on a 24 GB card at a 131,072 context: req_to_token is 2,048 × 131,076 int32 (1 GiB),
  // taken from the 1 − mem_fraction_static share beside the KV pool. At 0.95 that share still holds
  // it (0.11 GB left); at 0.97 it does not, and torch raises before "Memory pool end".
  auto at = [](const char* mfs) {
    const Workload w = with({{"rt", "sglang"}, {"gpu", "rtx-4090"}, {"seq", "131072"}, {"mfs", mfs}});
    auto e = estimate(preset("llama-3.1-8b").config, w);
    REQUIRE(e.ok());
    REQUIRE(e->sglang);
    return e.value();
  };
  const auto fits = at("0.95");
  CHECK(fits.sglang->error.empty());
  CHECK(fits.sglang->req_to_token_bytes == 2048LL * 131076 * 4);
  CHECK(fits.sglang->pool_end_gib == Approx(0.11).margin(0.005));
  const auto oom = at("0.97");
  CHECK(oom.sglang->pool_end_gib < 0);
  CHECK(oom.sglang->error == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...");
  const auto lines = sglang_log(*oom.sglang);
  CHECK(lines.back() == oom.sglang->error);
  CHECK(std::none_of(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("KV Cache is allocated", 0) == 0; }));
  CHECK(oom.inference.max_sequences == 0);
  CHECK(oom.inference.max_context == 0);
  CHECK_FALSE(oom.inference.fits);
}

TEST_CASE("SGLang: an MLA pool's free memory after the pools (Kimi-K2.5, 8 × MI355X)", "[calibration][sglang]") {
  //   [2026-02-26 16:41:06 TP3] Load weight end. elapsed=606.34 s, type=KimiK25ForConditionalGeneration, dtype=torch.bfloat16, avail mem=209.96 GB, mem usage=73.58 GB.
  //   [2026-02-26 16:41:18 TP0] KV Cache is allocated. #tokens: 2454421, KV size: 160.63 GB
  //   [2026-02-26 16:41:18 TP3] Memory pool end. avail mem=45.23 GB
  // (TP3 and TP2 the least free of the 8 ranks; TP0: 209.98 and 45.25.)
  // Kimi-K2.5's language model is Kimi-K2's (61 DeepseekV3 layers, one latent of kv_lora_rank 512 +
  // qk_rope_head_dim 64 per token, whole on every rank), with a context of 262,144 (context_length=None:
  // the model's own). The pools at the log's tokens: 61 latent tensors of 2,454,422 × 576 × 2 B, each a
  // segment of 1,349 × 2 MiB; req_to_token 4,096 × 262,148 int32 (4 GiB, 2,049 × 2 MiB); the free slots 2,454,421 int64
  // (19.6 MB, a segment of 20 MiB). A context of 131,072 would leave 2 GB more (47.25).
  const ModelConfig c = preset("kimi-k2.5").config;  // context_length=None: its own 262,144
  // The fraction, TP, pages and context come from the log (server_args, the model's own context).
  const LogCheck k = checked("sglang-kimi-k2.5-mi355x-tp8.log", c, {{"gpu", "mi355x"}, {"gpus", "8"}, {"w", "int4-experts"}});
  CHECK(k.log.model == "moonshotai/Kimi-K2.5");
  CHECK(find_preset_by_hub(k.log.model)->id == "kimi-k2.5");
  CHECK(k.workload.mem_fraction_static == 0.8260405859375);
  CHECK(k.workload.tp == 8);
  CHECK(row(k, "k_bytes").same_text);  // the latent pool at the log's tokens: 160.63 GB
  // Tokens from the least free rank's 283.53 and 209.96 GiB: 2,454,504 against the log's 2,454,421
  // (+83, within the band the printed rounding allows; TP0's figures would give +133).
  CHECK(row(k, "kv_tokens").ours_value - row(k, "kv_tokens").logged_value == 83);
  // MISS, stated: the weights as the checkpoint stores them (int4 routed experts, the rest bf16; 554.27
  // GiB in all, families_test) come to 71.22 GB a rank at TP 8 against the log's "mem usage=73.58 GB"
  // (-3.2%, 2.4 GB). Not traced: the ROCm build may repack the int4 experts for its kernels at load, and
  // "mem usage" also holds what the loader leaves cached; the log prints nothing finer.
  CHECK(row(k, "weights_bytes").rel_diff == Approx(-0.0321).margin(0.001));
  const LogCheckRow& end = row(k, "pool_end_bytes");
  CHECK(end.logged == "45.23 GB");
  CHECK(end.ours == "45.22 GB");
  CHECK(std::abs(end.ours_value - end.logged_value) <= 0.02 * kGiB);
  SglangMemory m = pool_of(c, {{"gpu", "mi355x"}, {"tp", "8"}, {"gpus", "8"}, {"seq", "262144"}, {"mfs", "0.826"}});
  auto at = sglang_with_tokens(m, 2454421);
  REQUIRE(at.ok());
  CHECK(at->mla);
  CHECK(at->req_to_token_bytes == 4096LL * 262148 * 4);
  CHECK(at->kv_segment_bytes == 61LL * 1349 * 2097152);
  CHECK(at->pool_segment_bytes == 2049LL * 2097152 + 61LL * 1349 * 2097152 + 20 * 1048576);  // req_to_token in 2,049 × 2 MiB
}

TEST_CASE("SGLang: GLM-5-FP8's NSA pool on 8 × MI355X, sized from the ranks' least free memory", "[calibration][sglang]") {
  //   [2026-02-26 05:20:20 TP3] Load weight begin. avail mem=283.48 GB   (TP2 too; TP0: 283.50)
  //   [2026-02-26 05:24:15 TP3] Load weight end. elapsed=234.49 s, type=GlmMoeDsaForCausalLM, dtype=torch.bfloat16, avail mem=193.90 GB, mem usage=89.58 GB.
  //   [2026-02-26 05:35:08 TP0] KV Cache is allocated. #tokens: 3262823, KV size: 186.77 GB
  // SGLang sizes the pool from the smallest free memory of the 8 ranks (get_available_gpu_memory with
  // distributed=True), each rank printing its own: 283.48 and 193.90 GiB, not TP0's 283.50 and 193.92.
  // The pool's size counts 78 layers of a 576-byte fp8 latent and 132 bytes of indexer key and scale
  // (get_cell_size_per_token: 55,224 B a token); the pool stores 656 + 132 (calculate_mla_kv_cache_dim),
  // so it takes 186.77 GiB of a 167.82 GiB share and leaves 3.9 GB. On ROCm the DSA pages are 1 token.
  ModelConfig c = preset("glm-5").config;
  // The fraction, TP, fp8 cache and checkpoint come from the log's server_args; the card and the
  // checkpoint's fp8 blocks are given.
  const LogCheck k = checked("sglang-glm-5-fp8-mi355x-tp8.log", c, {{"gpu", "mi355x"}, {"gpus", "8"}, {"w", "fp8-block"}});
  CHECK(k.log.model == "zai-org/GLM-5-FP8");
  CHECK(k.workload.mem_fraction_static == 0.908);
  CHECK(k.workload.tp == 8);
  CHECK(k.workload.kv_dtype == KvDtype::Fp8);
  const LogCheckRow& tokens = row(k, "kv_tokens");
  CHECK(tokens.logged_value == 3262823);
  // MISS, stated: 163 tokens (9 MB) over, beyond the ±106 the printed rounding allows; SGLang reads
  // the free memory again when it sizes the pool, after the load line (not determined). TP0's own
  // figures would give 3,263,339 (+516).
  CHECK(tokens.ours_value == 3262986);
  CHECK(row(k, "k_bytes").same_text);  // 186.77 GB: 3,262,823 × 78 × 788 B
  // Weights within 1% (-0.96%): FP8 blocks of 128 with their scales, the indexer's wq_b, wk and
  // weights_proj whole on every rank (ReplicatedLinear), the MTP layer not loaded (no speculative
  // decoding); "mem usage" also holds what the loader leaves cached.
  CHECK(row(k, "weights_bytes").rel_diff == Approx(-0.0096).margin(0.001));
  // The free memory after the pools, against the least of the ranks' lines (TP2 and TP3: 3.88 GB, their
  // 193.90 after the load): req_to_token 4,096 × 202,756 int32 (1,585 × 2 MiB), 78 latents of 3,262,824
  // × 656 B (1,021 × 2 MiB each), 78 index buffers of 3,262,825 × 132 B (206 × 2 MiB each) and the free
  // slots 3,262,823 int64 (13 × 2 MiB): 190.047 GiB. MISS, stated: 3.85 GB, 0.03 GB (32 MiB) under; not traced.
  const LogCheckRow& end = row(k, "pool_end_bytes");
  CHECK(end.logged == "3.88 GB");
  CHECK(end.ours == "3.85 GB");
  const SglangMemory m = pool_of(c, {{"gpu", "mi355x"}, {"tp", "8"}, {"gpus", "8"}, {"kvt", "fp8"}, {"w", "fp8-block"}, {"mfs", "0.908"}});
  CHECK(m.page_size == 1);
  CHECK(m.cell_bytes == 78 * (576 + 132));
  CHECK(m.nsa_fp8_latent);
  auto at = sglang_with_tokens(m, 3262823);
  REQUIRE(at.ok());
  CHECK(sglang_log(*at)[1] == "KV Cache is allocated. #tokens: 3262823, KV size: 186.77 GB");
  CHECK(at->kv_segment_bytes == 78LL * (1021 + 206) * 2097152);
  // The same model on B200 (CUDA): pages of 64, as DeepSeek-V3.2's.
  CHECK(pool_of(c, {{"gpu", "b200"}, {"tp", "8"}, {"gpus", "8"}, {"kvt", "fp8"}, {"mfs", "0.8"}}).page_size == 64);
}

TEST_CASE("SGLang: small KV tensors share the allocator's 20 MiB segments; --max-running-requests and --max-total-tokens", "[calibration][sglang]") {
  // SGLang's docs CI (Qwen2.5-0.5B-Instruct, --max-total-tokens 20480 --max-running-requests 128):
  //   [2026-02-04 11:30:29] Load weight end. elapsed=0.38 s, type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=77.45 GB, mem usage=0.98 GB.
  //   [2026-02-04 11:30:29] KV Cache is allocated. #tokens: 20480, K size: 0.12 GB, V size: 0.12 GB
  //   [2026-02-04 11:30:29] Memory pool end. avail mem=77.12 GB
  //   [2026-02-04 11:30:31] max_total_num_tokens=20480, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=128, context_len=32768, available_gpu_mem=76.95 GB
  // Each of the 48 K and V tensors is 20,481 × 2 heads × 64 × 2 B = 5,243,136 B: three fit a 20 MiB
  // segment (a fourth would need 20,973,568), so 16 segments (0.3125 GiB), not 48; req_to_token is
  // 128 × 32,772 int32 (9 × 2 MiB).
  const LogCheck c = checked("sglang-qwen2.5-0.5b-docs-ci.log", preset("qwen2.5-0.5b").config,
                             {{"gpu", "h100-sxm"}, {"seq", "32768"}, {"mrr", "128"}, {"mtt", "20480"}});
  CHECK(row(c, "kv_tokens").same_text);  // --max-total-tokens caps the pool at 20,480
  const LogCheckRow& end = row(c, "pool_end_bytes");
  CHECK(end.logged == "77.12 GB");
  CHECK(std::abs(end.ours_value - end.logged_value) <= 0.02 * kGiB);
  CHECK(row(c, "max_running_requests").ours == "128");
  SglangMemory m = pool_of(preset("qwen2.5-0.5b").config, {{"gpu", "h100-sxm"}, {"seq", "32768"}, {"mrr", "128"}});
  auto at = sglang_with_tokens(m, 20480);
  REQUIRE(at.ok());
  CHECK(at->max_num_reqs == 128);
  CHECK(at->req_to_token_bytes == 128LL * 32772 * 4);
  CHECK(at->kv_segment_bytes == 16LL * 20 * 1048576);
  CHECK(at->pool_segment_bytes == 9LL * 2097152 + 16LL * 20 * 1048576 + 163840);
  // The term says where the rows come from.
  {
    const Workload w = with({{"rt", "sglang"}, {"gpu", "h100-sxm"}, {"seq", "32768"}, {"mrr", "128"}});
    auto e = estimate(preset("qwen2.5-0.5b").config, w);
    REQUIRE(e.ok());
    REQUIRE(e->sglang);
    const auto terms = sglang_terms(*e->sglang, w, e->gpu);
    const auto r2t = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& t) { return t.key == "req_to_token_bytes"; });
    REQUIRE(r2t != terms.end());
    CHECK(r2t->formula == "--max-running-requests = 128 rows × (context_len + 4 = 32,772) × 4 B (int32) = 16,779,264");
    CHECK(r2t->value == 16779264.0);
  }
  // Without the flag: SGLang's rule, int(20480 / 32768 × 512) = 320 raised to 2,048 rows.
  SglangMemory d = pool_of(preset("qwen2.5-0.5b").config, {{"gpu", "h100-sxm"}, {"seq", "32768"}});
  auto dflt = sglang_with_tokens(d, 20480);
  REQUIRE(dflt.ok());
  CHECK(dflt->max_num_reqs == 2048);
  CHECK(dflt->max_running_requests == 2048);
  // server_args' max_running_requests is read as the flag; its None is not.
  auto args = parse_engine_log("server_args=ServerArgs(model_path='x', max_running_requests=128, max_total_tokens=20480, page_size=1)\n"
                               "Load weight end. type=Qwen2ForCausalLM, avail mem=77.45 GB, mem usage=0.98 GB.\n");
  REQUIRE(args.ok());
  llmsize::test::check_settings(*args, {{"mrr", "128"}});
  llmsize::test::check_settings(*args, {{"mtt", "20480"}});
  // A cap above what the memory holds is ignored, with SGLang's warning.
  SglangMemory big = pool_of(preset("qwen2.5-0.5b").config, {{"gpu", "h100-sxm"}, {"seq", "32768"}, {"mtt", "90000000"}});
  CHECK(big.mtt_ignored_profiled == big.max_total_tokens);
  CHECK(sglang_log(big).at(1) == "max_total_tokens=90000000 is larger than the profiled value " + std::to_string(big.max_total_tokens) +
                                     ". Use the profiled value instead.");
  auto none = parse_engine_log("server_args=ServerArgs(model_path='x', max_running_requests=None, page_size=1)\n"
                               "Load weight end. type=Qwen2ForCausalLM, avail mem=77.45 GB, mem usage=0.98 GB.\n");
  REQUIRE(none.ok());
  CHECK(std::none_of(none->settings.begin(), none->settings.end(), [](const auto& s) { return s.first == "mrr"; }));
}

TEST_CASE("SGLang: a multimodal checkpoint's default fraction, times adjust_mem_fraction_for_vlm's factor", "[calibration][sglang]") {
  // ref: server_args.py adjust_mem_fraction_for_vlm, for model_config.is_multimodal: the heuristic's
  // fraction × 0.95 × clamp(1 − 0.1 × (L · h² / (24 · 1024²) − 1), 0.8, 1.05), L and h the vision
  // config's num_hidden_layers and hidden_size (getattr defaults 24 and 1024).
  //
  // Published, exact: SGLang v0.5.8.post1 (ROCm image), `sglang serve --model-path moonshotai/Kimi-K2.5
  // --tp 8` on 8 × MI355X (ajith-sirra-amd/Issues, Kimi-K2.5-MI355X-SGLANG-ERROR.md, its server_args):
  //   ..., mem_fraction_static=0.8260405859375, ..., chunked_prefill_size=16384, ..., tp_size=8, ..., cuda_graph_max_bs=512, ...
  // The heuristic at 294,896 MiB: reserve max(512 + 1.5 × 16384 + 2 × 512 + 8/8 × 1024, 10240) =
  // 27,136 MiB → 0.908; Kimi-K2.5's MoonViT (27 layers of 1152): 27 · 1152² / (24 · 1024²) =
  // 1.423828125 → 0.95 × 0.9576171875 = 0.909736328125; 0.908 × that = 0.8260405859375.
  // The kimi-k2.5 preset: Kimi K2's language model at 262,144 positions and its MoonViT (vt_num_hidden_layers
  // 27, vt_hidden_size 1152), as its config.json gives them.
  const ModelConfig k = preset("kimi-k2.5").config;
  REQUIRE(k.vision.layers == 27);
  REQUIRE(k.vision.hidden == 1152);
  {
    const auto e = estimate(k, with({{"rt", "sglang"}, {"gpu", "mi355x"}, {"tp", "8"}, {"gpus", "8"}, {"seq", "262144"}}));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    REQUIRE(e->sglang);
    const SglangMemory& m = *e->sglang;
    CHECK(m.mfs_default);
    CHECK(m.smi_total_mib == 294896);
    CHECK(m.chunked_prefill_size == 16384);
    CHECK(m.cuda_graph_max_bs == 512);
    CHECK(m.reserved_mib == 27136);
    CHECK(m.heuristic_mfs == 0.908);
    CHECK(m.vlm_factor == Approx(0.909736328125).epsilon(1e-15));
    // The same IEEE operations in the same order as server_args.py: the very double SGLang printed.
    CHECK(m.mem_fraction_static == 0.8260405859375);
    // The term shows both steps and names the function.
    const auto terms = sglang_terms(m, with({{"tp", "8"}}), e->gpu);
    const auto t = std::find_if(terms.begin(), terms.end(), [](const EngineTerm& x) { return x.key == "mem_fraction_static"; });
    REQUIRE(t != terms.end());
    CHECK_THAT(t->formula, Catch::Contains("-> 0.908") && Catch::Contains("27 × 1,152²") && Catch::Contains("-> 0.8260"));
    CHECK_THAT(t->source, Catch::Contains("adjust_mem_fraction_for_vlm"));
  }
  // The text model alone (no vision config) keeps the heuristic's 0.908, and a given fraction is
  // never adjusted.
  {
    ModelConfig text = k;
    text.vision = {};
    const auto e = estimate(text, with({{"rt", "sglang"}, {"gpu", "mi355x"}, {"tp", "8"}, {"gpus", "8"}, {"seq", "262144"}}));
    REQUIRE(e.ok());
    CHECK(e->sglang->vlm_factor == 1.0);
    CHECK(e->sglang->mem_fraction_static == 0.908);
    const auto given = estimate(k, with({{"rt", "sglang"}, {"gpu", "mi355x"}, {"tp", "8"}, {"gpus", "8"}, {"seq", "262144"}, {"mfs", "0.85"}}));
    REQUIRE(given.ok());
    CHECK(given->sglang->mem_fraction_static == 0.85);
    CHECK(given->sglang->vlm_factor == 1.0);
  }
  // The towers llmsize reads, as SGLang's configs expose them: Qwen's vision configs name their
  // depth "depth", so getattr gives 24 layers; Llama 4's 34 × 1408 reaches the 0.8 floor's side
  // (1 − 0.1678 = 0.8322); Pixtral's 24 × 1024 is the baseline (0.95 alone).
  auto factor = [](const char* id) {
    const auto e = estimate(preset(id).config, with({{"rt", "sglang"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"gpus", "4"}, {"seq", "8192"}}));
    REQUIRE(e.ok());
    REQUIRE(e->sglang);
    return std::make_pair(e->sglang->vit_layers, e->sglang->vlm_factor);
  };
  CHECK(factor("qwen3.6-27b") == std::make_pair(i64{24}, 0.95 * (1.0 - 0.1 * (24.0 * 1152 * 1152 / (24.0 * 1024 * 1024) - 1.0))));
  CHECK(factor("llama-4-scout").second == Approx(0.95 * (1.0 - 0.1 * (34.0 * 1408 * 1408 / (24.0 * 1024 * 1024) - 1.0))));
  CHECK(factor("mistral-small-24b").first == 24);
  CHECK(factor("mistral-small-24b").second == 0.95);
  CHECK(factor("qwen3-8b").second == 1.0);  // a text model
  //
  // Checked within 1%, not exactly: SGLang 0.5.11 serving Qwen/Qwen3.6-27B-FP8 with every default
  // but --context-length 32768 on an RTX PRO 6000 Blackwell Server (syseeker/inference-pipeline-benchmark
  // docs/findings/qwen3.6-on-trtllm.md, 2026-05-09, the author's abridged excerpt):
  //   Mamba Cache is allocated. max_mamba_cache_size: 154,
  //      conv_state size: 0.43GB, ssm_state size: 21.80GB
  //   KV Cache is allocated. #tokens: 403904, K size: 12.33 GB, V size: 12.33 GB
  // The heuristic's 0.863 at 97,887 MiB, times Qwen3.6's factor (24 · 1152²: 0.924765625) = 0.7981:
  // llmsize gives 155 state slots and 406,738 tokens (+0.7%); without the factor it gave 175 and
  // 460,246 (+14%). MISS, stated: the excerpt has no weight line (the FP8 checkpoint keeps its
  // embeddings, head, vision tower and some projections in bf16, which llmsize's fp8 estimate does
  // not follow tensor by tensor), and 0.5.11's piecewise CUDA graphs, which reserve 8 MiB a capture
  // size when enabled, are later than the heuristic followed.
  const auto q = estimate(preset("qwen3.6-27b").config,
                          with({{"rt", "sglang"}, {"gpu", "rtx-pro-6000-blackwell-server"}, {"seq", "32768"}, {"w", "fp8"}}));
  REQUIRE(q.ok());
  REQUIRE(q->sglang);
  CHECK(q->sglang->mem_fraction_static == Approx(0.863 * 0.924765625).epsilon(1e-12));
  CHECK(q->sglang->mamba_slots == 155);
  CHECK(static_cast<double>(q->sglang->max_total_tokens) / 403904 - 1 == Approx(0.007).margin(0.003));
}

TEST_CASE("SGLang 0.5.11 (2026-08): the late-2025 profile against two solo start-ups on an RTX PRO 6000", "[calibration][sglang]") {
  // Qwen2.5-7B-Instruct, --mem-fraction-static 0.45:
  //   [2026-08-05 08:38:41] Load weight begin. avail mem=94.19 GB
  //   [2026-08-05 08:38:44] Load weight end. elapsed=2.55 s, type=Qwen2ForCausalLM, avail mem=79.89 GB, mem usage=14.30 GB.
  //   [2026-08-05 08:38:44] KV Cache is allocated. #tokens: 525229, K size: 14.03 GB, V size: 14.03 GB
  //   [2026-08-05 08:38:44] Memory pool end. avail mem=51.63 GB
  // Qwen2.5-72B-Instruct-AWQ, --mem-fraction-static 0.52 (check-log reads "quant=awq, bits=4"):
  //   [2026-08-05 08:46:35] Load weight end. elapsed=16.50 s, type=Qwen2ForCausalLM, quant=awq, bits=4, avail mem=55.22 GB, mem usage=38.96 GB.
  //   [2026-08-05 08:46:35] KV Cache is allocated. #tokens: 32702, K size: 4.99 GB, V size: 4.99 GB
  //   [2026-08-05 08:46:35] Memory pool end. avail mem=45.22 GB
  struct Case {
    const char* file;
    const char* config;
    const char* mfs;
    double weights_diff, tokens_diff;
  };
  const Case cases[] = {
      {"sglang-0.5.11-qwen2.5-7b-rtxpro6000.log", "calibration/configs/qwen2.5-7b-instruct.json", "0.45", -0.0069, 0.0013},
      {"sglang-0.5.11-qwen2.5-72b-awq-rtxpro6000.log", "calibration/configs/qwen2.5-72b-instruct.json", "0.52", -0.0084, 0.0029},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    const LogCheck c = checked(k.file, import_file(k.config), {{"gpu", "rtx-pro-6000-blackwell-server"}});
    // The log's own settings: its fraction, chunked prefill, page and context.
    CHECK(c.workload.mem_fraction_static == std::stod(k.mfs));
    CHECK(c.workload.seq == 8192);
    // Weights within 1% (the AWQ checkpoint as 4-bit groups with fp16 scales and packed zeros).
    CHECK(row(c, "weights_bytes").rel_diff == Approx(k.weights_diff).margin(0.0005));
    // The pool's K and V at the log's own #tokens, to the printed 0.01 GB.
    CHECK(row(c, "k_bytes").same_text);
    CHECK(row(c, "v_bytes").same_text);
    CHECK(row(c, "max_running_requests").same_text);
    // MISS, stated: #tokens +0.13% and +0.29%, beyond the log's rounding (±0.008 GiB: ±140 and ±25
    // tokens). Both leave about 32 MiB less for the pool than the free memory after the load less
    // (1 − fraction) × the memory before it: an allocation 0.5.11 makes between the two that the
    // late-2025 profile does not have (not traced to its source).
    CHECK(row(c, "kv_tokens").rel_diff == Approx(k.tokens_diff).margin(0.0003));
  }
  // The free memory after the pools, at the log's #tokens: the 7B's within 0.02 GB; the 72B's 0.06 GB
  // below the log's (MISS, stated: 160 tensors of 66,975,744 B, each a 64 MiB segment; the other
  // 0.04 GB not traced).
  const LogCheck small = checked("sglang-0.5.11-qwen2.5-7b-rtxpro6000.log", import_file("calibration/configs/qwen2.5-7b-instruct.json"),
                                 {{"gpu", "rtx-pro-6000-blackwell-server"}});
  CHECK(std::abs(row(small, "pool_end_bytes").ours_value - row(small, "pool_end_bytes").logged_value) <= 0.02 * kGiB);
  const LogCheck big = checked("sglang-0.5.11-qwen2.5-72b-awq-rtxpro6000.log", import_file("calibration/configs/qwen2.5-72b-instruct.json"),
                               {{"gpu", "rtx-pro-6000-blackwell-server"}});
  CHECK(row(big, "pool_end_bytes").logged == "45.22 GB");
  CHECK(row(big, "pool_end_bytes").ours == "45.16 GB");
}
