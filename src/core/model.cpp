// ModelConfig helpers, the table of field bounds, and validate() (see model.hpp).
#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "field.hpp"
#include "format.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {
char block_at(const std::string& p, i64 layer);
}

bool ModelConfig::layer_is_moe(i64 layer) const {
  if (!is_moe()) return false;
  if (!block_pattern.empty() && !block_ffn) return block_at(block_pattern, layer) == 'E';  // Nemotron-H MoE blocks
  if (layer < moe.first_dense) return false;
  if (std::find(moe.dense_layers.begin(), moe.dense_layers.end(), layer) != moe.dense_layers.end())
    return false;
  return moe.freq > 0 && layer % moe.freq == moe.phase;
}

bool ModelConfig::layer_slides(i64 layer) const {
  if (sliding_window <= 0) return false;
  if (sliding_pattern <= 1) return true;
  return (layer + 1) % sliding_pattern != 0;
}

bool ModelConfig::layer_is_linear(i64 layer) const {
  return linear.full_interval > 0 && (layer + 1) % linear.full_interval != 0;
}

namespace {
char block_at(const std::string& p, i64 layer) {
  return layer >= 0 && layer < static_cast<i64>(p.size()) ? p[static_cast<size_t>(layer)] : '*';
}
}  // namespace

i64 ModelConfig::kv_heads_at(i64 layer) const {
  if (!layer_kv_heads.empty())
    return layer >= 0 && layer < static_cast<i64>(layer_kv_heads.size()) ? layer_kv_heads[static_cast<size_t>(layer)] : 0;
  return global_kv_heads > 0 && !layer_slides(layer) ? global_kv_heads : n_kv_heads;
}

i64 ModelConfig::ffn_at(i64 layer) const {
  if (!layer_ffn.empty())
    return layer >= 0 && layer < static_cast<i64>(layer_ffn.size()) ? layer_ffn[static_cast<size_t>(layer)] : 0;
  return double_wide && kv_shared_at(layer) ? 2 * d_ff : d_ff;
}

i64 ModelConfig::widest_ffn() const {
  if (!layer_ffn.empty()) return *std::max_element(layer_ffn.begin(), layer_ffn.end());
  return double_wide && kv_shared > 0 ? 2 * d_ff : d_ff;
}

Mixer ModelConfig::layer_mixer(i64 layer) const {
  if (!layer_kv_heads.empty() && kv_heads_at(layer) == 0) return Mixer::None;
  if (!block_pattern.empty()) {
    const char b = block_at(block_pattern, layer);
    return b == 'M' ? Mixer::Mamba : b == '*' ? Mixer::Attention : b == 'C' ? Mixer::ShortConv : b == 'S' ? Mixer::Mamba1
           : b == 'P'                                                                                     ? Mixer::AttentionMamba
                                                                                                          : Mixer::None;
  }
  return layer_is_linear(layer) ? Mixer::Linear : Mixer::Attention;
}

bool ModelConfig::layer_has_ffn(i64 layer) const {
  if (!layer_ffn.empty()) return ffn_at(layer) > 0;
  return block_pattern.empty() || block_ffn || block_at(block_pattern, layer) == '-' || block_at(block_pattern, layer) == 'E';
}

namespace {
constexpr i64 kMaxDim = i64{1} << 20;          // 1,048,576: hidden size, ranks
constexpr i64 kMaxWidth = i64{1} << 24;        // 16,777,216: FFN widths, vocab
constexpr bool kZeroOff = true, kNotInConfig = false;
}  // namespace

const std::vector<FieldLimit>& field_limits() {
  static const std::vector<FieldLimit> limits = {
      {"num_hidden_layers", 1, 10000},
      {"hidden_size", 1, kMaxDim},
      {"num_attention_heads", 1, 65536},
      {"num_key_value_heads", 1, 65536},
      {"head_dim", 1, 65536},
      {"intermediate_size", 1, kMaxWidth, kZeroOff},  // 0: experts in every layer (Qwen3.5 MoE)
      {"vocab_size", 1, kMaxWidth},
      {"max_position_embeddings", 1, kMaxTokens},
      {"word_embed_proj_dim", 0, kMaxDim},
      {"num_experts", 0, 65536},
      {"num_experts_per_tok", 1, 65536, kZeroOff},
      {"moe_intermediate_size", 1, kMaxWidth, kZeroOff},
      {"n_shared_experts", 0, 65536},
      {"shared_expert_intermediate_size", 0, kMaxWidth},
      {"first_k_dense_replace", 0, 10000},
      {"moe_layer_freq", 1, 10000},
      {"q_lora_rank", 0, kMaxDim},
      {"kv_lora_rank", 1, kMaxDim, kZeroOff},
      {"qk_nope_head_dim", 0, 65536},
      {"qk_rope_head_dim", 0, 65536},
      {"v_head_dim", 1, 65536, kZeroOff},
      {"sliding_window", 0, kMaxTokens},
      {"sliding_window_pattern", 1, 10000},
      {"num_nextn_predict_layers", 0, 16},
      {"full_attention_interval", 0, 10000},
      {"linear_num_key_heads", 1, 65536, kZeroOff},
      {"linear_num_value_heads", 1, 65536, kZeroOff},
      {"linear_key_head_dim", 1, 65536, kZeroOff},
      {"linear_value_head_dim", 1, 65536, kZeroOff},
      {"linear_conv_kernel_dim", 1, 1024, kZeroOff},
      {"index_n_heads", 0, 65536},
      {"index_head_dim", 1, 65536, kZeroOff},
      {"index_topk", 1, kMaxTokens, kZeroOff},
      {"mamba_num_heads", 1, 65536, kZeroOff},
      {"mamba_head_dim", 1, 65536, kZeroOff},
      {"ssm_state_size", 1, 65536, kZeroOff},
      {"n_groups", 1, 65536, kZeroOff},
      {"conv_kernel", 1, 1024, kZeroOff},
      {"chunk_size", 1, kMaxTokens, kZeroOff},
      {"conv_L_cache", 0, 1024},
      {"mamba_expand", 1, 64, kZeroOff},
      {"mamba_d_state", 1, 65536, kZeroOff},
      {"mamba_d_conv", 1, 1024, kZeroOff},
      {"mamba_dt_rank", 1, kMaxDim, kZeroOff},
      {"num_key_value_heads_per_layer", 0, 65536, false, kNotInConfig},  // 0: a layer without attention
      {"intermediate_size_per_layer", 0, kMaxWidth, false, kNotInConfig},  // 0: a layer without FFN
      {"global_head_dim", 0, 65536},
      {"num_global_key_value_heads", 0, 65536},
      {"num_kv_shared_layers", 0, 10000},
      {"hidden_size_per_layer_input", 0, kMaxDim},
      {"vocab_size_per_layer_input", 1, kMaxWidth, kZeroOff},
      {"vision_config.num_hidden_layers", 1, 1000, kZeroOff},
      {"vision_config.hidden_size", 1, 65536, kZeroOff},
      {"vision_config.intermediate_size", 1, 1048576, kZeroOff},
      {"vision_config.num_attention_heads", 1, 4096, kZeroOff},
      {"vision_config.patch_size", 1, 4096, kZeroOff},
      {"vision_config.image_size", 1, 65536, kZeroOff},
      {"vision_config.num_channels", 1, 64, kZeroOff},
      {"vision_config.projector_input_dim", 1, 1048576, kZeroOff},
      {"vision_config.temporal_patch_size", 1, 64, kZeroOff},
      {"vision_config.spatial_merge_size", 1, 64, kZeroOff},
      {"spatial_merge_size", 1, 64, kZeroOff},  // Mistral 3: the projector's patch merger, at the wrapper's top level
      {"rope_cache_positions", 1, i64{1} << 36, kZeroOff},  // from rope_scaling's factor
      {"mm_tokens_per_image", 1, 65536},        // Gemma 3: soft tokens per image, at the wrapper's top level
      {"vision_config.num_position_embeddings", 1, 1048576, kZeroOff},
      {"vision_config.init_pos_emb_height", 1, 4096},  // MoonViT: its learned position grid, read into positions
      {"vision_config.init_pos_emb_width", 1, 4096},
      {"position_offset", 0, 1024, false, kNotInConfig},  // OPT's 2 extra learned rows
  };
  return limits;
}

const FieldLimit* find_limit(std::string_view field) {
  for (const auto& l : field_limits())
    if (l.field == field) return &l;
  return nullptr;
}

const std::vector<RealLimit>& real_limits() {
  static const std::vector<RealLimit> limits = {
      {"partial_rotary_factor", 0.0, 1.0},
      {"rope_theta", 0.0, 1e12},
      {"floor_scale", 0.0, 1e12},
      {"attn_scale", -1e6, 1e6},
      {"routed_scaling_factor", 0.0, 1e6},
      {"embedding_multiplier", 0.0, 1e6},
      {"residual_multiplier", 0.0, 1e6},
      {"attention_multiplier", 0.0, 1e6},
      {"logits_scaling", 0.0, 1e6},
      {"time_step_min", 0.0, 1e3},
      // Falcon-H1's μP multipliers (MupConfig)
      {"attention_in_multiplier", 0.0, 1e6},
      {"key_multiplier", 0.0, 1e6},
      {"attention_out_multiplier", 0.0, 1e6},
      {"ssm_in_multiplier", 0.0, 1e6},
      {"ssm_out_multiplier", 0.0, 1e6},
      {"ssm_multipliers[0]", 0.0, 1e6},
      {"ssm_multipliers[1]", 0.0, 1e6},
      {"ssm_multipliers[2]", 0.0, 1e6},
      {"ssm_multipliers[3]", 0.0, 1e6},
      {"ssm_multipliers[4]", 0.0, 1e6},
      {"mlp_multipliers[0]", 0.0, 1e6},
      {"mlp_multipliers[1]", 0.0, 1e6},
      {"lm_head_multiplier", 0.0, 1e6},
  };
  return limits;
}

const RealLimit* find_real_limit(std::string_view field) {
  for (const auto& l : real_limits())
    if (l.field == field) return &l;
  return nullptr;
}

static std::string range_text(i64 lo, i64 hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// "<field> must divide <other> (n), got v" and the like: a relation to another key, in every language.
static Issue relation_issue(std::string field, Str text, const char* other, i64 n, i64 got) {
  return issue(std::move(field), [text, other, n, got](Lang l) {
    return printf_text(tr(text, l), other, std::to_string(n).c_str(), std::to_string(got).c_str());
  });
}

std::optional<Issue> check_limit(std::string_view field, i64 value) {
  const FieldLimit* l = find_limit(field);
  // A name without a row is a misspelt call: refuse every value, never pass it unchecked.
  if (!l) return Issue{std::string(field), "has no documented limit (an llmsize bug: a check names a field field_limits() lacks)"};
  return check_range(field, l->min, l->max, value);
}

std::vector<Issue> validate(const ModelConfig& c) {
  std::vector<Issue> out;
  auto lim = [&](std::string_view f, i64 v) {
    if (auto i = check_limit(f, v)) out.push_back(*i);
  };
  lim("num_hidden_layers", c.n_layers);
  lim("hidden_size", c.d_model);
  lim("num_attention_heads", c.n_heads);
  lim("vocab_size", c.vocab);
  lim("max_position_embeddings", c.max_positions);
  if (c.rope_cache_positions != 0) lim("rope_cache_positions", c.rope_cache_positions);
  lim("word_embed_proj_dim", c.embed_proj_dim);
  lim("sliding_window", c.sliding_window);
  lim("sliding_window_pattern", c.sliding_pattern);
  lim("num_nextn_predict_layers", c.mtp_layers);
  if (!c.mla.enabled) {
    lim("num_key_value_heads", c.n_kv_heads);
    lim("head_dim", c.head_dim);
    if (c.n_kv_heads >= 1 && c.n_heads >= 1 && c.n_kv_heads <= 65536) {
      if (c.n_kv_heads > c.n_heads)
        out.push_back(relation_issue("num_key_value_heads", Str::issue_at_most, "num_attention_heads", c.n_heads, c.n_kv_heads));
      else if (c.n_heads % c.n_kv_heads != 0)
        out.push_back(relation_issue("num_key_value_heads", Str::issue_must_divide, "num_attention_heads", c.n_heads, c.n_kv_heads));
    }
  } else {
    lim("q_lora_rank", c.mla.q_lora_rank);
    lim("kv_lora_rank", c.mla.kv_lora_rank);
    lim("qk_nope_head_dim", c.mla.qk_nope_dim);
    lim("qk_rope_head_dim", c.mla.qk_rope_dim);
    lim("v_head_dim", c.mla.v_head_dim);
    if (c.mla.qk_nope_dim + c.mla.qk_rope_dim < 1)
      out.push_back({"qk_rope_head_dim", "qk_nope_head_dim + qk_rope_head_dim must be at least 1"});
    lim("index_n_heads", c.mla.index_heads);
    if (c.mla.index_heads > 0) {
      lim("index_head_dim", c.mla.index_dim);
      lim("index_topk", c.mla.index_topk);
      // ref: DeepSeek-V3.2 inference/model.py Indexer: wq_b reads the q latent (q_lora_rank).
      if (c.mla.q_lora_rank < 1) out.push_back({"index_n_heads", "the indexer needs q_lora_rank ≥ 1 (its queries read the q latent)"});
    }
  }
  bool any_dense = false;
  for (i64 i = 0; i < c.n_layers && i <= 10000 && !any_dense; ++i) any_dense = !c.layer_is_moe(i);
  if ((any_dense || !c.is_moe()) && c.layer_ffn.empty()) lim("intermediate_size", c.d_ff);
  lim("global_head_dim", c.global_head_dim);
  lim("num_global_key_value_heads", c.global_kv_heads);
  lim("num_kv_shared_layers", c.kv_shared);
  lim("hidden_size_per_layer_input", c.ple_dim);
  if (c.ple_dim > 0) lim("vocab_size_per_layer_input", c.ple_vocab);
  if (c.global_kv_heads > 0 && c.n_heads % c.global_kv_heads != 0)
    out.push_back(relation_issue("num_global_key_value_heads", Str::issue_must_divide, "num_attention_heads", c.n_heads,
                                 c.global_kv_heads));
  if (c.kv_shared >= c.n_layers && c.kv_shared > 0)
    out.push_back({"num_kv_shared_layers", "must be below num_hidden_layers (" + std::to_string(c.n_layers) +
                                               "): the shared layers read an earlier layer's cache"});
  if ((c.global_head_dim > 0 || c.global_kv_heads > 0 || c.k_eq_v || c.kv_shared > 0 || c.ple_dim > 0) &&
      ((c.is_moe() && !c.moe.dense_beside) || c.mla.enabled || c.linear.enabled() || !c.block_pattern.empty() || c.fused_qkv))
    out.push_back({"global_head_dim", "Gemma 4's per-layer attention shapes go with a plain attention decoder only"});
  if (c.kv_shared > 0) {  // ref: modeling_gemma4.py: each shared layer reads the last earlier layer of its kind
    for (i64 l = c.n_layers - c.kv_shared; l < c.n_layers && l >= 0 && l <= 10000; ++l) {
      bool donor = false;
      for (i64 e = c.n_layers - c.kv_shared - 1; e >= 0 && !donor; --e) donor = c.layer_slides(e) == c.layer_slides(l);
      if (!donor) {
        out.push_back({"num_kv_shared_layers", "shared layer " + std::to_string(l) + " has no earlier layer of its kind "
                                               "(sliding or full) whose cache it could read"});
        break;
      }
    }
  }
  if (c.per_layer()) {
    // Per-layer shapes: one entry per layer, each in range; K divides the query heads. Combined
    // only with a plain decoder (no experts, latent or linear attention, block pattern or window).
    auto per_layer = [&](std::string_view field, const std::vector<i64>& v, bool heads) {
      if (v.empty()) return;
      if (static_cast<i64>(v.size()) != c.n_layers) {
        out.push_back(issue(std::string(field), [n = c.n_layers, got = v.size()](Lang l) {
          return printf_text(tr(Str::issue_one_per_layer, l), std::to_string(n).c_str(), std::to_string(got).c_str());
        }));
        return;
      }
      for (i64 x : v) {
        if (auto i = check_limit(field, x)) {
          out.push_back(*i);
          return;
        }
        if (heads && x > 0 && c.n_heads % x != 0) {
          out.push_back({std::string(field), "each entry must divide num_attention_heads (" + std::to_string(c.n_heads) +
                                                 ") or be 0, got " + std::to_string(x)});
          return;
        }
      }
    };
    per_layer("num_key_value_heads_per_layer", c.layer_kv_heads, true);
    if (c.global_head_dim > 0 || c.global_kv_heads > 0 || c.k_eq_v || c.kv_shared > 0)
      out.push_back({"num_key_value_heads_per_layer", "per-layer lists and Gemma 4's global layers or KV sharing do not combine"});
    per_layer("intermediate_size_per_layer", c.layer_ffn, false);
    if (c.is_moe() || c.mla.enabled || c.linear.enabled() || !c.block_pattern.empty() || c.sliding_window > 0 ||
        c.parallel_block || c.norm_sandwich || !c.norm_pre || c.ple_dim > 0)
      out.push_back({"num_key_value_heads_per_layer", "per-layer shapes go with a plain pre-norm decoder only (no experts, "
                                                      "MLA, linear layers, block pattern, window, parallel or sandwich norms)"});
  }
  if (c.moe.dense_beside && !c.is_moe())
    out.push_back({"enable_moe_block", "a dense MLP beside the experts needs experts (num_experts > 0)"});
  if (c.is_moe()) {
    lim("num_experts", c.moe.num_experts);
    lim("moe_intermediate_size", c.moe.expert_ffn);
    lim("n_shared_experts", c.moe.num_shared_experts);
    lim("shared_expert_intermediate_size", c.moe.shared_ffn);
    lim("first_k_dense_replace", c.moe.first_dense);
    lim("moe_layer_freq", c.moe.freq);
    if (c.moe.top_k < 1 || c.moe.top_k > c.moe.num_experts)
      out.push_back({"num_experts_per_tok", "must be an integer in " +
                                                range_text(1, c.moe.num_experts) + " (num_experts), got " +
                                                std::to_string(c.moe.top_k)});
    if (c.moe.freq >= 1 && (c.moe.phase < 0 || c.moe.phase >= c.moe.freq))
      out.push_back({"moe_layer_freq", "phase must be in [0, moe_layer_freq)"});
    // Gemma 4's layout (see MoeConfig::dense_beside): every layer has both branches and their norms.
    if (c.moe.dense_beside && (c.moe.shared_ffn < 1 || c.moe.shared_gate || c.ffn_kind != FfnKind::Gated || !c.norm_sandwich ||
                               c.moe.first_dense != 0 || c.moe.freq != 1 || !c.moe.dense_layers.empty() ||
                               c.moe.scale_input || c.moe.router_correction_bias || c.moe.router_bias || c.double_wide))
      out.push_back({"enable_moe_block", "the dense MLP beside the experts (Gemma 4) needs a shared width, a gated FFN, the "
                                         "sandwich norms and every layer MoE, with no shared gate, router bias or double-wide MLP"});
    for (i64 l : c.moe.dense_layers)
      if (l < 0 || l >= c.n_layers) {
        out.push_back({"mlp_only_layers", "layer indices must be in " +
                                              range_text(0, std::max<i64>(0, c.n_layers - 1)) +
                                              ", got " + std::to_string(l)});
        break;
      }
  }
  lim("full_attention_interval", c.linear.full_interval);
  if (c.linear.enabled()) {
    const auto& a = c.linear;
    lim("linear_num_key_heads", a.k_heads);
    lim("linear_num_value_heads", a.v_heads);
    lim("linear_key_head_dim", a.k_dim);
    lim("linear_value_head_dim", a.v_dim);
    lim("linear_conv_kernel_dim", a.conv_kernel);
    // ref: Qwen3NextGatedDeltaNet: each key head serves v_heads / k_heads value heads.
    if (a.k_heads >= 1 && a.v_heads >= 1 && a.v_heads % a.k_heads != 0)
      out.push_back(relation_issue("linear_num_value_heads", Str::issue_multiple_of, "linear_num_key_heads", a.k_heads, a.v_heads));
    if (c.mla.enabled) out.push_back({"full_attention_interval", "linear layers with MLA are not supported (0 only)"});
  }
  if (!c.block_pattern.empty()) {
    if (static_cast<i64>(c.block_pattern.size()) != c.n_layers)
      out.push_back({"hybrid_override_pattern", "must have one character per layer (" + std::to_string(c.n_layers) +
                                                    "), got " + std::to_string(c.block_pattern.size())});
    bool mamba = false, mamba1 = false;
    for (char b : c.block_pattern) {
      if (b == 'E' && !c.is_moe()) {
        out.push_back({"hybrid_override_pattern", "MoE blocks ('E') need n_routed_experts of at least 1"});
        break;
      }
      if (b != 'M' && b != '*' && ((b != '-' && b != 'E') || c.block_ffn) &&
          ((b != 'C' && b != 'S' && b != 'P') || !c.block_ffn)) {
        out.push_back({"hybrid_override_pattern", c.block_ffn ? "must use only 'M' (Mamba-2), 'S' (Mamba-1), 'C' (short "
                                                                "convolution), 'P' (attention beside Mamba-2) and '*' "
                                                                "(attention): every layer also has the FFN"
                                                              : "must use only 'M' (Mamba-2), '*' (attention), '-' (MLP) "
                                                                "and 'E' (MoE)"});
        break;
      }
      mamba = mamba || b == 'M' || b == 'P';
      mamba1 = mamba1 || b == 'S';
      if (b == 'C' && c.short_conv < 1) {
        out.push_back({"conv_L_cache", "must be at least 1 for short-convolution layers ('C'), got " +
                                           std::to_string(c.short_conv)});
        break;
      }
    }
    if (c.is_moe() && !c.block_ffn && c.block_pattern.find('E') == std::string::npos)
      out.push_back({"num_experts", "experts without 'E' blocks in the pattern hold no layer (0 only)"});
    if (c.linear.enabled()) out.push_back({"full_attention_interval", "linear attention with a block pattern is not supported"});
    if (c.mla.enabled) out.push_back({"hybrid_override_pattern", "MLA with a block pattern is not supported"});
    lim("conv_L_cache", c.short_conv);
    if (mamba) {
      const auto& m = c.mamba;
      lim("mamba_num_heads", m.heads);
      lim("mamba_head_dim", m.head_dim);
      lim("ssm_state_size", m.state);
      lim("n_groups", m.groups);
      lim("conv_kernel", m.conv_kernel);
      lim("chunk_size", m.chunk);
      if (m.groups >= 1 && m.heads >= 1 && m.heads % m.groups != 0)
        out.push_back(relation_issue("n_groups", Str::issue_must_divide, "mamba_num_heads", m.heads, m.groups));
    }
    if (mamba1) {
      const auto& m = c.mamba1;
      lim("mamba_expand", m.expand);
      lim("mamba_d_state", m.state);
      lim("mamba_d_conv", m.conv_kernel);
      lim("mamba_dt_rank", m.dt_rank);
    }
  }
  if (c.vision.enabled()) {
    const auto& v = c.vision;
    lim("vision_config.num_hidden_layers", v.layers);
    lim("vision_config.hidden_size", v.hidden);
    lim("vision_config.intermediate_size", v.ffn);
    lim("vision_config.num_attention_heads", v.heads);
    lim("vision_config.patch_size", v.patch);
    if (v.kind == VisionKind::Qwen35 || v.kind == VisionKind::Qwen25) {  // no image size: patches of any image
      lim("vision_config.temporal_patch_size", v.temporal_patch);
      lim("vision_config.spatial_merge_size", v.merge);
      if (v.kind == VisionKind::Qwen35) lim("vision_config.num_position_embeddings", v.positions);
    } else if (v.kind == VisionKind::MoonVit) {  // no image size: the position grid is interpolated to each image
      lim("vision_config.spatial_merge_size", v.merge);
      lim("vision_config.num_position_embeddings", v.positions);
    } else if (v.kind == VisionKind::Gemma4) {  // no image size: patches of any image, a position per axis up to the table's
      lim("vision_config.spatial_merge_size", v.merge);  // pooling_kernel_size
      lim("vision_config.num_position_embeddings", v.positions);  // position_embedding_size
    } else {
      lim("vision_config.image_size", v.image);
    }
    lim("vision_config.num_channels", v.channels);
    if (v.patch >= 1 && v.image >= 1 && v.image % v.patch != 0)
      out.push_back(relation_issue("vision_config.image_size", Str::issue_multiple_of, "vision_config.patch_size", v.patch, v.image));
    if (v.heads >= 1 && v.hidden >= 1 && v.hidden % v.heads != 0)
      out.push_back(relation_issue("vision_config.num_attention_heads", Str::issue_must_divide, "vision_config.hidden_size", v.hidden,
                                   v.heads));
    if (v.kind == VisionKind::Llama4) {
      lim("vision_config.projector_input_dim", v.adapter_dim);
    }
    if (v.projector == ProjectorKind::Mistral3) lim("spatial_merge_size", v.merge);
    // Gemma 3: the projector's average pool (mm_tokens_per_image read as its kernel); 0: not given.
    if (v.projector == ProjectorKind::Gemma3 && v.merge != 0) {
      lim("vision_config.spatial_merge_size", v.merge);
      if (v.merge >= 1 && v.patch >= 1 && (v.image / v.patch) % v.merge != 0)
        out.push_back(relation_issue("vision_config.spatial_merge_size", Str::issue_must_divide, "image_size / patch_size",
                                     v.image / v.patch, v.merge));
    }
    if ((v.kind == VisionKind::Qwen35) != (v.projector == ProjectorKind::Qwen35) ||
        (v.kind == VisionKind::Qwen25) != (v.projector == ProjectorKind::Qwen25) ||
        (v.kind == VisionKind::Pixtral) != (v.projector == ProjectorKind::Mistral3) ||
        (v.kind == VisionKind::MoonVit) != (v.projector == ProjectorKind::KimiVl) ||
        (v.kind == VisionKind::Gemma4) != (v.projector == ProjectorKind::Gemma4))
      out.push_back({"vision_config", "the qwen3_5, qwen2_5_vl, pixtral, moonvit and gemma4_vision towers go with their own projectors "
                                      "(qwen3_5_merger, qwen2_5_vl_merger, mistral3, kimi_vl, gemma4_embedder)"});
    if (v.projector == ProjectorKind::None)
      out.push_back({"vision_config", "a vision tower needs a projector into the language model (mlp2, gemma3, llama4, qwen3_5_merger, qwen2_5_vl_merger, mistral3, kimi_vl or gemma4_embedder)"});
    if (v.standardize && v.kind != VisionKind::Gemma4)
      out.push_back({"vision_config.standardize", "only the gemma4_vision tower standardizes its output"});
  }
  const RealLimit& rot = *find_real_limit("partial_rotary_factor");
  if (c.pos == PosKind::Rotary && !(c.rotary_fraction > rot.min && c.rotary_fraction <= rot.max))
    out.push_back({"partial_rotary_factor", "must be in (" + format_real(rot.min) + ", " + format_real(rot.max) + "]"});
  if (!(std::isfinite(c.rope_theta) && c.rope_theta > 0.0))
    out.push_back({"rope_theta", "must be a positive finite number"});
  // Reference-transformer factors: each in its row's (min, max]; where 0 means "off" or "the default", 0 too
  // (Llama 4's temperature: floor_scale 0 turns it off).
  const std::tuple<const char*, double, bool> factors[] = {
      {"floor_scale", c.attn_floor_scale, true},            {"attn_scale", c.attn_temp_scale, true},
      {"routed_scaling_factor", c.moe.routed_scale, false}, {"embedding_multiplier", c.embed_mult, false},
      {"residual_multiplier", c.residual_mult, false},      {"attention_multiplier", c.attn_mult, true},
      {"logits_scaling", c.logits_div, false},              {"time_step_min", c.mamba.dt_floor, true},
      {"attention_in_multiplier", c.mup.attn_in, false},    {"key_multiplier", c.mup.key, false},
      {"attention_out_multiplier", c.mup.attn_out, false},  {"ssm_in_multiplier", c.mup.ssm_in, false},
      {"ssm_out_multiplier", c.mup.ssm_out, false},         {"ssm_multipliers[0]", c.mup.ssm[0], false},
      {"ssm_multipliers[1]", c.mup.ssm[1], false},          {"ssm_multipliers[2]", c.mup.ssm[2], false},
      {"ssm_multipliers[3]", c.mup.ssm[3], false},          {"ssm_multipliers[4]", c.mup.ssm[4], false},
      {"mlp_multipliers[0]", c.mup.mlp_gate, false},        {"mlp_multipliers[1]", c.mup.mlp_down, false},
      {"lm_head_multiplier", c.mup.lm_head, false}};
  for (const auto& [name, v, zero_ok] : factors) {
    const RealLimit& l = *find_real_limit(name);
    if (!(std::isfinite(v) && ((v > l.min && v <= l.max) || (zero_ok && v == 0.0))))
      out.push_back(issue(name, [lo = format_real(l.min), hi = format_real(l.max), got = format_real(v), zero = zero_ok](Lang lang) {
        const std::string range = printf_text(tr(zero ? Str::allow_real_or_zero_plain : Str::allow_real, lang), lo.c_str(), hi.c_str());
        return printf_text(tr(Str::issue_must_be_got, lang), range.c_str(), got.c_str());
      }));
  }
  lim("position_offset", c.pos_offset);
  return out;
}

bool hf_llama_decoder(const ModelConfig& c) {
  const bool family = c.family == Family::Llama || c.family == Family::Mistral || c.family == Family::Qwen2;
  return family && c.norm == NormKind::RmsNorm && c.ffn_kind == FfnKind::Gated && c.act == Activation::Silu && !c.parallel_block &&
         c.norm_ffn_input && c.norm_pre && c.norm_final && !c.norm_sandwich && !c.norm_qk && !c.norm_v && !c.norm_embed &&
         !c.attn_sinks && !c.attn_out_gate && (!c.bias_qkv || c.family == Family::Qwen2) && !c.bias_o && !c.bias_ffn &&
         !c.bias_lm_head && !c.is_moe() && !c.mla.enabled && c.block_pattern.empty() && !c.varies_by_layer() &&
         c.vision.kind == VisionKind::None && c.pos == PosKind::Rotary && c.rotary_fraction == 1.0 && c.embed_mult == 1.0 &&
         c.residual_mult == 1.0 && c.logits_div == 1.0 && c.attn_mult == 0.0 && !c.qk_l2norm && c.ple_dim == 0 &&
         c.embed_proj_dim == 0 && c.short_conv == 0 && !c.window_chunked && c.sliding_pattern == 1 && c.head_dim * c.n_heads > 0 &&
         c.n_layers >= 1;
}

std::string_view family_id(Family f) { return name_at(kFamilyNames, static_cast<size_t>(f)); }
std::string_view to_string(FfnKind k) { return name_at(kFfnKindNames, static_cast<size_t>(k)); }
std::string_view to_string(Activation a) { return name_at(kActivationNames, static_cast<size_t>(a)); }
std::string_view to_string(PosKind p) { return name_at(kPosKindNames, static_cast<size_t>(p)); }
std::string_view to_string(NormKind n) { return name_at(kNormKindNames, static_cast<size_t>(n)); }
std::string_view to_string(VisionKind k) { return name_at(kVisionKindNames, static_cast<size_t>(k)); }

}  // namespace llmsize::core
