// SGLang's own memory accounting at start-up (issue 11, third step): the free memory before and
// after the weights load, mem_fraction_static and its default, the token pool it sizes from them
// and the lines sglang.launch_server prints. Follows SGLang 0.5 of late 2025:
// srt/model_executor/model_runner.py (init_torch_distributed, load_model,
// profile_max_num_token, init_memory_pool), srt/server_args.py (the mem_fraction_static
// heuristic of PR #10975 and the per-GPU chunked_prefill_size / cuda_graph_max_bs),
// srt/mem_cache/memory_pool.py (MHATokenToKVPool, MLATokenToKVPool, the NSA indexer keys and
// their log lines) and srt/utils get_available_gpu_memory. One GPU of the workload.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine_vllm.hpp"

namespace llmsize::core {

// The build followed, as the profile names it (Workload::sglang_build).
constexpr std::string_view sglang_version(SglangBuild b) {
  return b == SglangBuild::Mar2026 ? "SGLang 0.5.9+ (March 2026; late 2025's but for gpt-oss's hybrid pool)"
                                   : "SGLang 0.5 (late 2025)";
}

struct SglangMemory {
  std::string_view version = sglang_version(SglangBuild::Late2025);  // the build followed
  // Inputs as SGLang resolves them.
  i64 smi_total_mib = 0;       // nvidia-smi memory.total: what the defaults read (0: not in the catalog)
  i64 chunked_prefill_size = 0, cuda_graph_max_bs = 0;
  double mem_fraction_static = 0;
  bool mfs_default = false;    // the heuristic chose it
  i64 reserved_mib = 0;        // the heuristic's reserve (when it chose mfs)
  // A multimodal checkpoint's heuristic fraction times adjust_mem_fraction_for_vlm's factor, from
  // the vision config's layers and width as SGLang reads them (1: text-only, or mfs given).
  double vlm_factor = 1.0;
  double heuristic_mfs = 0;  // the heuristic's rounded fraction, before that factor (when it chose mfs)
  i64 vit_layers = 0, vit_hidden = 0;
  i64 context_len = 0;
  i64 page_size = 1;
  bool page_set = false;    // --page-size given (page_set_to), else SGLang's None
  i64 page_set_to = 0;
  bool page_changed_to_64 = false;  // trtllm_mha took a page size it cannot use to 64 (and said so)
  bool trtllm_mha = false;  // SGLang's default attention backend on SM100 for a model without MLA: pages of 64 tokens
  // Memory (one GPU).
  double pre_gib = 0;          // free before the weights load ("Load weight begin. avail mem")
  double post_gib = 0;         // free after it ("Load weight end. avail mem")
  bool measured = false;       // pre and post came from a log, not from the catalog's total
  i64 context_bytes = 0;       // CUDA context and communication buffers before the load (estimated)
  i64 weights_bytes = 0;       // "mem usage": the weights and the fp32 rotary cache
  double rest_gib = 0;         // post − pre × (1 − mem_fraction_static)
  // The token pool.
  i64 cell_bytes = 0;          // KV bytes of one token over this GPU's layers
  bool nsa_fp8_latent = false;  // the NSA pool stores 656 B per layer for the 576 the cell counts
  bool mla = false;            // one latent per token ("KV size" line)
  i64 indexer_bytes = 0;       // NSA: the indexer's key and scale bytes of one token, per layer
  i64 layers = 0;              // layers in the pool
  i64 max_total_tokens = 0;    // "#tokens": the pool size (page-rounded)
  i64 k_row_bytes = 0, v_row_bytes = 0;  // one token over the layers: K and V (MLA: the latent in K)
  i64 k_bytes = 0, v_bytes = 0;  // the pool's tensors (N + page rows); MLA: k_bytes holds the KV and indexer keys
  i64 max_running_requests = 0;
  // The rest of init_memory_pool (model_runner.py), which "Memory pool end. avail mem" reads: the
  // ReqToTokenPool's req_to_token (max_num_reqs rows of context_len + 4 int32) and the token
  // allocator's free indices (int64: a slot per token with pages of 1, else a page each), beside
  // the KV tensors. Modelled for one plain pool (MHA or MLA, no NSA indexer, sliding or state
  // pool); pool_segment_bytes 0 elsewhere.
  i64 max_num_reqs = 0;          // the pool's rows: --max-running-requests, else SGLang's rule
  i64 max_num_reqs_set = 0;      // --max-running-requests (0: not given)
  i64 mtt_ignored_profiled = -1, mtt_ignored_set = 0;  // --max-total-tokens above the profiled pool: both, for SGLang's warning
  i64 req_to_token_bytes = 0;
  i64 free_index_bytes = 0;
  i64 kv_segment_bytes = 0;    // the K and V tensors as the caching allocator's segments (each rounded up to 2 MiB)
  i64 pool_segment_bytes = 0;  // the free memory the pools take: req_to_token's and the KV tensors' segments, the free indices
  double pool_end_gib = 0;     // "Memory pool end. avail mem": post − pool_segment_bytes / 2^30
  // The hybrid sliding-window pool (SWAKVPool: Llama 4's chunked layers): the fields above are the
  // full layers' pool (max_total_tokens its size), these the sliding-window layers' pool.
  bool hybrid = false;
  double swa_ratio = 0;        // --swa-full-tokens-ratio
  i64 window = 0;              // the sliding layers' window (Llama 4: attention_chunk_size)
  i64 full_layers = 0, swa_layers = 0;
  i64 profiled_tokens = 0;     // the plain pool's size before the split
  i64 swa_tokens = 0;          // "swa_layer_tokens"
  i64 swa_k_row_bytes = 0, swa_v_row_bytes = 0;
  i64 swa_k_bytes = 0, swa_v_bytes = 0;
  // Hybrid linear-attention / Mamba models (MambaPool): a state slot per running request.
  i64 mamba_layers = 0;
  i64 mamba_conv_bytes = 0, mamba_ssm_bytes = 0;  // one slot over the state layers: convolution (bf16), SSM (below)
  std::string_view mamba_ssm_dtype;  // the SSM state's dtype as SGLang names it (--mamba-ssm-dtype resolved)
  i64 mamba_slots = 0;         // "max_mamba_cache_size"
  std::string error;           // SGLang's own refusal (no memory left for the pool)
};

// SGLang's accounting for `cfg` under `w` (mem_fraction_static, chunked_prefill_size,
// cuda_graph_max_bs, kv_dtype, tp, seq = --context-length). `inf` is the estimate's inference
// memory (its weights per GPU). `pre_post_gib`: the free memory before and after the load as a
// log prints it; without it both come from the catalog's CUDA total. Fails, naming the field,
// where SGLang's pool for this model is not modelled (recurrent layers, KV-shared layers) or the
// card's totals are not in the catalog.
Result<SglangMemory> sglang_memory(const ModelConfig& cfg, const LayerPlan& plan, const InferenceMemory& inf,
                                   const Workload& w, const Gpu& gpu,
                                   std::optional<std::pair<double, double>> pre_post_gib = std::nullopt);

// The same memory with a pool of `tokens` (a log's #tokens; a hybrid pool's full layers, its
// sliding layers' `swa_tokens` or, without them, the ratio's share): its K and V bytes and request
// count. Fails (Issue naming `field`) when the pool's bytes overflow.
Result<SglangMemory> sglang_with_tokens(const SglangMemory& m, i64 tokens, const std::string& field = "seq",
                                        std::optional<i64> swa_tokens = std::nullopt);

// Requests of `context` tokens the pool holds at once: the full layers' tokens / context, and in a
// hybrid pool at most the sliding layers' tokens / min(context, window) (SGLang frees the tokens
// that leave the window).
i64 sglang_max_requests(const SglangMemory& m, i64 context);

// The lines SGLang prints for that memory ("GB" is GiB, two decimals).
std::vector<std::string> sglang_log(const SglangMemory& m);
// The settings the lines follow from ("mem_fraction_static 0.880 (its default)<sep>context_len …"):
// the CLI's heading and the panel's.
std::string sglang_settings(const SglangMemory& m, std::string_view sep, Lang lang);

// Every term with its formula and source (their words in `lang`), in the order SGLang computes them.
std::vector<EngineTerm> sglang_terms(const SglangMemory& m, const Workload& w, const Gpu& gpu, Lang lang = Lang::En);

}  // namespace llmsize::core
