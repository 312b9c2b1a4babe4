// The workload field table, strict text get/set and validate() (see workload.hpp).
#include "workload.hpp"

#include <cmath>

#include "format.hpp"
#include "gpus.hpp"

namespace llmsize::core {

namespace {

#define AT(member) [](auto& w) -> auto& { return w.member; }

using W = Workload;

FieldSpec spec(std::string_view key, std::string_view flag, std::string_view label, std::string_view help,
               FieldScope scope) {
  FieldSpec s;
  s.key = key;
  s.flag = flag;
  s.label = label;
  s.help = help;
  s.scope = scope;
  return s;
}
template <class Ref>
WorkloadField int_row(FieldSpec s, i64 lo, i64 hi, Ref ref) {
  s.min_int = lo;
  s.max_int = hi;
  return int_field<W>(s, ref);
}
template <class Ref>
WorkloadField real_row(FieldSpec s, double lo, double hi, Ref ref) {
  s.min_real = lo;
  s.max_real = hi;
  return real_field<W>(s, ref);
}
// A real in (lo, hi], or 0 for the engine's or the catalog's own value.
template <class Ref>
WorkloadField real_or_default_row(FieldSpec s, double lo, double hi, Ref ref) {
  s.zero_is_default = true;
  return real_row(s, lo, hi, ref);
}

// The GPU is stored by its catalog id (a string), so its choices are the catalog's ids.
WorkloadField gpu_row(FieldSpec s) {
  static const std::vector<std::string_view> ids = [] {
    std::vector<std::string_view> v;
    for (const auto& g : gpu_catalog()) v.push_back(g.id);
    v.push_back(kCustomGpu);
    return v;
  }();
  WorkloadField row{s};
  row.kind = FieldKind::Enum;
  row.choices = ids;
  row.get_text = [](const FieldSpec&, const W& w) { return w.gpu; };
  row.set_text = [](const FieldSpec& f, W& w, std::string_view t) -> std::optional<Issue> {
    size_t i = 0;
    if (auto issue = read_choice(f, t, i)) return issue;
    w.gpu = std::string(t);
    return std::nullopt;
  };
  return row;
}

// llama.cpp's -ts: one share per device, comma separated, none negative; empty = by free memory.
WorkloadField tensor_split_row(FieldSpec s) {
  s.kind = FieldKind::RealList;
  s.min_real = 0;
  s.max_real = 1e6;
  s.max_int = 16;  // LLAMA_MAX_DEVICES
  WorkloadField row{s};
  row.get_text = [](const FieldSpec&, const W& w) {
    std::string t;
    for (double v : w.tensor_split) t += (t.empty() ? "" : ",") + format_real(v);
    return t;
  };
  row.set_text = [](const FieldSpec& f, W& w, std::string_view t) -> std::optional<Issue> {
    std::vector<double> out;
    for (bool more = !t.empty(); more;) {
      const size_t comma = t.find(',');
      auto v = parse_real(t.substr(0, comma));
      if (!v || *v < f.min_real || *v > f.max_real || static_cast<i64>(out.size()) >= f.max_int)
        return must_be(f);
      out.push_back(*v);
      more = comma != std::string_view::npos;
      if (more) t.remove_prefix(comma + 1);  // "3," leaves an empty share: refused above on the next turn
    }
    w.tensor_split = std::move(out);
    return std::nullopt;
  };
  row.in_range = [](const FieldSpec& f, const W& w) {
    if (static_cast<i64>(w.tensor_split.size()) > f.max_int) return false;
    for (double v : w.tensor_split)
      if (!(v >= f.min_real && v <= f.max_real)) return false;
    return true;
  };
  return row;
}

// llama.cpp's devices when the cards differ: one catalog id per device (no custom card: a
// device list names cards whose numbers the catalog has).
WorkloadField devices_row(FieldSpec s) {
  static const std::vector<std::string_view> ids = [] {
    std::vector<std::string_view> v;
    for (const auto& g : gpu_catalog()) v.push_back(g.id);
    return v;
  }();
  s.kind = FieldKind::EnumList;
  s.choices = ids;
  s.max_int = 16;  // LLAMA_MAX_DEVICES
  WorkloadField row{s};
  row.get_text = [](const FieldSpec&, const W& w) {
    std::string t;
    for (const auto& d : w.devices) t += (t.empty() ? "" : ",") + d;
    return t;
  };
  row.set_text = [](const FieldSpec& f, W& w, std::string_view t) -> std::optional<Issue> {
    std::vector<std::string> out;
    for (bool more = !t.empty(); more;) {
      const size_t comma = t.find(',');
      size_t i = 0;
      if (read_choice(f, t.substr(0, comma), i) || static_cast<i64>(out.size()) >= f.max_int)
        return must_be(f);
      out.emplace_back(f.choices[i]);
      more = comma != std::string_view::npos;
      if (more) t.remove_prefix(comma + 1);
    }
    w.devices = std::move(out);
    return std::nullopt;
  };
  row.in_range = [](const FieldSpec& f, const W& w) {
    if (static_cast<i64>(w.devices.size()) > f.max_int) return false;
    for (const auto& d : w.devices)
      if (!index_of(f.choices, d)) return false;
    return true;
  };
  return row;
}

constexpr auto Both = FieldScope::Both, Inference = FieldScope::Inference, Training = FieldScope::Training;

std::vector<WorkloadField> build_fields() {
  return {
      enum_field<W>(spec("mode", "--mode", "Mode", "inference (serving) or training (pre-training / fine-tuning)", Both),
                    kModeNames, AT(mode)),
      int_row(spec("seq", "--seq", "Context length",
                   "tokens per sequence: prompt + generated for inference, the sequence length for training", Both),
              1, kMaxTokens, AT(seq)),
      int_row(spec("batch", "--batch", "Batch",
                   "concurrent sequences (inference) or micro-batch size per GPU (training)", Both),
              1, 1 << 20, AT(batch)),
      enum_field<W>(spec("dtype", "--dtype", "Compute dtype",
                         "activation dtype; also the dtype of weights kept unquantized", Both),
                    kComputeDtypeNames, AT(dtype)),
      bool_field<W>(spec("flash", "--flash", "Flash attention",
                         "a fused attention kernel that never stores the b·H·s² score matrix", Both),
                    AT(flash_attention)),
      gpu_row(spec("gpu", "--gpu", "GPU", "the accelerator, from the GPU catalog", Both)),
      real_or_default_row(spec("gmem", "--gpu-mem-gib", "GPU memory (GiB)",
                               "a custom GPU's memory in GiB, or the chosen card's replaced; 0 = the catalog's", Both),
                          0.0, 1 << 20, AT(gpu_mem_gib)),
      real_or_default_row(spec("gbw", "--gpu-bw-gbs", "GPU bandwidth (GB/s)",
                               "a custom GPU's memory bandwidth in GB/s, or the chosen card's replaced; 0 = the catalog's",
                               Both),
                          0.0, 1e6, AT(gpu_bw_gbs)),
      real_or_default_row(spec("wired", "--wired-limit-gib", "GPU wired limit (GiB)",
                               "unified memory (Apple): the memory the GPU may wire, as set with sysctl iogpu.wired_limit_mb; "
                               "0 = the default share",
                               Both),
                          0.0, 1 << 20, AT(wired_limit_gib)),
      real_or_default_row(spec("gtf", "--gpu-tflops", "GPU TFLOPS (bf16)",
                               "a custom GPU's dense bf16 TFLOPS, or the chosen card's replaced; 0 = the catalog's", Both),
                          0.0, 1e6, AT(gpu_tflops)),
      real_or_default_row(spec("gtot", "--gpu-cuda-total-mib", "GPU CUDA total (MiB)",
                               "the memory the driver reports as total, in MiB (PyTorch's get_device_properties total_memory=…MB), "
                               "which the engine profiles take their share of; at most the GPU memory; 0 = the catalog's",
                               Both),
                          0.0, 1 << 30, AT(gpu_cuda_total_mib)),
      int_row(spec("gsms", "--gpu-sms", "GPU multiprocessors",
                   "the card's streaming multiprocessors (PyTorch's multi_processor_count), which vLLM's sampler sizes a "
                   "buffer by; 0 = the catalog's",
                   Both),
              0, 100000, AT(gpu_sms)),
      real_or_default_row(spec("gcc", "--gpu-cc", "GPU compute capability",
                               "the card's CUDA compute capability major.minor (PyTorch's major, minor; 8.9 for Ada), which picks "
                               "kernels and workspaces; 0 = the catalog's",
                               Both),
                          0.0, 20.0, AT(gpu_cc)),
      int_row(spec("gpus", "--gpus", "GPUs", "GPUs in total; data-parallel replicas = gpus / (tp · pp)", Both), 1,
              1 << 20, AT(gpus)),
      int_row(spec("tp", "--tp", "Tensor parallel", "GPUs that split every layer's heads and FFN width", Both), 1,
              65536, AT(tp)),
      int_row(spec("pp", "--pp", "Pipeline parallel", "pipeline stages, each holding consecutive layers", Both), 1,
              10000, AT(pp)),
      int_row(spec("exp", "--ep", "Expert parallel", "GPUs that split the routed experts (must divide dp · tp)", Both),
              1, 65536, AT(ep)),
      real_row(spec("mfu", "--utilization", "Utilization",
                    "fraction of peak FLOP/s reached, for prefill and training time", Both),
               0.0, 1.0, AT(utilization)),

      enum_field<W>(
          spec("w", "--weights", "Weight format",
               "storage of the weights: float, fp8, int8, GPTQ/AWQ, bitsandbytes NF4, MXFP4, int4 routed experts (Kimi K2.5) or a GGUF file type",
               Inference),
          kWeightFormatNames, AT(weights)),
      int_row(spec("g", "--group-size", "Quant group", "GPTQ/AWQ group size: input rows sharing one scale and zero",
                   Inference),
              8, 1 << 20, AT(group_size)),
      enum_field<W>(spec("kemb", "--keep-embedding", "Keep embeddings",
                         "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference),
                    kKeepNames, AT(keep_embedding)),
      enum_field<W>(spec("khead", "--keep-head", "Keep LM head",
                         "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference),
                    kKeepNames, AT(keep_head)),
      enum_field<W>(spec("krouter", "--keep-router", "Keep router",
                         "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference),
                    kKeepNames, AT(keep_router)),
      enum_field<W>(spec("kattn", "--keep-attention", "Keep attention",
                         "auto and no: quantized with the layer matrices; yes: the attention projections stay in the compute "
                         "dtype (a checkpoint whose quantization_config lists self_attn in modules_to_not_convert, as gpt-oss's MXFP4)",
                         Inference),
                    kKeepNames, AT(keep_attention)),
      enum_field<W>(spec("kvt", "--kv-dtype", "KV cache dtype",
                         "element type of the KV cache; q8_0 and q4_0 are llama.cpp's, turboquant_* vLLM's TurboQuant "
                         "presets (from 0.20; followed for the Qwen3.5 and Qwen3-Next hybrids)",
                         Inference),
                    kKvDtypeNames, AT(kv_dtype)),
      int_row(spec("chunk", "--prefill-chunk", "Prefill chunk",
                   "prompt tokens per prefill step (chunked prefill); 0 = the whole prompt at once", Inference),
              0, kMaxTokens, AT(prefill_chunk)),
      enum_field<W>(spec("logits", "--logits", "Logits",
                         "fp32 logits for the last position only or for all positions", Inference),
                    kLogitsModeNames, AT(logits)),
      enum_field<W>(
          spec("rt", "--runtime", "Runtime",
               "runtime profile: PyTorch (a reserve beside the estimate), vLLM, llama.cpp (llama-server), SGLang, "
               "Transformers (model.generate as torch.cuda.max_memory_allocated measures it), none",
               Inference),
          kRuntimeNames, AT(runtime)),
      int_row(spec("reserve", "--reserve-mib", "Runtime reserve (MiB)",
                   "CUDA context, allocator and graph memory per GPU in MiB; -1 = the runtime profile's default", Both),
              -1, 1 << 24, AT(reserve_mib)),
      int_row(spec("mnt", "--max-new-tokens", "Transformers max_new_tokens",
                   "Transformers generate(max_new_tokens): tokens generated after a prompt of seq − this many", Inference),
              1, kMaxTokens, AT(max_new_tokens)),
      enum_field<W>(spec("attn", "--attn-implementation", "Transformers attn_implementation",
                         "Transformers from_pretrained(attn_implementation): sdpa (its default), flash_attention_2 or eager; "
                         "the Transformers profile's own setting (--flash is the generic estimate's)",
                         Inference),
                    kAttnImplNames, AT(attn_impl)),
      real_or_default_row(spec("util", "--gpu-mem-util", "GPU memory utilization",
                               "vLLM gpu_memory_utilization: the share of each GPU's memory vLLM may use; 0 = the default of "
                               "the release followed (0.9 in 0.19, 0.92 in 0.27)",
                               Inference),
                          0.0, 1.0, AT(gpu_mem_util)),
      enum_field<W>(spec("vver", "--vllm-version", "vLLM release",
                         "the vLLM release the profile follows: 0.19 (the V1 engine's model runner), 0.27 (0.27.1: Model "
                         "Runner V2 and its profile run for dense models, the first model runner and its CUDA "
                         "graph estimate for MoE models; both with their accounting of the consumed memory and the peak, "
                         "two batches in flight for sliding windows, prefix caching's recurrent state pages for hybrid models, "
                         "gpu_memory_utilization 0.92 by default; models with full, sliding or chunked attention or recurrent "
                         "states on one GPU) or 0.28 (0.28.0: 0.27.1's, with prefix caching on for hybrid models by default "
                         "and the KV cache size and concurrency on one line)",
                         Inference),
                    kVllmLineNames, AT(vllm_line)),
      enum_field<W>(spec("ventry", "--vllm-entrypoint", "vLLM entry point",
                         "how vLLM is started: serve (`vllm serve`) or llm (the Python LLM class); each has its own "
                         "default of batched tokens (8,192 or 16,384 on cards of 70 GiB and more but the A100, else 2,048 or 8,192)",
                         Inference),
                    kVllmEntryNames, AT(vllm_entry)),
      int_row(spec("mbt", "--max-num-batched-tokens", "vLLM max batched tokens",
                   "vLLM --max-num-batched-tokens: tokens per scheduler step; 0 = vLLM's default for the GPU and the entry point", Inference),
              0, kMaxTokens, AT(max_num_batched_tokens)),
      int_row(spec("mns", "--max-num-seqs", "vLLM max sequences",
                   "vLLM --max-num-seqs: sequences per scheduler step; 0 = vLLM's default for the GPU", Inference),
              0, 1 << 20, AT(max_num_seqs)),
      int_row(spec("bs", "--block-size", "vLLM block size", "vLLM --block-size: tokens per KV cache block", Inference),
              1, 1 << 16, AT(block_size)),
      int_row(spec("kvmem", "--kv-cache-memory", "vLLM KV cache bytes",
                   "vLLM --kv-cache-memory: KV cache bytes per GPU, used instead of profiling; 0 = profile", Inference),
              0, i64{1} << 50, AT(kv_cache_memory)),
      int_row(spec("vcg", "--vllm-cuda-graph-mib", "vLLM 0.27 CUDA graph estimate",
                   "vLLM 0.27's estimate of its CUDA graphs in MiB, as a start-up of this model printed it (\"CUDA graph pool "
                   "memory: … (estimated)\"): the first model runner (MoE models) measures it by capturing graphs and takes it "
                   "from the KV cache, and llmsize does not model it; 0 = not given (then --enforce-eager, or the 0.27 KV "
                   "figures are refused)",
                   Inference),
              0, 1 << 24, AT(vllm_cuda_graph_mib)),
      bool_field<W>(spec("ee", "--enforce-eager", "vLLM enforce eager",
                         "vLLM --enforce-eager: no torch.compile and no CUDA graphs, so none of the graph memory vLLM "
                         "otherwise captures outside its budget",
                         Inference),
                    AT(enforce_eager)),
      enum_field<W>(spec("pc", "--enable-prefix-caching", "vLLM prefix caching",
                         "vLLM --enable-prefix-caching (yes) or --no-enable-prefix-caching (no); auto = the release's "
                         "default, off for hybrid models in 0.19 and 0.27.1, on from 0.28 (vLLM PR #50991). A hybrid "
                         "model's request keeps, with it, two recurrent states (mamba_cache_mode align) or one every block "
                         "(all), else one (none); other models' memory does not move",
                         Inference),
                    kKeepNames, AT(prefix_caching)),
      enum_field<W>(spec("mcm", "--mamba-cache-mode", "vLLM Mamba cache mode",
                         "vLLM --mamba-cache-mode, with prefix caching: none = the model's default (all for Nemotron-H, "
                         "Granite 4.0-H, Falcon-H1 and Jamba, align for the others); align keeps two recurrent states a "
                         "request, all one every block (a model without support falls back to align); without prefix "
                         "caching vLLM sets it to none",
                         Inference),
                    kMambaCacheModeNames, AT(mamba_cache_mode)),
      bool_field<W>(spec("lmo", "--language-model-only", "vLLM language model only",
                         "vLLM --language-model-only: every modality's limit is 0, so a multimodal model's vision tower "
                         "and projector are neither built nor profiled (models/interfaces.py _mark_tower_model); "
                         "vLLM's figures leave them out",
                         Inference),
                    AT(language_model_only)),
      bool_field<W>(spec("vaf", "--vllm-auto-fit", "vLLM auto-fit max_model_len",
                         "vLLM --max-model-len -1: max_model_len starts at the model's positions and, once the KV cache "
                         "is sized, is lowered to the longest one request fits (kv_cache_utils.py _auto_fit_max_model_len); "
                         "--seq is then the generic estimate's context only",
                         Inference),
                    AT(vllm_auto_fit)),
      enum_field<W>(spec("mcd", "--mamba-cache-dtype", "vLLM recurrent state dtype",
                         "vLLM --mamba-cache-dtype: a hybrid model's convolution state, and its SSM state where "
                         "--mamba-ssm-cache-dtype is auto, in this dtype; auto = the model dtype (bfloat16 from vLLM 0.22)",
                         Inference),
                    kMambaDtypeNames, AT(mamba_cache_dtype)),
      enum_field<W>(spec("mscd", "--mamba-ssm-cache-dtype", "vLLM SSM state dtype",
                         "vLLM --mamba-ssm-cache-dtype: a hybrid model's SSM state in this dtype; auto = the model's own "
                         "(Qwen3.5: its config's mamba_ssm_dtype, float32 as released; Nemotron-H: float32), else "
                         "--mamba-cache-dtype's (bfloat16 from vLLM 0.22)",
                         Inference),
                    kMambaDtypeNames, AT(mamba_ssm_cache_dtype)),
      real_or_default_row(spec("mfs", "--mem-fraction-static", "SGLang mem_fraction_static",
                               "SGLang --mem-fraction-static: share of the free memory for weights and the KV pool; 0 = "
                               "SGLang's default for the GPU",
                               Inference),
                          0.0, 1.0, AT(mem_fraction_static)),
      int_row(spec("cps", "--chunked-prefill-size", "SGLang chunked prefill",
                   "SGLang --chunked-prefill-size: tokens per prefill chunk; 0 = SGLang's default for the GPU", Inference),
              0, kMaxTokens, AT(chunked_prefill_size)),
      int_row(spec("cgbs", "--cuda-graph-max-bs", "SGLang CUDA graph batch",
                   "SGLang --cuda-graph-max-bs: largest batch captured in a CUDA graph; 0 = SGLang's default for the GPU",
                   Inference),
              0, 1 << 16, AT(cuda_graph_max_bs)),
      int_row(spec("psz", "--page-size", "SGLang page size",
                   "SGLang --page-size: tokens per page of the token pool (the pool holds whole pages); 0 = SGLang's "
                   "default (64 under trtllm_mha, its backend on B200 and B300, else 1)",
                   Inference),
              0, 1024, AT(page_size)),
      int_row(spec("mrr", "--max-running-requests", "SGLang max running requests",
                   "SGLang --max-running-requests: the requests it runs at once, each a row of context + 4 int32 in its "
                   "ReqToTokenPool; 0 = SGLang's default (min(max(int(pool tokens / context x 512), 2048), 4096) rows)",
                   Inference),
              0, 1 << 20, AT(max_running_requests)),
      int_row(spec("mtt", "--max-total-tokens", "SGLang max total tokens",
                   "SGLang --max-total-tokens: a cap on the token pool's size (a larger value than the memory allows is "
                   "ignored, with SGLang's warning); 0 = none",
                   Inference),
              0, kMaxTokens, AT(max_total_tokens)),
      real_row(spec("swar", "--swa-full-tokens-ratio", "SGLang SWA/full tokens",
                    "SGLang --swa-full-tokens-ratio: tokens of a sliding-window layer's pool per token of a full layer's, "
                    "in SGLang's hybrid pool (Llama 4; gpt-oss with --sglang-build 2026-03)",
                    Inference),
               0.001, 1.0, AT(swa_full_tokens_ratio)),
      bool_field<W>(spec("dhswa", "--disable-hybrid-swa-memory", "SGLang one pool",
                         "SGLang --disable-hybrid-swa-memory: one pool, the sliding-window layers at full length", Inference),
                    AT(disable_hybrid_swa_memory)),
      enum_field<W>(spec("msd", "--mamba-ssm-dtype", "SGLang SSM state dtype",
                         "SGLang --mamba-ssm-dtype: the SSM state of a hybrid model's MambaPool slot in this dtype "
                         "(float32 or bfloat16; the convolution state stays bfloat16); auto = float32, SGLang's default, "
                         "or from the 2026-03 build the config's mamba_ssm_dtype (float32 in Qwen3.5's)",
                         Inference),
                    kMambaDtypeNames, AT(mamba_ssm_dtype)),
      enum_field<W>(spec("sgb", "--sglang-build", "SGLang build",
                         "the SGLang build followed: 2025-12 (0.5.6, late 2025) or 2026-03 (main of March 2026 and 0.5.9 "
                         "on), where gpt-oss keeps the hybrid sliding-window pool (off in late 2025) unless its attention "
                         "backend is trtllm_mha (B200, B300); the rest as late 2025 (2026's piecewise CUDA graphs and "
                         "their reserve in the default fraction are not followed)",
                         Inference),
                    kSglangBuildNames, AT(sglang_build)),
      int_row(spec("ub", "--n-ubatch", "llama.cpp ubatch", "llama.cpp -ub: tokens per physical batch (the SWA cache adds them)",
                   Inference),
              1, 1 << 20, AT(n_ubatch)),
      int_row(spec("nb", "--n-batch", "llama.cpp batch",
                   "llama.cpp -b: tokens per logical batch; the physical batch -ub is at most it (n_ubatch = min(n_ctx, "
                   "n_batch, n_ubatch))",
                   Inference),
              1, 1 << 20, AT(n_batch)),
      int_row(spec("np", "--parallel", "llama.cpp slots",
                   "llama-server -np: slots sharing n_ctx; 0 = auto (4 slots on one unified cache)", Inference),
              0, 256, AT(parallel)),
      bool_field<W>(spec("kvu", "--kv-unified", "llama.cpp unified KV", "llama.cpp -kvu: the slots share one cache stream",
                         Inference),
                    AT(kv_unified)),
      int_row(spec("ngl", "--n-gpu-layers", "llama.cpp GPU layers",
                   "llama.cpp -ngl: layers on the GPU (n_layer + 1 puts the output layer there too); -1 = all", Inference),
              -1, 1 << 20, AT(n_gpu_layers)),
      int_row(spec("ncmoe", "--n-cpu-moe", "llama.cpp CPU MoE layers",
                   "llama.cpp --n-cpu-moe: the expert tensors of the first N layers stay on the CPU", Inference),
              0, 1 << 20, AT(n_cpu_moe)),
      bool_field<W>(spec("swaf", "--swa-full", "llama.cpp full SWA cache",
                         "llama.cpp --swa-full: sliding-window layers keep n_ctx cells", Inference),
                    AT(swa_full)),
      bool_field<W>(spec("lcnogpu", "--llamacpp-no-gpu", "llama.cpp without a GPU",
                         "llama.cpp --device none, or a build without a GPU backend: every layer and buffer on the "
                         "CPU, which computes every op (no op offload); its compute buffer is the CPU's",
                         Inference),
                    AT(llamacpp_no_gpu)),
      real_or_default_row(spec("hostmem", "--host-mem-gib", "Host RAM (GiB)",
                               "llama.cpp: the host memory its CPU buffers may fill (the RAM, less what else runs), "
                               "checked against its host buffers; 0 = not checked",
                               Inference),
                          0.0, 1 << 20, AT(host_mem_gib)),
      real_or_default_row(spec("hostbw", "--host-bw-gbs", "Host bandwidth (GB/s)",
                               "llama.cpp: the host memory's bandwidth, 10^9 bytes/s (dual-channel DDR5-5600: 89.6), which "
                               "bounds the decode rate of the layers the CPU runs; 0 = not given (without a GPU: no "
                               "decode bound)",
                               Inference),
                          0.0, 100000.0, AT(host_bw_gbs)),
      real_or_default_row(spec("hosttf", "--host-tflops", "Host TFLOPS",
                               "llama.cpp without a GPU: the CPU's dense matrix throughput in the compute dtype, 10^12 "
                               "FLOP/s, for the prefill and training time bounds; 0 = not given (no such time)",
                               Inference),
                          0.0, 10000.0, AT(host_tflops)),
      enum_field<W>(spec("lcc", "--llamacpp-caller", "llama.cpp caller",
                         "who creates llama.cpp's context: server (llama-server, which since PR #23861 reserves the "
                         "logits of its slots only) or library (a program that leaves n_outputs_max at n_batch: "
                         "Ollama's runner, llama-cli, bindings, and llama-server before that PR of May 2026)",
                         Inference),
                    kLlamaCppCallerNames, AT(llamacpp_caller)),
      enum_field<W>(spec("lco", "--llamacpp-offload", "llama.cpp offload order",
                         "the order of llama.cpp's -ngl: output-first (the output layer, then the last ngl - 1 "
                         "repeating layers: builds since PR #18148 of December 2025) or blocks-first (the last ngl "
                         "repeating layers, the output layer only past n_layer: earlier builds and the apps that "
                         "ship them)",
                         Inference),
                    kLlamaCppOffloadNames, AT(llamacpp_offload)),
      enum_field<W>(spec("lcg", "--llamacpp-graph", "llama.cpp graph",
                         "the build whose reserved graph sets the compute buffers: 2026-05 (the KQ mask in f16, PR "
                         "#23764), 2026-04 (2026-01's, with a quantized cache's K and V rotated by Hadamard matrices, PR "
                         "#21038), 2026-01 (an embeddings input beside the token ids, PR #18898; the f32 mask cast to "
                         "f16), 2025-08 (the cache written with set_rows, PR #14959), 2025-07 (ggml_cpy into the "
                         "cache, build 5781) or 2025-05 (flash attention given the f32 mask, build 5505); a build before 2026-05 also "
                         "predates PR #23861, so its llama-server reserved the whole ubatch's outputs",
                         Inference),
                    kLlamaCppGraphNames, AT(llamacpp_graph)),
      tensor_split_row(spec("ts", "--tensor-split", "llama.cpp tensor split",
                            "llama.cpp -ts: each device's share of the layers, one per pipeline stage (pp); empty = by "
                            "free memory, equal on identical cards",
                            Inference)),
      devices_row(spec("devs", "--devices", "llama.cpp devices",
                       "llama.cpp's devices when the cards differ: a GPU id per pipeline stage (pp), e.g. rtx-4090,rtx-3060-12gb; "
                       "empty = the GPU above for each",
                       Inference)),

      enum_field<W>(spec("opt", "--optimizer", "Optimizer",
                         "AdamW, 8-bit AdamW, SGD, SGD with momentum, Adafactor or Lion", Training),
                    kOptimizerNames, AT(optimizer)),
      enum_field<W>(spec("ostate", "--opt-dtype", "Optimizer state dtype",
                         "dtype of the optimizer states (not 8-bit AdamW)", Training),
                    kStateDtypeNames, AT(opt_state)),
      enum_field<W>(
          spec("prec", "--precision", "Precision",
               "mixed: 16-bit weights + fp32 master; pure: 16-bit only; fp32: fp32 weights (autocast with a 16-bit dtype)",
               Training),
          kPrecisionNames, AT(precision)),
      enum_field<W>(spec("gdt", "--grad-dtype", "Gradient dtype", "dtype of the gradients; auto = the weights' dtype",
                         Training),
                    kGradDtypeNames, AT(grad_dtype)),
      enum_field<W>(spec("recipe", "--recipe", "Recipe",
                         "formula: the papers' model of training memory, Megatron-LM's (checked against its report_memory, "
                         "rank by rank); litgpt: LitGPT's finetune/lora.py, adapter.py and "
                         "adapter_v2.py as their code allocates (LoRA: commit 8641822, PyTorch 2.1; the adapters: 0f021f3a, "
                         "PyTorch 2.2; one GPU, LoRA on q and v or LLaMA-Adapter, bf16-true or bitsandbytes NF4); hf-peft: "
                         "the Hugging Face Trainer with PEFT LoRA as TRL's SFTTrainer sets it up (transformers 4.48.1, PEFT "
                         "0.13.2, PyTorch 2.4.1; one GPU, Llama, Mistral, Qwen2 and Mixtral (adapters on its attention), gradient checkpointing on (--recompute full) or off, "
                         "flash attention 2, "
                         "LoRA on bf16 or QLoRA on nf4, or full fine-tuning, also over FSDP FULL_SHARD with --zero fsdp; --precision "
                         "mixed is bf16=True autocast, pure without it); megatron: Megatron-LM's pretrain_gpt.py as its code allocates on each pipeline stage's rank "
                         "(040eac94, July 2023, the legacy GPT; fp16 or bf16 mixed precision, the replicated optimizer or the distributed one (--zero 1), tensor, "
                         "sequence and pipeline parallelism, no, selective or full recomputation, no flash attention); torchtune: torchtune's "
                         "full_finetune_single_device and lora_finetune_single_device as their code allocates (1814feb1, Nov 2024, PyTorch 2.5; one GPU, full "
                         "fine-tuning, or LoRA (--lora-rank; gate, up and down together; --dropout: lora_dropout), of a bf16 Llama, Mistral or Qwen2 model its "
                         "builders make, or QLoRA (--qlora: torchao 0.7 NF4; Llama and Mistral), packed batches through flex attention, "
                         "torch AdamW (fused), unchunked cross-entropy (LoRA: CEWithChunkedOutputLoss), activation checkpointing on or "
                         "off, activation offloading with it (--offload-activations), full fine-tuning's optimizer_in_bwd (--optimizer-in-bwd), "
                         "no compile); deepspeed: "
                         "DeepSpeed-Chat's step1_supervised_finetuning/main.py as its code allocates on data-parallel rank 0 (3a77097a, "
                         "April 2023, DeepSpeed 0.9.0, transformers 4.29.0.dev0, PyTorch 2.0; full fine-tuning of an OPT model "
                         "(LayerNorm first, 125m and 1.3b to 66b) in fp16 with ZeRO stage 1 or 2 (--zero 1, 2) over --gpus data-parallel "
                         "GPUs, FusedAdam, eager attention (--flash 0), dropout on or off (--dropout 0: DS-Chat's --disable_dropout), "
                         "--gradient_checkpointing (--recompute full) or not, no accumulation)",
                         Training),
                    kRecipeNames, AT(recipe)),
      int_row(spec("accum", "--grad-accum", "Gradient accumulation", "micro-batches per optimizer step", Training), 1,
              1 << 20, AT(grad_accum)),
      enum_field<W>(spec("zero", "--zero", "ZeRO / FSDP",
                         "sharding over data parallel: ZeRO stage 0-3, or fsdp (FULL_SHARD, like stage 3); under --recipe megatron, 1 is "
                         "Megatron-LM's --use-distributed-optimizer", Training),
                    kShardingNames, AT(sharding)),
      bool_field<W>(spec("sp", "--seq-parallel", "Sequence parallel",
                         "Megatron sequence parallelism: norms and dropout split along the sequence across tp",
                         Training),
                    AT(seq_parallel)),
      enum_field<W>(spec("rc", "--recompute", "Recomputation",
                         "none, selective (attention core recomputed) or full (only layer inputs kept)", Training),
                    kRecomputeNames, AT(recompute)),
      bool_field<W>(spec("aoff", "--offload-activations", "Activation offloading",
                         "saved activations copied to pinned CPU memory in the forward and brought back in backward "
                         "(torchtune's enable_activation_offloading, --recipe torchtune with --recompute full: the layers' inputs)",
                         Training),
                    AT(offload_activations)),
      bool_field<W>(spec("oib", "--optimizer-in-bwd", "Optimizer in backward",
                         "each parameter's optimizer step runs in its post-accumulate-grad hook, which then frees its gradient "
                         "(torchtune full_finetune_single_device's optimizer_in_bwd, --recipe torchtune; no gradient accumulation)",
                         Training),
                    AT(optimizer_in_bwd)),
      bool_field<W>(spec("dropout", "--dropout", "Dropout",
                         "dropout layers present: their masks are saved for backward", Training),
                    AT(dropout)),
      int_row(spec("lora", "--lora-rank", "LoRA rank", "rank r of the LoRA adapters; 0 = full fine-tuning", Training),
              0, 65536, AT(lora_rank)),
      flags_field<W>(spec("lt", "--lora-targets", "LoRA targets",
                          "adapted matrices: all, or a subset of q,k,v,o,gate,up,down", Training),
                     kLoraTargetNames, AT(lora_targets)),
      bool_field<W>(spec("qlora", "--qlora", "QLoRA",
                         "frozen base in NF4 with double quantization, bf16 compute copies, paged optimizer", Training),
                    AT(qlora)),
      enum_field<W>(spec("adapter", "--adapter", "LLaMA-Adapter",
                         "instead of LoRA: a learned 10-token prompt with a zero-init gate in the attention of every "
                         "layer from the third; v2 also trains a bias and scale per Linear and the norms "
                         "(LitGPT finetune/adapter.py, adapter_v2.py; --recipe litgpt)",
                         Training),
                    kAdapterNames, AT(adapter)),
      int_row(spec("tokens", "--train-tokens", "Training tokens", "tokens to train on; 0 = Chinchilla-optimal 20·P",
                   Training),
              0, i64{1} << 53, AT(train_tokens)),
  };
}

#undef AT

}  // namespace

bool is_gguf(WeightFormat f) { return f >= WeightFormat::Q8_0; }

const std::vector<WorkloadField>& workload_fields() {
  static const std::vector<WorkloadField> fields = build_fields();
  return fields;
}

const WorkloadField* find_field(std::string_view key) { return find_by_key(workload_fields(), key); }
const WorkloadField* find_field_by_flag(std::string_view flag) { return find_by_flag(workload_fields(), flag); }

std::vector<Issue> validate(const Workload& w) {
  std::vector<Issue> out;
  // Every field's own range, through the same strict parser the CLI and links use. A set stores
  // the value it read back (or nothing on error), so one scratch copy serves every field.
  Workload scratch = w;
  for (const auto& f : workload_fields())
    if (!f.in_range || !f.in_range(f, w))
      if (auto issue = f.set(scratch, f.get(w))) out.push_back(*issue);
  if (!out.empty()) return out;
  const i64 tp_pp = w.tp * w.pp;  // both ≤ 65536 and 10000: no overflow
  if (w.gpus % tp_pp != 0) {
    out.push_back(issue("gpus", [tp_pp, gpus = w.gpus](Lang l) {
      return printf_text(tr(Str::issue_gpus_multiple, l), std::to_string(tp_pp).c_str(), std::to_string(gpus).c_str());
    }));
    return out;
  }
  const i64 dp_tp = w.dp() * w.tp;
  if (dp_tp % w.ep != 0)
    out.push_back(issue("exp", [dp_tp, ep = w.ep](Lang l) {
      return printf_text(tr(Str::issue_ep_divide, l), std::to_string(dp_tp).c_str(), std::to_string(ep).c_str());
    }));
  if (!w.devices.empty()) {
    if (static_cast<i64>(w.devices.size()) != w.pp)
      out.push_back(issue("devs", [n = w.devices.size(), pp = w.pp](Lang l) {
        return printf_text(tr(Str::issue_devs_count, l), std::to_string(n).c_str(), std::to_string(pp).c_str());
      }));
    if (w.runtime != Runtime::LlamaCpp)
      out.push_back(issue("devs", [](Lang l) { return std::string(tr(Str::issue_devs_llamacpp, l)); }));
    const Gpu* first = find_gpu(w.devices.front());
    for (const auto& d : w.devices)
      if (const Gpu* g = find_gpu(d); g && first && g->vendor != first->vendor) {
        out.push_back(issue("devs", [a = first->vendor, b = g->vendor](Lang l) {
          return printf_text(tr(Str::issue_devs_vendors, l), a.c_str(), b.c_str());
        }));
        break;
      }
  }
  if (!w.tensor_split.empty() && static_cast<i64>(w.tensor_split.size()) != w.pp)
    out.push_back(issue("ts", [n = w.tensor_split.size(), pp = w.pp](Lang l) {
      return printf_text(tr(Str::issue_ts_count, l), std::to_string(n).c_str(), std::to_string(pp).c_str());
    }));
  if (w.adapter != Adapter::None && w.lora_rank > 0)
    out.push_back(issue("adapter", [](Lang l) { return std::string(tr(Str::issue_adapter_lora, l)); }));
  if (w.qlora && w.lora_rank == 0) out.push_back(issue("lora", [](Lang l) { return std::string(tr(Str::issue_qlora_rank, l)); }));
  if (w.gpu == kCustomGpu && w.gpu_mem_gib == 0)
    out.push_back(issue("gmem", [](Lang l) { return std::string(tr(Str::issue_custom_mem, l)); }));
  if (w.gpu == kCustomGpu && w.gpu_bw_gbs == 0)
    out.push_back(issue("gbw", [](Lang l) { return std::string(tr(Str::issue_custom_bw, l)); }));
  if (w.lora_targets == 0 || w.lora_targets > kLoraAll)
    out.push_back(issue("lt", [](Lang l) { return printf_text(tr(Str::issue_lora_targets, l), join_names(kLoraTargetNames, ",").c_str()); }));
  return out;
}

std::string_view to_string(Mode m) { return name_at(kModeNames, static_cast<size_t>(m)); }
std::string_view to_string(WeightFormat f) { return name_at(kWeightFormatNames, static_cast<size_t>(f)); }
std::string_view to_string(Keep k) { return name_at(kKeepNames, static_cast<size_t>(k)); }
std::string_view to_string(KvDtype k) { return name_at(kKvDtypeNames, static_cast<size_t>(k)); }
std::string_view to_string(LogitsMode l) { return name_at(kLogitsModeNames, static_cast<size_t>(l)); }
std::string_view to_string(Runtime r) { return name_at(kRuntimeNames, static_cast<size_t>(r)); }
std::string_view to_string(AttnImpl a) { return name_at(kAttnImplNames, static_cast<size_t>(a)); }
std::string_view to_string(VllmEntry e) { return name_at(kVllmEntryNames, static_cast<size_t>(e)); }
std::string_view to_string(VllmLine l) { return name_at(kVllmLineNames, static_cast<size_t>(l)); }
std::string_view to_string(MambaDtype d) { return name_at(kMambaDtypeNames, static_cast<size_t>(d)); }
std::string_view to_string(MambaCacheMode m) { return name_at(kMambaCacheModeNames, static_cast<size_t>(m)); }
std::string_view to_string(ComputeDtype d) { return name_at(kComputeDtypeNames, static_cast<size_t>(d)); }
std::string_view to_string(Optimizer o) { return name_at(kOptimizerNames, static_cast<size_t>(o)); }
std::string_view to_string(StateDtype d) { return name_at(kStateDtypeNames, static_cast<size_t>(d)); }
std::string_view to_string(Precision p) { return name_at(kPrecisionNames, static_cast<size_t>(p)); }
std::string_view to_string(GradDtype g) { return name_at(kGradDtypeNames, static_cast<size_t>(g)); }
std::string_view to_string(Sharding s) { return name_at(kShardingNames, static_cast<size_t>(s)); }
std::string_view to_string(Recompute r) { return name_at(kRecomputeNames, static_cast<size_t>(r)); }
std::string_view to_string(Recipe r) { return name_at(kRecipeNames, static_cast<size_t>(r)); }
std::string_view to_string(Adapter a) { return name_at(kAdapterNames, static_cast<size_t>(a)); }
i64 dtype_bytes(ComputeDtype d) { return d == ComputeDtype::F32 ? 4 : 2; }

namespace {
std::string plain(double v) {  // 48 → "48", 1.5 → "1.5", 989.4 → "989.4"
  std::string t = fixed(v, 2);
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t;
}
}  // namespace

Result<Gpu> stage_gpu(const Workload& w, i64 stage) {
  if (w.devices.empty()) return gpu_of(w);
  if (stage < 0 || stage >= static_cast<i64>(w.devices.size())) return issue_row("devs", Str::issue_no_stage_device, std::to_string(stage + 1));
  const Gpu* g = find_gpu(w.devices[static_cast<size_t>(stage)]);
  if (!g) return issue_row("devs", Str::issue_unknown_gpu, w.devices[static_cast<size_t>(stage)]);
  return *g;
}

bool gpu_amended(const Workload& w) {
  return w.gpu_mem_gib > 0 || w.gpu_bw_gbs > 0 || w.gpu_tflops > 0 || w.wired_limit_gib > 0 || w.gpu_cuda_total_mib > 0 ||
         w.gpu_sms > 0 || w.gpu_cc > 0;
}

void clear_gpu_amendments(Workload& w) {
  w.gpu_mem_gib = w.gpu_bw_gbs = w.gpu_tflops = w.wired_limit_gib = w.gpu_cuda_total_mib = w.gpu_cc = 0;
  w.gpu_sms = 0;
}

Result<Gpu> gpu_of(const Workload& w) {
  Gpu g;
  if (w.gpu == kCustomGpu) {
    g.id = std::string(kCustomGpu);
    g.name = "Custom GPU";
    g.vendor = "custom";
    g.source = "given: --gpu-mem-gib, --gpu-bw-gbs, --gpu-tflops";
  } else if (const Gpu* c = find_gpu(w.gpu)) {
    g = *c;
  } else {
    return issue_row("gpu", Str::issue_unknown_gpu, w.gpu);
  }
  std::string changed;
  if (w.gpu_mem_gib > 0) {
    g.memory_bytes = static_cast<i64>(std::llround(w.gpu_mem_gib * 1073741824.0));
    // The driver's totals are those of the card as sold: unknown for other memory.
    g.cuda_total_bytes = 0;
    g.smi_total_mib = 0;
    changed += ", " + plain(w.gpu_mem_gib) + " GiB";
  }
  if (w.gpu_bw_gbs > 0) {
    g.bandwidth_gbs = w.gpu_bw_gbs;
    changed += ", " + plain(w.gpu_bw_gbs) + " GB/s";
  }
  if (w.wired_limit_gib > 0) {
    if (!g.unified)
      return issue_row("wired", Str::issue_wired_not_unified, g.name);
    const double bytes = w.wired_limit_gib * 1073741824.0;
    if (bytes > static_cast<double>(g.memory_bytes))
      return issue_row("wired", Str::issue_wired_at_most, plain(static_cast<double>(g.memory_bytes) / 1073741824.0));
    g.usable_fraction = bytes / static_cast<double>(g.memory_bytes);
    changed += ", wired limit " + plain(w.wired_limit_gib) + " GiB";
  }
  if (w.gpu_tflops > 0) {
    g.bf16_tflops = w.gpu_tflops;
    g.fp8_tflops = 0;  // not given: no fp8 rate is assumed
    changed += ", " + plain(w.gpu_tflops) + " TFLOPS";
  }
  // What PyTorch reports of the card (torch.cuda.get_device_properties), for the engine profiles.
  if (w.gpu_cuda_total_mib > 0) {
    const double bytes = w.gpu_cuda_total_mib * 1048576.0;
    if (bytes > static_cast<double>(g.memory_bytes))
      return issue_row("gtot", Str::issue_cuda_total_above, plain(static_cast<double>(g.memory_bytes) / 1048576.0));
    g.cuda_total_bytes = static_cast<i64>(std::llround(bytes));
    g.cuda_total_source = "given: --gpu-cuda-total-mib " + plain(w.gpu_cuda_total_mib);
    changed += ", CUDA total " + plain(w.gpu_cuda_total_mib) + " MiB";
  }
  if (w.gpu_sms > 0) {
    g.sm_count = w.gpu_sms;
    changed += ", " + std::to_string(w.gpu_sms) + " SMs";
  }
  if (w.gpu_cc > 0) {
    if (g.vendor != "NVIDIA" && w.gpu != kCustomGpu) return issue_row("gcc", Str::issue_cc_not_nvidia, g.name);
    const double tenths = w.gpu_cc * 10.0;
    if (std::fabs(tenths - std::round(tenths)) > 1e-9) return issue_row("gcc", Str::issue_cc_format);
    g.cuda_cc = std::round(tenths) / 10.0;
    changed += ", cc " + plain(g.cuda_cc);
  }
  if (!changed.empty() && w.gpu != kCustomGpu) {
    g.name += " (given: " + changed.substr(2) + ")";
    g.source += "; replaced by the workload: " + changed.substr(2);
  } else if (w.gpu == kCustomGpu && !changed.empty()) {
    g.name += " (" + changed.substr(2) + ")";
  }
  return g;
}

}  // namespace llmsize::core
