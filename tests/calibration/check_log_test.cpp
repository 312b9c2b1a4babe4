// check-log (issue 11): published start-up logs read back, their settings applied, and every
// figure set beside llmsize's engine profile; hostile logs refused by name. The logs are the
// fuzz corpus's (tests/fuzz/corpus/engine_log/), each a verbatim excerpt of a published run:
//   vllm-0.19-llama-3.1-8b.log — llm-d-incubation/llm-d-planner@d3121e0, accuracy/results/v0.19.0/logs/
//       meta-llama-llama-3-1-8b---h100-80gb--tp1pp1dp1--8192.log
//   vllm-0.19-qwen3-8b.log, vllm-0.19-gpt-oss-20b-tp2.log — the same source, qwen-qwen3-8b--h100-80gb--tp1pp1dp1--8192.log
//       and openai-gpt-oss-20b--h100-80gb--tp2pp1dp1--8192.log (their start-up lines)
//   vllm-0.10.2-qwen3-235b-tp8.log — "Hosting Qwen3-235B-A22B-Instruct-2507-FP8 on 8xL40S" (a public write-up)
//   sglang-qwen3-30b-a3b-fp8.log — a public evaluation write-up quoting its run's
//       eval/results/20260827_124509_tsk043_smoke_qwen30b/t1_gpu_only/server.log (SGLang main of August 2026,
//       Qwen/Qwen3-30B-A3B-FP8 on one H100 80GB HBM3), from server_args through "Memory pool end"
//   vllm-0.19-qwen3-coder-30b-a3b-fp8-a100.log — DurangoDavid/private-ai-inference@4bd44287,
//       docs/runtime/vllm-startup.log (tests/calibration/vllm_test.cpp), its start-up lines
//   vllm-0.18-qwen2.5-7b-eager-v100.log — wangpeiwen/gpu-util-interference@5c553eac, mlwd/sensitivity/data_bak.md
//       (the LLM class with enforce_eager on a V100, tests/calibration/vllm_test.cpp), its start-up lines
//   llamacpp-gpt-oss-120b-np2.log — ollama/ollama issue #16480 (llama-server -c 262144 -np 2 -ub 1024)
//   llamacpp-qwen2.5-7b.log — a public Ollama server transcript (Qwen2.5-Coder-7B-Instruct Q4_K_M, n_ctx 4096)
//   llamacpp-qwen3-30b-a3b-2gpu.log — ik_llama.cpp issue thread, comment by mtcl of 2025-06-10 (mainline
//       llama-cli build 5622 on an RTX 4090 + RTX 5090, -ngl 99 -ot ".ffn_.*_exps.=CPU", --ctx-size 16384),
//       its command as quoted (the thread elides its last lines)
//   llamacpp-qwen3-4b-np4-sched-reserve.log — public notes quoting a llama-server start-up's
//       load_gpu_evidence.log (Qwen3-4B Q4_K_M, -ngl 99 -c 8192, 4 slots; a 2026 build printing its
//       compute buffers from "sched_reserve:")
//   llamacpp-ollama-qwen2.5-coder-7b-32k.log — a public chat export (log pasted 2026-05) of an Ollama runner
//       (qwen2.5-coder:7b, num_ctx 32768, flash attention auto → enabled), from load_tensors to its graph lines
//   llamacpp-b5505-qwen3-14b-q8kv.log — bjodah/bug-reproducer-llamacpp-json-parse, README.md (llama-server
//       build 5505 on an RTX 3090: Qwen3-14B Q8_0, -ctk q8_0 -ctv q8_0 --flash-attn --ctx-size 32768), its
//       start-up lines (the loader's kv and token lines left out)
//   llamacpp-2026-qwen3-4b-spark.log — chungers/motlie, an eval failure report's log tail (llama.cpp linked as
//       a library on a DGX Spark, 2026: Qwen3-4B Q4_K_M, n_ctx 4096), its per-layer device lines left out
//   llamacpp-b7342-qwen3-coder-30b-a3b.log — a public Docker deployment README (llama-server build 7342 on an
//       A100-PCIE-40GB: Qwen3-Coder-30B-A3B-Instruct Q8_0, --ctx-size 65536, the server's 4 unified slots), from
//       its build line to its graph lines (the loader's general, tokenizer and quantize keys left out)
//   llamacpp-2025-07-qwen3-8b-ngl19.log, llamacpp-2025-07-qwen3-8b-ngl11.log — an LM Studio server log of
//       2025-07-22 quoted in an exported Cursor chat (DeepSeek-R1-0528-Qwen3-8B Q8_0, RTX 3060 Ti, -ngl 19 and 11)
//   llamacpp-b5712-qwen3-4b-nofa.log — a public repository's Wazuh "Security Operations Center - Threat
//       Analysis Report" (Report Generated 2025-06-26) quoting a failed llama-cli's stderr (build 5712 on a
//       GTX 1060: Qwen3-4B Q4_K_M from Unsloth, -c 8192, flash attention off), from its CUDA lines to its graph
//       lines (the loader's tokenizer keys and print_info's token lines left out)
//   llamacpp-b5398-qwen3-0.6b-rocm-nofa.log — TOSUKUi/blog, src/content/blog/evo-x2-ryzenai-max-395-gpu-setup.md
//       (published 2025-05-16; its failure example): llama-cli -ngl 29 -hf unsloth/Qwen3-0.6B-GGUF:Q8_0 on a
//       Ryzen AI Max+ 395 (ROCm, gfx1151), build 5398; the buffers printed before its first kernel failed
//   llamacpp-ollama-r1-distill-llama-8b-np4-nofa.log — deipss/blog, docs/Solution/ollama 生成中断.md (added
//       2025-06-26): an Ollama runner's journal (DeepSeek-R1-Distill-Llama-8B Q4_K_M on a GTX 1080, --ctx-size
//       8192 --parallel 4, flash attention off), its llama_init_from_model lines
//   llamacpp-b5050-gemma-3-1b-jetson.log — tqm-dev/meta-jetson-llama-cpp, README ("Run llama.cpp on yocto
//       linux for Jetson Nano (4GB)", llama-cli --n-gpu-layers 99, build 5050)
//   llamacpp-2025-08-gpt-oss-120b-metal.log — an LM Studio server log of 2025-08-12 (gpt-oss-120b MXFP4, M4 Max)
//   llamacpp-b8164-gpt-oss-20b-mtl0.log — a public note quoting llama-completion -hf ggml-org/gpt-oss-20b-GGUF
//       on an Apple M5 (build 8164)
//   llamacpp-b7445-gemma-2-2b-cpu.log — a published llama-server log of the Windows CPU build
//       llama-b7445-bin-win-cpu-x64 (gemma-2-2b-it Q4_K_M, -np auto), its start-up lines and its exit table
//   llamacpp-b8428-qwen3.5-0.8b-cpu.log — a Chinese build tutorial's llama-server log (Windows, MSVC,
//       build 8428, no GPU backend): Qwen3.5-0.8B Q4_K_M with the server's defaults (4 unified slots,
//       n_ctx 262144, n_ubatch 512, flash attention auto), from the command through the idle slots
//   llamacpp-b6699-gpt-oss-20b-ncmoe.log — ikawrakow/ik_llama.cpp issue #822 (crat0z, 2025-10-10), its
//       mainline llama-server run on an RTX 3070 (-ngl 99 --n-cpu-moe 99 -c 131072 -fa on)
//   llamacpp-ollama-2026-05-gemma-2-2b-rocm-np2.log — a public project-notes file in Portuguese (user
//       spacewitch; found by exact-string search, the index names no repository), quoting an Ollama
//       server's load of Gemma 2 2B Q4_0 on an RX 6600 (ROCm) on 2026-05-20: Parallel 2, BatchSize 256,
//       KvSize 16384, flash attention disabled, every layer on the GPU
//   llamacpp-b7972-qwen2.5-vl-7b-rocm.log — an exported coding-agent session (Polish user, created
//       2026-03-19; found by exact-string search, the index names no repository) that reads a llama-server
//       log: unsloth's Qwen2.5-VL-7B-Instruct UD-Q6_K_XL with its mmproj on a Radeon Pro VII (ROCm),
//       build 7972, -c 65536, q8_0 cache, 4 auto slots; the session's line numbers are taken off, the
//       lines kept are the log's start-up, slot and exit-table lines
//   llamacpp-2026-05-qwen3.6-27b-q8kv-rtx5090.log — a public markdown file pairing a docker-compose
//       service with its llama-server log (found by exact-string search, the index names no
//       repository; the same start-up is in four more copies): an image of upstream with the MTP pull
//       request before its merge ("build_info: b484-2c4055912", its own counter), unsloth's
//       Qwen3.6-27B-MTP-GGUF UD-Q4_K_XL on an RTX 5090, --ctx-size 131072 --flash-attn on, q8_0 K
//       and V, 4 auto slots, MTP drafting, 2026-05-14/15; the start-up and exit lines kept, about
//       780,000 characters of request lines between them taken out
//   megatron-gpt345m-pp4.log, megatron-gpt345m-tp2pp2.log — liguodongiot/llm-action@bd731466,
//       train/megatron/gpt2/model_train.md, sections "模型并行（4PP）" and "模型并行（2TP+2DP）": Megatron-LM
//       main of July 2023 on 4 × A800 (tests/calibration/training/megatron_test.cpp), from "using world
//       size" through the argument block and the padded vocabulary, the parameter counts and the
//       report_memory lines of iteration 100
#include <algorithm>

#include "core/engine_log.hpp"
#include "core/figures.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;
using llmsize::test::import_file;
using llmsize::test::read_text;
using llmsize::test::check_settings;

namespace {

EngineLog parsed(const std::string& file) {
  auto log = parse_engine_log(read_text("fuzz/corpus/engine_log/" + file));
  INFO(file << ": " << join(log.issues()));
  REQUIRE(log.ok());
  return log.value();
}

const LogCheckRow& row(const LogCheck& c, std::string_view key) {
  for (const auto& r : c.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return c.rows.front();
}

// Each row's figure printed as the log printed it.
void check_same(const LogCheck& c, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    INFO(key);
    CHECK(row(c, key).same_text);
  }
}

// A ROCm log checked against a preset at weights `wf`, on a ROCm card (its buffers do not depend on
// which one).
LogCheck checked_on_rocm(const EngineLog& log, const char* model, WeightFormat wf) {
  Workload w;
  REQUIRE_FALSE(find_field("gpu")->set(w, "mi300x").has_value());
  w.weights = wf;
  auto c = check_log(log, preset(model).config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  return std::move(c).value();
}

}  // namespace

TEST_CASE("check-log: a vLLM 0.19 start-up, its settings and every figure", "[calibration][checklog]") {
  const EngineLog log = parsed("vllm-0.19-llama-3.1-8b.log");
  CHECK(log.engine == LogEngine::Vllm);
  CHECK(log.version == "0.19.0");
  CHECK(log.model == "meta-llama/Llama-3.1-8B-Instruct");
  // From "non-default args: {…, 'max_model_len': 8192, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': False}".
  CHECK(log.settings == std::vector<std::pair<std::string, std::string>>{{"seq", "8192"}, {"util", "0.95"}, {"pc", "no"}});
  CHECK(log.find("kv_tokens")->value == 476016);
  CHECK(log.find("max_concurrency")->value == Approx(58.11));
  CHECK(log.find("num_blocks")->value == 29751);
  CHECK(log.find("total_bytes")->value == Approx(79.19 * 1073741824.0));

  auto c = check_log(log, preset("llama-3.1-8b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.seq == 8192);
  CHECK(c->workload.gpu_mem_util == 0.95);
  CHECK(c->workload.runtime == Runtime::Vllm);
  // No note on the GPU (the default is the log's, 79.19 GiB) or the version (0.19 is the profile's);
  // three on the CUDA graphs, from the log's "CUDA graph pool memory: 0.91 GiB (actual), 0.84 GiB
  // (estimated)" and its advice "… set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase
  // --gpu-memory-utilization from 0.9500 to 0.9606 …": the estimate was not subtracted, as llmsize does not.
  CHECK(log.find("cuda_graph_bytes")->value == Approx(0.91 * 1073741824.0));
  CHECK(log.find("cuda_graph_estimate_bytes")->value == Approx(0.84 * 1073741824.0));
  CHECK(log.find("cuda_graph_util_to")->value == Approx(0.9606));
  REQUIRE(c->notes.size() == 3);
  CHECK(c->notes[0].message.find("CUDA graphs took 0.91 GiB") != std::string::npos);
  CHECK(c->notes[1].message.find("at 0.84 GiB before allocating the KV cache and, as 0.19 does by default, did not subtract") != std::string::npos);
  CHECK(c->notes[2].message.find("--gpu-memory-utilization 0.9606 instead of 0.9500") != std::string::npos);
  CHECK(message_in(c->notes[1], Lang::Zh).find("0.84 GiB，并按 0.19 的默认行为未从 KV 缓存内存中扣除") != std::string::npos);
  for (const char* same : {"total_bytes", "budget_bytes", "weights_bytes", "activation_peak_bytes", "non_torch_bytes"}) {
    INFO(same);
    CHECK(row(*c, same).same_text);
  }
  CHECK(row(*c, "kv_tokens").logged == "476,016");
  CHECK(row(*c, "kv_tokens").ours == "475,984");  // 0.25 GiB of non-torch memory where this run measured a little less
  CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 1e-4);
  // The log's GPU total picks the card: asked for an A10, the check runs on the H100 the log names.
  Workload a10;
  a10.gpu = "a10";
  auto moved = check_log(log, preset("llama-3.1-8b").config, a10);
  REQUIRE(moved.ok());
  CHECK(moved->workload.gpu == "h100-sxm");
  REQUIRE(moved->notes.size() == 4);  // the GPU's, then the three above
  CHECK(moved->notes.front().message.find("79.19 GiB") != std::string::npos);
  CHECK(message_in(moved->notes.front(), Lang::Zh).find("日志中的 GPU 总显存（79.19 GiB）属于 NVIDIA H100") == 0);
  // Described figures read in each language; the log's own words ("Model loading took") stay.
  CHECK(row(*c, "total_bytes").label == "GPU total (as CUDA reports it)");
  CHECK(row(*c, "total_bytes").label_in(Lang::Zh) == "GPU 总显存（CUDA 报告的值）");
  CHECK(row(*c, "weights_bytes").label_in(Lang::Zh) == "Model loading took");
}

TEST_CASE("check-log: whether vLLM subtracted its CUDA graph estimate, from the log's own figures", "[calibration][checklog]") {
  // gpu_worker.py determine_available_memory (0.19): available = requested_memory − non_kv_cache_memory
  // − cudagraph_memory_estimate_applied, the estimate applied only under
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1. Without the advice line (an excerpt), the log's
  // budget (75.23), non-KV memory (17.12) and KV memory tell. The second variant is constructed: the
  // same run's lines as determine_available_memory would print them with the estimate applied
  // (58.11 − 0.84 = 57.27 GiB).
  std::string text = read_text("fuzz/corpus/engine_log/vllm-0.19-llama-3.1-8b.log");
  auto drop_line = [](std::string t, std::string_view marker) {
    const size_t at = t.find(marker);
    REQUIRE(at != std::string::npos);
    const size_t begin = t.rfind('\n', at) + 1, end = t.find('\n', at);
    return t.erase(begin, end - begin + 1);
  };
  text = drop_line(text, "To try it now");
  auto notes_of = [](const std::string& t) {
    auto log = parse_engine_log(t);
    REQUIRE(log.ok());
    CHECK_FALSE(log->find("cuda_graph_util_to"));
    auto c = check_log(*log, preset("llama-3.1-8b").config, Workload{});
    REQUIRE(c.ok());
    std::vector<std::string> out;
    for (const auto& n : c->notes) out.push_back(n.message);
    return out;
  };
  const auto plain = notes_of(text);
  REQUIRE(plain.size() == 2);
  CHECK(plain[1].find("did not subtract the estimate") != std::string::npos);
  std::string applied = text;
  const size_t kv = applied.find("Available KV cache memory: 58.11 GiB");
  REQUIRE(kv != std::string::npos);
  applied.replace(kv, 36, "Available KV cache memory: 57.27 GiB");
  const auto on = notes_of(applied);
  REQUIRE(on.size() == 2);
  CHECK(on[1].find("this run subtracted vLLM's estimate of its CUDA graphs, 0.84 GiB") != std::string::npos);
  // Without the non-KV line the log cannot tell: the estimate and the rule, no verdict.
  const auto unknown = notes_of(drop_line(text, "Total non KV cache memory"));
  REQUIRE(unknown.size() == 2);
  CHECK(unknown[1].find("only under VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1, and llmsize, following 0.19's default, does not") != std::string::npos);
}

TEST_CASE("check-log: a vLLM log's weight format and dtype are the workload's", "[calibration][checklog]") {
  // Lines of llm-d-planner's v0.19.0 logs (d3121e05), verbatim: w8a8-mistral-small-24b--h100-80gb--tp2pp1dp1--8192.log
  // ("Selected CutlassInt8ScaledMMLinearKernel for CompressedTensorsW8A8Int8") and
  // meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf32.log ("'dtype': 'float32'").
  const EngineLog w8a8 = parsed("vllm-0.19-mistral-small-w8a8-tp2.log");
  CHECK(w8a8.model == "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8");
  const auto w = std::find_if(w8a8.settings.begin(), w8a8.settings.end(), [](const auto& s) { return s.first == "w"; });
  REQUIRE(w != w8a8.settings.end());
  CHECK(w->second == "int8");
  auto c = check_log(w8a8, preset("mistral-small-24b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.weights == WeightFormat::Int8);
  CHECK(c->workload.tp == 2);
  CHECK(std::abs(row(*c, "weights_bytes").rel_diff) < 0.01);
  CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 0.01);

  const EngineLog fp32 = parsed("vllm-0.19-llama-3.1-8b-fp32.log");
  auto f = check_log(fp32, preset("llama-3.1-8b").config, Workload{});
  INFO(join(f.issues()));
  REQUIRE(f.ok());
  // --dtype float32: the weights and the KV cache ("auto") in fp32 too.
  CHECK(f->workload.dtype == ComputeDtype::F32);
  CHECK(f->workload.weights == WeightFormat::F32);
  CHECK(f->workload.kv_dtype == KvDtype::F32);
  CHECK(row(*f, "weights_bytes").same_text);  // 29.98 GiB

  // openai-gpt-oss-20b--h100-80gb--tp2pp1dp1--8192.log: no --quantization flag; the engine's config
  // line says "quantization=mxfp4" (the checkpoint's quantization_config). Mxfp4Config quantizes the
  // MoE experts and loads every linear layer, attention included, in bf16: the workload vllm_test.cpp
  // states by hand for this run ({"w", "mxfp4"}, {"kattn", "yes"}), here read from the log.
  const EngineLog oss = parsed("vllm-0.19-gpt-oss-20b-tp2.log");
  auto o = check_log(oss, preset("gpt-oss-20b").config, Workload{});
  INFO(join(o.issues()));
  REQUIRE(o.ok());
  CHECK(o->workload.weights == WeightFormat::Mxfp4);
  CHECK(o->workload.keep_attention == Keep::Yes);
  CHECK(o->workload.tp == 2);
  // The figures vllm_test.cpp gives for this run: weights 2.4% under (its stated MISS), capacity +0.25%.
  CHECK(row(*o, "weights_bytes").ours == "6.84 GiB");
  CHECK(row(*o, "activation_peak_bytes").same_text);
  CHECK(row(*o, "kv_tokens").rel_diff == Approx(0.0025).margin(0.001));
  CHECK(std::abs(row(*f, "kv_tokens").rel_diff) < 0.02);  // +1.4%: the fp32 forward's peak, stated in vllm_test.cpp
  CHECK(row(*f, "num_blocks").logged == "10,956");
}

TEST_CASE("check-log: vLLM's quantization=awq_marlin is a 4-bit AWQ checkpoint", "[calibration][checklog]") {
  // A public console capture of `vllm serve /models/Qwen/Qwen3-8B-AWQ --tensor-parallel-size 2
  // --max-model-len 32768 --gpu-memory-utilization 0.2 …` under vLLM 0.17.0 on two 8.9-capability
  // cards (found by exact-string search; the index names no repository); its engine line (cut
  // after enforce_eager) and rank 0's weights:
  const std::string text = std::string("(EngineCore_DP0 pid=1519) INFO 05-11 03:01:07 [core.py:101] Initializing a V1 LLM engine (v0.17.0) with config: model='/models/Qwen/Qwen3-8B-AWQ', speculative_config=None, tokenizer='/models/Qwen/Qwen3-8B-AWQ', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False,\n") +
                           "(Worker pid=1589) (Worker_TP0 pid=1589) INFO 05-11 03:01:21 [gpu_model_runner.py:4338] Model loading took 2.85 GiB memory and 2.410772 seconds\n";
  const auto log = parse_engine_log(text);
  REQUIRE(log.ok());
  check_settings(*log, {{"w", "awq-int4"}});
  check_settings(*log, {{"tp", "2"}});
  auto c = check_log(*log, preset("qwen3-8b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  // Each rank's half of the int4 matrices with their group-128 fp16 scales and packed zeros, the
  // vocabulary-parallel embeddings and head in fp16: 2.85 GiB (it was 7.64 read as bf16). Its KV
  // tokens (71,152) are not checked here: the cards' model and free memory are not printed.
  CHECK(row(*c, "weights_bytes").same_text);
}

TEST_CASE("check-log: the first runner's CUDA graph estimate, and the utilization it says the estimate is worth", "[checklog]") {
  // vLLM issue #50722 (Qwen3.5-35B-A3B at TP 4 on 79.33 GiB cards, vLLM 0.26.0, gpu_memory_utilization 0.85), two
  // lines of the 08:08 start as its worker printed them (the first runner: gpu_model_runner.py):
  const std::string text =
      "(Worker_TP0 pid=4615) INFO 08-14 08:08:04 [gpu_model_runner.py:6737] Estimated CUDA graph memory: 2.22 GiB total\n"
      "(Worker_TP1 pid=4616) INFO 08-14 08:08:05 [gpu_worker.py:575] CUDA graph memory profiling is enabled (default since "
      "v0.21.0). The current --gpu-memory-utilization=0.8500 is equivalent to --gpu-memory-utilization=0.8221 without CUDA graph "
      "memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.8779. To "
      "disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.\n";
  const auto log = parse_engine_log(text);
  REQUIRE(log.ok());
  CHECK(log->engine == LogEngine::Vllm);
  CHECK(log->model_runner_v1);
  CHECK_FALSE(log->model_runner_v2);
  REQUIRE(log->find("cuda_graph_estimate_bytes"));
  CHECK(std::abs(log->find("cuda_graph_estimate_bytes")->value - 2.22 * 1073741824.0) < 1.0);
  REQUIRE(log->find("cuda_graph_util_current"));
  REQUIRE(log->find("cuda_graph_util_equivalent"));
  CHECK(std::abs(log->find("cuda_graph_util_current")->value - 0.85) < 1e-12);
  CHECK(std::abs(log->find("cuda_graph_util_equivalent")->value - 0.8221) < 1e-12);
  // (0.85 − 0.8221) × 79.33 GiB = 2.213 GiB: the estimate, within the two printed roundings (0.005 GiB and 0.00005 of the total).
  CHECK(std::abs((0.85 - 0.8221) * 79.33 - 2.22) < 0.005 + 0.00005 * 79.33);
  // 0.26 is not a release llmsize follows: no --vllm-version, so no estimate is taken as --vllm-cuda-graph-mib.
  CHECK(std::none_of(log->settings.begin(), log->settings.end(), [](const auto& kv) { return kv.first == "vcg" || kv.first == "vver"; }));
}

TEST_CASE("check-log: vLLM's profiling line gives the weights where no loading line is kept", "[checklog]") {
  // A public notes file's pasted DEBUG lines of `vllm serve …/Qwen3-8B-FP8 --dtype float16
  // --max-model-len 1024 --gpu_memory_utilization 0.8` (about vLLM 0.11, September 2025; found by
  // exact-string search, the index names no repository), without "Model loading took":
  const std::string profiling =
      "(EngineCore_DP0 pid=2552931) DEBUG 09-28 21:12:43 [v1/worker/gpu_worker.py:297] Memory profiling takes 14.40 seconds. "
      "Total non KV cache memory: 10.22GiB; torch peak memory increase: 1.40GiB; non-torch forward increase memory: 0.02GiB; "
      "weights memory: 8.80GiB.\n"
      "(EngineCore_DP0 pid=2552931) INFO 09-28 21:12:43 [v1/worker/gpu_worker.py:298] Available KV cache memory: 8.60 GiB\n";
  const auto log = parse_engine_log(profiling);
  REQUIRE(log.ok());
  REQUIRE(log->find("weights_bytes"));
  CHECK(log->find("weights_bytes")->value == Approx(8.80 * 1073741824.0));
  CHECK(log->find("non_kv_bytes")->value == Approx(10.22 * 1073741824.0));
  // Beside the loading line, the loading line's figure stands (its two decimals are the same).
  const auto both = parse_engine_log("INFO [gpu_model_runner.py:2602] Model loading took 8.7953 GiB and 2.1 seconds\n" + profiling);
  REQUIRE(both.ok());
  CHECK(both->find("weights_bytes")->value == Approx(8.7953 * 1073741824.0));
  CHECK(std::count_if(both->figures.begin(), both->figures.end(), [](const LogFigure& f) { return f.key == "weights_bytes"; }) == 1);
}

TEST_CASE("check-log: vLLM's NemotronH line gives the SSM state's dtype it allocated in", "[checklog]") {
  // models/config.py NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype logs the dtype it
  // set where --mamba-ssm-cache-dtype was auto: for a config without the key, float16 at 0.19 and
  // float32 from 0.20 (DEFAULT_MAMBA_SSM_CACHE_DTYPE).
  const std::string head =
      "(APIServer pid=1) INFO 04-20 10:00:00 [utils.py:233] non-default args: {'model': 'nvidia/NVIDIA-Nemotron-Nano-9B-v2', "
      "'max_model_len': 8192}\n";
  const std::string tail = "(EngineCore_DP0 pid=2) INFO 04-20 10:01:00 [gpu_worker.py:298] Available KV cache memory: 60.00 GiB\n";
  const auto log = parse_engine_log(head + "(APIServer pid=1) INFO 04-20 10:00:01 [config.py:426] Updating mamba_ssm_cache_dtype to "
                                           "'float32' for NemotronH model\n" + tail);
  REQUIRE(log.ok());
  llmsize::test::check_settings(*log, {{"mscd", "float32"}, {"seq", "8192"}});
  // The dtype the line gives is the check's, as the flag's would be: float32 on the 0.19 profile,
  // whose own default for this config is float16.
  const auto c = check_log(*log, preset("nemotron-nano-9b-v2").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.mamba_ssm_cache_dtype == MambaDtype::F32);
  // A dtype the field does not know is refused on it, by name; a line cut short sets nothing.
  const auto odd = parse_engine_log(head + "Updating mamba_ssm_cache_dtype to 'int3' for NemotronH model\n" + tail);
  REQUIRE(odd.ok());
  const auto oc = check_log(*odd, preset("nemotron-nano-9b-v2").config, Workload{});
  REQUIRE_FALSE(oc.ok());
  CHECK(oc.issues().front().field == "mscd");
  const auto cut = parse_engine_log(head + "Updating mamba_ssm_cache_dtype to 'float16\n" + tail);
  REQUIRE(cut.ok());
  CHECK(std::none_of(cut->settings.begin(), cut->settings.end(), [](const auto& kv) { return kv.first == "mscd"; }));
}

TEST_CASE("check-log: an older vLLM log names its version and its rank-0 figures", "[calibration][checklog]") {
  const EngineLog log = parsed("vllm-0.10.2-qwen3-235b-tp8.log");
  CHECK(log.version == "0.10.2");
  CHECK(log.model == "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8");
  // 'max_model_len': 32768, 'tensor_parallel_size': 8; "Chunked prefill is enabled with max_num_batched_tokens=2048.";
  // "Desired GPU memory utilization is (0.9, 39.98 GiB)".
  CHECK(log.settings == std::vector<std::pair<std::string, std::string>>{
                            {"seq", "32768"}, {"tp", "8"}, {"mbt", "2048"}, {"util", "0.9"}});
  CHECK(log.find("kv_tokens")->value == 238208);  // the first of the eight ranks' lines
  CHECK(log.find("weights_bytes")->value == Approx(27.7183 * 1073741824.0));
  // 44.42 GiB: no catalog card has that CUDA total (the catalog's L40S, under another driver with ECC on,
  // reports 44.52 GiB), so a check says so and runs on the nearest card, with the log's total.
  CHECK(log.find("total_bytes")->value == Approx(44.42 * 1073741824.0));
  // "Graph capturing finished in 53 secs, took 3.45 GiB": captured after the KV cache, from the
  // memory outside the budget; a check says so rather than setting a figure beside it.
  CHECK(log.find("cuda_graph_bytes")->value == Approx(3.45 * 1073741824.0));
  auto c = check_log(log, preset("qwen3-30b-a3b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  const auto graphs = std::find_if(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("CUDA graphs took 3.45 GiB") != std::string::npos; });
  REQUIRE(graphs != c->notes.end());
  CHECK(message_in(*graphs, Lang::Zh).find("日志中的 CUDA 图占用 3.45 GiB") == 0);
  for (const auto& r : c->rows) CHECK(r.key != "cuda_graph_bytes");
}

TEST_CASE("check-log: a 0.27 log without a CUDA graph estimate, for a model on the first runner, is checked against 0.19", "[checklog]") {
  // The mechanics, on a real 0.27.1 start-up checked against a MoE model (as a caller who picks one would): 0.27's
  // first runner takes its CUDA graph estimate from the KV cache, this log prints none (its model ran Model Runner
  // V2), so the check follows 0.19 and says why, and that the log's release is not the one followed. On the log's
  // RTX 4090 the MoE kernels are the reason; on an H100, the missing estimate.
  const EngineLog log = parsed("vllm-0.27.1-qwen3-8b-rtx4090-warm.log");
  REQUIRE(log.model_runner_v2);
  check_settings(log, {{"vver", "0.27"}});
  CHECK(std::none_of(log.settings.begin(), log.settings.end(), [](const auto& kv) { return kv.first == "vcg"; }));
  const auto noted = [](const LogCheck& k, std::string_view field, std::string_view text) {
    return std::any_of(k.notes.begin(), k.notes.end(), [&](const Issue& n) { return n.field == field && n.message.find(text) != std::string::npos; });
  };
  auto c = check_log(log, preset("qwen3-30b-a3b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.vllm_line == VllmLine::V019);
  CHECK(noted(*c, "vver", "picks its MoE kernels by an oracle"));
  CHECK(noted(*c, "vver", "checked against 0.19's profile instead"));
  CHECK(noted(*c, "log", "llmsize follows vLLM 0.19"));
  EngineLog on_h100 = log;
  on_h100.figures.erase(std::remove_if(on_h100.figures.begin(), on_h100.figures.end(), [](const LogFigure& f) { return f.key == "total_bytes"; }),
                        on_h100.figures.end());
  Workload h100;
  h100.gpu = "h100-sxm";
  auto h = check_log(on_h100, preset("qwen3-30b-a3b").config, h100);
  INFO(join(h.issues()));
  REQUIRE(h.ok());
  CHECK(h->workload.vllm_line == VllmLine::V019);
  CHECK(noted(*h, "vcg", "--vllm-cuda-graph-mib"));
  // The same log against its own model stays on 0.27, Model Runner V2, with no graph estimate needed.
  auto own = check_log(log, preset("qwen3-8b").config, Workload{});
  REQUIRE(own.ok());
  CHECK(own->workload.vllm_line == VllmLine::V027);
  CHECK(std::none_of(own->notes.begin(), own->notes.end(), [](const Issue& n) { return n.field == "vcg"; }));
}

TEST_CASE("check-log: vLLM 0.27.1 start-ups on Model Runner V2, cold and warm, on a card whose total no catalog card has",
          "[calibration][checklog]") {
  // alexostapiuk11/coldstart-recon-worker@5e10909, fixtures/vllm_logs/startup_0.log and startup_1.log (RunPod, an
  // RTX 4090, the first start with torch.compile cold, then the same server again with its compile cache), their
  // lines kept: `vllm serve Qwen/Qwen3-8B` with max_model_len 8192 alone, "Using V2 Model Runner", and 0.27.1's
  // summary ("Free memory on device (22.64/23.52 GiB) on startup. Desired GPU memory utilization is (0.92, 21.64
  // GiB). Actual usage is 15.54 GiB for consumed memory (weights + non-torch), 1.18 GiB [warm: 0.19 GiB] for peak
  // activation, and 0.56 GiB for CUDAGraph memory.").
  for (const char* file : {"vllm-0.27.1-qwen3-8b-rtx4090-cold.log", "vllm-0.27.1-qwen3-8b-rtx4090-warm.log"}) {
    const bool cold = std::string_view(file).find("cold") != std::string_view::npos;
    INFO(file);
    const EngineLog log = parsed(file);
    CHECK(log.version == "0.27.1");
    CHECK(log.model == "Qwen/Qwen3-8B");
    check_settings(log, {{"seq", "8192"}, {"util", "0.92"}, {"vver", "0.27"}});  // 0.92: the default by 0.27
    auto c = check_log(log, preset("qwen3-8b").config, Workload{});
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    auto noted = [&](std::string_view part) {
      return std::any_of(c->notes.begin(), c->notes.end(), [&](const Issue& n) { return n.message.find(part) != std::string::npos; });
    };
    // 23.52 GiB is no catalog card's CUDA total (a container's share of the card): the nearest card, with the
    // log's total, so the budget is the log's.
    CHECK(noted("using the nearest"));
    CHECK(c->workload.gpu_cuda_total_mib == Approx(23.52 * 1024));
    // The 0.27 profile, said; no note of a version llmsize does not follow.
    CHECK(c->workload.vllm_line == VllmLine::V027);
    CHECK(noted("Model Runner V2"));
    CHECK_FALSE(noted("line formats and defaults may differ"));
    CHECK(log.compiled_cold == cold);  // "Compiling a graph for compile range (1, 2048) takes 26.37 s"
    CHECK(noted("#54122") == cold);
    check_same(*c, {"total_bytes", "budget_bytes", "weights_bytes"});
    CHECK(row(*c, "consumed_bytes").ours == "15.52 GiB");  // −0.13%: the non-torch memory is 0.19's constant
    CHECK(std::abs(row(*c, "consumed_bytes").rel_diff) < 0.002);
    REQUIRE_FALSE(c->lines.empty());
    CHECK(c->lines.front() == "Using V2 Model Runner");
    if (!cold) {
      check_same(*c, {"activation_peak_bytes"});
      CHECK(row(*c, "kv_available_bytes").ours == "5.93 GiB");  // +0.3%
      CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 0.005);
    } else {
      // MISS, stated: the cold start's peak activation is 1.18 GiB where the profile's forward is 0.19 (as the
      // warm restart logged): the first run of the compiled model happens inside the profile, and torch.compile's
      // and Triton's transient allocations count as activations (vLLM issue #54122, "Cold AOT compilation is
      // charged as peak activation memory, shrinking KV cache until restart"). The KV memory, 5.93 GiB for the
      // log's 4.92, is +20.5%, its tokens and concurrency with it; llmsize gives the warm figures.
      CHECK(row(*c, "activation_peak_bytes").logged == "1.18 GiB");
      CHECK(row(*c, "activation_peak_bytes").ours == "0.19 GiB");
      CHECK(row(*c, "kv_available_bytes").rel_diff == Approx(5.93 / 4.92 - 1).margin(0.003));
    }
  }
}

TEST_CASE("check-log: a vLLM 0.28.0 start-up on Model Runner V2 (one line for the tokens and the concurrency)",
          "[calibration][checklog]") {
  // yuchia329/kvroute@09a8add, docs/measurements/2026-09-11-pcie-arithmetic/engine.log, its lines kept (one RTX 3090,
  // the compile cache warm): Llama-3.1-8B-Instruct AWQ-INT4 with awq_marlin, max_model_len 8192, util 0.9, 256
  // sequences; 0.28 prints "Model loading took 5.39 GiB memory and …" and "GPU KV cache size: 125,952 tokens, Maximum
  // concurrency for 8,192 tokens per request: 15.38x" on one line.
  const EngineLog log = parsed("vllm-0.28.0-llama-3.1-8b-awq-rtx3090.log");
  CHECK(log.version == "0.28.0");
  check_settings(log, {{"seq", "8192"}, {"w", "awq-int4"}, {"util", "0.9"}, {"mns", "256"}, {"vver", "0.28"}});
  CHECK(log.find("kv_tokens")->value == 125952);
  CHECK(log.find("max_concurrency")->value == Approx(15.38));
  auto c = check_log(log, preset("llama-3.1-8b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.vllm_line == VllmLine::V028);
  check_same(*c, {"total_bytes", "budget_bytes", "consumed_bytes"});
  // llmsize's lines in 0.28's form: the tokens and the concurrency on one line.
  CHECK(std::any_of(c->lines.begin(), c->lines.end(), [](const std::string& l) {
    return l.rfind("GPU KV cache size: ", 0) == 0 && l.find(" tokens, Maximum concurrency for 8,192 tokens per request: ") != std::string::npos;
  }));
  CHECK(std::none_of(c->lines.begin(), c->lines.end(), [](const std::string& l) { return l.rfind("Maximum concurrency", 0) == 0; }));
  CHECK(row(*c, "weights_bytes").ours == "5.37 GiB");        // −0.45%
  CHECK(row(*c, "activation_peak_bytes").ours == "0.21 GiB");  // the log's 0.2: vllm_test.cpp says why
  CHECK(std::abs(row(*c, "kv_available_bytes").rel_diff) < 0.001);
  CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 0.001);
}

TEST_CASE("check-log: --enforce-eager and the version from the engine's config line (the LLM class)", "[calibration][checklog]") {
  // The LLM class prints no "vLLM API server version" line: the version is the engine's
  // "Initializing a V1 LLM engine (v0.18.0) with config: …", whose "enforce_eager=True" (as in
  // "non-default args") is --enforce-eager.
  const EngineLog log = parsed("vllm-0.18-qwen2.5-7b-eager-v100.log");
  CHECK(log.engine == LogEngine::Vllm);
  CHECK(log.version == "0.18.0");
  CHECK(log.model == "/data/Qwen/Qwen2.5-7B-Instruct");
  check_settings(log, {{"dtype", "fp16"}, {"ee", "1"}, {"pc", "yes"}, {"mbt", "8192"}, {"seq", "32768"}});  // "enable_prefix_caching=True"
  CHECK(log.settings.size() == 5);
  CHECK(log.find("cuda_graph_bytes") == nullptr);
  Workload v100;
  v100.gpu = "v100-32gb";  // the log prints no GPU total: the caller's card stands
  auto c = check_log(log, import_file("calibration/configs/qwen2.5-7b-instruct.json"), v100);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.enforce_eager);
  CHECK(c->workload.dtype == ComputeDtype::F16);
  CHECK(c->workload.max_num_batched_tokens == 8192);
  REQUIRE(c->notes.size() == 1);  // the version; no CUDA graph line to note
  CHECK(c->notes[0].message.find("vLLM 0.18.0") != std::string::npos);
  REQUIRE_FALSE(c->lines.empty());
  CHECK(c->lines.front().rfind("Enforce eager set, disabling torch.compile and CUDAGraphs.", 0) == 0);
  CHECK(row(*c, "weights_bytes").logged == "14.25 GiB");
  CHECK(row(*c, "weights_bytes").ours == "14.19 GiB");  // the 0.06 GiB vLLM's H100 runs of this model show too (vllm_test.cpp)
  CHECK(row(*c, "kv_tokens").logged == "245,360");
  CHECK(std::abs(row(*c, "kv_tokens").rel_diff) < 0.005);
  CHECK(row(*c, "max_concurrency").logged == "7.49x");
}

TEST_CASE("check-log: vLLM's Marlin fp8 on an A100; the log's fp8 leaves the caller's block scales", "[calibration][checklog]") {
  // "Selected MarlinFP8ScaledMMLinearKernel for Fp8LinearMethod" is an fp8 checkpoint; a caller who
  // says its scales are 128 × 128 blocks (--weights fp8-block) keeps them, which moves Marlin's
  // group scales (0.43 GiB here against 0.04 for tensor scales).
  const EngineLog log = parsed("vllm-0.19-qwen3-coder-30b-a3b-fp8-a100.log");
  CHECK(log.version == "0.19.1");
  CHECK(log.settings == std::vector<std::pair<std::string, std::string>>{{"seq", "32768"}, {"pc", "yes"}, {"w", "fp8"}});
  Workload a100;
  a100.gpu = "a100-40gb";
  a100.weights = WeightFormat::Fp8Block;
  auto c = check_log(log, preset("qwen3-30b-a3b").config, a100);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.weights == WeightFormat::Fp8Block);
  CHECK(row(*c, "weights_bytes").ours == "29.47 GiB");
  CHECK(row(*c, "kv_tokens").logged == "54,912");
  CHECK(row(*c, "kv_tokens").rel_diff == Approx(0.0166).margin(0.0005));
  Workload plain;
  plain.gpu = "a100-40gb";
  auto t = check_log(log, preset("qwen3-30b-a3b").config, plain);
  REQUIRE(t.ok());
  CHECK(t->workload.weights == WeightFormat::Fp8);  // the log's own word where the caller said nothing
}

TEST_CASE("check-log: an SGLang fp8 checkpoint and its context_length=None, read from the log", "[calibration][checklog]") {
  // "Load weight end. …, type=Qwen3MoeForCausalLM, quant=fp8, fmt=e4m3, …" is the checkpoint's
  // format (bf16 would be 56.89 GB, +95%); server_args' "context_length=None" is the model's own
  // context (40,960), which SGLang's max_running_requests and the fit follow.
  const EngineLog log = parsed("sglang-qwen3-30b-a3b-fp8.log");
  CHECK(log.engine == LogEngine::SGLang);
  CHECK(log.seq_is_model_max);
  CHECK(log.settings ==
        std::vector<std::pair<std::string, std::string>>{{"cps", "8192"}, {"psz", "1"}, {"mfs", "0.83"}, {"tp", "1"}, {"w", "fp8"}});
  Workload h100;
  h100.gpu = "h100-sxm";
  auto c = check_log(log, preset("qwen3-30b-a3b").config, h100);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.weights == WeightFormat::Fp8);
  CHECK(c->workload.seq == 40960);
  CHECK(row(*c, "weights_bytes").logged == "29.15 GB");
  CHECK(row(*c, "weights_bytes").rel_diff == Approx(-0.0036).margin(0.0005));  // 29.05: 0.1 GB of load not traced
  CHECK(row(*c, "kv_tokens").logged == "392,920");
  CHECK(row(*c, "kv_tokens").rel_diff == Approx(0.0004).margin(0.0002));  // 393,089 from the logged free memory
  CHECK(row(*c, "k_bytes").same_text);
  CHECK(row(*c, "v_bytes").same_text);
}

TEST_CASE("check-log: llama.cpp's KV cache lines reproduced from the settings it prints", "[calibration][checklog]") {
  // -c 262144 -np 2 -b 1024 -ub 1024 --flash-attn on, kv_unified false: two streams of 131,072
  // cells, and an SWA cache of pad(128 + 1024, 256) = 1,280 cells.
  const EngineLog log = parsed("llamacpp-gpt-oss-120b-np2.log");
  CHECK(log.engine == LogEngine::LlamaCpp);
  CHECK(log.settings == std::vector<std::pair<std::string, std::string>>{
                            {"np", "2"}, {"seq", "262144"}, {"nb", "1024"}, {"ub", "1024"}, {"flash", "1"}, {"kvu", "0"}, {"kvt", "fp16"}});
  auto c = check_log(log, preset("gpt-oss-120b").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  REQUIRE(c->rows.size() == 4);  // the output buffer, then the cache lines (the excerpt ends before the SWA cache's size line)
  for (const auto& r : c->rows) CHECK(r.same_text);
  CHECK(c->rows[0].label == "output buffer");  // 201088 logits × 2 slots × 4 B = 1.53 MiB
  CHECK(c->rows[2].logged ==
        "llama_kv_cache: size = 9216.00 MiB (131072 cells,  18 layers,  2/2 seqs), K (f16): 4608.00 MiB, V (f16): 4608.00 MiB");
  // Its KV buffers are on ROCm0 and the default card is CUDA's: those rows are not compared, and said so.
  const auto rocm = std::find_if(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("ROCm0") != std::string::npos; });
  REQUIRE(rocm != c->notes.end());
  CHECK(rocm->message.find("no counterpart among llmsize's devices (CUDA0)") != std::string::npos);
  CHECK(message_in(*rocm, Lang::Zh).find("日志中 ROCm0 上的缓冲区在 llmsize 的设备（CUDA0）中没有对应") == 0);
  // The cache lines are numbered rows in each language; the buffers keep llama.cpp's own words.
  CHECK(c->rows[2].label == "line 2");
  CHECK(c->rows[2].label_in(Lang::Zh) == "第 2 行");
  CHECK(c->rows[0].label_in(Lang::Zh) == "output buffer");

  const EngineLog qwen = parsed("llamacpp-qwen2.5-7b.log");
  CHECK(qwen.model == "Qwen2.5 Coder 7B Instruct");
  // "print_info: file type   = Q4_K - Medium" and "offloaded 29/29 layers" set the weights and -ngl.
  CHECK(qwen.settings.front() == std::pair<std::string, std::string>{"w", "q4_k_m"});
  Workload ollama;
  ollama.llamacpp_caller = LlamaCppCaller::Library;  // Ollama's runner leaves n_outputs_max at n_batch
  auto q = check_log(qwen, preset("qwen2.5-7b").config, ollama);
  REQUIRE(q.ok());
  // The two model buffers, the output buffer, the two compute buffers, the KV buffer, then the cache line.
  REQUIRE(q->rows.size() == 7);
  CHECK(q->rows[0].logged == "292.36 MiB");
  CHECK(q->rows[1].logged == "4168.09 MiB");
  // With flash attention the head sets the device's peak: n_ubatch 512 rows of logits (152,064
  // floats) and of lm_head's input (3,584 floats), f32; the host holds the inputs: 512 token ids,
  // positions and output ids, 512 embeddings of 3,584 floats and the f32 KQ mask 4,096 × 512.
  //   llama_context:      CUDA0 compute buffer size =   304.00 MiB
  //   llama_context:  CUDA_Host compute buffer size =    15.01 MiB
  CHECK(q->rows[3].label == "CUDA0 compute buffer");
  CHECK(q->rows[3].logged == "304.00 MiB");
  CHECK(q->rows[3].ours_value == 512.0 * (152064 + 3584) * 4);
  CHECK(q->rows[4].label == "CUDA_Host compute buffer");
  CHECK(q->rows[4].logged == "15.01 MiB");
  CHECK(q->rows[5].label == "CUDA0 KV buffer");
  CHECK(q->rows[5].logged == "224.00 MiB");
  CHECK(q->rows[6].logged_value == 224.0 * 1048576.0);
  for (size_t i : {0, 1, 3, 4, 5, 6}) CHECK(q->rows[i].same_text);
  // Ollama's runner also reserves an embeddings row (3584 floats): 0.59 MiB where llama-server's is 0.58.
  CHECK(q->rows[2].logged == "0.59 MiB");
  CHECK(q->rows[2].ours == "0.58 MiB");
}

TEST_CASE("check-log: llama.cpp's 2026 lines (sched_reserve's compute buffers, a full-size SWA cache)", "[calibration][checklog][llamacpp]") {
  const EngineLog log = parsed("llamacpp-qwen3-4b-np4-sched-reserve.log");
  CHECK(log.engine == LogEngine::LlamaCpp);
  REQUIRE(log.find("compute_buffer:CUDA0"));
  CHECK(log.find("compute_buffer:CUDA0")->value == Approx(85.01 * 1048576.0));
  CHECK(log.find("compute_buffer:CUDA_Host")->value == Approx(28.02 * 1048576.0));
  Workload w;
  w.gpu = "rtx-4090";
  w.weights = WeightFormat::Q4_K_M;
  w.seq = 8192;
  auto c = check_log(log, import_file("calibration/configs/qwen3-4b.json"), w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  for (const char* same : {"model_buffer:CPU_Mapped", "model_buffer:CUDA0", "output_buffer_bytes", "kv_buffer:0:CUDA0"}) {
    INFO(same);
    CHECK(row(*c, same).same_text);
  }
  // Compute buffers: since PR #23861 ("llama: limit max outputs of `llama_context`", merged
  // 2026-05-29) llama-server reserves the logits of its 4 slots, not of the 512-token ubatch
  // (2.32 MiB against 296.75), so the device's buffer is a layer's peak, which the graph allocator
  // sets: with the current graph (the f16 mask of PR #23764, met two days earlier) llmsize's
  // 83.01 MiB is the FFN of layer 0 (gate, up and their product, 19 MiB each, above the inputs'
  // copies and the attention's tensors).
  // MISS, -2.00 MiB on the device (83.01 against 85.01) and -10.01 MiB on the host (18.01: 512
  // token ids and positions, the embeddings input and the token embeddings of 2,560 floats, the
  // cache's row indices, the f16 mask 8,192 × 512, 4 output ids; against 28.02). The excerpt
  // prints no build; not traced. A candidate is llama-server's backend sampling (PR #17004; on by
  // default by PR #21209's account, its inputs in the reserved graph since PR #19266), a sampler
  // graph per slot that llmsize does not follow: its temporaries are a lower bound for the server.
  CHECK(row(*c, "compute_buffer:CUDA0").logged == "85.01 MiB");
  CHECK(row(*c, "compute_buffer:CUDA0").ours == "83.01 MiB");
  CHECK(row(*c, "compute_buffer:CUDA_Host").ours == "18.01 MiB");
  Workload library = w;
  library.llamacpp_caller = LlamaCppCaller::Library;
  auto lib = check_log(log, import_file("calibration/configs/qwen3-4b.json"), library);
  REQUIRE(lib.ok());
  CHECK(row(*lib, "compute_buffer:CUDA0").ours == "301.75 MiB");  // the head: 512 rows of logits and of lm_head's input
  // LM Studio's server log (gpt-oss-120b, Aug 2025) prints llama.cpp's own line when it keeps
  // every SWA cell, after its timestamp: --swa-full.
  auto swa = parse_engine_log(
      "llama_kv_cache_unified_iswa: using full-size SWA cache (ref: https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)\n"
      "llama_context: n_ctx         = 4096\n"
      "llama_kv_cache_unified_iswa: creating non-SWA KV cache, size = 4096 cells\n");
  REQUIRE(swa.ok());
  // Its class names date it to 2025, before PR #23861: a library caller's outputs.
  CHECK(swa->settings == std::vector<std::pair<std::string, std::string>>{
                             {"swaf", "1"}, {"seq", "4096"}, {"lcc", "library"}, {"lcg", "2025-08"}});
}

TEST_CASE("check-log: llama.cpp on two GPUs, each device's buffers", "[calibration][checklog][llamacpp]") {
  // Two devices ("using device CUDA0 … CUDA1") become two stages; with no -ts, llama.cpp split
  // the layers by the free memory it printed (… - 9862 MiB free, … - 31518 MiB free), and the
  // quoted command's -ot ".ffn_.*_exps.=CPU" is every layer's experts on the CPU (--cpu-moe).
  const EngineLog log = parsed("llamacpp-qwen3-30b-a3b-2gpu.log");
  CHECK(log.version == "b5622");
  // Its llama_kv_cache_unified lines and -ngl's blocks-first order date it to 2025: before PR
  // #23861, every caller (llama-cli here, which keeps n_outputs_max anyway) reserved the whole
  // ubatch's outputs.
  check_settings(log, {{"lco", "blocks-first"}, {"lcc", "library"}, {"seq", "16384"}, {"ts", "9862,31518"}});
  CHECK(log.experts_on_cpu);
  CHECK(log.unread.empty());
  Workload w;
  auto c = check_log(log, preset("qwen3-30b-a3b").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  //   load_tensors:        CUDA0 model buffer size =   135.76 MiB
  //   load_tensors:        CUDA1 model buffer size =   648.66 MiB
  //   llama_context:  CUDA_Host  output buffer size =     0.58 MiB
  //   llama_kv_cache_unified:      CUDA0 KV buffer size =   384.00 MiB
  //   llama_kv_cache_unified:      CUDA1 KV buffer size =  1152.00 MiB
  check_same(*c, {"model_buffer:CUDA0", "model_buffer:CUDA1", "output_buffer_bytes", "kv_buffer:0:CUDA0", "kv_buffer:0:CUDA1"});
  CHECK(row(*c, "model_buffer:CUDA1").logged == "648.66 MiB");
  // Without flash attention a layer's scores (16,384 × 512 × 32 × 4, 1 GiB) set each device's
  // compute buffer; the experts' ops, offloaded from the CPU to the first GPU with copies of their
  // weights, stay below them:
  //   llama_context:      CUDA0 compute buffer size =  1080.00 MiB
  //   llama_context:      CUDA1 compute buffer size =  1080.00 MiB
  // and the host's inputs (4 MiB of embeddings, the f32 mask 16,384 × 512):
  //   llama_context:  CUDA_Host compute buffer size =    36.01 MiB
  check_same(*c, {"compute_buffer:CUDA0", "compute_buffer:CUDA1", "compute_buffer:CUDA_Host"});
  CHECK(row(*c, "compute_buffer:CUDA_Host").logged == "36.01 MiB");
  CHECK(std::none_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("compute buffers") != std::string::npos; }));
}

TEST_CASE("check-log: llama.cpp builds of 2025 (their class names, -ngl's blocks-first order, one cache before the SWA cache) and Metal's names",
          "[calibration][checklog][llamacpp]") {
  // llamacpp-2025-07-qwen3-8b-ngl19.log and -ngl11.log: an LM Studio server log of 2025-07-22
  // quoted in an exported Cursor chat (DeepSeek-R1-0528-Qwen3-8B Q8_0 on an RTX 3060 Ti, n_ctx
  // 131072, -ngl 19 and, after an out-of-memory, 11). Before PR #18148 (2025-12-17) -ngl N put
  // the last N repeating layers on the GPU and kept the output layer on the CPU:
  //   load_tensors: offloading 19 repeating layers to GPU
  //   load_tensors: offloaded 19/37 layers to GPU
  //   load_tensors:        CUDA0 model buffer size =  3715.11 MiB
  //   llama_kv_cache_unified:      CUDA0 KV buffer size =  9728.00 MiB
  //   llama_kv_cache_unified:        CPU KV buffer size =  8704.00 MiB
  // The output-first order (today's) would put 630.6 MiB of Q8_0 head and one block fewer there:
  // +435.08 MiB of model and −512 MiB of KV.
  const ModelConfig qwen3 = preset("qwen3-8b").config;
  Workload w;
  w.weights = WeightFormat::Q8_0;
  REQUIRE_FALSE(find_field("gpu")->set(w, "rtx-3080").has_value());  // an 8.6 card; the buffers do not depend on it
  for (const auto& [file, model, cuda_kv, cpu_kv] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"llamacpp-2025-07-qwen3-8b-ngl19.log", "3715.11 MiB", "9728.00 MiB", "8704.00 MiB"},
           {"llamacpp-2025-07-qwen3-8b-ngl11.log", "2150.85 MiB", "5632.00 MiB", "12800.00 MiB"}}) {
    INFO(file);
    const EngineLog log = parsed(file);
    check_settings(log, {{"lco", "blocks-first"}});
    auto c = check_log(log, qwen3, w);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(c->workload.llamacpp_offload == LlamaCppOffload::BlocksFirst);
    CHECK(row(*c, "model_buffer:CUDA0").logged == model);
    CHECK(row(*c, "kv_buffer:0:CUDA0").logged == cuda_kv);
    CHECK(row(*c, "kv_buffer:0:CPU").logged == cpu_kv);
    check_same(*c, {"model_buffer:CUDA0", "kv_buffer:0:CUDA0", "kv_buffer:0:CPU", "output_buffer_bytes", "kv_line_0"});
    // The output layer on the CPU: its logits in the CPU's buffer ("CPU  output buffer size = 0.58 MiB").
    CHECK(std::find(c->lines.begin(), c->lines.end(), "llama_context:        CPU  output buffer size =     0.58 MiB") != c->lines.end());
    CHECK(std::find(c->lines.begin(), c->lines.end(), "load_tensors: offloading output layer to GPU") == c->lines.end());
    // The same settings in today's order: the output layer (151,936 × 4,096 in Q8_0, 630.59 MiB)
    // in place of one block (195.51 MiB): +435.08 MiB of model, and one layer's 512 MiB of KV less.
    Workload today = c->workload;
    today.llamacpp_offload = LlamaCppOffload::OutputFirst;
    const auto then = estimate(qwen3, c->workload);
    const auto now = estimate(qwen3, today);
    REQUIRE(then.ok());
    REQUIRE(now.ok());
    REQUIRE(then->llamacpp_devices.has_value());
    REQUIRE(now->llamacpp_devices.has_value());
    const LlamaCppDevice& a = then->llamacpp_devices->devices.front();
    const LlamaCppDevice& b = now->llamacpp_devices->devices.front();
    CHECK(std::abs(static_cast<double>(b.model_bytes - a.model_bytes) / 1048576.0 - 435.08) < 0.01);
    CHECK(a.cache_bytes - b.cache_bytes == i64{512} << 20);
    CHECK(b.output);
    CHECK_FALSE(a.output);
  }

  // llamacpp-b5050-gemma-3-1b-jetson.log: tqm-dev/meta-jetson-llama-cpp's README, "Run llama.cpp
  // on yocto linux for Jetson Nano (4GB)" (llama-cli --n-gpu-layers 99, build 5050). Before the
  // SWA cache (PR #13194, May 2025) every Gemma 3 layer kept n_ctx cells in one cache:
  //   init: kv_size = 4096, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 26, can_shift = 1
  //   init:      CUDA0 KV buffer size =   104.00 MiB
  //   llama_context: KV self size  =  104.00 MiB, K (f16):   52.00 MiB, V (f16):   52.00 MiB
  // which is --swa-full's two caches (4 + 22 layers of 4,096 cells) as one. Today's cache would
  // hold 38 MiB (1,024 SWA cells).
  {
    const EngineLog log = parsed("llamacpp-b5050-gemma-3-1b-jetson.log");
    CHECK(log.version == "b5050");
    check_settings(log, {{"kvt", "fp16"}, {"swaf", "1"}, {"lco", "blocks-first"}, {"lcc", "library"}, {"seq", "4096"}, {"flash", "0"}});
    Workload g;
    g.weights = WeightFormat::Q4_K_M;
    auto c = check_log(log, preset("gemma-3-1b").config, g);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(row(*c, "kv_line_0").logged == "KV self size  =  104.00 MiB, K (f16):   52.00 MiB, V (f16):   52.00 MiB");
    CHECK(row(*c, "kv_line_0").same_text);
    CHECK(row(*c, "kv_buffer:0:CUDA0").same_text);
    CHECK(row(*c, "model_buffer:CPU_Mapped").same_text);  // 306.00 MiB: token_embd, 262,144 × 1,152 in Q8_0
    CHECK(row(*c, "output_buffer_bytes").same_text);
    // MISS, CUDA0's model buffer: 762.49 MiB where this build printed 762.54 (−0.05 MiB, 0.007%),
    // not traced (the file size print_info gives is 762.49 MiB too).
    CHECK(row(*c, "model_buffer:CUDA0").ours == "762.49 MiB");
    CHECK(row(*c, "model_buffer:CUDA0").logged == "762.54 MiB");
    // Its compute buffers, through llm_build_gemma3_iswa's graph without flash attention (that
    // build's one cache gave the SWA layers their own mask, as the two caches' inputs do):
    //   llama_context:      CUDA0 compute buffer size =   514.25 MiB
    //   llama_context:  CUDA_Host compute buffer size =    18.26 MiB
    //   llama_context: graph nodes  = 1099
    //   llama_context: graph splits = 2
    check_same(*c, {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "graph_splits"});
    CHECK(row(*c, "compute_buffer:CUDA0").logged == "514.25 MiB");
    const auto e = estimate(preset("gemma-3-1b").config, c->workload);
    REQUIRE(e.ok());
    REQUIRE(e->llamacpp_devices);
    // The node count is checked with the other builds' (below).
  }

  // llamacpp-2025-08-gpt-oss-120b-metal.log: an LM Studio server log of 2025-08-12 (gpt-oss-120b
  // MXFP4 in two files on an M4 Max, n_ctx 4096): mid-2025's class names, LM Studio's full-size
  // SWA cache and the Metal device of that time.
  //   llama_kv_cache_unified_iswa: creating     SWA KV cache, size = 4096 cells
  //   llama_kv_cache_unified:      Metal KV buffer size =   144.00 MiB
  //   llama_kv_cache_unified: size =  144.00 MiB (  4096 cells,  18 layers,  1/1 seqs), K (f16):   72.00 MiB, V (f16):   72.00 MiB
  {
    const EngineLog log = parsed("llamacpp-2025-08-gpt-oss-120b-metal.log");
    Workload m;
    m.weights = WeightFormat::Mxfp4Moe;
    REQUIRE_FALSE(find_field("gpu")->set(m, "m4-max-128gb").has_value());
    auto c = check_log(log, preset("gpt-oss-120b").config, m);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(c->workload.swa_full);
    int lines = 0;
    for (const auto& r : c->rows)
      if (r.key.rfind("kv_line_", 0) == 0) {
        CHECK(r.same_text);
        ++lines;
      }
    CHECK(lines == 4);
    CHECK(row(*c, "kv_buffer:1:Metal").same_text);
    CHECK(row(*c, "kv_buffer:2:Metal").same_text);
    CHECK(row(*c, "model_buffer:CPU_Mapped").same_text);
    // Its two Metal_Mapped buffers (37958.69 and 22479.80 MiB) map file spans: named, not compared.
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("Metal_Mapped model buffer maps") != std::string::npos; }));
    CHECK(std::none_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("no counterpart") != std::string::npos; }));
  }

  // llamacpp-b8164-gpt-oss-20b-mtl0.log: a public note quoting llama-completion -hf
  // ggml-org/gpt-oss-20b-GGUF on an Apple M5 (build 8164, n_ctx 131072): the 2026 name of the
  // Metal device is MTL0 ("MTL0 KV buffer", "MTL0_Mapped", "MTL0 compute buffer"), ours "Metal".
  {
    const EngineLog log = parsed("llamacpp-b8164-gpt-oss-20b-mtl0.log");
    check_settings(log, {{"lco", "output-first"}});
    Workload m;
    m.weights = WeightFormat::Mxfp4Moe;
    REQUIRE_FALSE(find_field("gpu")->set(m, "m4-max-128gb").has_value());
    auto c = check_log(log, preset("gpt-oss-20b").config, m);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(row(*c, "kv_buffer:1:Metal").logged == "3072.00 MiB");
    CHECK(row(*c, "kv_buffer:1:Metal").same_text);
    CHECK(row(*c, "kv_buffer:2:Metal").logged == "18.00 MiB");
    CHECK(row(*c, "kv_buffer:2:Metal").same_text);
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& n) {
      return n.message == "the log's compute buffers of MTL0, CPU are not modelled here (their graph is followed for llama, Qwen2, Qwen2.5-VL, Qwen3, Qwen3-MoE, gpt-oss, Gemma 2 and Gemma 3 decoders on GPUs or the CPU alone, whole or partly offloaded, and for Qwen3.5 and Qwen3.5-MoE on the 2026-01 and 2026-04 graphs' builds with every layer on the GPUs, the CPU alone or one sequence; not for this model, build or placement, or Metal)";
    }));
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("MTL0_Mapped model buffer maps") != std::string::npos; }));
  }

  // llamacpp-b6699-gpt-oss-20b-ncmoe.log: ikawrakow/ik_llama.cpp issue #822 (crat0z, 2025-10-10),
  // its mainline run on an RTX 3070 8 GB:
  //   ~/llamacpp/llama.cpp/build-cuda/bin/llama-server -m gpt-oss-20b-mxfp4.gguf -ngl 99 --n-cpu-moe 99 -c 131072 -fa on …
  //   load_tensors:        CUDA0 model buffer size =  1242.03 MiB
  // --n-cpu-moe's pattern takes the experts' biases to the CPU too (24 × 3 × 32 × 2,880 f32).
  // Its compute buffers and splits, through llm_build_openai_moe_iswa's graph (the full cache's
  // and the SWA cache's inputs, each expert matmul and bias add offloaded in a split of its own
  // with a copy of its weight):
  //   llama_context:      CUDA0 compute buffer size =   456.98 MiB
  //   llama_context:  CUDA_Host compute buffer size =   263.15 MiB
  //   llama_context: graph splits = 146 (with bs=512), 50 (with bs=1)
  {
    const EngineLog log = parsed("llamacpp-b6699-gpt-oss-20b-ncmoe.log");
    check_settings(log, {{"ncmoe", "99"}, {"seq", "131072"}, {"lco", "blocks-first"}});
    Workload m;
    m.weights = WeightFormat::Mxfp4Moe;
    auto c = check_log(log, preset("gpt-oss-20b").config, m);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    check_same(*c, {"kv_buffer:1:CUDA0", "kv_buffer:2:CUDA0", "output_buffer_bytes", "kv_line_0", "kv_line_1", "kv_line_2", "kv_line_3",
                    "compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "graph_splits", "graph_splits_tg"});
    CHECK(row(*c, "compute_buffer:CUDA0").logged == "456.98 MiB");
    CHECK(row(*c, "graph_splits").logged == "146");
    // MISS, CUDA0's model buffer: 1242.01 MiB where the build printed 1242.03 (−0.02 MiB,
    // 0.002%): not traced (about 128 B for each of its 170-odd tensors, the CUDA buffer's
    // alignment, would make it).
    CHECK(row(*c, "model_buffer:CUDA0").ours == "1242.01 MiB");
    CHECK(std::abs(row(*c, "model_buffer:CUDA0").rel_diff) < 0.0001);
  }

  // llamacpp-b7445-gemma-2-2b-cpu.log: a published llama-server run from the Windows CPU build
  // (llama-b7445-bin-win-cpu-x64, -np auto = 4 unified slots). With no GPU backend it still prints
  //   load_tensors: offloaded 27/27 layers to GPU
  //   load_tensors:   CPU_Mapped model buffer size =  1623.67 MiB
  //   load_tensors:   CPU_REPACK model buffer size =   921.38 MiB
  // Every layer on the CPU: -ngl 0 and no GPU (--llamacpp-no-gpu), and the mapped span is every
  // tensor (1.59 GiB, print_info's file size). Its one backend computes Gemma 2's whole graph:
  //   llama_context:        CPU compute buffer size =   509.00 MiB
  //   llama_context: graph splits = 1
  {
    const EngineLog log = parsed("llamacpp-b7445-gemma-2-2b-cpu.log");
    check_settings(log, {{"ngl", "0"}, {"lcnogpu", "1"}, {"np", "4"}, {"kvu", "1"}, {"lco", "blocks-first"}});
    Workload cpu;
    cpu.weights = WeightFormat::Q4_K_M;
    auto c = check_log(log, preset("gemma-2-2b").config, cpu);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    check_same(*c, {"model_buffer:CPU_Mapped", "output_buffer_bytes", "kv_buffer:1:CPU", "kv_buffer:2:CPU", "kv_line_1", "kv_line_3",
                    "compute_buffer:CPU", "graph_splits"});
    CHECK(row(*c, "model_buffer:CPU_Mapped").logged == "1623.67 MiB");
    CHECK(row(*c, "output_buffer_bytes").logged == "3.91 MiB");  // 4 slots × 256,000 × 4 B
    CHECK(row(*c, "compute_buffer:CPU").logged == "509.00 MiB");
    // Its exit table (llama_memory_breakdown_print, whole MiB):
    //   llama_memory_breakdown_print: |   - Host               |                 2964 =  1623 +     832 +     509                |
    // the mapped weights, both caches and the compute buffer.
    CHECK(row(*c, "breakdown_model:Host").logged == "1623 MiB");
    CHECK(row(*c, "breakdown_model:Host").same_text);
    CHECK(row(*c, "breakdown_context:Host").logged == "832 MiB");
    CHECK(row(*c, "breakdown_context:Host").same_text);
    CHECK(row(*c, "breakdown_compute:Host").logged == "509 MiB");
    CHECK(row(*c, "breakdown_compute:Host").same_text);
    // Its self, 2964 MiB, is the host memory figure's part in that table (host_self_bytes); the
    // figure adds the CPU output buffer (3.91 MiB), which the table leaves out. A lower bound: the
    // CPU computes the layers, and its CPU_REPACK copy is not counted.
    CHECK(row(*c, "breakdown_self:Host").logged == "2964 MiB");
    CHECK(row(*c, "breakdown_self:Host").same_text);
    const auto e = estimate(preset("gemma-2-2b").config, c->workload);
    REQUIRE(e.ok());
    REQUIRE(e->llamacpp_devices);
    const Figure* host = find_figure("inference.host_bytes");
    REQUIRE(host);
    CHECK(host->value(*e).whole == e->llamacpp_devices->host_self_bytes() + e->llamacpp_devices->output_buffer_bytes);
    CHECK(std::abs(static_cast<double>(host->value(*e).whole) / 1048576.0 - (1623.67 + 416.00 + 416.00 + 509.00 + 3.91)) < 0.03);
    CHECK(host->bound(c->workload, *e) == Bound::Lower);
    // The repacked copy (the Q4_K tensors the CPU's kernels reorder) is named, not modelled.
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("CPU_REPACK buffer (921.38 MiB)") != std::string::npos; }));
  }

  // The issue's anchor, Qwen2.5-Coder-32B at n_ctx 32768 with -ctk q8_0 -ctv q8_0 and flash
  // attention, in a 2024-style start-up (ikawrakow/ik_llama.cpp issue thread of July 2025, Ph0rk0z's
  // log; the fork keeps llama.cpp's context and cache lines of that time):
  //   llama_new_context_with_model: n_ctx      = 32768
  //   llama_new_context_with_model: KV self size  = 4352.00 MiB, K (q8_0): 2176.00 MiB, V (q8_0): 2176.00 MiB
  // 64 layers × 8 KV heads × 128 × 34/32 B a token for K, the same for V.
  {
    auto log = parse_engine_log(
        "llama_new_context_with_model: n_ctx      = 32768\n"
        "llama_new_context_with_model: n_batch    = 2048\n"
        "llama_new_context_with_model: n_ubatch   = 2048\n"
        "llama_new_context_with_model: flash_attn = 1\n"
        "llama_new_context_with_model: KV self size  = 4352.00 MiB, K (q8_0): 2176.00 MiB, V (q8_0): 2176.00 MiB\n");
    REQUIRE(log.ok());
    CHECK(log->engine == LogEngine::LlamaCpp);
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"seq", "32768"}, {"ub", "2048"}, {"flash", "1"}, {"kvt", "q8_0"}})
      check_settings(*log, {{k, v}});
    Workload q;
    q.weights = WeightFormat::Q4_K_M;
    auto c = check_log(*log, import_file("calibration/configs/qwen2.5-32b-instruct.json"), q);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(row(*c, "kv_line_0").ours == "KV self size  = 4352.00 MiB, K (q8_0): 2176.00 MiB, V (q8_0): 2176.00 MiB");
    CHECK(row(*c, "kv_line_0").same_text);
  }

  // The exit table of later builds, by either name, a device's line and the host's; the last
  // table is the run's (a fitting build prints its projection first).
  {
    auto log = parse_engine_log(
        "common_memory_breakdown_print: |   - CUDA0 (RTX 3090)   | 24159 = 23257 + (21388 = 15345 +    5206 +     836) +      -20486 |\n"
        "llama_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |\n"
        "llama_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24077 =  945 + (19187 = 17904 +     384 +     898) +        3945 |\n"
        "llama_memory_breakdown_print: |   - Host               |                 58271 = 58259 +       0 +      12                |\n");
    REQUIRE(log.ok());
    CHECK(log->engine == LogEngine::LlamaCpp);
    for (const auto& [key, mib] : std::vector<std::pair<std::string, double>>{
             {"breakdown_model:CUDA0", 17904}, {"breakdown_context:CUDA0", 384}, {"breakdown_compute:CUDA0", 898},
             {"breakdown_model:Host", 58259}, {"breakdown_context:Host", 0}, {"breakdown_compute:Host", 12}}) {
      INFO(key);
      REQUIRE(log->find(key));
      CHECK(log->find(key)->value == mib * 1048576.0);
    }
  }

  // A command line that places tensors some other way is named, not guessed.
  {
    auto log = parse_engine_log(
        "llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -ngl 99 -ot \"blk\\.(1[0-9])\\.ffn_.*_exps=CPU\" -c 8192\n"
        "llama_kv_cache: size =  768.00 MiB (  8192 cells,  48 layers,  1/1 seqs), K (f16):  384.00 MiB, V (f16):  384.00 MiB\n");
    REQUIRE(log.ok());
    CHECK_FALSE(log->experts_on_cpu);
    REQUIRE(log->unread.size() == 1);
    CHECK(log->unread.front() == "-ot blk\\.(1[0-9])\\.ffn_.*_exps=CPU");
    auto c = check_log(*log, preset("qwen3-30b-a3b").config, Workload{});
    REQUIRE(c.ok());
    CHECK(std::any_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("-ot blk") != std::string::npos; }));
  }

  // A log that quotes its size lines alone (the README of a KV calculator validating against
  // llama-server -c 8192 on an Apple M5, bartowski's Meta-Llama-3-8B-Instruct Q4_K_M): the first
  // cache's cells and "slots/streams" give n_ctx, -np and -kvu.
  const ModelConfig llama3 = preset("llama-3-8b").config;
  for (const auto& [line, seq, np, kvu] : std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  512.00 MiB, V (f16):  512.00 MiB", "8192", "1", ""},
           {"llama_kv_cache: size = 1024.00 MiB (  2048 cells,  32 layers,  4/4 seqs), K (f16):  512.00 MiB, V (f16):  512.00 MiB", "8192", "4", "0"},
           {"llama_kv_cache: size =  544.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB", "8192", "1", ""}}) {
    INFO(line);
    auto log = parse_engine_log(line + "\n");
    REQUIRE(log.ok());
    check_settings(*log, {{"seq", seq}});
    check_settings(*log, {{"np", np}});
    CHECK(std::count_if(log->settings.begin(), log->settings.end(), [](const auto& s) { return s.first == "kvu"; }) == (kvu.empty() ? 0 : 1));
    Workload q;
    q.weights = WeightFormat::Q4_K_M;
    auto c = check_log(*log, llama3, q);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    CHECK(row(*c, "kv_line_0").same_text);
  }
}

TEST_CASE("check-log: hostile and foreign logs get a named error", "[calibration][checklog][validation]") {
  CHECK(parse_engine_log("").issues().front().field == "log");
  CHECK(parse_engine_log("hello\nworld\n").issues().front().field == "log");
  CHECK(parse_engine_log(std::string(kMaxLogBytes + 1, 'x')).issues().front().message.find("at most") != std::string::npos);
  // An over-long line is skipped, not read.
  std::string long_line(kMaxLogLine + 10, 'a');
  long_line += "GPU KV cache size: 5 tokens";
  CHECK_FALSE(parse_engine_log(long_line).ok());
  // Numbers are bounded and a setting out of range names its field.
  auto big = parse_engine_log("INFO non-default args: {'max_model_len': 99999999999999999999999999999999999}\n"
                              "INFO GPU KV cache size: 1 tokens\n");
  REQUIRE(big.ok());
  auto c = check_log(*big, preset("qwen2.5-0.5b").config, Workload{});
  REQUIRE_FALSE(c.ok());
  CHECK(c.issues().front().field == "seq");
  // A dict that never closes, quotes that never end, a NUL byte: parsed as far as it goes.
  static constexpr char kOpen[] = "non-default args: {'model': 'x\0y', 'tensor_parallel_size': ";
  CHECK(parse_engine_log(std::string(kOpen, sizeof kOpen - 1) + "\nAvailable KV cache memory: 1.5 GiB\n").ok());
  // Numbers beyond int64 become settings the fields refuse by name, never a cast out of range.
  auto far = parse_engine_log("Defaulting max_num_seqs to 1e400\nDefaulting max_num_batched_tokens to "
                              "99999999999999999999999999\nGPU KV cache size: 1 tokens\n");
  REQUIRE(far.ok());
  auto fc = check_log(*far, preset("qwen2.5-0.5b").config, Workload{});
  REQUIRE_FALSE(fc.ok());
  CHECK(fc.issues().front().field == "mbt");
  auto free_mem = parse_engine_log("Load weight begin. avail mem=99999999999 GB\nLoad weight end. type=X, avail mem=1.00 GB, "
                                   "mem usage=1.00 GB.\nKV Cache is allocated. #tokens: 5, K size: 1.00 GB, V size: 1.00 GB\n");
  REQUIRE(free_mem.ok());
  auto fm = check_log(*free_mem, preset("qwen2.5-0.5b").config, Workload{});
  REQUIRE_FALSE(fm.ok());
  CHECK(fm.issues().front().field == "log");
  // An SGLang log is recognised; a #tokens beyond any GPU is refused by name, not cast.
  auto sg = parse_engine_log("[2025-10-07] KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB\n");
  REQUIRE(sg.ok());
  CHECK(sg->engine == LogEngine::SGLang);
  auto sgc = check_log(*sg, preset("qwen2.5-0.5b").config, Workload{});
  REQUIRE(sgc.ok());
  CHECK(sgc->rows.front().key == "kv_tokens");
  auto huge = parse_engine_log("KV Cache is allocated. #tokens: 99999999999999999999999, K size: 1.00 GB, V size: 1.00 GB\n");
  REQUIRE(huge.ok());
  auto hc = check_log(*huge, preset("qwen2.5-0.5b").config, Workload{});
  REQUIRE(hc.ok());
  for (const auto& r : hc->rows) CHECK(r.key != "k_bytes");  // no pool is sized from it
  // A buffer of a new name on every line: the figures stop at a bound, so each lookup stays short.
  std::string many;
  for (int i = 0; i < 100000; ++i) many += "load_tensors: X" + std::to_string(i) + " model buffer size = 1.00 MiB\n";
  many += "llama_kv_cache: size =    1.00 MiB (   256 cells,   1 layers,  1/1 seqs), K (f16):    0.50 MiB, V (f16):    0.50 MiB\n";
  REQUIRE(many.size() < kMaxLogBytes);
  auto flood = parse_engine_log(many);
  REQUIRE(flood.ok());
  CHECK(flood->figures.size() <= 1024);
  CHECK(flood->kv_lines.size() == 1);
  // A command line that never ends (every line continued with '\\') is read up to its bound.
  std::string endless = "llama-server -m x.gguf \\\n";
  for (int i = 0; i < 1000; ++i) endless += "  -ngl 5 \\\n";
  endless += "llama_kv_cache: size =    1.00 MiB (   256 cells,   1 layers,  1/1 seqs), K (f16):    0.50 MiB, V (f16):    0.50 MiB\n";
  auto cmd = parse_engine_log(endless);
  REQUIRE(cmd.ok());
  check_settings(*cmd, {{"ngl", "5"}});
}

TEST_CASE("check-log: a Megatron-LM training log, its arguments and every rank beside the megatron recipe", "[calibration][checklog][training]") {
  const EngineLog log = parsed("megatron-gpt345m-pp4.log");
  CHECK(log.engine == LogEngine::Megatron);
  CHECK(to_string(log.engine) == "Megatron-LM");
  CHECK(*log.argument("num_layers") == "24");
  CHECK(log.argument("no_such_argument") == nullptr);
  // From the argument block: the layout, the micro-batches (global_batch_size 8 / (micro_batch_size 2
  // · data_parallel_size 1)), fp16 mixed precision and what the recipe needs to know.
  const std::vector<std::pair<std::string, std::string>> want = {
      {"mode", "training"}, {"recipe", "megatron"}, {"tp", "1"}, {"pp", "4"}, {"gpus", "4"}, {"batch", "2"}, {"seq", "1024"},
      {"accum", "4"}, {"dtype", "fp16"}, {"prec", "mixed"}, {"gdt", "auto"}, {"ostate", "fp32"}, {"flash", "0"}, {"sp", "0"},
      {"zero", "0"}, {"opt", "adamw"}, {"rc", "none"}, {"dropout", "1"}};
  CHECK(log.settings == want);
  CHECK(log.find("padded_vocab")->value == 50304);
  CHECK(log.find("params:0,3")->value == 127090688);
  CHECK(log.find("max_allocated:0")->value == Approx(7643.34033203125 * 1048576.0));
  CHECK(log.find("iterations")->value == 100);

  auto c = check_log(log, preset("gpt2-medium").config, Workload{});
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->notes.empty());  // the model is the log's
  CHECK(c->workload.mode == Mode::Training);
  CHECK(c->workload.recipe == Recipe::Megatron);
  CHECK(c->workload.pp == 4);
  CHECK(c->workload.grad_accum == 4);
  // Four parameter rows, exact; a peak and a between-steps row per rank, in rank order.
  REQUIRE(c->rows.size() == 4 + 2 * 4);
  for (int s = 0; s < 4; ++s) CHECK(row(*c, "params:0," + std::to_string(s)).same_text);
  CHECK(c->rows[4].key == "max_allocated:0");
  CHECK(c->rows[5].key == "allocated:0");
  // The same figures the recipe's calibration pins: the loss stage within 0.3%, between steps on
  // stage 0 to 0.01 MiB, the stages without the loss short by the untraced moment.
  CHECK(row(*c, "max_allocated:3").rel_diff == Approx(-0.0028).margin(0.0003));
  CHECK(std::abs(row(*c, "allocated:0").logged_value - row(*c, "allocated:0").ours_value) < 0.02 * 1048576.0);
  CHECK(row(*c, "max_allocated:2").rel_diff == Approx(-0.0281).margin(0.0005));
  CHECK(row(*c, "max_allocated:0").label == "[Rank 0] max allocated (stage 0)");
  CHECK(row(*c, "max_allocated:0").label_in(Lang::Zh) == "[Rank 0] 峰值已分配（第 0 级）");
  CHECK(c->lines.back() == "[Rank 3] memory (MB) | allocated: 2504.31 | max allocated: 4378.00");

  // Tensor and pipeline parallel with sequence parallelism: ranks 0 and 1 are stage 0, 2 and 3 stage 1.
  const EngineLog tp = parsed("megatron-gpt345m-tp2pp2.log");
  auto t = check_log(tp, preset("gpt2-medium").config, Workload{});
  REQUIRE(t.ok());
  CHECK(t->workload.seq_parallel);
  CHECK(t->workload.tp == 2);
  CHECK(row(*t, "params:1,0").same_text);
  CHECK(row(*t, "max_allocated:1").ours_value == row(*t, "max_allocated:0").ours_value);
  CHECK(row(*t, "max_allocated:3").rel_diff == Approx(-0.0031).margin(0.0003));
  CHECK(row(*t, "max_allocated:2").label == "[Rank 2] max allocated (stage 1)");

  // The same run with --use-distributed-optimizer: the recipe's --zero 1. Over one data-parallel
  // rank (4 stages on 4 GPUs) it shards nothing, so every figure stays the replicated optimizer's.
  std::string text = read_text("fuzz/corpus/engine_log/megatron-gpt345m-pp4.log");
  const std::string off = "use_distributed_optimizer ....................... False";
  REQUIRE(text.find(off) != std::string::npos);
  text.replace(text.find(off), off.size(), "use_distributed_optimizer ....................... True");
  auto dist_log = parse_engine_log(text);
  REQUIRE(dist_log.ok());
  auto dist = check_log(*dist_log, preset("gpt2-medium").config, Workload{});
  INFO(join(dist.issues()));
  REQUIRE(dist.ok());
  CHECK(dist->workload.sharding == Sharding::Zero1);
  REQUIRE(dist->rows.size() == c->rows.size());
  for (size_t i = 0; i < c->rows.size(); ++i) CHECK(dist->rows[i].ours_value == c->rows[i].ours_value);

  // Recomputation as the log sets it: selective, and full with one layer a uniform checkpoint, are
  // the recipe's; full by blocks (or without a method, which Megatron-LM rejects) is refused by name.
  auto with_args = [](std::vector<std::pair<std::string, std::string>> swaps) {
    std::string t = read_text("fuzz/corpus/engine_log/megatron-gpt345m-pp4.log");
    for (const auto& [from, to] : swaps) {
      REQUIRE(t.find(from) != std::string::npos);
      t.replace(t.find(from), from.size(), to);
    }
    auto parsed_log = parse_engine_log(t);
    REQUIRE(parsed_log.ok());
    return check_log(*parsed_log, preset("gpt2-medium").config, Workload{});
  };
  const std::string granularity = "recompute_granularity ........................... None";
  const std::string method = "recompute_method ................................ None";
  auto sel = with_args({{granularity, "recompute_granularity ........................... selective"}});
  INFO(join(sel.issues()));
  REQUIRE(sel.ok());
  CHECK(sel->workload.recompute == Recompute::Selective);
  CHECK(row(*sel, "max_allocated:0").ours_value < row(*c, "max_allocated:0").ours_value);
  auto full = with_args({{granularity, "recompute_granularity ........................... full"},
                         {method, "recompute_method ................................ uniform"}});
  INFO(join(full.issues()));
  REQUIRE(full.ok());
  CHECK(full->workload.recompute == Recompute::Full);
  auto block = with_args({{granularity, "recompute_granularity ........................... full"},
                          {method, "recompute_method ................................ block"}});
  REQUIRE_FALSE(block.ok());
  CHECK(block.issues().front().field == "rc");
  CHECK(block.issues().front().message.find("full, recompute_method block, recompute_num_layers 1") != std::string::npos);
  CHECK_FALSE(with_args({{granularity, "recompute_granularity ........................... full"}}).ok());

  // The wrong model is named, argument by argument.
  auto wrong = check_log(log, preset("gpt2").config, Workload{});
  REQUIRE(wrong.ok());
  REQUIRE(wrong->notes.size() == 4);
  CHECK(wrong->notes.front().message == "the log's num_layers is 24, the model checked has 12: choose the model the run trained");
}

TEST_CASE("check-log: a hostile Megatron-LM log gets named errors, not guesses", "[calibration][checklog][validation]") {
  const ModelConfig gpt2 = preset("gpt2-medium").config;
  auto args = [](const std::string& body) {
    return "------------------------ arguments ------------------------\n" + body +
           "-------------------- end of arguments ---------------------\n";
  };
  // A world beyond any machine: the field refuses it by name.
  auto big = parse_engine_log(args("  world_size ...... 99999999999999999999999999\n  fp16 ...... True\n"));
  REQUIRE(big.ok());
  CHECK(big->engine == LogEngine::Megatron);
  auto bc = check_log(*big, gpt2, Workload{});
  REQUIRE_FALSE(bc.ok());
  CHECK(bc.issues().front().field == "gpus");
  // A global batch the micro-batches do not divide, and dropout on one side only: refused by name.
  auto frac = parse_engine_log(args("  global_batch_size .... 10\n  micro_batch_size .... 4\n  data_parallel_size .... 1\n"));
  REQUIRE(frac.ok());
  CHECK(check_log(*frac, gpt2, Workload{}).issues().front().field == "accum");
  auto mixed = parse_engine_log(args("  hidden_dropout .... 0.1\n  attention_dropout .... 0.0\n"));
  REQUIRE(mixed.ok());
  CHECK(check_log(*mixed, gpt2, Workload{}).issues().front().field == "dropout");
  // An argument block that never ends is read up to its bound; a rank beyond the world is skipped.
  std::string endless = "------------------------ arguments ------------------------\n  fp16 .... True\n  use_flash_attn .... False\n"
                        "  hidden_dropout .... 0.1\n  attention_dropout .... 0.1\n";
  for (int i = 0; i < 5000; ++i) endless += "  a" + std::to_string(i) + " .... " + std::to_string(i) + "\n";
  endless += "[Rank 7] (after 3 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0 | reserved: 3.0\n";
  auto e = parse_engine_log(endless);
  REQUIRE(e.ok());
  CHECK(e->arguments.size() == 2048);
  CHECK(e->engine == LogEngine::Megatron);
  Workload w1024;  // within gpt2-medium's 1,024 learned positions, as Megatron-LM asserts
  w1024.seq = 1024;
  auto ec = check_log(*e, gpt2, w1024);
  INFO(join(ec.issues()));
  REQUIRE(ec.ok());
  CHECK(ec->rows.empty());  // rank 7 of a one-GPU run: not a rank of the layout checked
  // Five GPUs over two stages: no whole number of stages, refused by its field.
  auto odd = parse_engine_log(args("  fp16 .... True\n  use_flash_attn .... False\n  world_size .... 5\n"
                                   "  pipeline_model_parallel_size .... 2\n  hidden_dropout .... 0.1\n  attention_dropout .... 0.1\n") +
                              "[Rank 4] (after 9 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0\n");
  REQUIRE(odd.ok());
  auto oc = check_log(*odd, gpt2, Workload{});
  REQUIRE_FALSE(oc.ok());
  CHECK(oc.issues().front().field == "gpus");
  // A reading after the first iteration is named as one that may not hold Adam's states.
  auto first = parse_engine_log("[Rank 0] (after 1 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0\n");
  REQUIRE(first.ok());
  // (The log says nothing else: the workload's own settings stand, here Megatron-LM's defaults.)
  auto fc = check_log(*first, gpt2, llmsize::test::with({{"flash", "0"}, {"dropout", "1"}, {"rc", "none"}, {"dtype", "fp16"}, {"seq", "1024"}}));
  INFO(join(fc.issues()));
  REQUIRE(fc.ok());
  REQUIRE(fc->notes.size() == 1);
  CHECK(fc->notes.front().message.find("after 1 iteration") != std::string::npos);
}

// DeepSpeed-Chat's published step-1 log for OPT-1.3b (its first 15 lines, verbatim:
// DeepSpeedExamples 3a77097a, applications/DeepSpeed-Chat/training/step1_supervised_finetuning/
// training_log_output/opt-1.3b-globalBatchSize128.log; the calibration is
// tests/calibration/training/deepspeed_test.cpp).
TEST_CASE("check-log: DeepSpeed-Chat's step-1 log, its command and rank 0's memory beside the deepspeed recipe", "[calibration][checklog][training]") {
  const EngineLog log = parsed("dschat-opt-1.3b-step1.log");
  CHECK(log.engine == LogEngine::DeepSpeedChat);
  CHECK(to_string(log.engine) == "DeepSpeed-Chat");
  CHECK(log.model == "facebook/opt-1.3b");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"mode", "training"}, {"recipe", "deepspeed"}, {"dtype", "fp16"}, {"prec", "mixed"}, {"opt", "adamw"}, {"ostate", "fp32"},
      {"flash", "0"}, {"batch", "8"}, {"seq", "512"}, {"accum", "1"}, {"zero", "2"}, {"dropout", "1"}, {"rc", "none"}};
  CHECK(log.settings == want);
  CHECK(log.find("max_mem_allocated")->value == Approx(22.95 * 1073741824.0));
  CHECK(log.find("mem_allocated")->value == Approx(3.96 * 1073741824.0));

  // The log keeps no DeepSpeed config print: the GPUs are the caller's, and a note says so.
  Workload w;
  w.gpus = 16;
  w.gpu = "v100-32gb";
  const ModelConfig opt = import_file("calibration/configs/opt-1.3b.json");
  auto c = check_log(log, opt, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  REQUIRE(c->notes.size() == 1);
  CHECK(c->notes[0].field == "gpus");
  CHECK(c->workload.recipe == Recipe::DeepSpeed);
  CHECK(c->workload.sharding == Sharding::Zero2);
  REQUIRE(c->rows.size() == 2);
  // The calibration's figures and its stated miss (both 0.19 GiB under).
  CHECK(row(*c, "max_mem_allocated").ours == "22.76GB");
  CHECK(row(*c, "max_mem_allocated").rel_diff == Approx(-0.0084).margin(0.0005));
  CHECK(row(*c, "mem_allocated").ours == "3.77GB");
  CHECK(row(*c, "mem_allocated").rel_diff == Approx(-0.0481).margin(0.0005));
  REQUIRE(c->lines.size() == 1);
  CHECK(c->lines[0] == "MemAllocated=3.77GB, MaxMemAllocated=22.76GB");

  // With DeepSpeed's config print the GPUs come from the log: 128 / (8 · 1).
  const std::string text = read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log") +
                           "[2023-04-18 01:40:00,000] [INFO] [config.py:1018:print]   train_batch_size ............. 128\n"
                           "[2023-04-18 01:40:00,000] [INFO] [config.py:1018:print]   train_micro_batch_size_per_gpu  8\n";
  auto printed = parse_engine_log(text);
  REQUIRE(printed.ok());
  CHECK(printed->find("ds_global_batch")->value == 128);
  w.gpus = 1;
  auto c2 = check_log(printed.value(), opt, w);
  REQUIRE(c2.ok());
  CHECK(c2->notes.empty());
  CHECK(c2->workload.gpus == 16);
  CHECK(row(*c2, "max_mem_allocated").ours == "22.76GB");

  // The launcher's world size outranks the config print; then the command's --num_gpus
  // (× --num_nodes; one node when no hostfile is named).
  auto world = parse_engine_log(text + "[2025-01-02 15:45:26,832] [INFO] [launch.py:164:main] dist_world_size=8\n");
  REQUIRE(world.ok());
  auto c4 = check_log(world.value(), opt, w);
  REQUIRE(c4.ok());
  CHECK(c4->workload.gpus == 8);
  std::string launched = read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log");
  launched.replace(launched.find("cmd = deepspeed main.py"), 23, "cmd = deepspeed --num_gpus 8 --num_nodes 2 main.py");
  auto c5 = check_log(parse_engine_log(launched).value(), opt, w);
  REQUIRE(c5.ok());
  CHECK(c5->notes.empty());
  CHECK(c5->workload.gpus == 16);
  CHECK(row(*c5, "max_mem_allocated").ours == "22.76GB");
  launched.replace(launched.find(" --num_nodes 2"), 14, " --hostfile hosts");
  auto c6 = check_log(parse_engine_log(launched).value(), opt, w);
  REQUIRE(c6.ok());
  CHECK(c6->workload.gpus == 1);  // the hostfile's nodes are unknown: the caller's, noted
  REQUIRE(c6->notes.size() == 1);
  CHECK(c6->notes[0].field == "gpus");
  launched.replace(launched.find(" --hostfile hosts"), 17, "");
  auto c7 = check_log(parse_engine_log(launched).value(), opt, w);
  REQUIRE(c7.ok());
  CHECK(c7->workload.gpus == 8);

  // The runner's own command line (DeepSpeed >= 0.10 prints the launcher it spawns), as in
  // DeepSpeed-Chat's step-2 DPO log (training_log_output/opt-350M_globalBatchSize-32.log, line 3).
  std::string runner = read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log");
  runner.replace(runner.find("cmd = deepspeed main.py"), 23,
                 "[2025-01-02 15:45:22,160] [INFO] [runner.py:607:main] cmd = .venv/dsexamples/bin/python3 -u -m "
                 "deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgMywgNCwgNSwgNiwgN119 "
                 "--master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None main.py");
  auto rl = parse_engine_log(runner);
  REQUIRE(rl.ok());
  CHECK(rl->engine == LogEngine::DeepSpeedChat);
  CHECK(rl->model == "facebook/opt-1.3b");
  CHECK(rl->settings == want);

  // Steps 2 and 3 are other trainings: refused by name, with the line that says so.
  // (step2_reward_model_finetuning/training_log_output/opt-350m_globalBatchSize-64.log, line 3;
  // step3_rlhf_finetuning/main.py's --actor_model_name_or_path.)
  auto rm = parse_engine_log(read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log") + "***** Evaluating reward, Epoch 0/1 *****\n");
  REQUIRE_FALSE(rm.ok());
  CHECK(join(rm.issues()).find("step 2 or 3 (reward model, DPO or RLHF: ***** Evaluating reward, Epoch 0/1 *****)") != std::string::npos);
  CHECK(rm.issues().front().field == "log");
  std::string actor = read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log");
  actor.replace(actor.find("--model_name_or_path"), 20, "--actor_model_name_or_path");
  auto rlhf = parse_engine_log(actor);
  REQUIRE_FALSE(rlhf.ok());
  CHECK(join(rlhf.issues()).find("--actor_model_name_or_path") != std::string::npos);

  // Stage 3 in the command: the recipe's refusal, named.
  std::string stage3 = read_text("fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log");
  stage3.replace(stage3.find("--zero_stage 2"), 14, "--zero_stage 3");
  auto c3 = check_log(parse_engine_log(stage3).value(), opt, w);
  REQUIRE_FALSE(c3.ok());
  CHECK(join(c3.issues()).find("--zero 1 or 2") != std::string::npos);
}

TEST_CASE("check-log: llama.cpp's compute buffers, a dense decoder's graph through ggml's allocator", "[calibration][checklog][llamacpp]") {
  // An Ollama runner of late 2025 (compute buffers printed by llama_context: before sched_reserve,
  // so before PR #18898's embeddings input and PR #23861; a library caller's 512 outputs), n_ctx
  // 32768 with flash attention:
  //   llama_context:      CUDA0 compute buffer size =   382.01 MiB
  //   llama_context:  CUDA_Host compute buffer size =    71.01 MiB
  // A layer sets the device's buffer (the head would be 304.00): the f32 mask's copy (64 MiB) is
  // freed once cast to f16 (32 MiB), and the layers' tensors fragment the space the copy left.
  const EngineLog coder = parsed("llamacpp-ollama-qwen2.5-coder-7b-32k.log");
  check_settings(coder, {{"lcc", "library"}, {"lcg", "2025-08"}});
  Workload w;
  w.weights = WeightFormat::Q4_K_M;
  auto c = check_log(coder, preset("qwen2.5-7b").config, w);  // Qwen2.5-Coder-7B has Qwen2.5-7B's shape
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  for (const char* same : {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "kv_buffer:0:CUDA0"}) {
    INFO(same);
    CHECK(row(*c, same).same_text);
  }
  CHECK(row(*c, "compute_buffer:CUDA0").logged == "382.01 MiB");

  // Build 5505 (May 2025): flash attention took the f32 mask as it was, and the head sets the
  // device's buffer, 512 rows of logits and of lm_head's input (296.75 + 10.00 MiB):
  //   llama_context:      CUDA0 compute buffer size =   306.75 MiB
  //   llama_context:  CUDA_Host compute buffer size =    74.01 MiB
  const EngineLog b5505 = parsed("llamacpp-b5505-qwen3-14b-q8kv.log");
  check_settings(b5505, {{"lcc", "library"}, {"lcg", "2025-05"}, {"kvt", "q8_0"}});
  Workload q8;
  q8.weights = WeightFormat::Q8_0;
  auto d = check_log(b5505, import_file("calibration/configs/qwen3-14b.json"), q8);
  INFO(join(d.issues()));
  REQUIRE(d.ok());
  for (const char* same : {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "kv_buffer:0:CUDA0"}) {
    INFO(same);
    CHECK(row(*d, same).same_text);
  }
  // With a later build's cast (2025-07's graph) the cast's 32 MiB would sit under the layers and
  // push the head to 390.75 MiB: the log shows there was none.
  Workload cast = q8;
  cast.llamacpp_graph = LlamaCppGraph::Cpy;
  EngineLog pinned = b5505;
  std::erase_if(pinned.settings, [](const auto& kv) { return kv.first == "lcg"; });
  auto e = check_log(pinned, import_file("calibration/configs/qwen3-14b.json"), cast);
  REQUIRE(e.ok());
  CHECK(row(*e, "compute_buffer:CUDA0").ours == "390.75 MiB");

  // A 2026 build linked as a library (its graph_reserve lines reserve 512 outputs for one
  // sequence: a library caller's), n_ctx 4096:
  //   sched_reserve:      CUDA0 compute buffer size =   301.75 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =    18.01 MiB
  const EngineLog spark = parsed("llamacpp-2026-qwen3-4b-spark.log");
  check_settings(spark, {{"lcc", "library"}});
  Workload q4;
  q4.weights = WeightFormat::Q4_K_M;
  auto f = check_log(spark, import_file("calibration/configs/qwen3-4b.json"), q4);
  INFO(join(f.issues()));
  REQUIRE(f.ok());
  CHECK(row(*f, "compute_buffer:CUDA0").same_text);  // the head: 512 rows of 151,936 logits and of 2,560 floats
  // The host's 18.01 MiB holds an f32 mask (8 MiB; 4 MiB in f16): a build before PR #23764, which
  // the log does not date. With the current graph llmsize gives 14.01; told the build's graph
  // (--llamacpp-graph 2026-01), it gives the log's figure.
  CHECK(row(*f, "compute_buffer:CUDA_Host").ours == "14.01 MiB");
  q4.llamacpp_graph = LlamaCppGraph::EmbdInput;
  auto g = check_log(spark, import_file("calibration/configs/qwen3-4b.json"), q4);
  REQUIRE(g.ok());
  CHECK(row(*g, "compute_buffer:CUDA_Host").same_text);
  CHECK(row(*g, "compute_buffer:CUDA0").same_text);
}

TEST_CASE("check-log: which llama.cpp graph a log's build reserved", "[checklog][llamacpp]") {
  auto graph_of = [](const std::string& text) {
    auto log = parse_engine_log(text);
    REQUIRE(log.ok());
    for (const auto& [k, v] : log->settings)
      if (k == "lcg") return v;
    return std::string("(current)");
  };
  const std::string kv = "llama_kv_cache: size = 1536.00 MiB ( 16384 cells,  48 layers,  1/1 seqs), K (f16):  768.00 MiB, V (f16):  768.00 MiB\n";
  const std::string compute = kv + "llama_context:      CUDA0 compute buffer size =   306.75 MiB\n";
  const std::string reserve = kv + "sched_reserve:      CUDA0 compute buffer size =    85.01 MiB\n";
  // By the build number where one is printed: up to 5505 the uncast mask, up to 5781 ggml_cpy.
  CHECK(graph_of("build: 5505 (9065ca71) with cc for x86_64-linux-gnu\n" + compute) == "2025-05");
  CHECK(graph_of("build: 5506 (00000000) with cc for x86_64-linux-gnu\n" + compute) == "2025-07");
  CHECK(graph_of("build: 5781 (ba3ef86c5) with cc for x86_64-linux-gnu\n" + compute) == "2025-07");
  // Else compute lines from llama_context (before sched_reserve) or 2025's class names: set_rows.
  CHECK(graph_of(compute) == "2025-08");
  CHECK(graph_of("llama_kv_cache_unified: size = 1536.00 MiB ( 16384 cells,  48 layers,  1 seqs), K (f16):  768.00 MiB, V (f16):  768.00 MiB\n") ==
        "2025-08");
  // A 2026 build (sched_reserve) is the current graph unless told, or a numbered build up to 8999
  // (spring 2026), whose host buffers held the f32 mask (8428's CPU one and 8999's Metal one among
  // them): --llamacpp-graph 2026-01, and 2026-04 from build 8641 (PR #21038's rotation of a
  // quantized cache, vendored at b8641 and not at b8547) or where the log prints the rotation on.
  CHECK(graph_of("build: 7972 (e06088da0) with GNU 13.3.0 for Linux x86_64\n" + reserve) == "2026-01");
  CHECK(graph_of("build: 8211 (a0ed91a44) with GNU 13.3.0 for Linux x86_64\n" + reserve) == "2026-01");
  CHECK(graph_of("build: 8428 (cd708db0c) with MSVC 19.44.35222.0 for x64\n" + reserve) == "2026-01");
  CHECK(graph_of("build: 8586 (64ac9ab66) with GNU 15.2.1 for Linux x86_64\n" + reserve) == "2026-01");
  const std::string rot = "llama_kv_cache: attn_rot_k = 1, n_embd_head_k_all = 256\n";
  CHECK(graph_of("build: 8586 (64ac9ab66) with GNU 15.2.1 for Linux x86_64\n" + rot + reserve) == "2026-04");
  CHECK(graph_of("build: 8641 (00000000) with GNU 13.3.0 for Linux x86_64\n" + reserve) == "2026-04");
  CHECK(graph_of("build: 8999 (b97ebdc98) with GNU 13.3.0 for Linux x86_64\n" + reserve) == "2026-04");
  // llama-server's "build_info: b8946-0f1bb602d" dates it too; a number up to 7445 beside
  // sched_reserve's lines is not upstream's (a docker image's own count: b484, May 2026).
  CHECK(graph_of("build_info: b8946-0f1bb602d\n" + reserve) == "2026-04");
  CHECK(graph_of("2026-05-14 22:14:13.291 | build_info: b484-2c4055912\n" + rot + reserve) == "(current)");
  CHECK(graph_of("build_info: b484-2c4055912\n" + compute) == "2025-05");
  CHECK(graph_of("build: 9000 (00000000) with GNU 13.3.0 for Linux x86_64\n" + reserve) == "(current)");
  CHECK(graph_of(reserve) == "(current)");
  CHECK(graph_of("build: 9670 (02810c7aa) with cc for x86_64-linux-gnu\n" + reserve) == "(current)");
}

TEST_CASE("check-log: compute buffers without flash attention, and a partial offload through ggml's scheduler", "[calibration][checklog][llamacpp]") {
  // Without flash attention each layer's scores, kq [n_kv, n_tokens, n_head] f32, set the GPU's
  // buffer. llamacpp-b5712-qwen3-4b-nofa.log (llama-cli build 5712, Qwen3-4B Q4_K_M, n_ctx 8192):
  //   llama_context: flash_attn    = 0
  //   llama_context:      CUDA0 compute buffer size =   554.00 MiB
  //   llama_context:  CUDA_Host compute buffer size =    21.01 MiB
  // 554.00 = the scores (8,192 × 512 × 32 × 4, 512 MiB) over the f32 mask's copy (16 MiB) and a
  // layer's other tensors; the host: the f32 mask and 512 embeddings of 2,560 floats.
  {
    const EngineLog log = parsed("llamacpp-b5712-qwen3-4b-nofa.log");
    check_settings(log, {{"lcg", "2025-07"}});
    auto c = check_log(log, import_file("calibration/configs/qwen3-4b.json"), Workload{});
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    check_same(*c, {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "kv_buffer:0:CUDA0"});
  }
  // llamacpp-b5398-qwen3-0.6b-rocm-nofa.log (llama-cli build 5398 on ROCm, Qwen3-0.6B Q8_0, n_ctx 4096):
  //   llama_context:      ROCm0 compute buffer size =   298.75 MiB
  //   llama_context:  ROCm_Host compute buffer size =    10.01 MiB
  // Here the head sets it: 512 rows of 151,936 logits and of 1,024 floats (the scores, 4,096 × 512
  // × 16 × 4, are 128 MiB). The post's Vulkan run printed the same two figures.
  {
    const EngineLog log = parsed("llamacpp-b5398-qwen3-0.6b-rocm-nofa.log");
    Workload w;
    REQUIRE_FALSE(find_field("gpu")->set(w, "mi300x").has_value());  // a ROCm device; the buffers do not depend on it
    auto c = check_log(log, import_file("calibration/configs/qwen3-0.6b.json"), w);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    check_same(*c, {"compute_buffer:ROCm0", "compute_buffer:ROCm_Host"});
  }
  // llamacpp-ollama-r1-distill-llama-8b-np4-nofa.log, an Ollama runner of spring 2025 (its
  // llama_init_from_model lines: one cache stream for its 4 slots, the cache written by ggml_cpy),
  // DeepSeek-R1-Distill-Llama-8B (Llama 3.1 8B's shape), n_ctx 8192:
  //   llama_init_from_model:      CUDA0 compute buffer size =   560.00 MiB
  //   llama_init_from_model:  CUDA_Host compute buffer size =    24.01 MiB
  //   llama_init_from_model: graph splits = 2
  {
    const EngineLog log = parsed("llamacpp-ollama-r1-distill-llama-8b-np4-nofa.log");
    check_settings(log, {{"kvu", "1"}, {"lcg", "2025-05"}, {"np", "4"}});
    auto c = check_log(log, preset("llama-3.1-8b").config, Workload{});
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    check_same(*c, {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "kv_buffer:0:CUDA0", "graph_splits", "graph_splits_tg"});
  }
  // llamacpp-ollama-2026-05-gemma-2-2b-rocm-np2.log: Ollama's runner of May 2026 (two slots, two
  // cache streams of 8,192 cells, Ollama's full-size SWA cache, n_ubatch 256, eager attention):
  //   llama_context:      ROCm0 compute buffer size =   252.25 MiB
  //   llama_context:  ROCm_Host compute buffer size =    22.26 MiB
  //   llama_context: graph nodes  = 1180
  //   llama_context: graph splits = 2
  // Each stream's half of the ubatch attends over its own stream's cells: the mask and the scores
  // are those of one stream of n_kv = 8,192 over all 256 tokens.
  {
    const EngineLog log = parsed("llamacpp-ollama-2026-05-gemma-2-2b-rocm-np2.log");
    check_settings(log, {{"np", "2"}, {"kvu", "0"}, {"swaf", "1"}, {"ub", "256"}, {"lcc", "library"}});
    const LogCheck c = checked_on_rocm(log, "gemma-2-2b", WeightFormat::Q4_0);
    check_same(c, {"compute_buffer:ROCm0", "compute_buffer:ROCm_Host", "kv_buffer:1:ROCm0", "kv_buffer:2:ROCm0", "graph_splits",
                    "model_buffer:CPU_Mapped"});
    const auto e = estimate(preset("gemma-2-2b").config, c.workload);
    REQUIRE(e.ok());
    REQUIRE(e->llamacpp_devices);
    CHECK(e->llamacpp_devices->graph_nodes == 1180);  // its two streams' cache reshapes and eager V's views counted
    // Its host memory: the mapped token embedding, no cache on the CPU, ROCm_Host's compute buffer
    // and output buffer (461.43 + 22.26 + 1.97 MiB printed; 1.95 ours, the miss below). Every part
    // followed and no layer on the CPU: an estimate.
    const Figure* host = find_figure("inference.host_bytes");
    REQUIRE(host);
    CHECK(std::abs(static_cast<double>(host->value(*e).whole) / 1048576.0 - (461.43 + 22.26 + 1.97)) < 0.03);
    CHECK(host->bound(c.workload, *e) == Bound::Estimate);
    // MISS, the output buffer: 1.95 MiB (2 slots × 256,000 logits) where this runner printed 1.97,
    // about 16 KiB more, not traced (Ollama's runner of 2026 reserving more beside the logits).
    CHECK(row(c, "output_buffer_bytes").ours == "1.95 MiB");
    CHECK(row(c, "output_buffer_bytes").logged == "1.97 MiB");
    // MISS, ROCm0's model buffer: 1548.25 MiB against 1548.29 (0.003%), as the other builds'
    // device buffers of a few hundredths: not traced.
    CHECK(row(c, "model_buffer:ROCm0").ours == "1548.25 MiB");
  }
  // llamacpp-b7972-qwen2.5-vl-7b-rocm.log: Qwen2.5-VL-7B's text model (GGUF arch qwen2vl,
  // llm_build_qwen2vl: Qwen2's graph with ggml_rope_multi over four positions a token), build 7972
  // (--llamacpp-graph 2026-01: the f32 mask beside the embeddings input), 65,536 cells, FA:
  //   sched_reserve:      ROCm0 compute buffer size =   422.00 MiB
  //   sched_reserve:  ROCm_Host compute buffer size =   142.02 MiB
  //   sched_reserve: graph nodes  = 959
  // and at exit
  //   llama_memory_breakdown_print: |   - ROCm0 ((TM) Pro VII) | 16368 =  233 + (8404 =  6078 +    1904 +     422) +        7729 |
  //   llama_memory_breakdown_print: |   - Host                 |                  694 =   552 +       0 +     142                |
  // The mmproj encoder's own buffers (alloc_compute_meta: ROCm0 704.79, CPU 292.41 MiB) are the clip
  // context's, outside the language model's graph and that table.
  {
    const EngineLog log = parsed("llamacpp-b7972-qwen2.5-vl-7b-rocm.log");
    check_settings(log, {{"lcg", "2026-01"}, {"np", "4"}, {"kvu", "1"}, {"seq", "65536"}, {"kvt", "q8_0"}, {"flash", "1"}});
    const LogCheck c = checked_on_rocm(log, "qwen2.5-vl-7b", WeightFormat::Q6_K);
    check_same(c, {"compute_buffer:ROCm0", "compute_buffer:ROCm_Host", "graph_splits", "kv_buffer:0:ROCm0", "output_buffer_bytes",
                    "breakdown_compute:ROCm0", "breakdown_context:ROCm0", "breakdown_compute:Host", "breakdown_context:Host"});
    const auto e = estimate(preset("qwen2.5-vl-7b").config, c.workload);
    REQUIRE(e.ok());
    REQUIRE(e->llamacpp_devices);
    CHECK(e->llamacpp_devices->graph_nodes == 959);
    // MISS, the model buffers (and so each row's self): unsloth's UD-Q6_K_XL keeps its own type per
    // tensor (token_embd in Q8_0: 552.23 MiB mapped, where q6_k gives 426.36), which llmsize does
    // not know without the file. The caches, compute buffers and output buffer do not depend on it.
    CHECK(row(c, "model_buffer:CPU_Mapped").ours == "426.36 MiB");
    CHECK(row(c, "breakdown_self:Host").logged == "694 MiB");
    CHECK(row(c, "breakdown_self:Host").ours == "568 MiB");
  }
  // A partial offload: llamacpp-2025-07-qwen3-8b-ngl19.log and -ngl11.log (DeepSeek-R1-0528-Qwen3-8B
  // Q8_0, n_ctx 131072, flash attention off, "LLAMA_SET_ROWS=0, using old ggml_cpy() method"):
  //   llama_context:      CUDA0 compute buffer size =  9240.00 MiB
  //   llama_context:  CUDA_Host compute buffer size =   264.01 MiB
  // in both. The scheduler runs every op of the CPU's layers on the GPU (op offload: their weights'
  // ops have 512 rows), so their attention reads copies of those layers' K and V (131,072 cells of
  // 1,024 f16, 256 MiB each) beside the scores (8 GiB) and the mask's copy (256 MiB); the CPU
  // computes in CUDA's host buffer type, whatever the output layer's device.
  const ModelConfig qwen3 = preset("qwen3-8b").config;
  Workload w;
  w.weights = WeightFormat::Q8_0;
  for (const char* file : {"llamacpp-2025-07-qwen3-8b-ngl19.log", "llamacpp-2025-07-qwen3-8b-ngl11.log"}) {
    INFO(file);
    const EngineLog log = parsed(file);
    check_settings(log, {{"lcg", "2025-07"}});
    auto c = check_log(log, qwen3, w);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    // The scheduler's splits too: "graph splits = 225 (with bs=512), 37 (with bs=1)" (329 and 53
    // with -ngl 11); one token's graph keeps the CPU's layers on the CPU (no op offload under 32
    // rows) and pins each layer's norm to its device.
    check_same(*c, {"compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "graph_splits", "graph_splits_tg"});
    // The graph of a build that wrote the cache with set_rows would add the cache's row indices
    // to the host's inputs: V's one per element (512 × 1,024 int64, 4 MiB), K's one per token.
    Workload rows = c->workload;
    rows.llamacpp_graph = LlamaCppGraph::SetRows;
    const auto e = estimate(qwen3, rows);
    REQUIRE(e.ok());
    CHECK(static_cast<double>(e->llamacpp_devices->host_compute_bytes) - row(*c, "compute_buffer:CUDA_Host").ours_value == static_cast<double>((i64{4} << 20) + 512 * 8));
  }
}

TEST_CASE("check-log: a MoE decoder's compute buffers from the reserved graph, build_moe_ffn followed", "[calibration][checklog][llamacpp]") {
  // Build 7342 (before PR #23861: 512 outputs; before sched_reserve), n_ctx 65536 on 4 unified slots:
  //   llama_context:      CUDA0 compute buffer size =   300.75 MiB
  //   llama_context:  CUDA_Host compute buffer size =   132.01 MiB
  const EngineLog log = parsed("llamacpp-b7342-qwen3-coder-30b-a3b.log");
  check_settings(log, {{"lcc", "library"}, {"lcg", "2025-08"}});
  Workload w;
  w.weights = WeightFormat::Q8_0;
  auto c = check_log(log, preset("qwen3-30b-a3b").config, w);  // Qwen3-Coder-30B-A3B has Qwen3-30B-A3B's shape
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  // The host: 512 token ids, positions and cache row indices, the f32 mask 65,536 × 512 (128 MiB)
  // and 512 token embeddings of 2,048 floats.
  CHECK(row(*c, "compute_buffer:CUDA_Host").same_text);
  CHECK(row(*c, "kv_buffer:0:CUDA0").same_text);
  // The device: every layer through ggml's allocator, the router (logits, argsort, the chosen
  // weights renormalized) and the experts' mul_mat_id of 8 × 768 rows a token; the mask's copy
  // (128 MiB) and its f16 cast (64 MiB) stay below the head, which sets it: 512 rows of 151,936
  // logits and of 2,048 floats, 300.75 MiB.
  CHECK(row(*c, "compute_buffer:CUDA0").same_text);
  CHECK(std::none_of(c->notes.begin(), c->notes.end(), [](const Issue& n) { return n.message.find("CUDA0") != std::string::npos; }));
}

TEST_CASE("check-log: Qwen3.5 on a CPU build of spring 2026, every buffer but the file's own quant mix", "[calibration][checklog][llamacpp]") {
  // llamacpp-b8428-qwen3.5-0.8b-cpu.log: build 8428 (the 2026-01 graph, the f32 mask), no GPU, the
  // server's defaults. Its compute buffer is Qwen3.5's hybrid graph through the CPU's one allocator:
  //   llama_memory_recurrent: size =   77.06 MiB (     4 cells,  24 layers,  4 seqs), R (f32):    5.06 MiB, S (f32):   72.00 MiB
  //   sched_reserve:        CPU compute buffer size =   786.02 MiB
  //   sched_reserve: graph nodes  = 1377
  //   sched_reserve: graph splits = 1
  const EngineLog log = parsed("llamacpp-b8428-qwen3.5-0.8b-cpu.log");
  check_settings(log, {{"ngl", "0"}, {"lcnogpu", "1"}, {"np", "4"}, {"kvu", "1"}, {"seq", "262144"}, {"lcg", "2026-01"}});
  Workload w;
  w.weights = WeightFormat::Q4_K_M;
  auto c = check_log(log, preset("qwen3.5-0.8b").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  check_same(*c, {"output_buffer_bytes", "kv_buffer:0:CPU", "kv_line_0", "kv_line_1", "compute_buffer:CPU", "graph_nodes", "graph_splits",
                  "graph_splits_tg"});
  // Its recurrent line has no "rs_seq" count (the 2026-01 graph's builds); llmsize's follows the build.
  CHECK(row(*c, "kv_line_1").logged.find("4 seqs), R (f32)") != std::string::npos);
  CHECK(row(*c, "compute_buffer:CPU").logged == "786.02 MiB");
  // MISS, the mapped file: 492.61 MiB where llmsize's Q4_K_M gives 478.01 (−3.0%). The file is
  // Unsloth's mix ("Q4_K - Medium", 5.49 bits a weight), not llama-quantize's default recipe.
  CHECK(row(*c, "model_buffer:CPU_Mapped").logged == "492.61 MiB");
  CHECK(row(*c, "model_buffer:CPU_Mapped").rel_diff == Approx(478.01 / 492.61 - 1).margin(0.0005));
}

TEST_CASE("check-log: a rotated q8_0 cache of Qwen3.6-27B (the 2026-04 graph), every compute figure", "[calibration][checklog][llamacpp]") {
  // llamacpp-2026-05-qwen3.6-27b-q8kv-rtx5090.log: its build counter is the image's own (b484), so
  // the graph is given: 2026-04, as the log's date (before PR #23764) and its rotation lines say.
  //   llama_kv_cache: attn_rot_k = 1, n_embd_head_k_all = 256
  //   sched_reserve:      CUDA0 compute buffer size =   495.00 MiB
  //   sched_reserve:  CUDA_Host compute buffer size =   276.29 MiB
  //   sched_reserve: graph nodes  = 3849
  const EngineLog log = parsed("llamacpp-2026-05-qwen3.6-27b-q8kv-rtx5090.log");
  check_settings(log, {{"np", "4"}, {"kvu", "1"}, {"seq", "131072"}, {"kvt", "q8_0"}, {"ub", "512"}});
  CHECK(std::none_of(log.settings.begin(), log.settings.end(), [](const auto& kv) { return kv.first == "lcg"; }));
  Workload w;
  w.llamacpp_graph = LlamaCppGraph::KvRot;
  auto c = check_log(log, preset("qwen3.6-27b").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  check_same(*c, {"output_buffer_bytes", "kv_buffer:0:CUDA0", "kv_line_0", "compute_buffer:CUDA0", "compute_buffer:CUDA_Host", "graph_nodes",
                  "graph_splits", "graph_splits_tg", "model_buffer:CPU_Mapped"});
  CHECK(row(*c, "graph_nodes").logged == "3849");
  // MISS, the GPU's weights: 16386.94 MiB where llmsize's Q4_K_M gives 14775.19 (−9.8%): the file
  // is Unsloth's UD-Q4_K_XL mix, and --spec-type mtp loads its MTP block's weights too.
  CHECK(row(*c, "model_buffer:CUDA0").rel_diff == Approx(14775.19 / 16386.94 - 1).margin(0.0005));
  // MISS, the recurrent line's layers: 65 where llmsize prints 64. That image's MTP support counted
  // the MTP block in the recurrent memory's layers; upstream's prints hparams.n_layer(), the trunk.
  CHECK(row(*c, "kv_line_1").logged.find("65 layers") != std::string::npos);
}

TEST_CASE("check-log: the reserved graph's nodes beside each build's \"graph nodes\"", "[calibration][llamacpp]") {
  // Views hold no memory, so a count that misses changes no buffer; the count checks the graph's
  // structure node by node. Each log's line is "llama_context: graph nodes  = N".
  struct Case {
    const char* file;
    const char* preset;  // or a config under tests/calibration/configs
    const char* config;
    WeightFormat w;
    int logged, ours;
  };
  const Case cases[] = {
      {"llamacpp-b7342-qwen3-coder-30b-a3b.log", "qwen3-30b-a3b", nullptr, WeightFormat::Q4_K_M, 3031, 3031},
      {"llamacpp-ollama-qwen2.5-coder-7b-32k.log", nullptr, "calibration/configs/qwen2.5-7b-instruct.json", WeightFormat::Q4_K_M, 959, 959},
      {"llamacpp-b5712-qwen3-4b-nofa.log", nullptr, "calibration/configs/qwen3-4b.json", WeightFormat::Q4_K_M, 1446, 1446},
      {"llamacpp-b5398-qwen3-0.6b-rocm-nofa.log", nullptr, "calibration/configs/qwen3-0.6b.json", WeightFormat::Q8_0, 1070, 1070},
      {"llamacpp-b6699-gpt-oss-20b-ncmoe.log", "gpt-oss-20b", nullptr, WeightFormat::Mxfp4Moe, 1352, 1352},
      {"llamacpp-b7445-gemma-2-2b-cpu.log", "gemma-2-2b", nullptr, WeightFormat::Q4_K_M, 948, 948},
      // Qwen3.5's hybrid graph: 18 Gated DeltaNet layers of 63 nodes, 6 attention layers of 39, 9 more.
      {"llamacpp-b8428-qwen3.5-0.8b-cpu.log", "qwen3.5-0.8b", nullptr, WeightFormat::Q4_K_M, 1377, 1377},
      // MISS, one node a layer: that July build's ggml_cpy fallback (LLAMA_SET_ROWS=0) reshaped K
      // before viewing the cache, which build 5712's did not.
      {"llamacpp-2025-07-qwen3-8b-ngl11.log", "qwen3-8b", nullptr, WeightFormat::Q8_0, 1482, 1446},
      // MISS, one node in all: not traced.
      {"llamacpp-2026-qwen3-4b-spark.log", nullptr, "calibration/configs/qwen3-4b.json", WeightFormat::Q4_K_M, 1267, 1266},
      {"llamacpp-b5505-qwen3-14b-q8kv.log", nullptr, "calibration/configs/qwen3-14b.json", WeightFormat::Q8_0, 1447, 1446},
      // MISS, builds older than the 2025-05 graph (build 5050 of April, Ollama's spring runner):
      // one node a layer more than the first, two than the second, in views not traced.
      {"llamacpp-b5050-gemma-3-1b-jetson.log", "gemma-3-1b", nullptr, WeightFormat::Q4_K_M, 1099, 1125},
      {"llamacpp-ollama-r1-distill-llama-8b-np4-nofa.log", "llama-3.1-8b", nullptr, WeightFormat::Q4_K_M, 1030, 1094},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    const EngineLog log = parsed(k.file);
    const std::string text = read_text(std::string("fuzz/corpus/engine_log/") + k.file);
    CHECK(text.find("graph nodes  = " + std::to_string(k.logged)) != std::string::npos);
    const ModelConfig cfg = k.preset ? preset(k.preset).config : import_file(k.config);
    Workload w;
    w.weights = k.w;
    auto c = check_log(log, cfg, w);
    INFO(join(c.issues()));
    REQUIRE(c.ok());
    const auto e = estimate(cfg, c->workload);
    REQUIRE(e.ok());
    REQUIRE(e->llamacpp_devices);
    REQUIRE(e->llamacpp_devices->compute_layers);
    CHECK(e->llamacpp_devices->graph_nodes == k.ours);
    // check-log's own row: the log's count beside llmsize's.
    CHECK(row(*c, "graph_nodes").logged == std::to_string(k.logged));
    CHECK(row(*c, "graph_nodes").ours == std::to_string(k.ours));
    CHECK(row(*c, "graph_nodes").same_text == (k.logged == k.ours));
  }
}

TEST_CASE("check-log: LitGPT finetune/lora.py's prints, its settings and Memory used beside the litgpt recipe", "[checklog][training]") {
  // The lines finetune/lora.py at 8641822 prints (fabric.print of hparams, of the model it loads, of
  // num_parameters, of the longest sample, and of max_memory_allocated / 1e9 after training), with
  // the settings and figure of resource-tables.md's row "| 7 B | Llama 2 | None | 1 | 4,194,304 |
  // 2 x A100 | 22.18 GB |": devices = 2, micro_batch_size = 1, batch_size 128.
  const std::string text =
      "{'eval_interval': 100, 'save_interval': 100, 'eval_iters': 100, 'eval_max_new_tokens': 100, 'log_interval': 1, "
      "'devices': 2, 'learning_rate': 0.0003, 'batch_size': 128, 'micro_batch_size': 1, 'gradient_accumulation_iters': 128, "
      "'max_iters': 50000, 'weight_decay': 0.01, 'lora_r': 8, 'lora_alpha': 16, 'lora_dropout': 0.05, 'lora_query': True, "
      "'lora_key': False, 'lora_value': True, 'lora_projection': False, 'lora_mlp': False, 'lora_head': False, 'warmup_steps': 100}\n"
      "Loading model 'checkpoints/meta-llama/Llama-2-7b-hf/lit_model.pth' with {'name': 'Llama-2-7b-hf', 'block_size': 4096, "
      "'vocab_size': 32000, 'n_layer': 32, 'n_head': 32, 'n_embd': 4096, 'r': 8, 'alpha': 16, 'dropout': 0.05}\n"
      "Number of trainable parameters: 4,194,304\n"
      "Number of non trainable parameters: 6,738,415,616\n"
      "The longest sequence length in the train data is 1304, the model's maximum sequence length is 1304 and context length is 4096\n"
      "iter 0 step 0: loss 1.7293, iter time: 1012.34ms\n"
      "Training time: 355.80s\n"
      "Memory used: 22.18 GB\n";
  const auto log = parse_engine_log(text);
  INFO(join(log.issues()));
  REQUIRE(log.ok());
  CHECK(log->engine == LogEngine::LitGpt);
  CHECK(to_string(log->engine) == "LitGPT");
  CHECK(log->model == "meta-llama/Llama-2-7b-hf");
  check_settings(*log, {{"mode", "training"}, {"recipe", "litgpt"}, {"batch", "1"}, {"accum", "128"}, {"lora", "8"}, {"gpus", "2"},
                        {"zero", "fsdp"}, {"rc", "full"}, {"lt", "q,v"}, {"seq", "1304"}});
  CHECK(log->find("litgpt_memory_used")->value == Approx(22.18e9));
  CHECK(log->find("litgpt_trainable")->value == 4194304);
  // The script prints neither its precision nor the GPU: the caller's (bf16-true, A100 40GB).
  Workload w = llmsize::test::with({{"gpu", "a100-40gb"}, {"prec", "pure"}, {"dtype", "bf16"}});
  auto c = check_log(*log, preset("llama-2-7b").config, w);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  CHECK(c->workload.recipe == Recipe::LitGpt);
  CHECK(c->workload.sharding == Sharding::Fsdp);
  REQUIRE(c->rows.size() == 2);
  CHECK(row(*c, "litgpt_trainable").same_text);
  CHECK(row(*c, "litgpt_memory_used").logged == "22.18 GB");
  CHECK(row(*c, "litgpt_memory_used").ours == "22.24 GB");  // the calibration's +0.26%
  CHECK(row(*c, "litgpt_memory_used").rel_diff == Approx(0.0026).margin(0.0005));
  REQUIRE(c->lines.size() == 2);
  CHECK(c->lines[1] == "Memory used: 22.24 GB");
  // Without the caller's precision the recipe's refusal names it.
  auto no_prec = check_log(*log, preset("llama-2-7b").config, llmsize::test::with({{"gpu", "a100-40gb"}}));
  REQUIRE_FALSE(no_prec.ok());
  CHECK(no_prec.issues().front().message.find("bf16-true") != std::string::npos);
  // An adapted head is refused by name; a cut "Memory used" line gives no figure.
  std::string head = text;
  head.replace(head.find("'lora_head': False"), 18, "'lora_head': True");
  auto h = parse_engine_log(head);
  REQUIRE(h.ok());
  auto ch = check_log(*h, preset("llama-2-7b").config, w);
  REQUIRE_FALSE(ch.ok());
  CHECK(ch.issues().front().field == "lt");
  auto cut = parse_engine_log(text.substr(0, text.size() - 9) + "\n");
  REQUIRE(cut.ok());
  CHECK(cut->find("litgpt_memory_used") == nullptr);
}
