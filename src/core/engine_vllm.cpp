// vLLM's start-up memory accounting (see engine_vllm.hpp).
#include "engine_vllm.hpp"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "format.hpp"
#include "inventory.hpp"
#include "placement.hpp"
#include "quant.hpp"
#include "torch_allocator.hpp"

namespace llmsize::core {

namespace {

constexpr i64 kGiB = i64{1} << 30;

// Memory that grows outside PyTorch's allocator during profiling ("non-torch forward increase
// memory"): cuBLAS/cuDNN handles, kernels loaded and, above one GPU, NCCL and the custom
// all-reduce buffers. vLLM measures it (memory_profiling: cudaMemGetInfo minus
// torch.cuda.memory_reserved); nothing in its code sizes it, so these are the published
// measurements on H100 with vLLM 0.19 (tests/calibration/vllm_test.cpp): on one GPU 0.25 GiB
// (four models) to 0.27 GiB; at TP 2 2.07–2.11 GiB per GPU; at TP 4 2.17 GiB. Those TP figures
// are NVLink's (H100 SXM): NCCL opens many channels over NVLink, each with its buffers, and
// vLLM's custom all-reduce and symmetric-memory buffers come on top. PCIe-only cards have neither
// (the L40S start-up at TP 4 logs "Custom allreduce is disabled because it's not supported on
// more than two PCIe-only GPUs" and "SymmMemCommunicator: Device capability 8.9 not supported")
// and no published 0.19 line of theirs prints the figure: its KV budget implies about 0.34 GiB
// with llmsize's torch peak, so the one-GPU constant stands for them (a 0.09 GiB slack).
constexpr i64 kNonTorchOneGpu = kGiB / 4;
constexpr i64 kNonTorchTp2 = 2244091576;  // 2.09 GiB: the published runs at TP 2 print 2.07, 2.09, 2.11
constexpr i64 kNonTorchTp4 = 2330019512;  // 2.17 GiB: one published run at TP 4 (larger degrees: not measured)
// 0.07 GiB: every stage of the published runs at PP 2 and PP 4 (TP 1) prints 0.07 (llm-d's
// Llama-3.1-8B logs, tests/calibration/vllm_test.cpp); PP with TP above 1: not measured, TP's figure.
constexpr i64 kNonTorchPp = 75161928;

struct Spec {
  AttnKind kind = AttnKind::Full;
  i64 window = 0, block = 0, page = 0;
  MambaCacheMode mode = MambaCacheMode::None;  // a recurrent layer's: how many state pages a request keeps
  bool operator==(const Spec&) const = default;
};

// KVCacheSpec.max_memory_usage_bytes (v1/kv_cache_interface.py) for one layer and one request.
// `mbt`: the tokens a request may hold beyond its window while they are in flight; 0.19:
// max_num_batched_tokens; 0.27 (VllmConfig.max_in_flight_tokens): max_concurrent_batches ×
// max_num_batched_tokens, two batches under Model Runner V2's asynchronous scheduling (the
// default, pipeline parallel 1).
i64 max_memory(const Spec& s, i64 max_model_len, i64 mbt) {
  if (has_state(s.kind)) {  // MambaSpec.max_memory_usage_bytes (v1/kv_cache_interface.py)
    switch (s.mode) {
      case MambaCacheMode::All: return ceil_div(max_model_len, s.block) * s.page;  // a state every block of tokens
      case MambaCacheMode::Align: return 2 * s.page;                                // the last state and the one being written
      default: return s.page;                                                       // "none": one (padded) page
    }
  }
  switch (s.kind) {
    case AttnKind::Sliding:  // SlidingWindowSpec: the window and one scheduler step, plus a block
      return (ceil_div(std::min(s.window - 1 + mbt, max_model_len), s.block) + 1) * s.page;
    case AttnKind::Chunked:  // ChunkedLocalAttentionSpec: one chunk and one scheduler step
      return ceil_div(std::min(s.window + mbt, max_model_len), s.block) * s.page;
    default:  // FullAttentionSpec, MLAAttentionSpec
      return ceil_div(max_model_len, s.block) * s.page;
  }
}

// A fresh request as PyTorch's caching allocator counts it (torch_allocator.hpp).
i64 allocated(i64 bytes) { return fresh_block_bytes(bytes); }

// The peak of PyTorch's allocated memory in profile_run (v1/worker/gpu_model_runner.py), above
// what was allocated before it: _dummy_run(T = max_num_batched_tokens) with no attention
// metadata (attention returns its zeroed output), then _dummy_sampler_run on R = min(max_num_seqs,
// T) rows, while profile_run still holds the T hidden states. Checked against the three
// published 0.19 profiles to the printed 0.01 GiB (tests/calibration/vllm_test.cpp).
struct Peak {
  i64 forward = 0, sampler = 0, workspace = 0;
};
// The top-k/top-p Triton kernel's buffer (ops/topk_topp_triton.py apply_top_k_top_p_triton, 0.19 and
// 0.27.1): [min(next_power_of_2(min(SMs, R)), SMs), V] fp32, kept in _TRITON_BUFFER_CACHE after the
// profile; R < 8 rows sort in PyTorch instead (apply_top_k_top_p) and keep nothing.
i64 v1_topk_buffer(const ModelConfig& c, const Gpu& gpu, i64 r) {
  if (r < 8) return 0;
  const i64 programs = std::min(gpu.sm_count, r);
  i64 pow2 = 1;
  while (pow2 < programs) pow2 *= 2;
  return allocated(std::min(pow2, gpu.sm_count) * c.vocab * 4);
}
// The first model runner's dummy sampler run (0.19; 0.27's first runner runs the same sampler, and
// its second, seeded call takes forward_native, the path followed here).
i64 v1_sampler_peak(const ModelConfig& c, const Workload& w, const Gpu& gpu, i64 t, i64 r) {
  const i64 d = dtype_bytes(w.dtype), h = c.d_model, v = c.vocab;
  // _dummy_sampler_run: compute_logits on rand_like(last hidden states) gives [R, V padded to
  // 64] in the model dtype (all-gathered whole on every rank); Sampler.forward makes an fp32
  // copy (none for an fp32 model), the top-k/top-p filter of 0.19 is a Triton kernel (R ≥ 8)
  // with a cached fp32 buffer (v1_topk_buffer), then the softmax
  // probabilities and random_sample's exponential noise q = empty_like(probs), both fp32.
  // Below 8 rows apply_top_k_top_p_pytorch sorts instead (fp32 values and int64 indices).
  const i64 v_pad = ceil_div(v, 64) * 64;
  i64 sampler = allocated(t * h * d) + 2 * allocated(r * h * d);
  if (d != 4) sampler += allocated(r * v_pad * d);
  sampler += (d != 4 ? 3 : 2) * allocated(r * v * 4);
  sampler += r >= 8 ? v1_topk_buffer(c, gpu, r) : allocated(r * v * 4) + allocated(r * v * 8);
  return sampler;
}
// The first runner's dummy forward, its widest moment in a dense layer: residual and normed input
// beside the wider of qkv and gate_up with its activation output.
i64 v1_forward_peak(const ModelConfig& c, const Workload& w, i64 t) {
  const i64 d = dtype_bytes(w.dtype), tp = w.tp, h = c.d_model;
  const i64 qkv = (kv_heads_per_gpu(c.n_heads, tp) + 2 * kv_heads_per_gpu(c.n_kv_heads, tp)) * c.head_dim;
  const i64 ffn = std::max(c.d_ff, c.moe.shared_ffn) / tp;
  return t * d * (2 * h + std::max(qkv, 3 * ffn));
}
// The MoE kernels' workspaces the profile leaves in the worker's WorkspaceManager (0: none).
i64 moe_workspace(const ModelConfig& c, const Workload& w, i64 t) {
  const i64 d = dtype_bytes(w.dtype), tp = w.tp, h = c.d_model;
  i64 workspace = 0;
  if (c.is_moe() && w.weights != WeightFormat::Mxfp4 && w.weights != WeightFormat::Mxfp4Moe) {
    // The modular Triton MoE kernel's workspaces, kept by the worker's WorkspaceManager
    // (fused_moe/modular_kernel.py _allocate_buffers, TritonExperts.workspace_shapes):
    // max((M, k, max(I, H)), (M, H)) and (M, k, max(2I, H)) in the model dtype, M = T, I the
    // expert width on this rank. gpt-oss's MXFP4 path on Hopper allocates per call: its
    // published profile matches with no workspace (inferred from the anchor, not the code).
    const i64 i = c.moe.expert_ffn / tp, k = c.moe.top_k;
    workspace = d * (std::max(t * k * std::max(i, h), t * h) + t * k * std::max(2 * i, h));
  }
  return workspace;
}
// What the profile leaves allocated: the MoE kernels' workspaces and cuBLAS's.
i64 profile_workspace(const ModelConfig& c, const Workload& w, const Gpu& gpu, i64 t) {
  constexpr i64 kMiB = i64{1} << 20;
  const i64 workspace = moe_workspace(c, w, t);
  // cuBLAS takes its workspace from the caching allocator on the first GEMM and keeps it:
  // 32 MiB on Hopper and Blackwell, else 4096 KiB × 2 + 16 KiB × 8 (PyTorch's default
  // CUBLAS_WORKSPACE_CONFIG ":4096:2:16:8").
  return workspace + (gpu.cuda_cc >= 9.0 ? 32 * kMiB : kCublasWorkspace);
}

// vLLM 0.27's profile (Model Runner V2, v1/worker/gpu/model_runner.py profile_run): _dummy_run(T)
// with attention skipped (attn_metadata None: the attention's output buffer, filled with zeros),
// then _dummy_sampler_run on the R = min(T, max_num_seqs) rows of each dummy request's last token,
// while profile_run still holds the T hidden states. What vLLM counts is the transient peak above
// what stays allocated (utils/mem_utils.py, transient_peak_headroom).
// The sampler (v1/worker/gpu/sample/sampler.py, 0.27.1): InputBatch.make_dummy registers no request,
// so every row keeps the zeroed sampling state: greedy, top-k the vocabulary, top-p 1, no penalty,
// bias or logprobs, so _requires_logits_processing is false and no fp32 copy is made; gumbel_sample
// (sample/gumbel.py) reads the logits in the model dtype and keeps [R, ⌈V / 1024⌉] int64 and fp32
// per-block maxima. compute_logits gives [R, V padded to 64] in the model dtype (a slice of it is
// sampled). Live together: the T hidden states, the R gathered rows, the logits, the block maxima.
i64 mrv2_sampler_peak(const ModelConfig& c, const Workload& w, i64 t, i64 r) {
  const i64 d = dtype_bytes(w.dtype), h = c.d_model, v = c.vocab;
  const i64 v_pad = ceil_div(v, 64) * 64, blocks = ceil_div(v, 1024);
  return allocated(t * h * d) + allocated(r * h * d) + allocated(r * v_pad * d) + allocated(r * blocks * 8) + allocated(r * blocks * 4);
}
// The dummy forward's widest moment in a dense layer (one GPU), by what holds each buffer alive.
// Compiled (the default; the profile runs the torch.compile'd pieces without CUDA graphs,
// dispatch_cg_and_sync_dp need_eager): a piece's inputs, the attention's output [T, q] and the
// residual, stay alive while it runs, beside the new residual, the normed input, gate_up [T, 2f] and
// the activation [T, f]. --enforce-eager (custom ops, fused_add_rms_norm in place): Qwen2MLP.forward
// (Qwen2, Qwen3) binds gate_up to a name, so it lives through down_proj beside the layer's input,
// the residual, o_proj's output and down_proj's; LlamaMLP (the other families) reuses the name, so
// the layer's input, the residual and o_proj's output beside gate_up and the activation. A
// two-matrix MLP holds f where a gated one holds 2f. Checked on published 0.27.1 and 0.28 start-ups
// (tests/calibration/vllm_test.cpp).
i64 mrv2_forward_peak(const ModelConfig& c, const Workload& w, i64 t) {
  const i64 d = dtype_bytes(w.dtype), h = c.d_model, q = c.n_heads * c.head_dim;
  const i64 mlp = (c.ffn_kind == FfnKind::Gated ? 3 : 2) * c.d_ff;
  if (!w.enforce_eager) return t * d * (2 * h + q + mlp);
  const bool qwen = c.family == Family::Qwen2 || c.family == Family::Qwen3;
  return t * d * ((qwen ? 4 : 3) * h + mlp);
}

// fp8 weights on a GPU without fp8 tensor cores (compute capability 8.0 to 8.8: A100, A10, A6000,
// RTX 30xx): vLLM runs them weight-only through Marlin (fp8.py Fp8LinearMethod: use_marlin = not
// has_device_capability(89); the MoE backend oracle picks MARLIN likewise), and
// process_weights_after_loading converts each matrix's scales (quantization/utils/
// marlin_utils_fp8.py, prepare_fp8_layer_for_marlin, prepare_moe_fp8_layer_for_marlin): the
// checkpoint's block scales, fp32 [⌈out/128⌉, ⌈in/128⌉], become group scales in the model dtype,
// [in / 128, out] (each block scale repeated over its 128 output rows), and a tensor scale becomes
// a channel scale [1, out]; the checkpoint's scales are deleted. The fp8 values are repacked in
// place of the originals (the same bytes). Returns this GPU's bytes beyond the checkpoint's (the
// weights count those), split as the matrices are (placement.cpp gpu_share); 0 where vLLM uses its
// fp8 kernels. The Marlin workspaces (SM count × 4 B a layer) are left out.
Result<i64> fp8_marlin_layout(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  if (gpu.vendor != "NVIDIA" || gpu.cuda_cc >= 8.9 || (w.weights != WeightFormat::Fp8 && w.weights != WeightFormat::Fp8Block))
    return i64{0};
  if (gpu.cuda_cc < 8.0) return issue_row("w", Str::eng_vllm_fp8_old, gpu.name, fixed(gpu.cuda_cc, 1));
  if (w.pp > 1) return issue_row("pp", Str::eng_vllm_pp_marlin);
  auto inv = build_inventory(c);
  if (!inv) return inv.issues();
  const i64 d = dtype_bytes(w.dtype);
  auto extra = [&](const Tensor& t, i64 layer) -> std::optional<i64> {
    const Storage st = storage_for(c, w, t, layer);
    if (st.type != QType::Fp8 && st.type != QType::Fp8Block) return i64{0};
    const StoredDims dims = stored_dims(t);
    const i64 in = dims.row_len, out = dims.n_rows;
    const Checked marlin = st.type == QType::Fp8Block ? Checked(in / 128) * out * d : Checked(out) * d;
    const Checked ckpt = st.type == QType::Fp8Block ? Checked(ceil_div(in, 128)) * ceil_div(out, 128) * 4 : Checked(4);
    if (!marlin.ok() || !ckpt.ok()) return std::nullopt;
    const Checked all = Checked(marlin.value() - ckpt.value()) * t.copies;
    if (!all.ok()) return std::nullopt;
    return all.value();
  };
  const auto tab = placement::build(c, *inv, {w.tp, w.ep}, 1, extra);
  if (!tab) return memory_overflow("w");
  return tab->stage(c, 1, 0);
}

// gpt-oss's MXFP4 experts as vLLM 0.19 holds them on Hopper, per GPU (0 where not followed: other
// GPUs, other formats). The backend on sm90 is Triton's (fused_moe/oracle/mxfp4.py
// select_mxfp4_moe_backend: TRTLLM is sm100, CK ROCm; Marlin and FlashInfer only on request).
// ref: quantization/mxfp4.py, Mxfp4MoEMethod.create_weights with
// mxfp4_round_up_hidden_size_and_intermediate_size (Triton: the expert width on the rank up to
// 64, hidden unpadded): w13 [E, 2I', H/2] and w2 [E, H, I'/2] uint8, their e8m0 scales [E, 2I', H/32]
// and [E, H, I'/32], biases [E, 2I'] and [E, H]; process_weights_after_loading swizzles the
// values in place of the originals (no padding), copies the scales into HopperMXScaleLayout
// (the output dimension up to 256) while the loaded scale parameters stay registered, and
// replaces the bf16 biases with fp32 copies.
struct Mxfp4Layout {
  i64 vllm = 0, checkpoint = 0;
};
std::optional<Mxfp4Layout> mxfp4_layout(const ModelConfig& c, const LayerPlan& plan, const Workload& w, const Gpu& gpu) {
  if (c.family != Family::GptOss || w.weights != WeightFormat::Mxfp4 || gpu.cuda_cc < 9.0 || gpu.cuda_cc >= 10.0)
    return std::nullopt;
  const i64 e = ceil_div(c.moe.num_experts, w.ep), h = c.d_model;
  const i64 i = w.ep > 1 ? c.moe.expert_ffn : c.moe.expert_ffn / w.tp;
  const i64 ip = ceil_div(i, 64) * 64;
  const Checked vllm = Checked(e) * 2 * ip * (h / 2) + Checked(e) * 2 * ip * ceil_div(h, 32) +
                       Checked(e) * (ceil_div(2 * ip, 256) * 256) * ceil_div(h, 32) + Checked(e) * 2 * ip * 4 +
                       Checked(e) * h * (ip / 2) + Checked(e) * h * ceil_div(ip, 32) +
                       Checked(e) * (ceil_div(h, 256) * 256) * ceil_div(ip, 32) + Checked(e) * h * 4;
  // The checkpoint's *_blocks and *_scales (17 B per 32 values) and bf16 biases, this GPU's share
  // as the weights count it (placement.cpp gpu_share: routed tensors ÷ tp, or E ÷ ep whole experts).
  const i64 f = c.moe.expert_ffn;  // one whole expert
  const Checked one = Checked(2 * f) * ceil_div(h, 32) * 17 + Checked(h) * ceil_div(f, 32) * 17 + Checked(2 * f) * 2 + Checked(h) * 2;
  const Checked whole = one * c.moe.num_experts;
  if (!whole.ok()) return std::nullopt;
  const Checked ckpt = w.ep > 1 ? one * e : Checked(ceil_div(whole.value(), w.tp));
  const i64 layers = plan.moe_in({0, c.n_layers});
  const Checked all_v = vllm * layers, all_c = ckpt * layers;
  if (!all_v.ok() || !all_c.ok()) return std::nullopt;
  return Mxfp4Layout{all_v.value(), all_c.value()};
}

// The dtypes of a recurrent layer's state as vLLM resolves them, each with vLLM's name for it.
// mamba_utils.py MambaStateDtypeCalculator._mamba_state_dtype: the convolution state in
// --mamba-cache-dtype (auto: the model dtype, get_kv_cache_torch_dtype), the SSM state in
// --mamba-ssm-cache-dtype, whose auto is the convolution state's. Before that, models/config.py sets an
// auto mamba_ssm_cache_dtype from the model: Qwen3_5ForConditionalGenerationConfig from the config's
// mamba_ssm_dtype where it has one (float32 in Qwen3.5's; none: auto stays; a user's other value wins,
// with a warning), NemotronHForCausalLMConfig from its config's mamba_ssm_cache_dtype, else
// getattr's default "float16" at 0.19.x and DEFAULT_MAMBA_SSM_CACHE_DTYPE "float32" from 0.20.0. Qwen3-Next,
// Granite 4.0-H, Falcon-H1 and Jamba have no such entry; LFM2's short convolution and MiniMax's
// linear attention have one state, in the convolution's dtype.
bool qwen35_family(const ModelConfig& c) { return c.family == Family::Qwen35 || c.family == Family::Qwen35Moe; }
struct CacheDtype {
  i64 bytes;
  std::string_view name;
};
struct CacheDtypes {
  CacheDtype conv, ssm;
};
Result<CacheDtypes> state_dtypes(const ModelConfig& c, const Workload& w) {
  const auto named = [](MambaDtype t) {
    return t == MambaDtype::F32 ? CacheDtype{4, "float32"} : t == MambaDtype::F16 ? CacheDtype{2, "float16"} : CacheDtype{2, "bfloat16"};
  };
  // config/cache.py MambaDType: "auto", "float32", "float16" through 0.21; "bfloat16" from 0.22.
  for (const auto& [t, key] : {std::pair{w.mamba_cache_dtype, "mcd"}, std::pair{w.mamba_ssm_cache_dtype, "mscd"}})
    if (t == MambaDtype::BF16 && w.vllm_line == VllmLine::V019) return issue_row(key, Str::eng_vllm_mamba_bf16);
  const CacheDtype model = w.dtype == ComputeDtype::F32 ? CacheDtype{4, "float32"}
                           : w.dtype == ComputeDtype::F16 ? CacheDtype{2, "float16"}
                                                           : CacheDtype{2, "bfloat16"};
  const CacheDtype conv = w.mamba_cache_dtype == MambaDtype::Auto ? model : named(w.mamba_cache_dtype);
  if (w.mamba_ssm_cache_dtype != MambaDtype::Auto) return CacheDtypes{conv, named(w.mamba_ssm_cache_dtype)};
  if (qwen35_family(c) && c.linear.ssm_dtype != MambaDtype::Auto) {
    // The config's value goes into the same MambaDType field: bfloat16 from 0.22 only.
    if (c.linear.ssm_dtype == MambaDtype::BF16 && w.vllm_line == VllmLine::V019) return issue_row("lsd", Str::eng_vllm_mamba_bf16);
    return CacheDtypes{conv, named(c.linear.ssm_dtype)};
  }
  if (c.family == Family::NemotronH) {
    if (c.mamba.ssm_cache_dtype == MambaDtype::BF16 && w.vllm_line == VllmLine::V019) return issue_row("msc", Str::eng_vllm_mamba_bf16);
    if (c.mamba.ssm_cache_dtype != MambaDtype::Auto) return CacheDtypes{conv, named(c.mamba.ssm_cache_dtype)};
    return CacheDtypes{conv, w.vllm_line == VllmLine::V019 ? CacheDtype{2, "float16"} : CacheDtype{4, "float32"}};
  }
  return CacheDtypes{conv, conv};
}

// One recurrent layer's state as vLLM keeps it: MambaSpec.page_size_bytes before padding
// (v1/kv_cache_interface.py), its shapes from MambaStateShapeCalculator and dtypes from
// MambaStateDtypeCalculator (model_executor/layers/mamba/mamba_utils.py; state_dtypes above): the
// convolution state (conv_kernel − 1 rows of the convolved channels on this rank) and the SSM state.
Result<i64> mamba_page(const ModelConfig& c, AttnKind kind, const Workload& w, const CacheDtypes& dt) {
  const i64 tp = w.tp, d = dt.conv.bytes, ssm = dt.ssm.bytes;
  auto whole = [&](i64 x, Str what) -> std::optional<Issue> {
    if (x % tp == 0) return std::nullopt;
    return issue_row("tp", Str::eng_vllm_divide, what, with_commas(x));
  };
  if (kind == AttnKind::Linear) {  // gated_delta_net_state_shape: conv (k − 1, (2·Hk·dk + Hv·dv) / tp), SSM (Hv / tp, dv, dk)
    if (c.family != Family::Qwen35 && c.family != Family::Qwen35Moe && c.family != Family::Qwen3Next)
      return issue_row("rt", Str::eng_vllm_gdn_family);
    // gated_delta_net_state_dtype (models/qwen3_next.py and qwen3_5.py get_mamba_state_dtype_from_config
    // pass both cache dtypes; older copies of qwen3_next.py passed none).
    const LinearAttnConfig& a = c.linear;
    if (auto bad = whole(a.conv_dim(), Str::eng_what_gdn_conv)) return *bad;
    if (auto bad = whole(a.v_heads, Str::eng_what_gdn_heads)) return *bad;
    const Checked page = Checked(a.conv_kernel - 1) * (a.conv_dim() / tp) * d + Checked(a.v_heads / tp) * a.v_dim * a.k_dim * ssm;
    if (!page.ok()) return memory_overflow("tp");
    return page.value();
  }
  if (kind == AttnKind::Mamba || kind == AttnKind::FullMamba) {
    // mamba2_state_shape: conv (k − 1, (d_inner + 2·groups'·N) / tp), SSM (H / tp, head_dim, N).
    // Falcon-H1 (models/falcon_h1.py get_mamba_state_*_from_config: d_inner = mamba_d_ssm, or
    // mamba_expand × hidden_size) and Granite 4.0-H have no entry in models/config.py's
    // MODELS_CONFIG_MAP setting the SSM dtype; Nemotron-H's does (state_dtypes).
    if (c.family != Family::NemotronH && c.family != Family::GraniteMoeHybrid && c.family != Family::FalconH1)
      return issue_row("rt", Str::eng_vllm_m2_dtype);
    const Mamba2Config& m = c.mamba;
    const i64 groups = m.groups + (m.groups % tp == 0 ? 0 : tp - m.groups);  // extra_groups_for_head_shards
    const i64 conv = m.d_inner() + 2 * groups * m.state;
    if (auto bad = whole(conv, Str::eng_what_m2_conv)) return *bad;
    if (auto bad = whole(m.heads, Str::eng_what_m2_heads)) return *bad;
    const Checked page = Checked(m.conv_kernel - 1) * (conv / tp) * d + Checked(m.heads / tp) * m.head_dim * m.state * ssm;
    if (!page.ok()) return memory_overflow("tp");
    return page.value();
  }
  if (kind == AttnKind::Mamba1) {
    // mamba1_state_shape: conv (k − 1, d_inner / tp), SSM (d_inner / tp, N); mamba1_state_dtype
    // (models/jamba.py get_mamba_state_*_from_config).
    const Mamba1Config& m = c.mamba1;
    const i64 inner = c.mamba1_inner();
    if (auto bad = whole(inner, Str::eng_what_m1_inner)) return *bad;
    const Checked page = Checked(m.conv_kernel - 1) * (inner / tp) * d + Checked(inner / tp) * m.state * ssm;
    if (!page.ok()) return memory_overflow("tp");
    return page.value();
  }
  if (kind == AttnKind::Conv) {
    // short_conv_state_shape: conv (conv_L_cache − 1, hidden_size / tp) in short_conv_state_dtype,
    // --mamba-cache-dtype's (models/lfm2.py get_mamba_state_*_from_config).
    if (auto bad = whole(c.d_model, Str::eng_what_conv_dim)) return *bad;
    const Checked page = Checked(c.short_conv - 1) * (c.d_model / tp) * d;
    if (!page.ok()) return memory_overflow("tp");
    return page.value();
  }
  return issue_row("rt", Str::eng_vllm_cache_for, std::string(to_string(kind)));  // a state kind not listed above
}

// ref: distributed/utils.py, get_pp_indices: ⌊L / P⌋ layers each, the L mod P left over one each
// to stages P − 2, P − 3, … (never the last); VLLM_PP_LAYER_PARTITION is not modelled.
std::vector<i64> pp_partition(i64 layers, i64 pp) {
  std::vector<i64> parts(static_cast<size_t>(pp), layers / pp);
  for (i64 i = 2; i < layers % pp + 2; ++i) ++parts[static_cast<size_t>(pp - i)];
  return parts;
}

// Where a family's vLLM model puts its embedding, final norm and head over pipeline stages.
// Llama: models/llama.py LlamaModel / LlamaForCausalLM (embed_tokens on the first stage and, tied,
// the last; norm and lm_head on the last; PPMissingLayer elsewhere); Qwen2 the same (qwen2.py), and
// Qwen3, whose Qwen3Model builds on Qwen2Model. Every stage: models/qwen3_moe.py builds
// embed_tokens, norm and lm_head with no stage check.
enum class PpGlobals { FirstLast, Every };
std::optional<PpGlobals> pp_globals(const ModelConfig& c) {
  switch (c.family) {
    case Family::Llama:
    case Family::Mistral:
    case Family::Qwen2:
    case Family::Qwen3: return PpGlobals::FirstLast;
    case Family::Qwen3Moe: return c.tie_embeddings ? std::nullopt : std::optional(PpGlobals::Every);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<Issue> paged_engine_refusal(std::string_view engine, KvDtype t) {
  if (kv_block_quantized(t)) return issue_row("kvt", Str::eng_paged_kvt, std::string(engine));
  return std::nullopt;
}

namespace {
// Python's str() of a float: the shortest text that reads back as the same double, ".0" kept
// on a whole number (0.95 → "0.95", 1 → "1.0").
std::string python_float(double v) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
}  // namespace

std::string vllm_gib(i64 bytes) {
  // Python's round(x, 2) rounds the exact binary value half to even, as printf's %.2f does; str()
  // then drops trailing zeros, keeping one decimal.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / static_cast<double>(kGiB));
  std::string s(buf);
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

namespace {

// Pipeline parallel: one worker per stage, each profiled on its own layers, then every worker
// shrunk to the fewest blocks (kv_cache_utils.py get_kv_cache_configs, with the per-worker
// projection of PR #33698: a worker is checked against its own layers only).
Result<VllmMemory> vllm_pipeline(const ModelConfig& c, const InferenceMemory& inf, const Workload& w, VllmMemory m,
                                 const std::vector<Spec>& specs, const Peak& peak) {
  const auto globals = pp_globals(c);
  if (!globals)
    return issue_row("pp", Str::eng_vllm_pp_globals);
  if (m.vision_weights_bytes > 0)
    return issue_row("pp", Str::eng_vllm_pp_vision);
  if (!std::all_of(specs.begin(), specs.end(), [&](const Spec& s) { return s == specs.front(); }))
    return issue_row("pp", Str::eng_vllm_pp_groups);
  if (static_cast<i64>(inf.layer_weights_gpu.size()) != c.n_layers || static_cast<i64>(specs.size()) != c.n_layers)
    return issue_row("pp", Str::eng_vllm_pp_layers);
  const Spec& spec = specs.front();
  const i64 d = dtype_bytes(w.dtype);
  const std::vector<i64> parts = pp_partition(c.n_layers, w.pp);
  const i64 per_layer_request = max_memory(spec, m.max_model_len, m.max_num_batched_tokens);
  i64 first = 0;
  for (size_t r = 0; r < parts.size(); ++r) {
    const bool is_first = r == 0, is_last = r + 1 == parts.size();
    VllmMemory::Rank k;
    k.first_layer = first;
    k.layers = parts[r];
    Checked weights = Checked(m.rope_bytes);
    for (i64 l = first; l < first + k.layers; ++l) weights += inf.layer_weights_gpu[static_cast<size_t>(l)];
    if (*globals == PpGlobals::Every || is_first) weights += inf.first_weights_gpu;
    if (*globals == PpGlobals::Every || is_last) weights += inf.last_weights_gpu;
    // ref: gpu_model_runner.py _dummy_run: a stage after the first keeps make_empty_intermediate_tensors
    // of max_num_batched_tokens rows, hidden_states and residual, the full hidden size (not split by tp).
    if (!is_first) k.intermediate_bytes = 2 * allocated(m.max_num_batched_tokens * c.d_model * d);
    // ref: profile_run: only the last stage runs _dummy_sampler_run.
    const Checked act = Checked(peak.workspace) + k.intermediate_bytes + std::max(peak.forward, is_last ? peak.sampler : 0);
    const Checked non_kv = weights + act + m.non_torch_bytes;
    if (!non_kv.ok()) return memory_overflow("pp");
    k.weights_bytes = weights.value();
    k.activation_peak_bytes = act.value();
    k.kv_available_bytes = m.kv_memory_given ? m.kv_available_bytes : m.budget_bytes - non_kv.value();
    k.num_blocks = k.kv_available_bytes > 0 ? k.kv_available_bytes / spec.page / k.layers : 0;
    m.ranks.push_back(k);
    first += k.layers;
  }
  // The lines a single node prints are stage 0's (its local rank 0; logger.info_once).
  const VllmMemory::Rank& r0 = m.ranks.front();
  m.weights_bytes = r0.weights_bytes;
  m.forward_peak_bytes = peak.forward;
  m.sampler_peak_bytes = 0;
  m.workspace_bytes = peak.workspace;
  m.activation_peak_bytes = r0.activation_peak_bytes;
  m.non_kv_bytes = r0.weights_bytes + r0.activation_peak_bytes + m.non_torch_bytes;
  m.kv_available_bytes = r0.kv_available_bytes;
  m.groups.push_back({spec.kind, spec.window, r0.layers, spec.block, spec.page, per_layer_request});
  m.group_size = r0.layers;
  // ref: check_enough_kv_cache_memory per worker and estimate_max_model_len: the longest length
  // every stage holds one request of.
  m.needed_bytes = 0;
  m.max_model_len_fit = c.max_positions;
  for (const VllmMemory::Rank& k : m.ranks) {
    const Checked need = Checked(per_layer_request) * k.layers;
    if (!need.ok()) return memory_overflow("seq");
    m.needed_bytes = std::max(m.needed_bytes, need.value());
    i64 lo = 0, hi = c.max_positions;
    while (lo < hi && k.kv_available_bytes > 0) {
      const i64 mid = lo + (hi - lo + 1) / 2;
      const Checked n = Checked(max_memory(spec, mid, m.max_num_batched_tokens)) * k.layers;
      if (n.ok() && n.value() <= k.kv_available_bytes) lo = mid;
      else hi = mid - 1;
    }
    m.max_model_len_fit = std::min(m.max_model_len_fit, k.kv_available_bytes > 0 ? lo : 0);
  }
  for (size_t r = 0; r < m.ranks.size(); ++r) {
    const VllmMemory::Rank& k = m.ranks[r];
    if (k.kv_available_bytes <= 0) {
      m.error = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine.";
      m.bottleneck_rank = static_cast<i64>(r);
      return m;
    }
    const i64 need = per_layer_request * k.layers;
    if (need > k.kv_available_bytes) {
      i64 lo = 0, hi = m.max_model_len;
      while (lo < hi) {
        const i64 mid = lo + (hi - lo + 1) / 2;
        if (max_memory(spec, mid, m.max_num_batched_tokens) * k.layers <= k.kv_available_bytes) lo = mid;
        else hi = mid - 1;
      }
      m.estimated_max_model_len = lo;
      m.error = "ValueError: To serve at least one request with the models's max seq len (" + std::to_string(m.max_model_len) +
                "), (" + vllm_gib(need) + " GiB KV cache is needed, which is larger than the available KV cache memory (" +
                vllm_gib(k.kv_available_bytes) + " GiB). " +
                (lo > 0 ? "Based on the available memory, the estimated maximum model length is " + std::to_string(lo) + ". " : "") +
                "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
      m.bottleneck_rank = static_cast<i64>(r);  // the first stage that refuses
      return m;
    }
  }
  // get_kv_cache_configs: "Change the num_blocks of each rank to the smallest among all ranks".
  for (size_t r = 0; r < m.ranks.size(); ++r)
    if (m.ranks[r].num_blocks < m.ranks[static_cast<size_t>(m.bottleneck_rank)].num_blocks) m.bottleneck_rank = static_cast<i64>(r);
  m.num_blocks = m.ranks[static_cast<size_t>(m.bottleneck_rank)].num_blocks;
  m.kv_tokens = m.num_blocks * spec.block;
  m.blocks_per_request = ceil_div(per_layer_request, spec.page);
  m.max_concurrency = static_cast<double>(m.num_blocks) / static_cast<double>(m.blocks_per_request);
  return m;
}

}  // namespace

VllmBatchDefaults vllm_batch_defaults(const Gpu& gpu, VllmEntry entry) {
  // ref: engine/arg_utils.py, EngineArgs.get_batch_defaults: on a GPU of at least 70 GiB that is
  // not an A100, `vllm serve` (OPENAI_API_SERVER) takes 8192 batched tokens and the LLM class
  // (LLM_CLASS) 16384, both 1024 sequences; on others 2048 and 8192, both 256 sequences.
  // device_memory is torch's total_memory: the CUDA total where the catalog records it
  // (usable_bytes), else the memory as sold, on either side of 70 GiB for every card listed.
  const bool large = gpu.usable_bytes() >= 70 * kGiB && gpu.id.rfind("a100", 0) != 0;
  const bool llm_class = entry == VllmEntry::Llm;
  return {large ? (llm_class ? 16384 : 8192) : (llm_class ? 8192 : 2048), large ? 1024 : 256};
}

Result<VllmMemory> vllm_memory(const ModelConfig& c, const LayerPlan& plan, const InferenceMemory& inf, const Workload& w,
                               const Gpu& gpu) {
  if (auto refused = paged_engine_refusal("vLLM", plan.kv_dtype)) return *refused;
  // config/cache.py CacheDType: the turboquant_* presets from 0.20.
  if (kv_turboquant(plan.kv_dtype) && w.vllm_line == VllmLine::V019)
    return issue_row("kvt", Str::eng_vllm_tq_019, std::string(to_string(plan.kv_dtype)));
  if (gpu.cuda_total_bytes <= 0 || gpu.sm_count <= 0)
    return issue_row("gpu", Str::eng_vllm_gpu_total, gpu.name);
  // ref: platforms/cuda.py, check_if_supports_dtype: bf16 needs compute capability 8.0 ("Bfloat16 is
  // only supported on GPUs with compute capability of at least 8.0. … You can use float16 instead").
  if (w.dtype == ComputeDtype::BF16 && gpu.vendor == "NVIDIA" && gpu.cuda_cc > 0 && gpu.cuda_cc < 8.0)
    return issue_row("dtype", Str::eng_vllm_bf16, gpu.name, fixed(gpu.cuda_cc, 1));
  // ref (0.27.1): config/vllm.py, use_v2_model_runner and _is_default_v2_model_runner_model: Model
  // Runner V2 (v1/worker/gpu/model_runner.py) for a generating model that is neither attention-free
  // nor hybrid (recurrent layers) nor MoE, unless its architecture is listed in
  // DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (DeepseekV2, GraniteMoe, Qwen2Moe, …). Other MoE models run
  // the first runner (v1/worker/gpu_model_runner.py; a published 0.27.1 start-up of
  // Qwen3-235B-A22B-FP8 logs gpu_model_runner.py), whose CUDA-graph estimate enters the budget. What
  // the 0.27 profile follows is said here; the rest is refused by name.
  const bool v027 = w.vllm_line != VllmLine::V019;  // 0.27.1 or 0.28.0
  const bool hybrid = std::any_of(plan.layers.begin(), plan.layers.end(),
                                  [&](const PlannedLayer& l) { return has_state(plan.caches[static_cast<size_t>(l.cache)].kind); });
  const bool moe_on_mrv2 = c.is_moe() && !hybrid && (c.family == Family::Qwen2Moe || c.family == Family::DeepseekV2);
  const bool mrv2 = v027 && ((!c.is_moe() && !hybrid) || moe_on_mrv2);
  if (v027) {
    if (moe_on_mrv2) return issue_row("vver", Str::eng_vllm27_moe);
    if (w.tp > 1 || w.pp > 1) return issue_row("vver", Str::eng_vllm27_parallel);
    if (gpu.unified) return issue_row("vver", Str::eng_vllm27_unified, gpu.name);
    // Model Runner V2 profiles a multimodal model's encoder its own way; the first runner's profile_run
    // is 0.19's (the same encoder pass and encoder cache), followed as 0.19's is.
    if (mrv2 && inf.vision_weights_bytes > 0 && !w.language_model_only) return issue_row("vver", Str::eng_vllm27_mm);
    for (const PlannedLayer& l : plan.layers)
      if (const AttnKind k = plan.caches[static_cast<size_t>(l.cache)].kind;
          k != AttnKind::Full && k != AttnKind::Sliding && k != AttnKind::Chunked && k != AttnKind::None && !has_state(k))
        return issue_row("vver", Str::eng_vllm27_attn, std::string(to_string(k)));
    // The first runner's MoE kernels (fused_moe/oracle/unquantized.py, _get_priority_backends): on
    // Hopper (SM90) Triton's first (TritonExperts, whose workspaces 0.19's profile follows: the same
    // workspace_shapes in 0.27.1); on other GPUs FlashInfer's TRTLLM and CUTLASS kernels come first,
    // and quantized experts have oracles of their own (oracle/fp8.py, mxfp4.py, …): not followed.
    if (!mrv2 && c.is_moe() &&
        ((w.weights != WeightFormat::BF16 && w.weights != WeightFormat::F16) || gpu.vendor != "NVIDIA" || gpu.cuda_cc < 9.0 ||
         gpu.cuda_cc >= 10.0))
      return issue_row("vver", Str::eng_vllm27_moe_kernel, std::string(to_string(w.weights)), gpu.name);
    // The first runner's CUDA graph estimate (gpu_model_runner.py profile_cudagraph_memory) is measured
    // by capturing graphs at start: given from a start-up's log, or none under --enforce-eager.
    if (!mrv2 && !w.enforce_eager && w.vllm_cuda_graph_mib == 0 && w.kv_cache_memory == 0)
      return issue_row("vcg", Str::eng_vllm27_graphs);
  }
  VllmMemory m;
  m.line = w.vllm_line;
  m.mrv2 = mrv2;
  m.total_bytes = gpu.cuda_total_bytes;
  // --max-model-len -1: config/model.py _get_and_verify_max_len takes the model's length (the profile
  // runs with it); get_kv_cache_configs lowers it after the KV cache is sized (below).
  m.max_model_len = w.vllm_auto_fit ? c.max_positions : w.seq;
  m.block_size = w.block_size;
  const VllmBatchDefaults defaults = vllm_batch_defaults(gpu, w.vllm_entry);
  m.max_num_batched_tokens = w.max_num_batched_tokens > 0 ? w.max_num_batched_tokens : defaults.max_num_batched_tokens;
  m.max_num_seqs = w.max_num_seqs > 0 ? w.max_num_seqs : defaults.max_num_seqs;
  if (m.max_num_batched_tokens < m.max_num_seqs)  // ref: SchedulerConfig.verify_max_model_len
    return issue_row("mbt", Str::eng_vllm_mbt, with_commas(m.max_num_batched_tokens), with_commas(m.max_num_seqs));
  if (!w.vllm_auto_fit && w.seq > c.max_positions)  // ref: config/model.py, _get_and_verify_max_len
    return issue_row("seq", Str::eng_vllm_seq, with_commas(w.seq), with_commas(c.max_positions));

  // ref: v1/worker/utils.py, request_memory: math.ceil(total_memory × gpu_memory_utilization).
  m.gpu_memory_utilization = w.vllm_util();
  m.budget_bytes = static_cast<i64>(std::ceil(static_cast<double>(m.total_bytes) * m.gpu_memory_utilization));
  // ref: request_memory raises when init_snapshot.free_memory < requested_memory. On a unified
  // device MemorySnapshot's free memory is the system's available memory (utils/mem_utils.py,
  // MemorySnapshot.measure: Orin, Thor and Spark read psutil's available memory), which the
  // catalog records as the usable share (a Spark printed "Free memory on device (114.54/121.69
  // GiB) on startup"); at a budget above it vLLM stops before loading, with this message.
  if (gpu.unified && gpu.usable_fraction < 1.0) {
    m.free_at_start_bytes = gpu.usable_bytes();
    if (m.free_at_start_bytes < m.budget_bytes) {
      m.startup_refused = true;
      m.error = "ValueError: Free memory on device cuda:0 (" + vllm_gib(m.free_at_start_bytes) + "/" + vllm_gib(m.total_bytes) +
                " GiB) on startup is less than desired GPU memory utilization (" + python_float(m.gpu_memory_utilization) + ", " +
                vllm_gib(m.budget_bytes) + " GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";
      return m;
    }
  }
  // ref: gpu_model_runner.py, load_model: "Model loading took" is the allocator's growth while
  // loading: the weights as stored, and the rotary embedding's cos_sin_cache buffer
  // (rotary_embedding/base.py: rows × rotary_dim in the model dtype, one per distinct module:
  // get_rope caches them; the rows and the modules as ModelConfig::rope_cache_rows says).
  if (c.pos == PosKind::Rotary) {
    const Checked rope = c.rope_cache_values() * dtype_bytes(w.dtype);
    if (!rope.ok()) return memory_overflow("rcp");
    m.rope_bytes = rope.value();
  }
  if (const auto mx = mxfp4_layout(c, plan, w, gpu)) {
    m.mxfp4_checkpoint_bytes = mx->checkpoint;
    m.mxfp4_layout_bytes = mx->vllm - mx->checkpoint;
  }
  auto marlin = fp8_marlin_layout(c, w, gpu);
  if (!marlin) return marlin.issues();
  m.fp8_marlin_bytes = *marlin;
  // DeepSeek-V3.2 (sparse attention): ref models/deepseek_v2.py, DeepseekV2Model.__init__ allocates
  // topk_indices_buffer [max_num_batched_tokens, index_topk] int32 on the GPU while the model loads.
  const bool sparse = c.mla.has_indexer();
  if (sparse) {
    const Checked topk = Checked(m.max_num_batched_tokens) * c.mla.index_topk * 4;
    if (!topk.ok()) return memory_overflow("mbt");
    m.topk_buffer_bytes = topk.value();
  }
  // Gemma 4 (attention_k_eq_v): ref models/gemma4.py Gemma4Attention: one QKVParallelLinear for every
  // layer type; "k_eq_v layers load K weights into both K and V slots", so those layers hold V's
  // matrix too, K's bytes again.
  m.k_as_v_bytes = inf.k_as_v_bytes;
  // --language-model-only: the tower and projector are StageMissingLayer placeholders, nothing loaded.
  m.vision_weights_bytes = w.language_model_only ? 0 : inf.vision_weights_bytes;
  m.weights_bytes = inf.weights_bytes + m.vision_weights_bytes + m.mxfp4_layout_bytes + m.fp8_marlin_bytes + m.topk_buffer_bytes +
                    m.k_as_v_bytes + m.rope_bytes;
  const i64 sampled_rows = std::min(m.max_num_seqs, m.max_num_batched_tokens);
  const i64 t = m.max_num_batched_tokens;
  Peak peak{mrv2 ? mrv2_forward_peak(c, w, t) : v1_forward_peak(c, w, t),
            mrv2 ? mrv2_sampler_peak(c, w, t, sampled_rows) : v1_sampler_peak(c, w, gpu, t, sampled_rows), profile_workspace(c, w, gpu, t)};
  if (sparse) {
    // ref: layers/sparse_attn_indexer.py, the profile run (no attention metadata): "create the max
    // possible flattened_kv" [total_seq_lens, head_dim + 4] uint8 with total_seq_lens =
    // get_max_prefill_buffer_size = max_model_len × 40 (v1/attention/backends/mla/indexer.py), and
    // .contiguous() copies of its key and scale columns, live together inside the layer's forward.
    const i64 row = c.mla.index_dim + ceil_div(c.mla.index_dim, 128) * 4;
    const Checked n = Checked(m.max_model_len) * 40;
    const Checked buf = n * row + n * c.mla.index_dim + n * (ceil_div(c.mla.index_dim, 128) * 4);
    if (!buf.ok()) return memory_overflow("seq");
    m.indexer_profile_bytes = buf.value();
    peak.forward += m.indexer_profile_bytes;
  }
  m.forward_peak_bytes = peak.forward;
  m.sampler_peak_bytes = peak.sampler;
  m.workspace_bytes = peak.workspace;
  // ref: gpu_model_runner.py profile_run (0.19): before the dummy forward, a batch of the largest
  // images goes through embed_multimodal; its outputs stay in encoder_cache["tmp"] and the batch's
  // pixel_values stay referenced until the sampler run is over. multimodal/budget.py: the encoder
  // budget is max(max_num_batched_tokens, one item's placeholder tokens), the items
  // budget // tokens per item (at least 1; a prompt holds max_model_len // tokens of them).
  // Followed for Pixtral (mistral3.py): an image of image_size² px gives a (image / (patch ·
  // merge))² grid of features, its placeholder a row break per grid row; the tower's own forward
  // (a few thousand patches) stays below the text model's peak. And for Gemma 3 (gemma3_mm.py, no
  // pan-and-scan): 896² px, mm_tokens_per_image features after the projector's pool, the budget
  // counting those embeds (the llm-d 0.19 logs: 32 items of 8,192 tokens, so 256 each, not the 258
  // with <start_of_image> and <end_of_image>). The SigLIP forward over 32 × 4,096 patches (about
  // 2.7 GiB of live activations at 1,152 wide) runs before the dummy forward and stays below the
  // sampler's peak at the default max_num_seqs: not modelled. Other towers: not followed (the
  // calibration states their misses).
  const bool pixtral = c.vision.kind == VisionKind::Pixtral, gemma3 = c.vision.projector == ProjectorKind::Gemma3;
  if ((pixtral || gemma3) && c.vision.patch > 0 && c.vision.merge > 0 && !w.language_model_only) {
    const i64 grid = ceil_div(c.vision.image, c.vision.patch * c.vision.merge);
    m.mm_tokens_per_item = pixtral ? (grid + 1) * grid : grid * grid;
    m.mm_budget_tokens = std::max(m.max_num_batched_tokens, m.mm_tokens_per_item);
    const i64 per_prompt = std::max<i64>(1, m.max_model_len / m.mm_tokens_per_item);
    m.mm_items = std::max<i64>(1, std::min(m.mm_budget_tokens / m.mm_tokens_per_item, m.max_num_seqs * per_prompt));
    const i64 d = dtype_bytes(w.dtype);
    const Checked enc = Checked(m.mm_items) * grid * grid * c.d_model * d +
                        Checked(m.mm_items) * c.vision.channels * c.vision.image * c.vision.image * d;
    if (!enc.ok()) return memory_overflow("vimg");
    m.encoder_profile_bytes = enc.value();
  }
  m.non_torch_bytes = w.tp == 1 ? (w.pp > 1 ? kNonTorchPp : kNonTorchOneGpu) : !gpu.nvlink ? kNonTorchOneGpu : w.tp == 2 ? kNonTorchTp2 : kNonTorchTp4;
  if (v027) {
    // ref (0.27): utils/mem_utils.py, memory_profiling: total_consumed = free memory at the worker's
    // init snapshot − free memory after profile_run (after gc and empty_cache), so the weights, the
    // non-torch memory and every tensor the profile left allocated (the cuBLAS and MoE workspaces);
    // transient_peak_headroom = torch peak − torch allocated after the profile, the profile's own
    // transient peak; non_kv_cache_memory = total_consumed + transient_peak_headroom. gpu_worker.py,
    // determine_available_memory: peak activation = the headroom + the CUDA-graph estimate applied,
    // and the KV cache memory = requested − non_kv_cache_memory − that estimate. Model Runner V2
    // gives it as 0 (model_runner.py profile_cudagraph_memory: "return 0"; its graphs are captured
    // after the KV cache, outside the budget, as in 0.19); the first runner measures it by capturing
    // graphs (gpu_model_runner.py profile_cudagraph_memory; VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS
    // on, "default since v0.21.0"), none under --enforce-eager (cudagraph_mode NONE).
    // The first runner's sampler leaves its top-k buffer cached: consumed, and no part of the headroom
    // (which is the peak less what stays allocated, also where the forward is the peak).
    const i64 cached = mrv2 ? 0 : v1_topk_buffer(c, gpu, sampled_rows);
    m.workspace_bytes = peak.workspace + cached;
    m.topk_buffer_cached_bytes = cached;
    if (!mrv2 && !w.enforce_eager) m.cuda_graph_estimate_bytes = w.vllm_cuda_graph_mib * (i64{1} << 20);
    // (A multimodal model's encoder outputs, 0.19's encoder_cache["tmp"], are transient as well: the first
    // runner's profile_run clears them; Model Runner V2 refuses such models above.)
    m.activation_peak_bytes = std::max(peak.forward, peak.sampler) - cached + m.encoder_profile_bytes + m.cuda_graph_estimate_bytes;
    m.consumed_bytes = m.weights_bytes + m.non_torch_bytes + m.workspace_bytes;
    m.non_kv_bytes = m.consumed_bytes + m.activation_peak_bytes;
  } else {
    m.activation_peak_bytes = peak.workspace + std::max(peak.forward, peak.sampler) + m.encoder_profile_bytes;
    // ref: gpu_worker.py, determine_available_memory (0.19: the CUDA graph estimate is not
    // subtracted; the graphs are captured afterwards, outside the budget).
    m.non_kv_bytes = m.weights_bytes + m.activation_peak_bytes + m.non_torch_bytes;
  }
  m.kv_available_bytes = m.budget_bytes - m.non_kv_bytes;
  // --kv-cache-memory: profile_run still runs, its result is not used.
  m.kv_memory_given = w.kv_cache_memory > 0;
  m.enforce_eager = w.enforce_eager;
  if (m.kv_memory_given) m.kv_available_bytes = w.kv_cache_memory;

  // ref: gpu_model_runner.py, get_kv_cache_spec: one spec per attention layer; layers that
  // reuse another layer's cache (kv_sharing_target_layer_name) and layers without attention
  // get none. AttentionSpec.page_size_bytes: block_size × heads × (k + v head size) × dtype on
  // this rank; MLAAttentionSpec: block_size × (kv_lora_rank + rope dim) × dtype.
  // Hybrid models (attention and recurrent layers): ref Platform._align_hybrid_block_size
  // (platforms/interface.py; before PR #37467 HybridAttentionMambaModelConfig in
  // model_executor/models/config.py, the same arithmetic): the attention block grows to a multiple
  // of the kernel alignment whose page holds a recurrent state, B = A · ⌈M / (A · page of one
  // token)⌉, A = max(16, --block-size) for FlashAttention on Hopper and before, and every recurrent
  // page is padded to the attention page. Prefix caching off (mamba_cache_mode "none").
  // Attention layers of different sizes without recurrent ones (Gemma 4's full layers: their own head
  // size and KV heads) need no alignment: their pages are unified below.
  i64 attn_block = w.block_size, attn_1tok = 0;
  bool sizes_differ = false;
  std::optional<CacheDtypes> dt;  // the recurrent states' dtypes, resolved at the first state layer
  for (const PlannedLayer& l : plan.layers) {
    const CacheShape& s = plan.caches[static_cast<size_t>(l.cache)];
    if (has_state(s.kind)) {
      if (!dt) {
        auto resolved = state_dtypes(c, w);
        if (!resolved) return resolved.issues();
        dt = *resolved;
        // Qwen3_5ForConditionalGenerationConfig's warning: a --mamba-ssm-cache-dtype other than the config's.
        if (qwen35_family(c) && c.linear.ssm_dtype != MambaDtype::Auto && w.mamba_ssm_cache_dtype != MambaDtype::Auto &&
            w.mamba_ssm_cache_dtype != c.linear.ssm_dtype)
          m.config_ssm_dtype_overridden = kMambaDtypeNames[static_cast<size_t>(c.linear.ssm_dtype)];
      }
      auto page = mamba_page(c, s.kind, w, *dt);
      if (!page) return page.issues();
      m.mamba_page_bytes = std::max(m.mamba_page_bytes, *page);
      m.mamba_conv_dtype = dt->conv.name;
      m.mamba_ssm_dtype = s.kind == AttnKind::Conv ? std::string_view{} : dt->ssm.name;
    }
    if (keeps_tokens(s.kind)) {  // Falcon-H1's layers (FullMamba) hold both
      sizes_differ = sizes_differ || (attn_1tok != 0 && attn_1tok != s.bytes_per_token_gpu);
      attn_1tok = s.bytes_per_token_gpu;
    }
  }
  if (m.mamba_page_bytes > 0 && sizes_differ) return issue_row("rt", Str::eng_vllm_hybrid_sizes);
  if (m.mamba_page_bytes > 0) {
    if (attn_1tok == 0) return issue_row("rt", Str::eng_vllm_recurrent_only);
    if (c.mla.enabled) return issue_row("rt", Str::eng_vllm_hybrid_mla);
    // Blackwell: under 0.19 not established; 0.27's published start-ups on RTX 5090 and RTX PRO 6000
    // cards (compute capability 12.0) show the 16-token alignment (tests/calibration/vllm_test.cpp); the
    // data-centre parts (10.x) stay refused.
    if (gpu.cuda_cc >= 10.0 && !(v027 && gpu.cuda_cc >= 12.0))
      return issue_row("gpu", Str::eng_vllm_blackwell);
    const i64 align = std::max<i64>(16, w.block_size);
    // Prefix caching, asked for (ModelConfig.is_prefix_caching_supported keeps it off by default for
    // hybrid models in 0.19 and 0.27.1, engine/arg_utils.py "keep it opt-in for now"; on from 0.28,
    // vLLM PR #50991): models/config.py MambaModelConfig.verify_and_update_config, the same in 0.19
    // and 0.27.1, turns mamba_cache_mode "none" into "all" for the SupportsMambaPrefixCaching models
    // (falcon_h1, granitemoehybrid, jamba, mamba2, nemotron_h, zamba2) and "align" for the others; an
    // "all" such a model lacks falls back to "align"; without prefix caching any mode is "none". Under
    // "all" the block is a whole number of lcm(the model's chunk size, the alignment):
    // get_mamba_chunk_size reads mamba_chunk_size, then chunk_size, else 2,048 (Mamba-1 has no chunks).
    const bool prefix_caching = w.prefix_caching == Keep::Yes || (w.prefix_caching == Keep::Auto && w.vllm_line == VllmLine::V028);
    if (prefix_caching) {
      const bool supports_all = c.family == Family::NemotronH || c.family == Family::GraniteMoeHybrid ||
                                c.family == Family::FalconH1 || c.family == Family::Jamba;
      m.mamba_mode_fell_back = w.mamba_cache_mode == MambaCacheMode::All && !supports_all;
      const bool all = supports_all && w.mamba_cache_mode != MambaCacheMode::Align;
      m.mamba_cache_mode = all ? MambaCacheMode::All : MambaCacheMode::Align;
      if (all) m.mamba_chunk_size = c.mamba.enabled() ? c.mamba.chunk : 2048;
    } else {
      m.mamba_mode_reset = w.mamba_cache_mode != MambaCacheMode::None;
    }
    if (m.mamba_cache_mode == MambaCacheMode::All) {
      const i64 chunk = std::lcm(m.mamba_chunk_size, align);
      attn_block = chunk * ceil_div(ceil_div(m.mamba_page_bytes, attn_1tok), chunk);
    } else {
      attn_block = align * ceil_div(m.mamba_page_bytes, align * attn_1tok);
    }
    if (attn_block > m.block_size) m.attn_block_size = attn_block;  // logged only when it grows
    m.block_size = attn_block;
  }
  // TurboQuant's boundary layers (kv_cache_dtype_skip_layers, layer_plan.cpp) beside its packed ones:
  // platforms/interface.py _align_heterogeneous_kv_block_size sizes the primary page per token as a
  // FullAttentionSpec over the preset's torch dtype (uint8, utils/torch_utils.py: 2 × heads × head size
  // bytes, not the packed slot) and grows the block, a multiple of A = max(the TQ backend's smallest
  // kernel block 16, --block-size), until that covers an unquantized layer's page at 16 tokens:
  // A × ⌈16 × skip / (A × primary)⌉. Every layer then takes that block with its own page (attention.py
  // get_kv_cache_spec: FullAttentionSpec and TQFullAttentionSpec), one uniform-type group below.
  if (kv_turboquant(plan.kv_dtype)) {
    const auto skip = std::find_if(plan.caches.begin(), plan.caches.end(), [](const CacheShape& s) { return s.unquantized; });
    if (skip != plan.caches.end()) {
      const i64 primary = 2 * skip->heads_gpu * skip->k_dim, a = std::max<i64>(16, w.block_size);
      const i64 block = skip->bytes_per_token_gpu > primary ? a * ceil_div(16 * skip->bytes_per_token_gpu, a * primary) : attn_block;
      if (block > attn_block) m.tq_block_size = attn_block = m.block_size = block;
    }
  }
  if (sparse && attn_block != 64) {
    // ref: platforms/cuda.py, check_and_update_config: "Forcing kv cache block size to 64 for
    // FlashMLASparse backend." (use_sparse: the config has index_topk).
    attn_block = m.block_size = 64;
    m.sparse_block_forced = true;
  }
  std::vector<Spec> specs;
  for (const PlannedLayer& l : plan.layers) {
    const CacheShape& s = plan.caches[static_cast<size_t>(l.cache)];
    if (s.kind == AttnKind::MlaIndexer) {
      // Two MLAAttentionSpecs per layer, both full attention, so UniformTypeKVCacheSpecs puts every
      // layer's two caches in one group. ref: attention/mla_attention.py MLAAttention.get_kv_cache_spec
      // (576 values in the KV dtype; a quantized dtype becomes fp8_ds_mla for FlashMLASparse: 512
      // fp8 values, 4 fp32 scales per 128 and the 64 rope values in bf16, 656 B) and
      // models/deepseek_v2.py DeepseekV32IndexerCache.get_kv_cache_spec (head_size 128 + 4, uint8).
      const i64 latent = plan.kv_dtype == KvDtype::Fp8
                             ? c.mla.kv_lora_rank + ceil_div(c.mla.kv_lora_rank, 128) * 4 + c.mla.qk_rope_dim * 2
                             : s.bytes_per_token_gpu;
      specs.push_back({AttnKind::MlaLatent, 0, attn_block, attn_block * latent});
      specs.push_back({AttnKind::MlaLatent, 0, attn_block, attn_block * s.index_bytes_per_token});
      continue;
    }
    if (has_state(s.kind)) {  // MambaSpec: block_size mamba_block_size (max_model_len under "none", else the attention's), the page padded
      specs.push_back({s.kind == AttnKind::FullMamba ? AttnKind::Mamba : s.kind, 0,
                       m.mamba_cache_mode == MambaCacheMode::None ? m.max_model_len : attn_block, attn_block * attn_1tok,
                       m.mamba_cache_mode});
    }
    if (!keeps_tokens(s.kind)) continue;
    // Falcon-H1: the layer's attention (its own layer name, a FullAttentionSpec) beside its mixer's state.
    Spec sp{s.kind == AttnKind::FullMamba ? AttnKind::Full : s.kind, s.window, attn_block, 0};
    const Checked page = Checked(attn_block) * s.bytes_per_token_gpu;
    if (!page.ok()) return memory_overflow("bs");
    sp.page = page.value();
    specs.push_back(sp);
  }
  if (specs.empty()) return issue_row("rt", Str::eng_vllm_no_kv);
  if (w.pp > 1 && w.vllm_auto_fit) return issue_row("vaf", Str::eng_vllm_auto_fit_pp);
  if (w.pp > 1) return vllm_pipeline(c, inf, w, std::move(m), specs, peak);

  // ref (0.27): config/vllm.py, max_in_flight_tokens and max_concurrent_batches (async scheduling,
  // on by default, and Model Runner V2: pipeline_parallel_size + 1); kv_cache_interface.py,
  // SlidingWindowSpec and ChunkedLocalAttentionSpec.max_admission_blocks_per_request.
  // Both runners: two batches at pipeline parallel 1 (the first runner: "does not fully support async
  // scheduling with PP", pp batches; PP is refused under 0.27).
  const i64 in_flight = v027 ? 2 * m.max_num_batched_tokens : m.max_num_batched_tokens;
  // ref: kv_cache_utils.py, check_enough_kv_cache_memory and estimate_max_model_len.
  auto needed = [&](i64 len) {
    Checked sum;
    for (const Spec& s : specs) sum += Checked(max_memory(s, len, in_flight));
    return sum;
  };
  const Checked need = needed(m.max_model_len);
  if (!need.ok()) return memory_overflow("seq");
  m.needed_bytes = need.value();
  // The longest length one request fits (the search of estimate_max_model_len, up to the model's positions).
  auto longest = [&](i64 hi) {
    i64 lo = 0;
    while (lo < hi) {
      const i64 mid = lo + (hi - lo + 1) / 2;
      const Checked n = needed(mid);
      if (n.ok() && n.value() <= m.kv_available_bytes) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  m.max_model_len_fit = m.kv_available_bytes > 0 ? longest(c.max_positions) : 0;
  // ref: kv_cache_utils.py get_kv_cache_configs → _auto_fit_max_model_len (--max-model-len -1), before
  // the check below: _estimate_max_model_len_from_groups's binary search over [1, the model's length]
  // of what _max_memory_usage_bytes_from_groups fits in the available memory; none fits: a ValueError.
  if (w.vllm_auto_fit) {
    const i64 fit = m.kv_available_bytes > 0 ? longest(m.max_model_len) : 0;
    if (fit <= 0) {
      m.error = "ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. "
                "Try increasing `gpu_memory_utilization`.";
      return m;
    }
    m.auto_fit_from = m.max_model_len;
    m.max_model_len = fit;
    m.needed_bytes = needed(fit).value();
  }
  if (m.kv_available_bytes <= 0) {
    m.error = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
              "initializing the engine.";
    return m;
  }
  if (m.needed_bytes > m.kv_available_bytes) {
    const i64 lo = longest(m.max_model_len);
    m.estimated_max_model_len = lo;
    m.error = "ValueError: To serve at least one request with the models's max seq len (" + std::to_string(m.max_model_len) +
              "), (" + vllm_gib(m.needed_bytes) + " GiB KV cache is needed, which is larger than the available KV cache memory (" +
              vllm_gib(m.kv_available_bytes) + " GiB). " +
              (lo > 0 ? "Based on the available memory, the estimated maximum model length is " + std::to_string(lo) + ". " : "") +
              "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
    return m;
  }

  // ref: kv_cache_utils.py, get_kv_cache_groups.
  const auto same = [&](const Spec& s) { return s == specs.front(); };
  const auto same_type = [&](const Spec& s) { return s.kind == specs.front().kind && s.window == specs.front().window; };
  i64 min_block = attn_block;
  if (std::all_of(specs.begin(), specs.end(), same)) {
    // One spec for every layer: one group; each layer its own tensor of num_blocks pages.
    const Spec& s = specs.front();
    m.groups.push_back({s.kind, s.window, static_cast<i64>(specs.size()), s.block, s.page, max_memory(s, m.max_model_len, in_flight)});
    m.group_size = static_cast<i64>(specs.size());
  } else if (std::all_of(specs.begin(), specs.end(), same_type)) {
    // UniformTypeKVCacheSpecs: one group whose block spans every layer's page.
    VllmGroup g{specs.front().kind, specs.front().window, static_cast<i64>(specs.size()), attn_block, 0, 0};
    for (const Spec& s : specs) {
      g.page_bytes += s.page;
      g.max_request_bytes += max_memory(s, m.max_model_len, in_flight);
    }
    m.groups.push_back(g);
    m.uniform_type = true;
    m.group_size = 1;
  } else {
    // unify_kv_cache_spec_page_size: smaller pages take a larger block_size to match the largest.
    i64 max_page = 0;
    for (const Spec& s : specs) max_page = std::max(max_page, s.page);
    for (Spec& s : specs) {
      if (max_page % s.page != 0)
        return issue_row("rt", Str::eng_vllm_unify, with_commas(s.page), with_commas(max_page));
      s.block *= max_page / s.page;
      s.page = max_page;
      min_block = std::min(min_block, s.block);
    }
    // _get_kv_cache_groups_uniform_page_size: layers by spec (first appearance), split into
    // groups of group_size layers (the smallest count, or the largest when it is under 1.5×
    // the smallest), padded; layers[i::num_groups] go to the i-th group of a spec.
    std::vector<std::pair<Spec, i64>> kinds;
    for (const Spec& s : specs) {
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == s; });
      if (it == kinds.end()) kinds.emplace_back(s, 1);
      else ++it->second;
    }
    i64 lo = kinds.front().second, hi = lo;
    for (const auto& k : kinds) {
      lo = std::min(lo, k.second);
      hi = std::max(hi, k.second);
    }
    m.group_size = 2 * hi < 3 * lo ? hi : lo;
    for (const auto& [s, n] : kinds) {
      const i64 groups = ceil_div(n, m.group_size);
      if (n % m.group_size != 0) {
        m.padding_layers += m.group_size - n % m.group_size;
        m.padding.push_back({m.group_size - n % m.group_size, n});
      }
      for (i64 i = 0; i < groups; ++i)
        m.groups.push_back({s.kind, s.window, ceil_div(n - i, groups), s.block, s.page, max_memory(s, m.max_model_len, in_flight)});
    }
  }

  // ref: get_kv_cache_config_from_groups / get_num_blocks: available // page // group_size
  // (a uniform-type group: available // its summed page).
  const i64 page = m.groups.front().page_bytes;
  m.num_blocks = m.kv_available_bytes / page / m.group_size;
  // ref: get_max_concurrency_for_kv_cache_config: num_blocks / cdiv(Σ_groups max_memory, page).
  Checked per_request;
  for (const VllmGroup& g : m.groups) per_request += Checked(g.max_request_bytes);
  if (!per_request.ok()) return memory_overflow("seq");
  m.blocks_per_request = ceil_div(per_request.value(), page);
  m.max_concurrency = static_cast<double>(m.num_blocks) / static_cast<double>(m.blocks_per_request);
  // ref: _report_kv_cache_config (0.19): num_blocks // len(groups) × the smallest block_size.
  // 0.27 (get_kv_cache_capacity): int(max_concurrency × max_model_len), Python's float product
  // truncated, "the total tokens of context the pool can hold at peak utilization".
  m.kv_tokens = v027 ? static_cast<i64>(m.max_concurrency * static_cast<double>(m.max_model_len))
                     : m.num_blocks / static_cast<i64>(m.groups.size()) * min_block;
  // ref: v1/attention/backends/turboquant_attn.py, TurboQuantMetadataBuilder._reserve_workspace (0.27.1
  // and main alike), when the KV cache is initialised, after it is sized: from the worker's
  // WorkspaceManager (v1/worker/workspace.py get_simultaneous: each tensor rounded up to 256 B, one
  // buffer grown to the largest request) the decode's split buffers, (R, H, splits, D + 1) fp32, (R, H,
  // D) in the model dtype and (R, H) fp32, R = max_num_seqs, H the query heads on this rank, 32 splits
  // (AttentionConfig.tq_max_kv_splits_for_cuda_graph); with chunked prefill (on) and more than 128
  // batched tokens (_CONTINUATION_DECODE_THRESHOLD), a continuation prefill's K and V, each (1, KV,
  // round_up(max_model_len − 1, block), D) fp16. The buffer grows only past what the profile's MoE
  // kernels left in it. Outside the budget: no printed figure moves.
  if (kv_turboquant(plan.kv_dtype)) {
    const auto a256 = [](Checked x) { return x.ok() ? Checked(ceil_div(x.value(), 256) * 256) : x; };
    const i64 r = m.max_num_seqs, hq = c.n_heads / w.tp, kv = kv_heads_per_gpu(c.n_kv_heads, w.tp), dh = c.head_dim;
    const Checked decode = a256(Checked(r) * hq * 32 * (dh + 1) * 4) + a256(Checked(r) * hq * dh * dtype_bytes(w.dtype)) +
                           a256(Checked(r) * hq * 4);
    Checked prefill;
    if (m.max_num_batched_tokens > 128)
      prefill = a256(Checked(kv) * (ceil_div(std::max<i64>(0, m.max_model_len - 1), attn_block) * attn_block) * dh * 2) * 2;
    if (!decode.ok() || !prefill.ok()) return memory_overflow("seq");
    m.tq_workspace_bytes = std::max<i64>(0, std::max(decode.value(), prefill.value()) - moe_workspace(c, w, m.max_num_batched_tokens));
    m.tq_decode_workspace_bytes = decode.value();
    m.tq_prefill_workspace_bytes = prefill.value();
  }
  return m;
}

std::vector<EngineTerm> vllm_terms(const VllmMemory& m, const Workload& w, const Gpu& gpu, Lang lang) {
  const auto b = [](i64 v) { return with_commas(v); };
  const auto tx = [lang](Str k, const auto&... a) {
    if constexpr (sizeof...(a) == 0) return std::string(tr(k, lang));
    else return printf_text(tr(k, lang), std::string(a).c_str()...);
  };
  const bool v027 = m.line != VllmLine::V019, mrv2 = m.mrv2;  // 0.27.1 or 0.28.0
  const std::string src = v027 ? "vLLM 0.27 " : "vLLM 0.19 ";
  std::vector<EngineTerm> t;
  t.push_back({"total_bytes", "", static_cast<double>(m.total_bytes), true, "exact", tx(Str::efx_vllm_total, gpu.name, b(m.total_bytes)),
               gpu.cuda_total_source});
  t.push_back({"budget_bytes", "", static_cast<double>(m.budget_bytes), true, "exact",
               tx(Str::efx_vllm_budget, b(m.total_bytes), fixed(m.gpu_memory_utilization, 4), b(m.budget_bytes)),
               src + "v1/worker/utils.py, request_memory"});
  if (m.free_at_start_bytes > 0)
    t.push_back({"free_at_start_bytes", "", static_cast<double>(m.free_at_start_bytes), true, "estimate",
                 tx(Str::efx_vllm_free_at_start, b(m.total_bytes), fixed(gpu.usable_fraction, 2), b(m.free_at_start_bytes),
                    tr(m.startup_refused ? Str::efx_vllm_free_short : Str::efx_vllm_free_enough, lang)),
                 src + "v1/worker/utils.py, request_memory; utils/mem_utils.py, MemorySnapshot.measure; " +
                     "the catalog's usable fraction (presets/gpus.json)"});
  if (m.mxfp4_layout_bytes != 0)
    t.push_back({"mxfp4_layout_bytes", "", static_cast<double>(m.mxfp4_layout_bytes), true, "estimate",
                 tx(Str::efx_vllm_mxfp4, b(m.mxfp4_checkpoint_bytes + m.mxfp4_layout_bytes), b(m.mxfp4_checkpoint_bytes),
                    b(m.mxfp4_layout_bytes)),
                 src + "model_executor/layers/quantization/mxfp4.py, Mxfp4MoEMethod.create_weights, process_weights_after_loading"});
  if (m.topk_buffer_bytes != 0)
    t.push_back({"topk_buffer_bytes", "", static_cast<double>(m.topk_buffer_bytes), true, "exact",
                 "max_num_batched_tokens × index_topk × 4 = " + b(m.max_num_batched_tokens) + " × " +
                     b(m.topk_buffer_bytes / 4 / std::max<i64>(1, m.max_num_batched_tokens)) + " × 4 = " + b(m.topk_buffer_bytes),
                 src + "model_executor/models/deepseek_v2.py, DeepseekV2Model.__init__"});
  if (m.fp8_marlin_bytes != 0)
    t.push_back({"fp8_marlin_bytes", "", static_cast<double>(m.fp8_marlin_bytes), true, "exact", tx(Str::efx_vllm_marlin, b(m.fp8_marlin_bytes)),
                 src + "model_executor/layers/quantization/utils/marlin_utils_fp8.py, prepare_fp8_layer_for_marlin, "
                       "prepare_moe_fp8_layer_for_marlin"});
  if (m.k_as_v_bytes != 0)
    t.push_back({"k_as_v_bytes", "", static_cast<double>(m.k_as_v_bytes), true, "exact", tx(Str::efx_vllm_k_as_v, b(m.k_as_v_bytes)),
                 src + "model_executor/models/gemma4.py, Gemma4Attention (QKVParallelLinear), load_weights"});
  const i64 extra = m.mxfp4_layout_bytes + m.topk_buffer_bytes + m.fp8_marlin_bytes + m.k_as_v_bytes;
  t.push_back({"weights_bytes", "Model loading took", static_cast<double>(m.weights_bytes), true,
               m.mxfp4_layout_bytes != 0 ? "estimate" : "exact",
               extra != 0 ? tx(m.mxfp4_layout_bytes != 0 ? Str::efx_vllm_weights_mxfp4
                               : m.fp8_marlin_bytes != 0  ? Str::efx_vllm_weights_marlin
                               : m.k_as_v_bytes != 0      ? Str::efx_vllm_weights_k_as_v
                                                          : Str::efx_vllm_weights_topk,
                               b(m.weights_bytes - m.rope_bytes - extra), b(extra), b(m.rope_bytes), b(m.weights_bytes))
                          : tx(Str::efx_vllm_weights, b(m.weights_bytes - m.rope_bytes), b(m.rope_bytes), b(m.weights_bytes)),
               src + (mrv2 ? "v1/worker/gpu/model_runner.py" : "v1/worker/gpu_model_runner.py") + ", load_model; rotary_embedding/base.py"});
  if (m.encoder_profile_bytes != 0)
    t.push_back({"encoder_profile_bytes", "", static_cast<double>(m.encoder_profile_bytes), true, "estimate",
                 tx(Str::efx_vllm_encoder_profile, b(m.mm_items), b(m.mm_tokens_per_item), b(m.mm_budget_tokens), b(m.encoder_profile_bytes)),
                 src + "gpu_model_runner.py, profile_run; multimodal/budget.py; model_executor/models/mistral3.py, gemma3_mm.py"});
  if (m.indexer_profile_bytes != 0)
    t.push_back({"indexer_profile_bytes", "", static_cast<double>(m.indexer_profile_bytes), true, "estimate",
                 tx(Str::efx_vllm_indexer_profile, b(m.max_model_len), b(m.indexer_profile_bytes / 40 / std::max<i64>(1, m.max_model_len)),
                    b(m.indexer_profile_bytes)),
                 src + "model_executor/layers/sparse_attn_indexer.py; v1/attention/backends/mla/indexer.py, get_max_prefill_buffer_size"});
  if (v027) {
    const std::string rows = b(std::min(m.max_num_seqs, m.max_num_batched_tokens));
    t.push_back({"non_torch_bytes", "non-torch", static_cast<double>(m.non_torch_bytes), true, "estimate",
                 tx(Str::efx_vllm27_non_torch, b(m.non_torch_bytes)), tx(Str::efx_vllm27_non_torch_src)});
    t.push_back({"consumed_bytes", "consumed memory (weights + non-torch)", static_cast<double>(m.consumed_bytes), true, "estimate",
                 tx(Str::efx_vllm27_consumed, b(m.weights_bytes), b(m.non_torch_bytes), b(m.workspace_bytes), b(m.consumed_bytes)),
                 src + "utils/mem_utils.py, memory_profiling (total_consumed)"});
    if (m.cuda_graph_estimate_bytes > 0)
      t.push_back({"cuda_graph_estimate_bytes", "", static_cast<double>(m.cuda_graph_estimate_bytes), true, "given",
                   tx(Str::efx_vllm27_graph_est, b(m.cuda_graph_estimate_bytes >> 20), b(m.cuda_graph_estimate_bytes)),
                   src + tx(Str::efx_vllm27_graph_est_src)});
    // Model Runner V2's profile is anchored at 2,048 batched tokens (24 GiB cards); the one published start-up of
    // a larger one (tests/calibration/vllm_test.cpp, Qwen3-32B) needed 2.13 GiB more than llmsize gives: said.
    if (mrv2)
      t.push_back({"activation_peak_bytes", "peak activation", static_cast<double>(m.activation_peak_bytes), true, "estimate",
                   tx(Str::efx_vllm27_peak, b(m.max_num_batched_tokens), b(m.forward_peak_bytes), b(m.sampler_peak_bytes),
                      b(m.activation_peak_bytes), rows) +
                       (m.max_num_batched_tokens > 2048 ? tx(Str::efx_vllm27_peak_unanchored, b(m.max_num_batched_tokens)) : std::string()),
                   src + tx(Str::efx_vllm27_peak_src)});
    else
      t.push_back({"activation_peak_bytes", "peak activation", static_cast<double>(m.activation_peak_bytes), true, "estimate",
                   tx(Str::efx_vllm27_peak_v1, b(m.max_num_batched_tokens), rows, b(m.forward_peak_bytes), b(m.sampler_peak_bytes),
                      b(m.topk_buffer_cached_bytes), b(m.cuda_graph_estimate_bytes), b(m.activation_peak_bytes)),
                   src + tx(Str::efx_vllm27_peak_v1_src)});
  } else {
    t.push_back({"activation_peak_bytes", "torch peak memory increase", static_cast<double>(m.activation_peak_bytes), true, "estimate",
                 m.encoder_profile_bytes != 0
                     ? tx(Str::efx_vllm_peak_mm, b(m.workspace_bytes), b(m.forward_peak_bytes), b(m.sampler_peak_bytes),
                          b(m.encoder_profile_bytes), b(m.activation_peak_bytes), b(std::min(m.max_num_seqs, m.max_num_batched_tokens)))
                     : tx(Str::efx_vllm_peak, b(m.workspace_bytes), b(m.forward_peak_bytes), b(m.sampler_peak_bytes), b(m.activation_peak_bytes),
                          b(std::min(m.max_num_seqs, m.max_num_batched_tokens))),
                 src + tx(Str::efx_vllm_peak_src)});
    t.push_back({"non_torch_bytes", "non-torch forward increase memory", static_cast<double>(m.non_torch_bytes), true, "estimate",
                 w.tp == 1 && w.pp > 1 ? tx(Str::efx_vllm_non_torch_pp, b(w.pp), b(m.non_torch_bytes))
                                       : tx(w.tp > 1 && !gpu.nvlink ? Str::efx_vllm_non_torch_pcie : Str::efx_vllm_non_torch, b(w.tp), b(m.non_torch_bytes)),
                 tx(Str::efx_vllm_non_torch_src)});
  }
  // ref: config/vllm.py VllmConfig.__post_init__ ("Enforce eager set, disabling torch.compile and
  // CUDAGraphs": compilation mode NONE, cudagraph_mode NONE); gpu_model_runner.py capture_model and
  // profile_cudagraph_memory then capture and estimate nothing. Without the flag the graphs' size is
  // not modelled and no term is given.
  if (m.enforce_eager)
    t.push_back({"cuda_graph_bytes", "", 0.0, true, "exact", tx(Str::efx_vllm_eager),
                 src + "config/vllm.py, VllmConfig.__post_init__; " +
                     (mrv2 ? "v1/worker/gpu/model_runner.py" : "v1/worker/gpu_model_runner.py") + ", capture_model"});
  t.push_back({"kv_available_bytes", "Available KV cache memory", static_cast<double>(m.kv_available_bytes), true, "estimate",
               m.kv_memory_given ? "--kv-cache-memory = " + b(m.kv_available_bytes)
               : v027 ? tx(Str::efx_vllm27_available, b(m.budget_bytes), b(m.consumed_bytes), b(m.activation_peak_bytes), b(m.kv_available_bytes))
                      : tx(Str::efx_vllm_available, b(m.budget_bytes), b(m.non_kv_bytes), b(m.kv_available_bytes)),
               src + "v1/worker/gpu_worker.py, determine_available_memory"});
  if (m.mamba_page_bytes > 0 && !m.groups.empty()) {
    const i64 page = m.groups.front().page_bytes, one = page / m.block_size;
    t.push_back({"mamba_page_bytes", "", static_cast<double>(m.mamba_page_bytes), true, "exact",
                 m.mamba_ssm_dtype.empty()
                     ? tx(Str::efx_vllm_conv_page, std::string(m.mamba_conv_dtype), b(m.mamba_page_bytes))
                     : tx(Str::efx_vllm_mamba_page, std::string(m.mamba_conv_dtype), std::string(m.mamba_ssm_dtype), b(m.mamba_page_bytes)),
                 src + "model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator, MambaStateDtypeCalculator; "
                       "v1/kv_cache_interface.py MambaSpec"});
    const std::string pad = fixed(100.0 * static_cast<double>(page - m.mamba_page_bytes) / static_cast<double>(m.mamba_page_bytes), 2);
    t.push_back({"attn_block_size", "", static_cast<double>(m.block_size), false, "exact",
                 m.mamba_cache_mode == MambaCacheMode::All
                     ? tx(Str::efx_vllm27_attn_block_all, b(one), b(m.mamba_chunk_size), b(std::lcm(m.mamba_chunk_size, std::max<i64>(16, w.block_size))),
                          b(m.block_size), b(page), pad)
                     : tx(Str::efx_vllm_attn_block, b(one), b(m.block_size), b(page), pad),
                 src + tx(Str::efx_vllm_attn_block_src)});
    if (m.mamba_cache_mode != MambaCacheMode::None) {
      const auto g = std::find_if(m.groups.begin(), m.groups.end(), [](const VllmGroup& x) { return has_state(x.kind); });
      const i64 states = g == m.groups.end() ? 0 : g->max_request_bytes / std::max<i64>(1, g->page_bytes);
      t.push_back({"mamba_states_per_request", "", static_cast<double>(states), false, "exact",
                   tx(m.mamba_cache_mode == MambaCacheMode::All ? Str::efx_vllm27_states_all : Str::efx_vllm27_states_align, b(m.max_model_len),
                      b(m.block_size), b(states)),
                   src + "model_executor/models/config.py, MambaModelConfig; v1/kv_cache_interface.py, MambaSpec.max_memory_usage_bytes"});
    }
  }
  for (size_t r = 0; r < m.ranks.size(); ++r) {
    const VllmMemory::Rank& k = m.ranks[r];
    const std::string layers = b(k.first_layer) + "–" + b(k.first_layer + k.layers - 1);
    t.push_back({"stage_" + std::to_string(r) + "_kv_available_bytes", "",
                 static_cast<double>(k.kv_available_bytes), true, "estimate",
                 (m.kv_memory_given ? "--kv-cache-memory = " + b(k.kv_available_bytes)
                                    : tx(Str::efx_vllm_stage_available, b(k.weights_bytes), b(k.activation_peak_bytes),
                                         k.intermediate_bytes > 0 ? tx(Str::efx_vllm_stage_intermediate, b(k.intermediate_bytes)) : "",
                                         b(m.non_torch_bytes), b(k.kv_available_bytes))) +
                     tx(Str::efx_vllm_stage_blocks, b(k.layers), b(k.num_blocks)),
                 src + tx(Str::efx_vllm_stage_src)});
    t.back().row_args = {std::to_string(r), layers};
  }
  if (!m.groups.empty()) {
    const VllmGroup& g = m.groups.front();
    const i64 groups = static_cast<i64>(m.groups.size());
    if (!m.ranks.empty())
      t.push_back({"num_blocks", "", static_cast<double>(m.num_blocks), false, "exact",
                   tx(Str::efx_vllm_blocks_stages, b(g.page_bytes), b(m.bottleneck_rank), b(m.num_blocks)),
                   src + tx(Str::efx_vllm_blocks_stages_src)});
    else
      t.push_back({"num_blocks", "", static_cast<double>(m.num_blocks), false, "exact",
                   tx(groups == 1 ? Str::efx_vllm_blocks_group : Str::efx_vllm_blocks_groups, b(m.kv_available_bytes), b(g.page_bytes),
                      b(m.group_size), b(m.num_blocks), b(groups)),
                   src + tx(Str::efx_vllm_blocks_src)});
    t.push_back({"kv_tokens", "GPU KV cache size", static_cast<double>(m.kv_tokens), false, "exact",
                 v027 ? tx(Str::efx_vllm27_tokens, fixed(m.max_concurrency, 6), b(m.max_model_len), b(m.kv_tokens))
                      : tx(Str::efx_vllm_tokens, b(m.num_blocks), b(groups), b(m.kv_tokens / std::max<i64>(1, m.num_blocks / groups)),
                           b(m.kv_tokens)),
                 src + (v027 ? "kv_cache_utils.py, get_kv_cache_capacity" : "kv_cache_utils.py, _report_kv_cache_config")});
    t.push_back({"max_concurrency", "Maximum concurrency", m.max_concurrency, false, "exact",
                 tx(Str::efx_vllm_concurrency, b(m.num_blocks), b(m.blocks_per_request), fixed(m.max_concurrency, 2)),
                 src + "kv_cache_utils.py, get_max_concurrency_for_kv_cache_config"});
  }
  if (m.tq_workspace_bytes > 0 || m.tq_decode_workspace_bytes > 0)
    t.push_back({"tq_workspace_bytes", "", static_cast<double>(m.tq_workspace_bytes), true, "exact",
                 tx(Str::efx_vllm_tq_workspace, b(m.tq_decode_workspace_bytes), b(m.tq_prefill_workspace_bytes),
                    b(std::max(m.tq_decode_workspace_bytes, m.tq_prefill_workspace_bytes) - m.tq_workspace_bytes), b(m.tq_workspace_bytes)),
                 src + "v1/attention/backends/turboquant_attn.py, TurboQuantMetadataBuilder._reserve_workspace; v1/worker/workspace.py, "
                       "WorkspaceManager.get_simultaneous"});
  label_terms(t);
  return t;
}

// The described terms' rows, by key (a stage's key is stage_<r>_kv_available_bytes).
std::optional<Str> term_row(std::string_view key) {
  static constexpr std::pair<std::string_view, Str> kRows[] = {
      {"total_bytes", Str::term_total},       {"budget_bytes", Str::term_budget},
      {"free_at_start_bytes", Str::term_free_at_start},
      {"mamba_page_bytes", Str::term_mamba_page}, {"attn_block_size", Str::term_attn_block},
      {"num_blocks", Str::term_num_blocks},   {"pre_bytes", Str::term_pre},
      {"rest_bytes", Str::term_rest},         {"cell_bytes", Str::term_cell},
      {"mamba_bytes_per_request", Str::term_state_slot}, {"profiled_tokens", Str::term_profiled}, {"req_to_token_bytes", Str::term_req_to_token},
      {"mxfp4_layout_bytes", Str::term_mxfp4_layout}, {"topk_buffer_bytes", Str::term_topk_buffer},
      {"indexer_profile_bytes", Str::term_indexer_profile}, {"encoder_profile_bytes", Str::term_encoder_profile},
      {"cuda_graph_bytes", Str::term_cuda_graphs},       {"fp8_marlin_bytes", Str::term_fp8_marlin},
      {"k_as_v_bytes", Str::term_k_as_v},     {"cuda_graph_estimate_bytes", Str::term_cuda_graph_est},
      {"mamba_states_per_request", Str::term_mamba_states}, {"tq_workspace_bytes", Str::term_tq_workspace},
  };
  if (key.rfind("stage_", 0) == 0) return Str::term_stage;
  for (const auto& [k, row] : kRows)
    if (key == k) return row;
  return std::nullopt;
}

void label_terms(std::vector<EngineTerm>& terms) {
  for (EngineTerm& t : terms) {
    t.row = term_row(t.key);
    if (t.row) t.label = term_label(t, Lang::En);
  }
}

std::string term_label(const EngineTerm& t, Lang lang) { return t.row ? row_text(*t.row, t.row_args, lang) : t.label; }

std::string vllm_settings(const VllmMemory& m, std::string_view sep) {
  const std::string s(sep);
  return "max_model_len " + with_commas(m.max_model_len) + s + "max_num_batched_tokens " + with_commas(m.max_num_batched_tokens) + s +
         "max_num_seqs " + with_commas(m.max_num_seqs) + s + "block_size " + with_commas(m.block_size) +
         (m.mamba_page_bytes > 0
              ? s + "mamba_cache_mode " + std::string(kMambaCacheModeNames[static_cast<int>(m.mamba_cache_mode)])
              : std::string()) +
         (m.enforce_eager ? s + "enforce_eager" : std::string());
}

std::vector<std::string> vllm_log(const VllmMemory& m) {
  std::vector<std::string> out;
  if (m.startup_refused) return {m.error};  // the worker's first check: nothing is loaded or printed before it
  char buf[320];
  // ref: config/vllm.py, VllmConfig.__post_init__ (its warning, as 0.19 prints it).
  if (m.enforce_eager)
    out.push_back("Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent to setting -cc.mode=none -cc.cudagraph_mode=none");
  // ref: models/config.py, Qwen3_5ForConditionalGenerationConfig.verify_and_update_config.
  if (!m.config_ssm_dtype_overridden.empty())
    out.push_back("Qwen3.5 model specifies mamba_ssm_dtype='" + std::string(m.config_ssm_dtype_overridden) +
                  "' in its config, but --mamba-ssm-cache-dtype='" + std::string(m.mamba_ssm_dtype) +
                  "' was passed. Using the user-specified value.");
  // ref: models/config.py, MambaModelConfig.verify_and_update_config (0.19 and 0.27.1): its warnings
  // where it amends --mamba-cache-mode, and its line with prefix caching on.
  if (m.mamba_mode_fell_back)
    out.push_back("Hybrid or mamba-based model detected without support for prefix caching with Mamba cache 'all' mode: falling back "
                  "to 'align' mode.");
  if (m.mamba_mode_reset) out.push_back("Mamba cache mode is set to 'none' when prefix caching is disabled");
  if (m.mamba_cache_mode != MambaCacheMode::None)
    out.push_back("Warning: Prefix caching in Mamba cache '" + std::string(kMambaCacheModeNames[static_cast<int>(m.mamba_cache_mode)]) +
                  "' mode is currently enabled. Its support for Mamba layers is experimental. Please report any issues you may observe.");
  // The block grown for a hybrid model or TurboQuant's boundary layers: 0.19 at configuration
  // (models/config.py HybridAttentionMambaModelConfig, before the model loads), 0.27.1 after the load
  // (platforms/interface.py _align_hybrid_block_size, _align_heterogeneous_kv_block_size), as its logs show.
  const auto alignment = [&] {
    if (m.tq_block_size > 0)
      out.push_back("Setting attention block size to " + std::to_string(m.tq_block_size) +
                    " tokens so the quantized primary KV page covers the higher-precision padded-spec page.");
    if (m.mamba_page_bytes > 0) {
      if (m.attn_block_size > 0)
        out.push_back("Setting attention block size to " + std::to_string(m.attn_block_size) +
                      " tokens to ensure that attention page size is >= mamba page size.");
      const i64 page = m.groups.empty() ? 0 : m.groups.front().page_bytes;
      if (page != m.mamba_page_bytes && page > 0) {
        std::snprintf(buf, sizeof buf, "Padding mamba page size by %.2f%% to ensure that mamba page size and attention page size are exactly equal.",
                      100.0 * static_cast<double>(page - m.mamba_page_bytes) / static_cast<double>(m.mamba_page_bytes));
        out.emplace_back(buf);
      }
    }
  };
  if (m.line == VllmLine::V019) alignment();
  if (m.sparse_block_forced) out.push_back("Forcing kv cache block size to 64 for FlashMLASparse backend.");
  // ref: distributed/utils.py, get_pp_indices.
  if (m.ranks.size() > 1 && std::any_of(m.ranks.begin(), m.ranks.end(), [&](const VllmMemory::Rank& k) { return k.layers != m.ranks.front().layers; })) {
    std::string parts;
    for (const VllmMemory::Rank& k : m.ranks) parts += (parts.empty() ? "" : ",") + std::to_string(k.layers);
    out.push_back("Hidden layers were unevenly partitioned: [" + parts +
                  "]. This can be manually overridden using the VLLM_PP_LAYER_PARTITION environment variable");
  }
  const bool v027 = m.line != VllmLine::V019, mrv2 = m.mrv2;  // 0.27.1 or 0.28.0
  // ref: gpu_model_runner.py, load_model ("… and %.6f seconds": the time is left out). 0.27:
  // gpu_worker.py prints which runner it builds, and v1/worker/gpu/model_runner.py load_model
  // "Model loading took %.2f GiB and %.6f seconds" (0.28 puts "memory" back).
  if (mrv2) out.push_back("Using V2 Model Runner");
  out.push_back("Model loading took " + vllm_gib(m.weights_bytes) +
                (mrv2 && m.line == VllmLine::V027 ? " GiB and ... seconds" : " GiB memory and ... seconds"));
  if (v027) alignment();
  if (m.mm_items > 0 && !m.kv_memory_given)  // ref: gpu_model_runner.py, profile_run
    out.push_back("Encoder cache will be initialized with a budget of " + std::to_string(m.mm_budget_tokens) + " tokens, and profiled with " +
                  std::to_string(m.mm_items) + " image items of the maximum feature size.");
  if (m.kv_memory_given) {  // ref: gpu_worker.py, determine_available_memory with kv_cache_memory_bytes
    out.push_back("... reserved " + vllm_gib(m.kv_available_bytes) +
                  " GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling. ...");
  } else if (v027) {
    out.push_back("Available KV cache memory: " + vllm_gib(m.kv_available_bytes) + " GiB");
    // ref (0.27): gpu_worker.py, determine_available_memory, when the first runner's estimate is above 0.
    if (m.cuda_graph_estimate_bytes > 0) {
      const double delta = static_cast<double>(m.cuda_graph_estimate_bytes) / static_cast<double>(m.total_bytes);
      const auto r4 = [](double x) { return std::round(x * 1e4) / 1e4; };
      std::snprintf(buf, sizeof buf,
                    "CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=%.4f is "
                    "equivalent to --gpu-memory-utilization=%.4f without CUDA graph memory profiling. ",
                    m.gpu_memory_utilization, r4(m.gpu_memory_utilization - delta));
      out.push_back(std::string(buf));
      std::snprintf(buf, sizeof buf, "To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to %.4f. ",
                    std::min(r4(m.gpu_memory_utilization + delta), 1.0));
      out.back() += std::string(buf) + "To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.";
    }
  } else {
    // ref: utils/mem_utils.py, MemoryProfilingResult.__repr__ (0.19, a DEBUG line) and gpu_worker.py.
    out.push_back("Memory profiling takes ... seconds. Total non KV cache memory: " + vllm_gib(m.non_kv_bytes) +
                  "GiB; torch peak memory increase: " + vllm_gib(m.activation_peak_bytes) +
                  "GiB; non-torch forward increase memory: " + vllm_gib(m.non_torch_bytes) +
                  "GiB; weights memory: " + vllm_gib(m.weights_bytes) + "GiB.");
    out.push_back("Available KV cache memory: " + vllm_gib(m.kv_available_bytes) + " GiB");
  }
  // ref: kv_cache_utils.py _auto_fit_max_model_len (--max-model-len -1), format_gib: round(x, 2).
  if (m.auto_fit_from > 0 && m.error.empty())
    out.push_back(m.max_model_len < m.auto_fit_from
                      ? "Auto-fit max_model_len: reduced from " + std::to_string(m.auto_fit_from) + " to " +
                            std::to_string(m.max_model_len) + " to fit in available GPU memory (" + vllm_gib(m.kv_available_bytes) +
                            " GiB available for KV cache)"
                      : "Auto-fit max_model_len: full model context length " + std::to_string(m.auto_fit_from) +
                            " fits in available GPU memory");
  if (!m.error.empty()) {
    out.push_back(m.error);
    return out;
  }
  for (const auto& [pad, layers] : m.padding) {  // ref: _get_kv_cache_groups_uniform_page_size's warning
    std::snprintf(buf, sizeof buf, "Add %lld padding layers, may waste at most %.2f%% KV cache memory", static_cast<long long>(pad),
                  static_cast<double>(pad) / static_cast<double>(layers) * 100);
    out.emplace_back(buf);
  }
  // ref: kv_cache_utils.py: 0.19 and 0.27.1 print two lines (_report_kv_cache_config,
  // get_kv_cache_configs); 0.28's update_kv_cache_capacity prints one.
  std::snprintf(buf, sizeof buf, "Maximum concurrency for %s tokens per request: %.2fx", with_commas(m.max_model_len).c_str(),
                m.max_concurrency);
  if (m.line == VllmLine::V028) {
    out.push_back("GPU KV cache size: " + with_commas(m.kv_tokens) + " tokens, " + buf);
  } else {
    out.push_back("GPU KV cache size: " + with_commas(m.kv_tokens) + " tokens");
    out.emplace_back(buf);
  }
  // ref (0.27): gpu_worker.py, compile_or_warm_up_model, after the graphs are captured: the free
  // memory at start (the CUDA context and other processes: not known here) and the graphs' size
  // (measured by capture_model; 0 under --enforce-eager, else not modelled) are left as "...", as is
  // the advice computed from them.
  if (v027 && !m.kv_memory_given)
    out.push_back("Free memory on device (.../" + vllm_gib(m.total_bytes) + " GiB) on startup. Desired GPU memory utilization is (" +
                  python_float(m.gpu_memory_utilization) + ", " + vllm_gib(m.budget_bytes) + " GiB). Actual usage is " +
                  vllm_gib(m.consumed_bytes) + " GiB for consumed memory (weights + non-torch), " + vllm_gib(m.activation_peak_bytes) +
                  " GiB for peak activation, and " + (m.enforce_eager ? "0.0" : "...") +
                  " GiB for CUDAGraph memory. ... Current kv cache memory in use is " + vllm_gib(m.kv_available_bytes) + " GiB.");
  return out;
}

}  // namespace llmsize::core
