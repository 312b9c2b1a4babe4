// Workload: everything about HOW a model is run or trained (context, batch, weight format,
// KV dtype, runtime, optimizer, precision, parallelism, LoRA, GPU) — the second input of
// estimate() beside ModelConfig. One table of Field<Workload> (field.hpp), workload_fields(),
// defines every field: its short key (share links, Issue field names), CLI flag, UI label,
// kind, allowed range or values, and strict text get/set. The CLI, the share-link codec and
// the UI iterate it; nothing else does. Each enum's names sit beside it, in enum order:
// to_string() and the table's choices read that one array.
// Not here: model-dependent checks (tp dividing the KV heads, …), which estimate() reports.
#pragma once
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checked.hpp"
#include "issue.hpp"
#include "field.hpp"
#include "gpus.hpp"
#include "model.hpp"  // kMaxTokens

namespace llmsize::core {

enum class Mode : std::uint8_t { Inference, Training };
inline constexpr std::string_view kModeNames[] = {"inference", "training"};

// How the weights are stored. Each value maps every tensor of the inventory to a storage
// type (quant.hpp): plain dtypes, per-channel/per-group integer schemes, bitsandbytes 4-bit,
// OCP MXFP4, and llama.cpp GGUF file types (the _K_M/_K_S names are llama.cpp's per-tensor
// mixes; q5_k/q4_k/q3_k are the "--pure" single-type files).
enum class WeightFormat : std::uint8_t {
  F32, BF16, F16,
  Fp8,        // e4m3, one fp32 scale per tensor
  Fp8Block,   // e4m3, one fp32 scale per 128×128 block (DeepSeek-V3 checkpoints)
  Int8,       // int8, one fp32 scale per output channel (bitsandbytes LLM.int8)
  GptqInt4, GptqInt3, GptqInt8,  // GPTQ, group size Workload::group_size
  AwqInt4,    // AWQ (GEMM layout), group size Workload::group_size
  Nf4,        // bitsandbytes NF4, fp32 absmax per 64 weights
  Nf4Dq,      // bitsandbytes NF4 with double quantization (QLoRA)
  Mxfp4,      // OCP MXFP4 on every layer matrix: 32 × e2m1 + one e8m0 scale
  Int4Experts,  // compressed-tensors int4 (pack-quantized, symmetric, groups of 32) on the routed experts only
  // GGUF (llama.cpp) file types
  Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q5_K, Q5_0, Q4_K_M, Q4_K_S, Q4_K, Q4_0,
  Q3_K_L, Q3_K_M, Q3_K_S, Q3_K, Q2_K, IQ4_XS, Mxfp4Moe,
};
inline constexpr int kWeightFormatCount = static_cast<int>(WeightFormat::Mxfp4Moe) + 1;
inline constexpr std::string_view kWeightFormatNames[] = {
    "fp32",   "bf16",   "fp16",   "fp8",    "fp8-block", "int8",   "gptq-int4", "gptq-int3",
    "gptq-int8", "awq-int4", "nf4", "nf4-dq", "mxfp4",    "int4-experts", "q8_0",   "q6_k",      "q5_k_m",
    "q5_k_s", "q5_k",   "q5_0",   "q4_k_m", "q4_k_s",    "q4_k",   "q4_0",      "q3_k_l",
    "q3_k_m", "q3_k_s", "q3_k",   "q2_k",   "iq4_xs",    "mxfp4_moe"};
static_assert(std::size(kWeightFormatNames) == kWeightFormatCount);
bool is_gguf(WeightFormat f);

// Whether a tensor group stays unquantized: Auto follows the format's own convention
// (quant.hpp documents it per format), Yes keeps it in the compute dtype, No quantizes it.
enum class Keep : std::uint8_t { Auto, Yes, No };
inline constexpr std::string_view kKeepNames[] = {"auto", "yes", "no"};

// The last four are vLLM's TurboQuant presets (--kv-cache-dtype turboquant_*, from vLLM 0.20:
// model_executor/layers/quantization/turboquant/config.py TQ_PRESETS): Hadamard-rotated keys in
// Lloyd-Max codes (or fp8) and uniformly quantized values, packed per head (layer_plan.cpp).
enum class KvDtype : std::uint8_t { BF16, F16, F32, Fp8, Q8_0, Q4_0, TqK8V4, Tq4bitNc, TqK3V4Nc, Tq3bitNc };
inline constexpr std::string_view kKvDtypeNames[] = {"bf16", "fp16", "fp32", "fp8", "q8_0", "q4_0",
                                                     "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc"};
// ggml's block-quantized cache types (llama.cpp's -ctk / -ctv q8_0 and q4_0; ggml_is_quantized).
constexpr bool kv_block_quantized(KvDtype t) { return t == KvDtype::Q8_0 || t == KvDtype::Q4_0; }
constexpr bool kv_turboquant(KvDtype t) { return t >= KvDtype::TqK8V4; }
enum class LogitsMode : std::uint8_t { Last, All };  // inference: fp32 logits for the last position or all
inline constexpr std::string_view kLogitsModeNames[] = {"last", "all"};
// Transformers' attn_implementation (the Transformers profile; --flash stays the generic estimate's).
enum class AttnImpl : std::uint8_t { Sdpa, FlashAttention2, Eager };
inline constexpr std::string_view kAttnImplNames[] = {"sdpa", "flash_attention_2", "eager"};
// How vLLM is started: `vllm serve` (usage context OPENAI_API_SERVER) or the Python `LLM` class
// (LLM_CLASS); engine/arg_utils.py get_batch_defaults gives each its own batched-token default.
enum class VllmEntry : std::uint8_t { Serve, Llm };
inline constexpr std::string_view kVllmEntryNames[] = {"serve", "llm"};
// The vLLM release the profile follows (engine_vllm.hpp): 0.19 (the V1 engine's model runner), or
// 0.27 (0.27.1: Model Runner V2, the default for dense models since 0.25: another profile run and
// another accounting of what it measured, gpu_memory_utilization 0.92 by default), or 0.28 (0.28.0:
// 0.27.1's profile and accounting, prefix caching on for hybrid models by default (vLLM PR #50991)
// and the KV cache size and concurrency printed on one line).
enum class VllmLine : std::uint8_t { V019, V027, V028 };
inline constexpr std::string_view kVllmLineNames[] = {"0.19", "0.27", "0.28"};
// vLLM's mamba_cache_mode (config/cache.py, --mamba-cache-mode): the recurrent states a request keeps.
// "none" without prefix caching (one state); with it, "none" asks for the model's default
// (models/config.py MambaModelConfig): "all" for models whose Mamba layers support prefix caching
// (SupportsMambaPrefixCaching: a state every block of tokens), "align" for the others (two states).
enum class MambaCacheMode : std::uint8_t { None, Align, All };
inline constexpr std::string_view kMambaCacheModeNames[] = {"none", "align", "all"};
// Who creates llama.cpp's context: llama-server, or a program that leaves n_outputs_max at its
// default (Ollama's runner, llama-cli, bindings): the logits the worst-case graph reserves.
enum class LlamaCppCaller : std::uint8_t { Server, Library };
inline constexpr std::string_view kLlamaCppCallerNames[] = {"server", "library"};
// The order in which llama.cpp's -ngl offloads (llama_model::load_tensors): the output layer
// first, then the last ngl − 1 repeating layers (PR #18148, merged 2025-12-17), or, before it,
// the last ngl repeating layers first and the output layer only past n_layer.
enum class LlamaCppOffload : std::uint8_t { OutputFirst, BlocksFirst };
inline constexpr std::string_view kLlamaCppOffloadNames[] = {"output-first", "blocks-first"};
// The graph llama.cpp reserves its compute buffers for, by the build's date (what the inputs are
// and how the cache is written; engine_llamacpp_graph.cpp): 2026-05, the KQ mask reserved in f16
// under flash attention (PR #23764, merged 2026-05-27); 2026-04, the 2026-01 graph with a
// quantized cache's K and V rotated by Hadamard matrices (PR #21038, merged 2026-04-01: q and k
// before the cache, v and the attention's output); 2026-01, an embeddings input beside the
// token ids (PR #18898, 2026-01-17) and the f32 mask cast to f16 before the first attention;
// 2025-08, the cache written with ggml_set_rows from index inputs (PR #14959, the default since
// August 2025); 2025-07, ggml_cpy into views of the cache (build 5781); 2025-05, the f32 mask given
// to flash attention uncast (build 5505).
// The SGLang build the profile follows: late 2025 (0.5.6), or main of March 2026 onwards (0.5.9+),
// where server_args.py leaves gpt-oss's hybrid sliding-window pool on unless its attention backend is
// trtllm_mha (SM100); every other figure as late 2025.
enum class SglangBuild : std::uint8_t { Late2025, Mar2026 };
inline constexpr std::string_view kSglangBuildNames[] = {"2025-12", "2026-03"};
enum class LlamaCppGraph : std::uint8_t { F16Mask, KvRot, EmbdInput, SetRows, Cpy, NoCast };
inline constexpr std::string_view kLlamaCppGraphNames[] = {"2026-05", "2026-04", "2026-01", "2025-08", "2025-07", "2025-05"};
// Builds since PR #21038 (the 2026-04 graph and later) rotate a quantized cache's K and V.
constexpr bool llamacpp_rotates_kv(LlamaCppGraph g) { return g == LlamaCppGraph::F16Mask || g == LlamaCppGraph::KvRot; }
// Builds since PR #18898 (the 2026-01 graph and later): an embeddings input beside the token ids,
// compute buffers printed by sched_reserve.
constexpr bool llamacpp_embd_input(LlamaCppGraph g) { return g == LlamaCppGraph::F16Mask || g == LlamaCppGraph::KvRot || g == LlamaCppGraph::EmbdInput; }
// PyTorch: the generic estimate with a PyTorch process's reserve; Transformers: model.generate() as
// torch.cuda.max_memory_allocated() measures it (engine_transformers.hpp).
enum class Runtime : std::uint8_t { PyTorch, Vllm, LlamaCpp, Sglang, Transformers, None };  // runtime reserve profile
inline constexpr std::string_view kRuntimeNames[] = {"pytorch", "vllm", "llamacpp", "sglang", "transformers", "none"};
enum class ComputeDtype : std::uint8_t { BF16, F16, F32 };  // activations; unquantized weights in inference
inline constexpr std::string_view kComputeDtypeNames[] = {"bf16", "fp16", "fp32"};

enum class Optimizer : std::uint8_t { AdamW, AdamW8bit, Sgd, SgdMomentum, Adafactor, Lion };
inline constexpr std::string_view kOptimizerNames[] = {"adamw", "adamw8bit", "sgd", "sgdm", "adafactor", "lion"};
enum class StateDtype : std::uint8_t { F32, BF16 };  // optimizer state dtype (not for 8-bit Adam)
inline constexpr std::string_view kStateDtypeNames[] = {"fp32", "bf16"};
// Mixed: 16-bit weights (ComputeDtype) + fp32 master copy. Pure: 16-bit weights only.
// Fp32: fp32 weights, no master (with a 16-bit ComputeDtype this is torch autocast/AMP).
enum class Precision : std::uint8_t { Mixed, Pure, Fp32 };
inline constexpr std::string_view kPrecisionNames[] = {"mixed", "pure", "fp32"};
enum class GradDtype : std::uint8_t { Auto, F32, BF16, F16 };  // Auto: the weights' dtype
inline constexpr std::string_view kGradDtypeNames[] = {"auto", "fp32", "bf16", "fp16"};
enum class Sharding : std::uint8_t { None, Zero1, Zero2, Zero3, Fsdp };  // Fsdp = FULL_SHARD (ZeRO-3)
inline constexpr std::string_view kShardingNames[] = {"0", "1", "2", "3", "fsdp"};  // ZeRO stage, or fsdp
enum class Recompute : std::uint8_t { None, Selective, Full };
inline constexpr std::string_view kRecomputeNames[] = {"none", "selective", "full"};
// Whose allocations the training estimate follows: the papers' formulas, or a recipe's code as
// it runs (training_recipe.hpp).
enum class Recipe : std::uint8_t { Formula, LitGpt, HfPeft, Megatron, Torchtune, DeepSpeed };
inline constexpr std::string_view kRecipeNames[] = {"formula", "litgpt", "hf-peft", "megatron", "torchtune", "deepspeed"};
// LLaMA-Adapter (Zhang et al. 2023, arXiv:2303.16199) and its v2 (Gao et al. 2023, arXiv:2304.15010)
// as LitGPT implements them (lit_gpt/adapter.py, adapter_v2.py): a method beside LoRA, not with it.
enum class Adapter : std::uint8_t { None, V1, V2 };
inline constexpr std::string_view kAdapterNames[] = {"none", "llama-adapter", "llama-adapter-v2"};

// LoRA target modules, by role (q also covers MLA q_a/q_b, k covers kv_a, v covers kv_b;
// a fused qkv is adapted when any of q,k,v is chosen, a fused gate_up when gate or up is).
enum LoraTarget : std::uint32_t {
  kLoraQ = 1, kLoraK = 2, kLoraV = 4, kLoraO = 8, kLoraGate = 16, kLoraUp = 32, kLoraDown = 64,
  kLoraAll = 127,
};
inline constexpr std::string_view kLoraTargetNames[] = {"q", "k", "v", "o", "gate", "up", "down"};  // bit order
static_assert(kLoraAll == (1u << std::size(kLoraTargetNames)) - 1);

static_assert(std::size(kModeNames) == static_cast<size_t>(Mode::Training) + 1);
static_assert(std::size(kKeepNames) == static_cast<size_t>(Keep::No) + 1);
static_assert(std::size(kKvDtypeNames) == static_cast<size_t>(KvDtype::Tq3bitNc) + 1);
static_assert(std::size(kLogitsModeNames) == static_cast<size_t>(LogitsMode::All) + 1);
static_assert(std::size(kAttnImplNames) == static_cast<size_t>(AttnImpl::Eager) + 1);
static_assert(std::size(kVllmEntryNames) == static_cast<size_t>(VllmEntry::Llm) + 1);
static_assert(std::size(kVllmLineNames) == static_cast<size_t>(VllmLine::V028) + 1);
static_assert(std::size(kMambaCacheModeNames) == static_cast<size_t>(MambaCacheMode::All) + 1);
static_assert(std::size(kLlamaCppCallerNames) == static_cast<size_t>(LlamaCppCaller::Library) + 1);
static_assert(std::size(kLlamaCppOffloadNames) == static_cast<size_t>(LlamaCppOffload::BlocksFirst) + 1);
static_assert(std::size(kLlamaCppGraphNames) == static_cast<size_t>(LlamaCppGraph::NoCast) + 1);
static_assert(std::size(kRuntimeNames) == static_cast<size_t>(Runtime::None) + 1);
static_assert(std::size(kComputeDtypeNames) == static_cast<size_t>(ComputeDtype::F32) + 1);
static_assert(std::size(kOptimizerNames) == static_cast<size_t>(Optimizer::Lion) + 1);
static_assert(std::size(kStateDtypeNames) == static_cast<size_t>(StateDtype::BF16) + 1);
static_assert(std::size(kPrecisionNames) == static_cast<size_t>(Precision::Fp32) + 1);
static_assert(std::size(kGradDtypeNames) == static_cast<size_t>(GradDtype::F16) + 1);
static_assert(std::size(kShardingNames) == static_cast<size_t>(Sharding::Fsdp) + 1);
static_assert(std::size(kRecomputeNames) == static_cast<size_t>(Recompute::Full) + 1);
static_assert(std::size(kRecipeNames) == static_cast<size_t>(Recipe::DeepSpeed) + 1);
static_assert(std::size(kAdapterNames) == static_cast<size_t>(Adapter::V2) + 1);

struct Workload {
  Mode mode = Mode::Inference;
  // Shared by both modes.
  i64 seq = 4096;      // s: context (inference: prompt + generated) or training sequence length
  i64 batch = 1;       // b: concurrent sequences (inference) or micro-batch per GPU (training)
  ComputeDtype dtype = ComputeDtype::BF16;
  bool flash_attention = true;
  std::string gpu = "h100-sxm";  // id in the GPU catalog (gpus.hpp), or "custom" (the three fields below)
  // A custom GPU, or a catalog card's numbers replaced; 0 = the catalog's.
  double gpu_mem_gib = 0;   // memory in GiB (a custom card's is also its CUDA total: unknown, so engines ask)
  double gpu_bw_gbs = 0;    // memory bandwidth, 1e9 bytes/s
  double gpu_tflops = 0;    // dense bf16 tensor throughput, 1e12 FLOP/s
  double wired_limit_gib = 0;  // unified memory (Apple): the GPU's wired limit (sysctl iogpu.wired_limit_mb); 0 = default
  // What PyTorch reports of the card (torch.cuda.get_device_properties: total_memory, multi_processor_count,
  // major.minor), which the engine profiles need; 0 = the catalog's.
  double gpu_cuda_total_mib = 0;  // the total CUDA reports, MiB
  i64 gpu_sms = 0;                // streaming multiprocessors
  double gpu_cc = 0;              // compute capability, e.g. 8.9
  i64 gpus = 1;        // GPUs in total = dp · tp · pp (dp is derived)
  i64 tp = 1, pp = 1, ep = 1;
  double utilization = 0.4;  // fraction of peak FLOP/s reached (prefill, training time)

  // Inference.
  i64 prefill_chunk = 0;  // tokens per prefill step; 0 = the whole prompt at once
  WeightFormat weights = WeightFormat::BF16;
  i64 group_size = 128;   // GPTQ/AWQ quantization group (input rows per scale)
  Keep keep_embedding = Keep::Auto, keep_head = Keep::Auto, keep_router = Keep::Auto;
  Keep keep_attention = Keep::Auto;  // yes: the attention projections stay in the compute dtype (gpt-oss's MXFP4 checkpoints)
  KvDtype kv_dtype = KvDtype::BF16;
  LogitsMode logits = LogitsMode::Last;
  Runtime runtime = Runtime::PyTorch;
  i64 reserve_mib = -1;          // runtime reserve per GPU in MiB; -1 = the profile's default
  double gpu_mem_util = 0;       // vLLM gpu_memory_utilization: share of GPU memory vLLM may use; 0 = the release's default
  VllmLine vllm_line = VllmLine::V019;  // the vLLM release followed (not a vLLM flag)
  // gpu_memory_utilization as vLLM resolves it: the flag, else config/cache.py's default of the
  // release followed (0.9 in 0.19; 0.92 in 0.27: "If unspecified, will use the default value of 0.92").
  double vllm_util() const { return gpu_mem_util > 0 ? gpu_mem_util : vllm_line != VllmLine::V019 ? 0.92 : 0.9; }
  // vLLM flags; 0 = vLLM's default for the GPU and the entry point (engine_vllm.hpp).
  VllmEntry vllm_entry = VllmEntry::Serve;  // `vllm serve`, or the LLM class
  i64 max_num_batched_tokens = 0;  // tokens of one scheduler step (the profiled dummy forward)
  i64 max_num_seqs = 0;            // sequences of one step (the profiled dummy sampler batch)
  i64 block_size = 16;             // tokens per KV cache block
  i64 kv_cache_memory = 0;         // --kv-cache-memory: KV cache bytes per GPU instead of profiling; 0 = profile
  bool enforce_eager = false;      // --enforce-eager: no torch.compile and no CUDA graphs
  // --enable-prefix-caching / --no-enable-prefix-caching; auto = the release's default, which for hybrid
  // models is off in 0.19 and 0.27.1 and on from 0.28 (vLLM PR #50991). It sets the recurrent states a
  // hybrid model's request keeps (VllmMemory::mamba_cache_mode); other models' memory does not move.
  Keep prefix_caching = Keep::Auto;
  // --language-model-only: every modality's limit 0, so vLLM builds no vision tower or projector
  // (models/interfaces.py _mark_tower_model: StageMissingLayer) and profiles no encoder.
  bool language_model_only = false;
  // --max-model-len -1 (vLLM): max_model_len starts at the model's positions and is lowered, once the
  // KV cache is sized, to the longest one request fits (kv_cache_utils.py _auto_fit_max_model_len);
  // seq stays the generic estimate's context.
  bool vllm_auto_fit = false;
  // --mamba-cache-dtype (the convolution state, and the SSM state where its own is auto) and
  // --mamba-ssm-cache-dtype (the SSM state): hybrid models' recurrent state pages under vLLM.
  MambaDtype mamba_cache_dtype = MambaDtype::Auto;
  MambaDtype mamba_ssm_cache_dtype = MambaDtype::Auto;
  // --mamba-cache-mode, with prefix caching: none = the model's default (align or all).
  MambaCacheMode mamba_cache_mode = MambaCacheMode::None;
  // vLLM 0.27's CUDA graph estimate in MiB as a start-up printed it (the first model runner, which
  // subtracts it from the KV cache: gpu_worker.py determine_available_memory); 0 = not given.
  i64 vllm_cuda_graph_mib = 0;
  // SGLang (sglang.launch_server) flags; 0 = SGLang's default for the GPU (engine_sglang.hpp).
  double mem_fraction_static = 0;  // share of the free memory for weights and the KV pool
  i64 chunked_prefill_size = 0;
  i64 cuda_graph_max_bs = 0;
  i64 page_size = 0;               // SGLang --page-size: tokens per page of the pool; 0 = SGLang's default
  i64 max_running_requests = 0;    // SGLang --max-running-requests: ReqToTokenPool rows; 0 = SGLang's default
  i64 max_total_tokens = 0;        // SGLang --max-total-tokens: a cap on the token pool; 0 = none
  double swa_full_tokens_ratio = 0.8;      // --swa-full-tokens-ratio: SWA layers' tokens / full layers' (hybrid pool)
  bool disable_hybrid_swa_memory = false;  // --disable-hybrid-swa-memory: one pool, every layer at full length
  // --mamba-ssm-dtype: the SSM state of a hybrid model's MambaPool slot (configs/mamba_utils.py
  // mamba2_state_dtype); auto = SGLang's float32 (the config's mamba_ssm_dtype, float32 in Qwen3.5's).
  MambaDtype mamba_ssm_dtype = MambaDtype::Auto;
  SglangBuild sglang_build = SglangBuild::Late2025;  // the SGLang build followed (not an SGLang flag)
  // llama.cpp (llama-server) flags, each the engine's default.
  i64 n_ubatch = 512;            // -ub: physical batch
  i64 n_batch = 2048;            // -b: logical batch (n_ubatch is at most it)
  i64 parallel = 0;              // -np: server slots; 0 = auto (4 slots sharing one unified cache)
  bool kv_unified = false;       // -kvu: one cache stream shared by the slots
  bool swa_full = false;         // --swa-full: sliding-window layers keep n_ctx cells
  bool llamacpp_no_gpu = false;  // --device none (or a build without a GPU backend): the CPU computes every op and holds every buffer
  double host_mem_gib = 0;      // llama.cpp: the host memory its CPU buffers may fill, in GiB (0: not checked)
  i64 host_mem_bytes() const { return static_cast<i64>(std::llround(host_mem_gib * 1073741824.0)); }  // ≤ 2^50
  // llama.cpp without a GPU (--llamacpp-no-gpu under runtime llamacpp): the host is its one device.
  bool llamacpp_on_host() const { return runtime == Runtime::LlamaCpp && llamacpp_no_gpu; }
  double host_bw_gbs = 0;       // the host memory's bandwidth (GB/s) where the CPU runs layers (llama.cpp); 0: not given
  double host_tflops = 0;       // the CPU's dense matrix throughput (TFLOPS) where it computes alone (llama.cpp); 0: not given
  LlamaCppCaller llamacpp_caller = LlamaCppCaller::Server;  // llama-server, or a library caller (Ollama's runner)
  LlamaCppOffload llamacpp_offload = LlamaCppOffload::OutputFirst;  // -ngl's order: the build's, since or before PR #18148
  LlamaCppGraph llamacpp_graph = LlamaCppGraph::F16Mask;  // the build's reserved graph (its inputs, the cache writes)
  i64 n_gpu_layers = -1;         // -ngl: layers (and, past n_layer, the output layer) on the GPU; -1 = all
  i64 n_cpu_moe = 0;             // --n-cpu-moe: the expert tensors of the first N layers stay on the CPU
  std::vector<double> tensor_split;  // -ts: each device's share of the layers (a device per pipeline stage); empty = by free memory
  std::vector<std::string> devices;  // llama.cpp's devices when the cards differ: a catalog id per pipeline stage; empty = `gpu` for each
  // Transformers (model.generate): tokens generated after the prompt; the prompt is seq − this.
  i64 max_new_tokens = 1;
  AttnImpl attn_impl = AttnImpl::Sdpa;  // from_pretrained(attn_implementation=…); transformers' default is sdpa

  // Training.
  Recipe recipe = Recipe::Formula;
  Optimizer optimizer = Optimizer::AdamW;
  StateDtype opt_state = StateDtype::F32;
  Precision precision = Precision::Mixed;
  GradDtype grad_dtype = GradDtype::Auto;
  i64 grad_accum = 1;            // micro-batches per optimizer step
  Sharding sharding = Sharding::None;
  bool seq_parallel = false;     // Megatron sequence parallelism (with tp)
  Recompute recompute = Recompute::None;
  bool offload_activations = false;  // torchtune's enable_activation_offloading (OffloadActivations)
  bool optimizer_in_bwd = false;     // torchtune's optimizer_in_bwd: each parameter stepped in backward
  bool dropout = false;          // dropout layers present (masks are saved for backward)
  i64 lora_rank = 0;             // 0 = full fine-tuning / pre-training
  std::uint32_t lora_targets = kLoraAll;
  bool qlora = false;            // frozen base in NF4 + double quantization, paged optimizer
  Adapter adapter = Adapter::None;  // LLaMA-Adapter instead of LoRA (--recipe litgpt)
  i64 train_tokens = 0;          // tokens to train on; 0 = Chinchilla-optimal (20·P)

  i64 dp() const { return tp > 0 && pp > 0 ? gpus / (tp * pp) : 0; }
};

using WorkloadField = Field<Workload>;

// Every field, in display order. Built once; the GPU enum lists the catalog's ids.
const std::vector<WorkloadField>& workload_fields();
const WorkloadField* find_field(std::string_view key);        // by key
const WorkloadField* find_field_by_flag(std::string_view flag);  // by "--flag"

// The id of a GPU given by its numbers rather than picked from the catalog.
inline constexpr std::string_view kCustomGpu = "custom";
// The workload's GPU: the catalog card (or the custom one), with the numbers the workload
// replaces. Fails (Issue naming "gpu") for an id the catalog lacks.
// Whether the workload replaces any of the card's numbers (gpu_of then builds an amended copy).
bool gpu_amended(const Workload& w);
// Takes the card as the catalog has it: every replaced number back to 0.
void clear_gpu_amendments(Workload& w);
Result<Gpu> gpu_of(const Workload& w);

// The card of pipeline stage `stage`: the devices list's where one is given, else the workload's GPU.
Result<Gpu> stage_gpu(const Workload& w, i64 stage);

// Cross-field checks of the workload alone (model-independent): dp integral, ep dividing
// dp·tp, QLoRA needing a LoRA rank, … Issues name field keys.
std::vector<Issue> validate(const Workload& w);

// Names used by the field table, the reports and the explanations.
std::string_view to_string(Mode m);
std::string_view to_string(WeightFormat f);
std::string_view to_string(Keep k);
std::string_view to_string(KvDtype k);
std::string_view to_string(LogitsMode l);
std::string_view to_string(Runtime r);
std::string_view to_string(AttnImpl a);
std::string_view to_string(VllmEntry e);
std::string_view to_string(VllmLine l);
std::string_view to_string(MambaDtype d);
std::string_view to_string(MambaCacheMode m);
std::string_view to_string(ComputeDtype d);
std::string_view to_string(Optimizer o);
std::string_view to_string(Recipe r);
std::string_view to_string(Adapter a);
std::string_view to_string(StateDtype d);
std::string_view to_string(Precision p);
std::string_view to_string(GradDtype g);
std::string_view to_string(Sharding s);
std::string_view to_string(Recompute r);
i64 dtype_bytes(ComputeDtype d);  // 2, 2, 4

}  // namespace llmsize::core
