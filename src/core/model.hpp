// ModelConfig: an explicit description of a decoder-only Transformer, as read from a
// Hugging Face config.json or typed in. Plain data; validate() checks every field
// against documented bounds. It does not know how parameters are counted (inventory.hpp).
//
// Symbols used across the core: L layers, d hidden size, H query heads, K key/value heads,
// hd head dim, v vocab, f FFN width, E routed experts, s sequence length, b batch.
#pragma once
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checked.hpp"
#include "issue.hpp"

namespace llmsize::core {

// The Hugging Face model_type a config came from. It decides tensor names and the
// class defaults of absent keys; the counts follow from the explicit fields alone.
// Each enum's names sit beside it, in enum order: to_string(), parsing and the field
// table's choices all read that one array.
enum class Family : std::uint8_t {
  Gpt2, GptJ, GptNeoX, Opt, Bloom, Falcon, Llama, Mistral, Mixtral, Qwen2, Qwen2Moe,
  Qwen3, Qwen3Moe, Gemma, Gemma2, Phi, Phi3, DeepseekV2, DeepseekV3, OpenaiGpt, Gemma3, GptOss, Qwen3Next,
  Smollm3, Olmo2, DeepseekV32, KimiK2, Glm4Moe, Llama4, NemotronH, GraniteMoeHybrid, GptBigCode, Lfm2, Starcoder2, Ernie45Moe, MinimaxM2, Qwen35, Qwen35Moe, Jamba, FalconH1, NemotronNas, Gemma4, Granite, GlmMoeDsa, Custom,
};
inline constexpr std::string_view kFamilyNames[] = {
    "gpt2", "gptj", "gpt_neox", "opt", "bloom", "falcon", "llama", "mistral", "mixtral", "qwen2",
    "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "phi", "phi3", "deepseek_v2", "deepseek_v3",
    "openai-gpt", "gemma3_text", "gpt_oss", "qwen3_next", "smollm3", "olmo2", "deepseek_v32", "kimi_k2", "glm4_moe", "llama4_text", "nemotron_h", "granitemoehybrid", "gpt_bigcode", "lfm2", "starcoder2", "ernie4_5_moe", "minimax_m2", "qwen3_5_text", "qwen3_5_moe_text", "jamba", "falcon_h1", "nemotron-nas", "gemma4_text", "granite", "glm_moe_dsa", "custom"};
enum class FfnKind : std::uint8_t { Classic, Gated };  // 2 matrices (up, down) or 3 (gate, up, down)
inline constexpr std::string_view kFfnKindNames[] = {"classic", "gated"};
enum class Activation : std::uint8_t { Gelu, GeluTanh, Relu, Silu, Relu2 };
inline constexpr std::string_view kActivationNames[] = {"gelu", "gelu_tanh", "relu", "silu", "relu2"};
enum class PosKind : std::uint8_t { Learned, Rotary, Alibi, None };
inline constexpr std::string_view kPosKindNames[] = {"learned", "rotary", "alibi", "none"};
enum class NormKind : std::uint8_t { LayerNorm, LayerNormNoBias, RmsNorm };
inline constexpr std::string_view kNormKindNames[] = {"layernorm", "layernorm_nobias", "rmsnorm"};
// A multimodal wrapper's vision encoder (counted apart from the language model) and the
// projector that maps its features into the language model's width.
enum class VisionKind : std::uint8_t { None, Clip, Siglip, Llama4, Qwen35, Qwen25, Pixtral, MoonVit, Gemma4 };
inline constexpr std::string_view kVisionKindNames[] = {"none", "clip", "siglip", "llama4", "qwen3_5", "qwen2_5_vl", "pixtral", "moonvit",
                                                        "gemma4_vision"};
enum class ProjectorKind : std::uint8_t { None, Mlp2, Gemma3, Llama4, Qwen35, Qwen25, Mistral3, KimiVl, Gemma4 };
inline constexpr std::string_view kProjectorKindNames[] = {"none", "mlp2", "gemma3", "llama4", "qwen3_5_merger",
                                                           "qwen2_5_vl_merger", "mistral3", "kimi_vl", "gemma4_embedder"};
static_assert(std::size(kVisionKindNames) == static_cast<size_t>(VisionKind::Gemma4) + 1);
static_assert(std::size(kProjectorKindNames) == static_cast<size_t>(ProjectorKind::Gemma4) + 1);
static_assert(std::size(kFamilyNames) == static_cast<size_t>(Family::Custom) + 1);
static_assert(std::size(kFfnKindNames) == static_cast<size_t>(FfnKind::Gated) + 1);
static_assert(std::size(kActivationNames) == static_cast<size_t>(Activation::Relu2) + 1);
static_assert(std::size(kPosKindNames) == static_cast<size_t>(PosKind::None) + 1);
static_assert(std::size(kNormKindNames) == static_cast<size_t>(NormKind::RmsNorm) + 1);

struct MoeConfig {
  i64 num_experts = 0;         // E routed experts per MoE layer; 0 = dense model
  i64 top_k = 0;               // routed experts active per token
  i64 expert_ffn = 0;          // width of one routed expert (gated)
  i64 num_shared_experts = 0;  // shared experts (informative; their total width is shared_ffn)
  i64 shared_ffn = 0;          // total width of the always-active shared-expert MLP, 0 = none
  bool shared_gate = false;    // Qwen2-MoE's sigmoid gate on the shared expert, d × 1
  i64 first_dense = 0;         // layers [0, first_dense) keep a dense FFN
  i64 freq = 1;                // layer i >= first_dense is MoE iff i % freq == phase
  i64 phase = 0;
  bool router_bias = false;             // bias on the router Linear
  bool router_correction_bias = false;  // DeepSeek-V3 e_score_correction_bias, E params
  bool expert_bias = false;             // biases on every routed expert's matrices (gpt-oss)
  // Llama 4 (modeling_llama4.py Llama4Router, Llama4TextMoe): top_k of the raw router logits, and
  // each chosen logit's sigmoid scales that expert's input; expert outputs are summed as they are.
  // Reference transformer only (the counts do not depend on it).
  bool scale_input = false;
  // The router's weights, for the reference transformer too: whether the top_k weights are
  // renormalized to sum to 1 (norm_topk_prob; Qwen2-MoE, OLMoE and DeepSeek-V2 write false), and the
  // factor on them after that (routed_scaling_factor: DeepSeek-V3 2.5).
  bool norm_topk = true;
  double routed_scale = 1.0;
  // Gemma 4's MoE layers (modeling_gemma4.py Gemma4TextDecoderLayer, enable_moe_block): the dense
  // MLP (shared_ffn wide, named mlp.*) runs beside the experts instead of being added to them: it
  // reads pre_feedforward_layernorm's output, the experts pre_feedforward_layernorm_2's, and each
  // branch has its post-norm (post_feedforward_layernorm_1, _2) before the two are summed. The
  // router (Gemma4TextRouter) reads the residual stream through an unweighted RMS norm times its
  // `scale` vector and d^-1/2, and multiplies the chosen weights by per_expert_scale.
  bool dense_beside = false;
  std::vector<i64> dense_layers;        // explicit dense layers (Qwen mlp_only_layers)
  bool operator==(const MoeConfig&) const = default;
};

struct MlaConfig {  // DeepSeek multi-head latent attention
  bool enabled = false;
  i64 q_lora_rank = 0;  // 0: plain q projection d × H·(nope+rope)
  i64 kv_lora_rank = 0;
  i64 qk_nope_dim = 0;
  i64 qk_rope_dim = 0;
  i64 v_head_dim = 0;
  // DeepSeek-V3.2's lightning indexer (DeepSeek Sparse Attention): index_n_heads query heads of
  // index_head_dim from the q latent, one key of index_head_dim per token (cached), per-head
  // weights; each query attends only the index_topk keys it scores highest. 0 heads: none.
  i64 index_heads = 0;
  i64 index_dim = 0;
  i64 index_topk = 0;
  bool operator==(const MlaConfig&) const = default;
  bool has_indexer() const { return enabled && index_heads > 0; }
};

// A recurrent state's dtype as the engines and configs spell it (vLLM's config/cache.py MambaDType,
// SGLang's --mamba-ssm-dtype, a config.json's mamba_ssm_dtype); auto: not given (the engine decides:
// vLLM's mamba_utils.py MambaStateDtypeCalculator._mamba_state_dtype, SGLang's mamba2_state_dtype).
// bfloat16 is a vLLM choice from 0.22.
enum class MambaDtype : std::uint8_t { Auto, F32, F16, BF16 };
inline constexpr std::string_view kMambaDtypeNames[] = {"auto", "float32", "float16", "bfloat16"};
static_assert(std::size(kMambaDtypeNames) == static_cast<size_t>(MambaDtype::BF16) + 1);

// Linear attention with a fixed recurrent state (Gated DeltaNet, Qwen3-Next): layer i is a
// linear layer iff full_interval > 0 and (i + 1) % full_interval != 0; every full_interval-th
// layer keeps softmax attention and its KV cache.
struct LinearAttnConfig {
  i64 full_interval = 0;  // 0: no linear layers
  i64 k_heads = 0;        // linear_num_key_heads
  i64 v_heads = 0;        // linear_num_value_heads (a multiple of k_heads)
  i64 k_dim = 0;          // linear_key_head_dim
  i64 v_dim = 0;          // linear_value_head_dim
  i64 conv_kernel = 0;    // linear_conv_kernel_dim: the causal depthwise convolution's width
  // mamba_ssm_dtype (Qwen3.5's text_config: "float32" in every released config): the dtype its authors
  // give the recurrent SSM state; vLLM (models/config.py Qwen3_5ForConditionalGenerationConfig) and
  // SGLang (configs/mamba_utils.py mamba2_state_dtype) read it. Auto: the config has none.
  MambaDtype ssm_dtype = MambaDtype::Auto;
  bool operator==(const LinearAttnConfig&) const = default;

  bool enabled() const { return full_interval > 0; }
  i64 key_dim() const { return k_heads * k_dim; }    // width of q and of k
  i64 value_dim() const { return v_heads * v_dim; }  // width of v, z and the output
  i64 conv_dim() const { return 2 * key_dim() + value_dim(); }  // q, k and v pass the convolution
};

// The vision tower (ref: modeling_clip.py CLIPVisionModel, modeling_siglip.py SiglipVisionModel):
// patch embedding, learned positions, `layers` pre-norm encoder layers (q, k, v, out_proj with
// biases, two LayerNorms, fc1/fc2 with biases), final LayerNorm; CLIP adds a class token and a
// LayerNorm before the encoder. The projector: LLaVA's two-layer MLP (linear_1 hidden → d,
// linear_2 d → d) or Gemma 3's RMSNorm and hidden × d matrix. Llama 4 (modeling_llama4.py
// Llama4VisionModel): an unfolded patch linear without bias, a class token, LayerNorms before and
// after the encoder, and a pixel-shuffle adapter (Llama4VisionMLP2: fc1 intermediate_size →
// adapter_dim, fc2 adapter_dim → adapter_dim, no biases) before the projector's linear_1 adapter_dim → d.
// Qwen3.5 (modeling_qwen3_5.py Qwen3_5VisionModel): a Conv3d patch embedding with bias over
// temporal_patch frames, num_position_embeddings learned positions (interpolated to the image),
// blocks with a fused qkv, and the merger: a LayerNorm, then two linears over merge² patches.
// Qwen2.5-VL (modeling_qwen2_5_vl.py Qwen2_5_VisionTransformerPretrainedModel): the same patches
// without a bias or learned positions (2-D rotary), RMSNorms, a gated SiLU MLP with biases, and
// the merger's RMSNorm (ln_q) before its two linears.
// Mistral 3 (modeling_pixtral.py PixtralVisionModel, modeling_mistral3.py Mistral3MultiModalProjector):
// a Conv2d patch embedding without bias, ln_pre, blocks of RMSNorms, q/k/v/o and a gated MLP without
// biases (2-D rotary, no learned positions); the projector's RMSNorm, a patch merger joining
// merge × merge patches (spatial_merge_size, at the wrapper's top level) and two linears into d.
struct VisionConfig {
  VisionKind kind = VisionKind::None;
  i64 layers = 0, hidden = 0, ffn = 0, heads = 0, patch = 0, image = 0, channels = 3;
  ProjectorKind projector = ProjectorKind::None;
  bool projector_bias = true;  // LLaVA multimodal_projector_bias
  i64 adapter_dim = 0;  // Llama 4: projector_input_dim = projector_output_dim = vision_output_dim
  // Qwen3.5: temporal_patch_size, spatial_merge_size, num_position_embeddings; MoonViT: merge_kernel_size
  // (square) and init_pos_emb_height × init_pos_emb_width positions.
  i64 temporal_patch = 0, merge = 0, positions = 0;
  // Gemma 4 (Gemma4VisionConfig standardize): the tower's std_bias and std_scale, hidden wide each,
  // applied to the pooled soft tokens.
  bool standardize = false;
  bool operator==(const VisionConfig&) const = default;

  bool enabled() const { return kind != VisionKind::None; }
  i64 patches() const { return patch > 0 ? (image / patch) * (image / patch) : 0; }
};

// A Mamba-2 mixer (ref: modeling_nemotron_h.py NemotronHMamba2Mixer): in_proj d → z (d_inner),
// x‖B‖C (conv_dim) and dt (heads); a depthwise causal conv1d over x‖B‖C; dt_bias, A_log and D per
// head; a gated RMSNorm of d_inner; out_proj d_inner → d. d_inner = heads · head_dim.
struct Mamba2Config {
  i64 heads = 0, head_dim = 0, state = 0, groups = 0, conv_kernel = 0;
  bool conv_bias = true;   // use_conv_bias
  bool proj_bias = false;  // use_bias: biases on in_proj and out_proj
  bool gated_norm = true;  // the gated RMSNorm before out_proj (Falcon-H1: only when mamba_rms_norm)
  i64 chunk = 128;         // chunk_size of the chunked scan (temporaries only)
  // dt = max(softplus(dt + dt_bias), dt_floor) (reference transformer only): Nemotron-H clamps at
  // time_step_min (0.001), Bamba and Granite-4.0-H at time_step_limit[0] (0: no clamp).
  double dt_floor = 0.0;
  // The gated norm normalizes y, then multiplies by silu(z) (Falcon-H1's mamba_norm_before_gate:
  // FalconH1RMSNormGated); false: y · silu(z), then the norm (rmsnorm_fn's norm_before_gate=False,
  // Nemotron-H and Bamba). Reference transformer only.
  bool norm_before_gate = false;
  // The config's mamba_ssm_cache_dtype (Nemotron-H): the SSM state's dtype vLLM's NemotronH hook
  // takes when --mamba-ssm-cache-dtype is auto; Auto: the config has none.
  MambaDtype ssm_cache_dtype = MambaDtype::Auto;
  bool operator==(const Mamba2Config&) const = default;

  bool enabled() const { return heads > 0; }
  i64 d_inner() const { return heads * head_dim; }
  i64 conv_dim() const { return d_inner() + 2 * groups * state; }
  i64 in_proj() const { return d_inner() + conv_dim() + heads; }
};

// A Mamba (Mamba-1, selective scan) mixer (ref: modeling_jamba.py JambaMambaMixer): in_proj
// d → x‖z (2·d_inner), a depthwise causal conv1d over x, x_proj d_inner → dt_rank + 2·state,
// dt_proj dt_rank → d_inner with bias, A_log d_inner × state, D per channel, out_proj d_inner → d;
// Jamba also normalizes dt, B and C (inner_norms). d_inner = expand · hidden_size.
struct Mamba1Config {
  i64 expand = 0, state = 0, conv_kernel = 0, dt_rank = 0;
  bool conv_bias = true;     // mamba_conv_bias
  bool proj_bias = false;    // mamba_proj_bias: biases on in_proj and out_proj
  bool inner_norms = false;  // Jamba's dt_layernorm, b_layernorm, c_layernorm (RMSNorms)
  bool operator==(const Mamba1Config&) const = default;

  bool enabled() const { return expand > 0; }
};

// Falcon-H1's μP multipliers (modeling_falcon_h1.py; reference transformer only; 1 = none): the
// attention's input (attention_in_multiplier), its keys after k_proj (key_multiplier) and its output
// (attention_out_multiplier); the Mamba-2 mixer's input (ssm_in_multiplier), in_proj's z, x, B, C
// and dt parts (ssm_multipliers: compute_mup_vector) and its output (ssm_out_multiplier); the MLP's
// gate before the activation and its down_proj output (mlp_multipliers); the logits
// (lm_head_multiplier). The embeddings' multiplier is ModelConfig::embed_mult.
struct MupConfig {
  double attn_in = 1.0, key = 1.0, attn_out = 1.0;
  double ssm_in = 1.0, ssm_out = 1.0;
  std::array<double, 5> ssm{1.0, 1.0, 1.0, 1.0, 1.0};
  double mlp_gate = 1.0, mlp_down = 1.0, lm_head = 1.0;
  bool operator==(const MupConfig&) const = default;
};

// What one layer holds. A block-pattern model (Nemotron-H) has one block per layer: a mixer or
// an FFN; every other model has a mixer and an FFN in each layer.
enum class Mixer : std::uint8_t { Attention, Linear, Mamba, None, ShortConv, Mamba1, AttentionMamba };

struct ModelConfig {
  Family family = Family::Llama;
  std::string name;  // display name, informative

  i64 n_layers = 0;    // L
  i64 d_model = 0;     // d
  i64 n_heads = 0;     // H
  i64 n_kv_heads = 0;  // K: H for MHA, 1 for MQA, in between for GQA
  i64 head_dim = 0;    // hd; d/H unless the config gives it (Gemma)
  i64 d_ff = 0;        // f, dense FFN width
  FfnKind ffn_kind = FfnKind::Gated;
  Activation act = Activation::Silu;
  i64 vocab = 0;          // v
  i64 max_positions = 0;  // context the model was trained for; learned tables have this many rows
  // Rows of a serving engine's rotary cache where RoPE scaling makes them differ from max_positions
  // (linear and dynamic: max_position × factor; YaRN: original_max_position × factor); 0: max_positions.
  i64 rope_cache_positions = 0;
  PosKind pos = PosKind::Rotary;
  double rotary_fraction = 1.0;  // partial rotary (GPT-J, NeoX, Phi)
  i64 pos_offset = 0;            // extra learned position rows (OPT keeps 2)
  NormKind norm = NormKind::RmsNorm;
  double rope_theta = 10000.0;   // informative (reference transformer)
  // Also for the reference transformer only, from Llama 4 (modeling_llama4.py Llama4TextAttention):
  // rotary pairs are adjacent values (2i, 2i + 1: apply_rotary_emb's view_as_complex) instead of
  // (i, i + rot/2); with nope_full, layers without a window use no RoPE (no_rope_layers 0) and, when
  // attn_floor_scale > 0, scale their queries by log1p(floor((pos + 1) / attn_floor_scale)) ·
  // attn_temp_scale + 1 (attn_temperature_tuning); qk_l2norm: layers with RoPE divide q and k, per
  // head and after RoPE, by their root mean square, with no weight (use_qk_norm: Llama4TextL2Norm).
  bool rope_interleaved = false;
  bool nope_full = false;
  // Granite (modeling_granitemoehybrid.py, GraniteMoeShared*): the embeddings × embedding_multiplier,
  // each block's output × residual_multiplier before the residual add, attention scores ×
  // attention_multiplier instead of 1/sqrt(head_dim) (0: that default), logits ÷ logits_scaling.
  double embed_mult = 1.0, residual_mult = 1.0, attn_mult = 0.0, logits_div = 1.0;
  bool qk_l2norm = false;
  double attn_floor_scale = 0.0;
  double attn_temp_scale = 0.0;

  // Per-layer structure.
  bool parallel_block = false;    // attention and FFN read the same input (GPT-J, NeoX, Falcon, Phi)
  bool norm_ffn_input = true;     // a norm before the FFN (false: parallel blocks sharing one norm)
  bool norm_sandwich = false;     // extra norms after attention and after the FFN (Gemma-2)
  bool norm_qk = false;           // per-head norms on q and k (Qwen3 RMSNorm, Phi LayerNorm)
  bool norm_qk_full = false;      // the q/k norms span every head's width, H·hd and K·hd (OLMo-2)
  bool norm_v = false;            // a weightless RMSNorm on each value head (Gemma 4's v_norm; reference block only)
  bool norm_pre = true;           // norms before attention and FFN (false: OLMo-2 normalizes only their outputs)
  bool attn_sinks = false;        // a learned logit per head in the softmax (gpt-oss sinks, H params)
  bool attn_out_gate = false;     // q_proj also yields a sigmoid gate on the attention output (Qwen3-Next)
  bool norm_embed = false;        // a norm right after the embedding (BLOOM)
  bool norm_final = true;         // final norm before the head
  bool bias_qkv = false, bias_o = false, bias_ffn = false, bias_lm_head = false;
  bool fused_qkv = false;         // one qkv tensor in the checkpoint (naming only)
  bool fused_gate_up = false;     // one gate_up tensor (Phi-3; naming only)
  bool tie_embeddings = false;    // LM head shares the embedding matrix
  i64 embed_proj_dim = 0;         // OPT word_embed_proj_dim when it differs from d, else 0

  i64 sliding_window = 0;   // tokens kept by sliding-window layers; 0 = none
  i64 sliding_pattern = 1;  // 1: every layer slides; n: layer i slides iff (i+1) % n != 0
  bool window_chunked = false;  // those layers attend within fixed chunks of sliding_window tokens (Llama 4)

  MoeConfig moe;
  MlaConfig mla;
  LinearAttnConfig linear;
  // Nemotron-H hybrid_override_pattern: one character per layer, 'M' a Mamba-2 mixer, '*'
  // attention, '-' an MLP, 'E' a mixture of experts; each block has one norm before it. Empty: attention and FFN per layer.
  // With block_ffn (Granite-4.0-H, LFM2 layer_types), every layer is its mixer ('M', '*', or 'C' an
  // LFM2 short convolution) and the FFN; Jamba's layers are 'S' (a Mamba-1 mixer) or '*', each
  // with its FFN; Falcon-H1's are 'P', attention and a Mamba-2 mixer side by side, then the FFN.
  std::string block_pattern;
  bool block_ffn = false;
  i64 short_conv = 0;  // LFM2 conv_L_cache: the width of the short convolutions ('C' layers)
  bool short_conv_bias = false;  // LFM2 conv_bias: biases on in_proj, the convolution and out_proj
  Mamba2Config mamba;
  Mamba1Config mamba1;
  MupConfig mup;
  // Per-layer shapes of a heterogeneous (NAS) model, one entry per layer (DeciLM block_configs:
  // Llama-Nemotron Super and Ultra); empty: every layer has n_kv_heads and d_ff. An entry of 0 in
  // layer_kv_heads: no attention block in that layer (no norm, no cache); 0 in layer_ffn: no FFN.
  std::vector<i64> layer_kv_heads;
  std::vector<i64> layer_ffn;
  // Gemma 4 (modeling_gemma4.py): full-attention layers with their own head size and, with
  // attention_k_eq_v, their own K and no v_proj (V is read from k_proj's output); the last
  // kv_shared layers hold no K/V projections and no cache (each attends over the cache of the last
  // earlier layer of its kind) and, with double_wide, an FFN twice as wide; per-layer input
  // embeddings (PLE) of ple_dim per layer from a table of ple_vocab rows.
  i64 global_head_dim = 0;  // 0: head_dim on every layer
  i64 global_kv_heads = 0;  // 0: n_kv_heads on every layer
  bool k_eq_v = false;
  i64 kv_shared = 0;        // num_kv_shared_layers
  bool double_wide = false; // use_double_wide_mlp
  i64 ple_dim = 0;          // hidden_size_per_layer_input
  i64 ple_vocab = 0;        // vocab_size_per_layer_input
  VisionConfig vision;  // multimodal wrappers: counted as params.vision, not in the total
  i64 mtp_layers = 0;  // DeepSeek-V3 multi-token-prediction layers (reported, not in the total)

  bool operator==(const ModelConfig&) const = default;

  // Derived helpers.
  bool is_moe() const { return moe.num_experts > 0; }
  bool layer_is_moe(i64 layer) const;
  bool layer_slides(i64 layer) const;
  bool layer_is_linear(i64 layer) const;
  Mixer layer_mixer(i64 layer) const;     // Attention, Linear, Mamba, or None (an MLP block)
  bool layer_has_ffn(i64 layer) const;    // false: a mixer block of a block-pattern model
  bool per_layer() const { return !layer_kv_heads.empty() || !layer_ffn.empty(); }
  // Layers differ in their attention or FFN shapes (per-layer lists, Gemma 4's global layers, KV sharing).
  bool varies_by_layer() const { return per_layer() || global_head_dim > 0 || global_kv_heads > 0 || k_eq_v || kv_shared > 0; }
  i64 head_dim_at(i64 layer) const { return global_head_dim > 0 && !layer_slides(layer) ? global_head_dim : head_dim; }
  bool kv_shared_at(i64 layer) const { return kv_shared > 0 && layer >= n_layers - kv_shared; }
  bool v_proj_at(i64 layer) const { return !(k_eq_v && !layer_slides(layer)); }  // Gemma 4: full layers read V from k_proj
  i64 kv_heads_at(i64 layer) const;  // this layer's K (0: no attention)
  i64 ffn_at(i64 layer) const;       // this layer's dense FFN width (0: no FFN)
  i64 widest_ffn() const;            // the widest dense FFN of any layer
  i64 mamba1_inner() const { return mamba1.expand * d_model; }  // d_inner of a Mamba-1 mixer
  // Values per head that rotary embeddings turn (partial rotary; MLA's rope part).
  i64 rotary_dim() const {
    return mla.enabled ? mla.qk_rope_dim : static_cast<i64>(static_cast<double>(head_dim) * rotary_fraction);
  }
  i64 q_head_dim() const { return mla.enabled ? mla.qk_nope_dim + mla.qk_rope_dim : head_dim; }
  // Rows of the rotary cos/sin caches vLLM and SGLang build (each of rotary_dim values): one cache
  // of rope_cache_positions rows (max_positions when 0), get_rope sharing it among the layers; Gemma 3's
  // sliding layers build a second, unscaled one (gemma3.py Gemma3Attention: rope_local_base_freq,
  // rope_type "default", max_position_embeddings rows).
  i64 rope_cache_rows() const {
    return (rope_cache_positions > 0 ? rope_cache_positions : max_positions) + (family == Family::Gemma3 ? max_positions : 0);
  }
  // Values of every rotary cos/sin cache: rope_cache_rows() × rotary_dim(), and Gemma 4's full layers'
  // own cache of max_positions × global_head_dim (vLLM gemma4_rope.py Gemma4RotaryEmbedding: the
  // proportional RoPE keeps rotary_dim = head_size, the pairs it does not turn as zero frequencies).
  Checked rope_cache_values() const {
    Checked v = Checked(rope_cache_rows()) * rotary_dim();
    if (family == Family::Gemma4 && global_head_dim > 0 && sliding_window > 0) v += Checked(max_positions) * global_head_dim;
    return v;
  }
  i64 v_head_dim() const { return mla.enabled ? mla.v_head_dim : head_dim; }
};

// Documented bounds for every numeric field (inclusive). validate(), the config importer and
// the model field table (share links, the UI) all read this one table.
inline constexpr i64 kMaxTokens = i64{1} << 27;  // 134,217,728: positions, windows, a workload's context
struct FieldLimit {
  std::string_view field;  // canonical name (Hugging Face spelling)
  i64 min, max;
  // The field also stores 0 for "feature off" (a dense model's expert width, MLA ranks
  // without MLA); validate() applies `min` only when the feature is on.
  bool zero_off = false;
  bool in_config = true;  // a config.json key (docs/LIMITS.md lists these as such)
};
const std::vector<FieldLimit>& field_limits();
const FieldLimit* find_limit(std::string_view field);

// Real-valued bounds, (min, max]: the minimum is excluded.
struct RealLimit {
  std::string_view field;
  double min, max;
};
const std::vector<RealLimit>& real_limits();
const RealLimit* find_real_limit(std::string_view field);

// Checks one integer against field_limits(): nullopt when fine, else the Issue.
std::optional<Issue> check_limit(std::string_view field, i64 value);

// Validates the whole config: bounds, divisibility, MoE/MLA consistency.
// Issues name canonical fields (num_attention_heads, …).
std::vector<Issue> validate(const ModelConfig& cfg);

std::string_view family_id(Family f);
// The decoders whose Hugging Face transformers code (4.46 to 4.48) is LlamaDecoderLayer as written
// (MistralDecoderLayer and Qwen2DecoderLayer are its copies; Qwen2 adds biases to q, k and v):
// pre-norm RMSNorm, attention with rotary positions on every head dimension, a gated SiLU MLP, and
// the same *ForCausalLM head. The Transformers profile and the hf-peft recipe model these tensor by
// tensor. Qwen3 (q and k norms) arrived in 4.51.
bool hf_llama_decoder(const ModelConfig& c);    // "llama", "gpt2", … (Hugging Face model_type)
std::string_view to_string(FfnKind k);
std::string_view to_string(Activation a);
std::string_view to_string(PosKind p);
std::string_view to_string(NormKind n);
std::string_view to_string(VisionKind k);

}  // namespace llmsize::core
