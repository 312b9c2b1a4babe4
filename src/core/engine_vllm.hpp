// vLLM's own memory accounting at start-up (issue 11, second step): the budget, what the
// profiling run finds, the KV cache memory left, its blocks and groups, and the lines
// `vllm serve` prints. Follows vLLM 0.19 (V1 engine): v1/worker/gpu_worker.py
// (determine_available_memory), v1/worker/utils.py (request_memory), utils/mem_utils.py
// (memory_profiling), v1/worker/gpu_model_runner.py (load_model, profile_run,
// _dummy_sampler_run), v1/core/kv_cache_utils.py (get_kv_cache_groups,
// get_kv_cache_config_from_groups, _report_kv_cache_config, check_enough_kv_cache_memory),
// v1/kv_cache_interface.py (page sizes, max_memory_usage_bytes) and engine/arg_utils.py (the
// per-GPU defaults). One GPU of the workload (tensor parallel ranks are alike); pipeline
// parallel is a later step.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpus.hpp"
#include "inference_memory.hpp"
#include "layer_plan.hpp"

namespace llmsize::core {

inline constexpr std::string_view kVllmVersion = "vLLM 0.19 (V1 engine)";
// The release followed, as the launch command and check-log name it (Workload::vllm_line).
constexpr std::string_view vllm_version(VllmLine l) {
  return l == VllmLine::V028 ? "vLLM 0.28 (0.28.0)" : l == VllmLine::V027 ? "vLLM 0.27 (0.27.1)" : kVllmVersion;
}
// The release and, in 0.27, the model runner it builds for the model (VllmMemory::mrv2), as the
// profile names them.
constexpr std::string_view vllm_version(VllmLine l, bool mrv2) {
  if (l == VllmLine::V019) return kVllmVersion;
  if (l == VllmLine::V028) return mrv2 ? "vLLM 0.28 (0.28.0, Model Runner V2)" : "vLLM 0.28 (0.28.0, the first model runner)";
  return mrv2 ? "vLLM 0.27 (0.27.1, Model Runner V2)" : "vLLM 0.27 (0.27.1, the first model runner)";
}


// One KV cache group: layers of one attention type sharing a block table.
struct VllmGroup {
  AttnKind kind = AttnKind::Full;  // Full, Sliding, Chunked, MlaLatent, or a recurrent kind (Linear, Mamba)
  i64 window = 0;                  // sliding window or attention chunk in tokens; 0 = every token
  i64 layers = 0;                  // model layers in the group (padding not counted)
  i64 block_size = 0;              // tokens per block (raised where page sizes were unified)
  i64 page_bytes = 0;              // one block of the group's spec on one GPU (uniform-type: summed over its layers)
  i64 max_request_bytes = 0;       // spec.max_memory_usage_bytes: one request of max_model_len
};

struct VllmMemory {
  VllmLine line = VllmLine::V019;
  // 0.27: the model runner vLLM builds for the model (config/vllm.py use_v2_model_runner): Model
  // Runner V2 for dense models, the first runner (v1/worker/gpu_model_runner.py) for MoE models.
  bool mrv2 = false;
  std::string_view version() const { return vllm_version(line, mrv2); }  // the release (and runner) followed
  // Inputs as vLLM resolves them.
  i64 max_model_len = 0, max_num_batched_tokens = 0, max_num_seqs = 0, block_size = 0;
  double gpu_memory_utilization = 0;  // the flag, or the release's default
  i64 total_bytes = 0;   // total GPU memory as CUDA reports it
  i64 budget_bytes = 0;  // requested_memory = ceil(total × gpu_memory_utilization)
  // Unified memory (a DGX Spark): the free memory when a CUDA program starts, as the catalog records
  // it (Gpu::usable_bytes: the OS and the CPU's processes share the pool), which request_memory
  // checks the budget against; 0 = not recorded (a discrete card's free memory at start is its total
  // less the CUDA context and other processes, which llmsize does not know).
  i64 free_at_start_bytes = 0;
  bool startup_refused = false;  // request_memory's ValueError: vLLM stops before loading (error holds it)
  // The profiling run (per GPU).
  i64 weights_bytes = 0;           // "Model loading took": the weights and the rotary cos/sin cache
  i64 rope_bytes = 0;              // of which the rotary cache
  i64 vision_weights_bytes = 0;    // of which a multimodal model's vision tower and projector (0 under --language-model-only)
  i64 mxfp4_layout_bytes = 0;      // of which MXFP4 experts' load-time layout beyond the checkpoint's bytes (Hopper)
  i64 mxfp4_checkpoint_bytes = 0;  // those experts as the checkpoint stores them (this GPU's share)
  i64 fp8_marlin_bytes = 0;        // of which fp8 scales beyond the checkpoint's as Marlin holds them (GPUs without fp8 tensor cores)
  i64 topk_buffer_bytes = 0;       // of which DeepSeek-V3.2's topk_indices_buffer (sparse attention)
  i64 k_as_v_bytes = 0;            // of which Gemma 4's full layers' K loaded again into qkv_proj's V slot (attention_k_eq_v)
  i64 indexer_profile_bytes = 0;   // of the forward peak: the sparse indexer's profile-run key buffer
  bool sparse_block_forced = false;  // sparse attention: --block-size replaced by 64
  i64 forward_peak_bytes = 0;      // live tensors at the peak of the dummy forward
  i64 sampler_peak_bytes = 0;      // live tensors at the peak of the dummy sampler run
  i64 workspace_bytes = 0;         // buffers the profile leaves allocated (cuBLAS, MoE workspaces; 0.27's first runner: the top-k buffer too)
  i64 topk_buffer_cached_bytes = 0;  // of which (0.27's first runner) the sampler's cached top-k/top-p buffer
  // The multimodal profile (the Pixtral tower): the dummy images' budget, count and placeholder
  // tokens, and what stays allocated through the text model's dummy runs (features and pixels).
  i64 mm_budget_tokens = 0, mm_items = 0, mm_tokens_per_item = 0;
  i64 encoder_profile_bytes = 0;
  // 0.19's "torch peak memory increase": workspace + max(forward, sampler) + encoder profile; 0.27's
  // "peak activation": max(forward, sampler) + the CUDA graph estimate applied (first runner).
  i64 activation_peak_bytes = 0;
  i64 non_torch_bytes = 0;         // "non-torch forward increase memory"
  // 0.27: "consumed memory (weights + non-torch)", free memory at the worker's first snapshot less
  // free memory after the profile: the weights, the non-torch memory and what the profile left
  // allocated (the cuBLAS workspace, the MoE kernels' workspaces). Its "peak activation" is then the
  // profile's transient peak, max(forward, sampler) above what stays allocated, plus the CUDA graph
  // estimate applied. 0 under 0.19.
  i64 consumed_bytes = 0;
  i64 non_kv_bytes = 0;            // 0.19: weights + torch peak + non-torch; 0.27: consumed + peak activation
  i64 kv_available_bytes = 0;      // "Available KV cache memory" (may be ≤ 0: vLLM refuses to start)
  bool kv_memory_given = false;    // --kv-cache-memory replaced the profiled figure
  // --enforce-eager: no CUDA graphs are captured (config/vllm.py, VllmConfig.__post_init__ sets
  // cudagraph_mode NONE and compilation mode NONE), so their memory is exactly 0; else it is not
  // modelled (the engine's own per-graph estimates vary from 1 to 26 MiB for the same model).
  bool enforce_eager = false;
  // 0.27's first model runner: its CUDA graph estimate (profile_cudagraph_memory, measured by
  // capturing graphs), which determine_available_memory adds to the peak activation and takes from
  // the KV cache memory. Given (Workload::vllm_cuda_graph_mib, from a start-up's log), not modelled;
  // 0 under --enforce-eager, under 0.19 (not applied) and under Model Runner V2 (it returns 0).
  i64 cuda_graph_estimate_bytes = 0;
  // The KV cache.
  std::vector<VllmGroup> groups;
  bool uniform_type = false;  // one group whose layers differ in page size (UniformTypeKVCacheSpecs)
  i64 group_size = 0;         // layers per group: tensors, each shared by one layer of every group
  i64 padding_layers = 0;     // "Add %d padding layers", over all attention types
  std::vector<std::pair<i64, i64>> padding;  // per type that needs it: padding layers, the type's layers
  i64 mamba_page_bytes = 0;   // hybrid models: one recurrent layer's state on this rank, before padding (0: none)
  // Its dtypes as vLLM names them (--mamba-cache-dtype, --mamba-ssm-cache-dtype resolved): the
  // convolution state's and the SSM state's (empty where the state has no SSM part: LFM2).
  std::string_view mamba_conv_dtype, mamba_ssm_dtype;
  i64 attn_block_size = 0;    // hybrid models: the attention block grown to hold a state's page (0: not grown)
  // TurboQuant with unquantized boundary layers: the block grown so the quantized page covers theirs
  // at the kernel's smallest block (0: not grown).
  i64 tq_block_size = 0;
  // TurboQuant's attention workspace (TurboQuantMetadataBuilder._reserve_workspace), taken when the KV
  // cache is initialised, after it is sized, beyond what the profile's MoE kernels left in the
  // workspace: memory outside the budget, like the CUDA graphs. Its two requests: the decode's split
  // buffers and a continuation prefill's K and V (0: not asked).
  i64 tq_workspace_bytes = 0, tq_decode_workspace_bytes = 0, tq_prefill_workspace_bytes = 0;
  MambaCacheMode mamba_cache_mode = MambaCacheMode::None;  // hybrid models: the states a request keeps
  // --mamba-cache-mode as vLLM amends it (models/config.py MambaModelConfig.verify_and_update_config):
  // "all" asked of a model without SupportsMambaPrefixCaching falls back to "align"; any mode asked
  // without prefix caching is set to "none". Each prints a warning.
  bool mamba_mode_fell_back = false, mamba_mode_reset = false;
  // Qwen3.5: the config's mamba_ssm_dtype where --mamba-ssm-cache-dtype overrides it with another (vLLM warns).
  std::string_view config_ssm_dtype_overridden;
  // --max-model-len -1 (Workload::vllm_auto_fit): the model's length auto-fit started from, which the
  // profile ran with; max_model_len is then the one it fitted (0: not asked).
  i64 auto_fit_from = 0;
  i64 mamba_chunk_size = 0;   // hybrid models under "all": the model's chunk size the block is aligned to
  i64 num_blocks = 0;
  i64 kv_tokens = 0;          // "GPU KV cache size: N tokens"
  i64 blocks_per_request = 0; // blocks one request of max_model_len takes over all groups
  double max_concurrency = 0; // "Maximum concurrency for L tokens per request"
  i64 needed_bytes = 0;       // KV one request of max_model_len needs (check_enough_kv_cache_memory)
  i64 estimated_max_model_len = 0;  // when it does not fit: the longest that does (in vLLM's error)
  i64 max_model_len_fit = 0;  // the longest max_model_len one request fits at this budget (≤ max positions)
  std::string error;          // vLLM's own error when it refuses to start (empty: it starts)
  // Pipeline parallel (pp > 1): one worker per stage (its TP ranks alike). The figures above are
  // stage 0's (the worker whose lines a single node prints); num_blocks is the least of the stages'.
  struct Rank {
    i64 first_layer = 0, layers = 0;
    i64 weights_bytes = 0;          // its layers, the embedding on the first (and, tied, the last), the head on the last
    i64 intermediate_bytes = 0;     // hidden states and residual received from the stage before (stages > 0)
    i64 activation_peak_bytes = 0;  // workspace + intermediate + max(forward, the sampler on the last stage)
    i64 kv_available_bytes = 0;
    i64 num_blocks = 0;             // ⌊available / page / its layers⌋
  };
  std::vector<Rank> ranks;
  i64 bottleneck_rank = 0;    // the stage with the fewest blocks
  bool hybrid() const { return groups.size() > 1; }
};

// vLLM's accounting for `cfg` on one GPU of `w` (gpu_mem_util, max_num_batched_tokens,
// max_num_seqs, block_size, kv_dtype, tp, pp, seq = max_model_len). `inf` is the estimate's
// inference memory (its weights per GPU and per layer). Fails, naming the field, where vLLM would
// refuse the flags or where its accounting for this model is not modelled (recurrent layers, the
// DeepSeek-V3.2 indexer, pipeline stages of families whose stage placement is not followed or of
// several KV cache groups, a GPU whose CUDA total is not in the catalog).
Result<VllmMemory> vllm_memory(const ModelConfig& cfg, const LayerPlan& plan, const InferenceMemory& inf,
                               const Workload& w, const Gpu& gpu);

// The lines vLLM prints for that memory, as it formats them (GiB as Python's str(round(x, 2))).
std::vector<std::string> vllm_log(const VllmMemory& m);
// vLLM's defaults of --max-num-batched-tokens and --max-num-seqs on this GPU for this entry point
// (`vllm serve` or the LLM class); the GPU's CUDA total decides.
struct VllmBatchDefaults {
  i64 max_num_batched_tokens = 0, max_num_seqs = 0;
};
VllmBatchDefaults vllm_batch_defaults(const Gpu& gpu, VllmEntry entry);
// The flags the lines follow from ("max_model_len 8,192<sep>max_num_batched_tokens …"): the CLI's
// heading and the panel's.
std::string vllm_settings(const VllmMemory& m, std::string_view sep);

// Every term of the accounting with its formula (values substituted) and the vLLM file and
// function it follows, in the order vLLM computes them.
struct EngineTerm {
  std::string key;      // "budget_bytes"
  std::string label;    // "Budget"
  double value = 0;
  bool bytes = true;    // bytes, or a count (blocks, tokens, concurrency)
  std::string bound;    // "exact", "estimate"
  std::string formula;  // symbols = values = result
  std::string source;   // the engine file and function
  // The label's row of the string table, with its %s values; none where the label is the
  // engine's own word in its log ("Model loading took", "#tokens"), shown as the engine prints it.
  std::optional<Str> row{};
  std::vector<RowArg> row_args{};
};
// The term's label in `lang` (its English is `label`, which the JSON report carries).
std::string term_label(const EngineTerm& t, Lang lang);
// The row of the string table that describes the term (or a check-log figure) of this key; none
// for the engines' own log words.
std::optional<Str> term_row(std::string_view key);
// Names each described term's row by its key and sets its English label (vllm_terms and sglang_terms).
void label_terms(std::vector<EngineTerm>& terms);
// The formulas' and sources' words are in `lang` (the JSON report's are English); symbols, numbers,
// code and file names, the engine's own log words and versions are the same in every language.
std::vector<EngineTerm> vllm_terms(const VllmMemory& m, const Workload& w, const Gpu& gpu, Lang lang = Lang::En);

// What vLLM and SGLang both refuse, named: llama.cpp's cache types (q8_0, q4_0), which neither
// engine has.
std::optional<Issue> paged_engine_refusal(std::string_view engine, KvDtype t);

// What the report says of the CUDA graphs (its %s: the estimate set aside where one was, else the memory
// outside the budget): none under --enforce-eager, inside the budget where the first runner of 0.27
// set its estimate aside, else captured in the memory gpu_memory_utilization leaves.
inline Str vllm_graphs_row(const VllmMemory& v) {
  return v.enforce_eager ? Str::rep_vllm_eager : v.cuda_graph_estimate_bytes > 0 ? Str::rep_vllm_graphs_est : Str::rep_vllm_graphs;
}

// vLLM's format_gib: str(round(bytes / 2^30, 2)) — "58.11", "58.1", "15.0".
std::string vllm_gib(i64 bytes);

}  // namespace llmsize::core
