// The family table of the config.json importer (see hf_families.hpp): one row per Hugging
// Face model family, with the class defaults of its configuration_*.py for absent keys.
// Adding a family is a row here plus its tensor names in inventory.cpp.
#include "hf_families.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <utility>

namespace llmsize::core::hf {

namespace {

// Falcon's two layouts. new_decoder_architecture (40B, 180B; the default of the RefinedWeb
// spelling) is a parallel block with K from num_kv_heads and, by default, two norms
// (ln_attn, ln_mlp); the older layout (7B) is multi_query and parallel_attn with one norm.
void falcon_layout(Reader& r, ModelConfig& c, std::string_view model_type) {
  const bool new_arch = r.boolean({"new_decoder_architecture"}, model_type == "RefinedWeb");
  if (new_arch) {
    c.parallel_block = true;
    c.norm_ffn_input = r.integer("num_ln_in_parallel_attn", {"num_ln_in_parallel_attn"}, 2) == 2;
  } else {
    c.parallel_block = r.boolean({"parallel_attn"}, true);
    c.norm_ffn_input = !c.parallel_block;
    if (r.boolean({"multi_query"}, true)) c.n_kv_heads = 1;
    else if (!r.has("num_kv_heads") && !r.has("n_head_kv")) c.n_kv_heads = c.n_heads;
  }
}

// OPT: word_embed_proj_dim ≠ d adds project_in/out (OPT-350m); the final norm exists only
// for pre-norm models that keep it; norms without affine weights are not modelled.
void opt_projection_and_norms(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  if (!r.boolean({"layer_norm_elementwise_affine"}, true))
    r.issues.push_back(issue_row(r.prefix() + "layer_norm_elementwise_affine", Str::imp_fam_false_only_true));
  const i64 proj = r.integer("word_embed_proj_dim", {"word_embed_proj_dim"}, c.d_model);
  c.embed_proj_dim = proj == c.d_model ? 0 : proj;
  c.norm_final = r.boolean({"do_layer_norm_before"}, true) && !r.boolean({"_remove_final_layer_norm"}, false);
}

// GPT-1 (modeling_openai.py: OpenAIGPTModel, Block): LayerNorms after each residual add and no
// final norm; its ACT_FNS maps afn "gelu" to gelu_new (tanh). n_special (older releases) once
// added embedding rows that OpenAIGPTModel no longer has: only 0 is read.
void openai_gpt_block(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.norm_final = false;
  const std::string afn = r.str({"afn"}, "gelu");  // ref: OpenAIGPTConfig afn
  if (afn == "gelu") c.act = Activation::GeluTanh;
  else if (afn == "relu") c.act = Activation::Relu;
  else if (afn == "silu" || afn == "swish") c.act = Activation::Silu;
  else r.issues.push_back(issue_row(r.prefix() + "afn", Str::imp_fam_afn, afn.substr(0, 40)));
  if (const i64 n = r.integer("n_special", {"n_special"}, 0); n != 0)
    r.issues.push_back(issue_row(r.key_for("n_special"), Str::imp_fam_n_special, std::to_string(n)));
}

// OLMo-2 (modeling_olmo2.py Olmo2DecoderLayer): RMSNorms on the outputs of attention and MLP
// only (post_attention_layernorm, post_feedforward_layernorm), and q/k norms over all heads.
void olmo2_norms(Reader& /*r*/, ModelConfig& c, std::string_view /*model_type*/) {
  c.norm_pre = false;
  c.norm_qk_full = true;
}

// Llama 4 (configuration_llama4.py Llama4TextConfig, modeling_llama4.py): layers whose
// no_rope_layers entry is 1 use RoPE and attend within chunks of attention_chunk_size tokens; the
// others (every no_rope_layer_interval-th by default) attend to every token without RoPE. MoE
// layers are moe_layers, by default every interleave_moe_layer_step-th; an explicit list must
// follow that step. The q/k norm is a parameter-free L2 norm.
void llama4_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.window_chunked = true;
  c.sliding_window = r.integer("attention_chunk_size", {"attention_chunk_size"}, 8192);
  const i64 interval = r.integer("no_rope_layer_interval", {"no_rope_layer_interval"}, 4);
  c.sliding_pattern = interval;
  std::string key;
  if (const json* v = r.find({"no_rope_layers"}, nullptr, &key); v && !(v->is_array() && v->empty())) {
    // 1: RoPE, chunked; 0: NoPE, full. The plan's pattern: layer i full iff (i + 1) % n == 0.
    bool ok = v->is_array() && static_cast<i64>(v->size()) == c.n_layers;
    i64 n = 0;
    for (size_t i = 0; ok && i < v->size(); ++i) {
      const json& e = (*v)[i];
      ok = e.is_number_integer() && (e.get<i64>() == 0 || e.get<i64>() == 1);
      if (ok && e.get<i64>() == 0 && n == 0) n = static_cast<i64>(i) + 1;
    }
    for (size_t i = 0; ok && i < v->size(); ++i)
      ok = ((*v)[i].get<i64>() == 0) == (n > 0 && (static_cast<i64>(i) + 1) % n == 0);
    if (!ok)
      r.issues.push_back(issue_row(key, Str::imp_fam_no_rope_layers, std::to_string(c.n_layers)));
    else if (n == 0)
      c.sliding_pattern = 1;  // every layer chunked
    else
      c.sliding_pattern = n;
  }
  // For the reference transformer (model.hpp): adjacent rotary pairs, NoPE full layers with the
  // temperature tuning of their queries (Llama4TextConfig defaults: floor_scale 8192, attn_scale 0.1;
  // Scout's config writes attn_temperature_tuning as 4, which Python reads as true), the weightless
  // q/k norm of use_qk_norm (default true; Maverick: false), and inputs scaled by the router.
  c.rope_interleaved = true;
  c.nope_full = true;
  c.qk_l2norm = r.boolean({"use_qk_norm"}, true);
  bool tuning = true;
  if (const json* v = r.find({"attn_temperature_tuning"}, nullptr, &key)) {
    if (v->is_boolean()) tuning = v->get<bool>();
    else if (v->is_number()) tuning = v->get<double>() != 0.0;
    else r.issues.push_back(issue_row(key, Str::imp_fam_bool_or_number, json_util::type_row(*v)));
  }
  c.attn_floor_scale = tuning ? r.number("floor_scale", {"floor_scale"}, 8192.0) : 0.0;
  c.attn_temp_scale = tuning ? r.number("attn_scale", {"attn_scale"}, 0.1) : 0.0;
  c.moe.scale_input = true;
  // ref: Llama4TextConfig: moe_layers = range(step − 1, L, step) unless given.
  if (c.is_moe()) {
    const std::vector<i64> listed = r.int_list("moe_layers", "moe_layers");
    if (r.has("moe_layers")) {
      bool same = true;
      std::vector<i64> expect;
      for (i64 l = c.moe.phase; l < c.n_layers; l += c.moe.freq) expect.push_back(l);
      same = listed == expect;
      if (!same)
        r.issues.push_back(issue_row(r.prefix() + "moe_layers", Str::imp_fam_moe_layers, std::to_string(c.moe.freq)));
    }
  }
}

// Nemotron-H (modeling_nemotron_h.py NemotronHBlock): one block per layer from
// hybrid_override_pattern ('M' Mamba-2, '*' attention without positions, '-' a relu² MLP,
// 'E' MoE, refused by validate()), each after one RMSNorm.
void nemotron_h_blocks(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  // ref: NemotronHConfig defaults (configuration_nemotron_h.py)
  c.block_pattern = r.str({"hybrid_override_pattern"}, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-");
  auto& m = c.mamba;
  m.heads = r.integer("mamba_num_heads", {"mamba_num_heads", "mamba_n_heads"}, 128);
  m.head_dim = r.integer("mamba_head_dim", {"mamba_head_dim"}, 64);
  m.state = r.integer("ssm_state_size", {"ssm_state_size", "mamba_d_state", "mamba_state_dim"}, 128);
  m.groups = r.integer("n_groups", {"n_groups", "mamba_n_groups", "mamba_num_groups"}, 8);
  m.conv_kernel = r.integer("conv_kernel", {"conv_kernel", "mamba_d_conv"}, 4);
  m.chunk = r.integer("chunk_size", {"chunk_size"}, 128);
  m.conv_bias = r.boolean({"use_conv_bias"}, true);
  m.proj_bias = r.boolean({"use_bias"}, false);
  // ref: NemotronHMamba2Mixer.torch_forward: dt = torch.clamp(dt, self.time_step_min) (reference transformer).
  m.dt_floor = r.number("time_step_min", {"time_step_min"}, 0.001);
  // The SSM state's dtype vLLM's NemotronH hook reads (models/config.py
  // NemotronHForCausalLMConfig); Nemotron 3 Nano's config sets float32, Nano 9B v2's has none.
  read_state_dtype(r, "mamba_ssm_cache_dtype", m.ssm_cache_dtype);
}

// Nemotron-H's experts ('E' blocks; ref: modeling_nemotron_h.py NemotronHMoE): relu² routed experts of
// moe_intermediate_size and one shared expert of moe_shared_expert_intermediate_size (the class does not
// multiply it by n_shared_experts). A pattern without 'E' uses no expert: the keys change nothing.
// LatentMoE (moe_latent_size, Nemotron 3 Super) is refused by name.
void nemotron_h_experts(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  if (const json* v = r.find({"moe_latent_size"}, nullptr, nullptr); v && !v->is_null())
    r.issues.push_back(issue_row(r.prefix() + "moe_latent_size", Str::imp_fam_latent_moe));
  if (c.block_pattern.find('E') == std::string::npos) c.moe = MoeConfig{};
}

// The dt floor of a Mamba-2 mixer that clamps dt to time_step_limit (BambaMixer, FalconH1Mixer
// torch_forward: torch.clamp(dt, *time_step_limit), default (0.0, inf)): its lower bound.
void read_dt_floor(Reader& r, Mamba2Config& m) {
  std::string key;
  if (const json* v = r.find({"time_step_limit"}, nullptr, &key)) {
    if (v->is_array() && !v->empty() && (*v)[0].is_number()) m.dt_floor = (*v)[0].get<double>();
    else r.issues.push_back(issue_row(key, Str::imp_fam_two_numbers, json_util::type_row(*v)));
  }
}

// For the reference transformer: GraniteModel / GraniteDecoderLayer / GraniteAttention /
// GraniteForCausalLM (and their GraniteMoeHybrid twins) scale the embeddings, each block's output,
// the attention scores and the logits (GraniteConfig, GraniteMoeHybridConfig: 1.0 each).
void granite_scales(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.embed_mult = r.number("embedding_multiplier", {"embedding_multiplier"}, 1.0);
  c.residual_mult = r.number("residual_multiplier", {"residual_multiplier"}, 1.0);
  c.attn_mult = r.number("attention_multiplier", {"attention_multiplier"}, 1.0);
  c.logits_div = r.number("logits_scaling", {"logits_scaling"}, 1.0);
}

// Granite-4.0-H (configuration_granitemoehybrid.py, modeling_granitemoehybrid.py): every layer is
// a Mamba-2 mixer (BambaMixer) or attention, named by layer_types (or layers_block_type), then the
// MoE (routed experts + shared_mlp) or, with no experts, shared_mlp alone; fused gate‖up matrices;
// positions "nope" (none) or rotary.
void granite_layers(Reader& r, ModelConfig& c, std::string_view model_type) {
  const size_t issues = r.issues.size();
  std::string key;
  const auto pattern = layer_kinds(r, c.n_layers, {"layer_types", "layers_block_type"}, {{"mamba", 'M'}, {"attention", '*'}});
  if (!pattern) {
    if (r.issues.size() == issues)  // absent, not refused
      r.issues.push_back(issue_row(r.prefix() + "layer_types", Str::imp_fam_granite_layer_types, std::to_string(c.n_layers)));
    return;
  }
  c.block_pattern = *pattern;
  c.block_ffn = true;
  c.fused_gate_up = true;
  const std::string pos = r.str({"position_embedding_type"}, "nope");
  if (pos == "nope") c.pos = PosKind::None;
  else if (pos != "rope")
    r.issues.push_back(issue_row(r.prefix() + "position_embedding_type", Str::imp_fam_pos_type, pos.substr(0, 40)));
  // ref: GraniteMoeHybridConfig defaults
  auto& m = c.mamba;
  m.heads = r.integer("mamba_num_heads", {"mamba_n_heads"}, 128);
  m.head_dim = r.integer("mamba_head_dim", {"mamba_d_head"}, 64);
  m.state = r.integer("ssm_state_size", {"mamba_d_state"}, 256);
  m.groups = r.integer("n_groups", {"mamba_n_groups"}, 1);
  m.conv_kernel = r.integer("conv_kernel", {"mamba_d_conv"}, 4);
  m.chunk = r.integer("chunk_size", {"mamba_chunk_size"}, 256);
  m.conv_bias = r.boolean({"mamba_conv_bias"}, true);
  m.proj_bias = r.boolean({"mamba_proj_bias"}, false);
  // For the reference transformer: BambaMixer clamps dt at time_step_limit[0] (default (0.0, inf)).
  read_dt_floor(r, m);
  granite_scales(r, c, model_type);
  // ref: BambaMixer: intermediate_size = mamba_expand · hidden_size must equal heads · head_dim.
  if (const i64 expand = r.integer("mamba_expand", {"mamba_expand"}, 2); expand * c.d_model != m.heads * m.head_dim)
    r.issues.push_back(issue_row(r.prefix() + "mamba_d_head", Str::imp_fam_mamba_expand, std::to_string(m.heads * m.head_dim),
                                 std::to_string(expand * c.d_model)));
}

// GPTBigCode (StarCoder, SantaCoder): multi_query (default true) keeps one K/V head.
void bigcode_mqa(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.n_kv_heads = r.boolean({"multi_query"}, true) ? 1 : c.n_heads;  // ref: GPTBigCodeConfig multi_query
}

// LFM2 (configuration_lfm2.py, modeling_lfm2.py): every layer is a short convolution or
// attention (layer_types "conv" / "full_attention", or the older full_attn_idxs), then the
// SwiGLU MLP, whose width Lfm2MLP derives from block_ff_dim.
void lfm2_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  std::string pattern(static_cast<size_t>(std::clamp<i64>(c.n_layers, 0, 10000)), 'C');
  if (r.has("layer_types")) {
    auto kinds = layer_kinds(r, c.n_layers, {"layer_types"}, {{"conv", 'C'}, {"full_attention", '*'}});
    if (!kinds) return;
    pattern = *kinds;
  } else {
    const std::vector<i64> full = r.int_list("full_attn_idxs", "full_attn_idxs");
    if (!r.has("full_attn_idxs")) {
      r.issues.push_back(issue_row(r.prefix() + "layer_types", Str::imp_fam_lfm2_layer_types));
      return;
    }
    for (i64 i : full) {
      if (i < 0 || i >= c.n_layers) {
        r.issues.push_back(issue_row(r.prefix() + "full_attn_idxs", Str::imp_fam_attn_idx, std::to_string(c.n_layers - 1),
                                     std::to_string(i)));
        return;
      }
      pattern[static_cast<size_t>(i)] = '*';
    }
  }
  c.block_pattern = pattern;
  c.block_ffn = true;
  c.short_conv = r.integer("conv_L_cache", {"conv_L_cache"}, 3);  // ref: Lfm2Config
  c.short_conv_bias = r.boolean({"conv_bias"}, false);
  // ref: Lfm2Config (intermediate_size = block_ff_dim) and Lfm2MLP: f = int(2·f / 3) when
  // block_auto_adjust_ff_dim; f = int(block_ffn_dim_multiplier · f); f rounded up to block_multiple_of.
  i64 f = r.integer("intermediate_size", {"block_ff_dim", "intermediate_size"}, 12288);
  if (r.boolean({"block_auto_adjust_ff_dim"}, true)) {
    f = static_cast<i64>(2.0 * static_cast<double>(f) / 3.0);
    const double mult = r.number("block_ffn_dim_multiplier", {"block_ffn_dim_multiplier"}, 1.0);
    f = static_cast<i64>(mult * static_cast<double>(f));
    const i64 multiple = r.integer("block_multiple_of", {"block_multiple_of"}, 256);
    if (multiple < 1 || multiple > 65536)
      r.issues.push_back(issue_row(r.prefix() + "block_multiple_of", Str::imp_fam_multiple_of, std::to_string(multiple)));
    else
      f = ceil_div(f, multiple) * multiple;
  }
  c.d_ff = f;
}

// ERNIE 4.5 MoE (configuration_ernie4_5_moe.py, modeling_ernie4_5_moe.py): layer i is MoE iff
// moe_layer_start_index <= i <= moe_layer_end_index (-1: the last layer) and (i + 1) %
// moe_layer_interval == 0; each MoE block keeps the router's correction bias as a parameter
// (Ernie4_5_MoeStatics, 1 × E); use_bias also gives lm_head a bias. The checkpoints' MTP block
// (mtp_block, mtp_linear_proj) is not built by the model (_keys_to_ignore_on_load_unexpected "mtp").
void ernie_moe(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.bias_lm_head = c.bias_qkv;
  if (!c.is_moe()) return;
  c.moe.router_correction_bias = true;
  const i64 end = r.integer("moe_layer_end_index", {"moe_layer_end_index"}, -1);
  if (end == -1) return;
  if (end < c.moe.first_dense || end >= c.n_layers) {
    r.issues.push_back(issue_row(r.prefix() + "moe_layer_end_index", Str::imp_fam_moe_end, std::to_string(c.n_layers - 1),
                                 std::to_string(end)));
    return;
  }
  for (i64 l = end + 1; l < c.n_layers; ++l) c.moe.dense_layers.push_back(l);
}

// MiniMax-M2 (modeling_minimax_m2.py MiniMaxM2Attention): attn_type_list names each layer's
// attention; 1 (softmax) is the only kind the model builds, so another value is refused.
// MiniMaxM2SparseMoeBlock keeps e_score_correction_bias whatever use_routing_bias says.
void minimax_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.norm_qk_full = true;  // q_norm over H·hd and k_norm over K·hd, before the heads split
  c.moe.router_correction_bias = c.is_moe();
  const std::vector<i64> kinds = r.int_list("attn_type_list", "attn_type_list");
  if (!r.has("attn_type_list")) return;
  if (static_cast<i64>(kinds.size()) != c.n_layers ||
      std::any_of(kinds.begin(), kinds.end(), [](i64 k) { return k != 1; }))
    r.issues.push_back(issue_row(r.prefix() + "attn_type_list", Str::imp_fam_attn_type_list, std::to_string(c.n_layers)));
}

// Jamba (configuration_jamba.py, modeling_jamba.py): layer i is attention iff i % attn_layer_period
// == attn_layer_offset, else a Mamba-1 mixer ('S'); each layer then has its FFN, MoE iff i %
// expert_layer_period == expert_layer_offset; attention without positions (no RoPE), no biases.
void jamba_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  const i64 period = r.integer("attn_layer_period", {"attn_layer_period"}, 8);  // ref: JambaConfig
  const i64 offset = r.integer("attn_layer_offset", {"attn_layer_offset"}, 4);
  if (period < 1 || offset < 0 || offset >= period) {
    r.issues.push_back(issue_row(r.prefix() + "attn_layer_offset", Str::imp_fam_attn_offset, std::to_string(offset), std::to_string(period)));
    return;
  }
  std::string pattern(static_cast<size_t>(std::clamp<i64>(c.n_layers, 0, 10000)), 'S');
  for (i64 l = offset; l < static_cast<i64>(pattern.size()); l += period) pattern[static_cast<size_t>(l)] = '*';
  c.block_pattern = pattern;
  c.block_ffn = true;
  c.pos = PosKind::None;
  auto& m = c.mamba1;
  m.expand = r.integer("mamba_expand", {"mamba_expand"}, 2);
  m.state = r.integer("mamba_d_state", {"mamba_d_state"}, 16);
  m.conv_kernel = r.integer("mamba_d_conv", {"mamba_d_conv"}, 4);
  m.conv_bias = r.boolean({"mamba_conv_bias"}, true);
  m.proj_bias = r.boolean({"mamba_proj_bias"}, false);
  m.inner_norms = true;  // JambaMambaMixer builds dt_layernorm, b_layernorm, c_layernorm whatever use_mamba_kernels says
  // ref: JambaConfig: mamba_dt_rank "auto" = ceil(hidden_size / 16).
  std::string key;
  if (const json* v = r.find({"mamba_dt_rank"}, nullptr, &key); v && v->is_string() && v->get<std::string>() == "auto")
    m.dt_rank = ceil_div(c.d_model, 16);
  else if (v && !v->is_null())
    m.dt_rank = json_util::to_int(*v, key, r.issues).value_or(0);
  else
    m.dt_rank = ceil_div(c.d_model, 16);
}

// Jamba's experts: expert_layer_offset places the MoE layers within each period.
// JambaDecoderLayer builds JambaSparseMoeBlock only where layers_num_experts > 1: one expert is a dense MLP.
void jamba_experts(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  if (c.moe.num_experts == 1) c.moe = MoeConfig{};
  if (!c.is_moe()) return;
  c.moe.freq = r.integer("expert_layer_period", {"expert_layer_period"}, 2);  // ref: JambaConfig
  c.moe.phase = r.integer("expert_layer_offset", {"expert_layer_offset"}, 1);
  if (c.moe.phase < 0 || c.moe.phase >= c.moe.freq)
    r.issues.push_back(issue_row(r.prefix() + "expert_layer_offset", Str::imp_fam_expert_offset, std::to_string(c.moe.freq - 1),
                                 std::to_string(c.moe.phase)));
}

// Falcon-H1 (configuration_falcon_h1.py, modeling_falcon_h1.py): every layer runs attention and a
// Mamba-2 mixer side by side on the same normed input ('P'), then the MLP; the μP multipliers are
// plain numbers, not parameters. The mixer's width is mamba_d_ssm (the class's 1024 when absent,
// mamba_expand · hidden_size when null), split into mamba_n_heads heads of mamba_d_head ("auto":
// the quotient, which must be exact).
void falcon_h1_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  c.block_pattern.assign(static_cast<size_t>(std::clamp<i64>(c.n_layers, 0, 10000)), 'P');
  c.block_ffn = true;
  if (const json* v = r.find({"attn_layer_indices"}, nullptr, nullptr); v && !v->is_null())
    r.issues.push_back(issue_row(r.prefix() + "attn_layer_indices", Str::imp_fam_attn_indices));
  for (const char* k : {"mamba_proj_bias", "projectors_bias"})
    if (r.boolean({k}, false))
      r.issues.push_back(issue_row(r.prefix() + k, Str::imp_fam_proj_bias));
  auto& m = c.mamba;
  const i64 expand = r.integer("mamba_expand", {"mamba_expand"}, 2);  // ref: FalconH1Config defaults
  i64 d_ssm = 1024;
  std::string key;
  if (const json* v = r.find({"mamba_d_ssm"}, "mamba_d_ssm", &key))
    d_ssm = v->is_null() ? expand * c.d_model : json_util::to_int(*v, key, r.issues).value_or(0);
  m.heads = r.integer("mamba_num_heads", {"mamba_n_heads"}, 128);
  if (const json* v = r.find({"mamba_d_head"}, "mamba_d_head", &key); v && !(v->is_string() && v->get<std::string>() == "auto"))
    m.head_dim = json_util::to_int(*v, key, r.issues).value_or(0);
  else
    m.head_dim = m.heads > 0 ? d_ssm / m.heads : 0;
  if (m.heads * m.head_dim != d_ssm)
    r.issues.push_back(issue_row(r.prefix() + "mamba_d_head", Str::imp_fam_mamba_d_ssm, std::to_string(m.heads * m.head_dim),
                                 std::to_string(d_ssm)));
  m.state = r.integer("ssm_state_size", {"mamba_d_state"}, 256);
  m.groups = r.integer("n_groups", {"mamba_n_groups"}, 1);
  m.conv_kernel = r.integer("conv_kernel", {"mamba_d_conv"}, 4);
  m.chunk = r.integer("chunk_size", {"mamba_chunk_size"}, 256);
  m.conv_bias = r.boolean({"mamba_conv_bias"}, true);
  m.gated_norm = r.boolean({"mamba_rms_norm"}, false);
  m.norm_before_gate = r.boolean({"mamba_norm_before_gate"}, true);  // FalconH1Config default
  read_dt_floor(r, m);
  // μP multipliers (FalconH1Config: 1.0 each; null ssm_multipliers / mlp_multipliers: all 1.0).
  auto& u = c.mup;
  const std::pair<const char*, double*> scalars[] = {
      {"embedding_multiplier", &c.embed_mult}, {"attention_in_multiplier", &u.attn_in}, {"key_multiplier", &u.key},
      {"attention_out_multiplier", &u.attn_out}, {"ssm_in_multiplier", &u.ssm_in}, {"ssm_out_multiplier", &u.ssm_out},
      {"lm_head_multiplier", &u.lm_head}};
  for (const auto& [name, value] : scalars) *value = r.number(name, {name}, 1.0);
  auto numbers = [&](const char* name, std::span<double> out) {
    std::string at;
    const json* v = r.find({name}, name, &at);
    if (!v || v->is_null()) return;
    const bool ok = v->is_array() && v->size() == out.size() &&
                    std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_number(); });
    if (!ok) {
      r.issues.push_back(issue_row(at, Str::imp_fam_numbers, std::to_string(out.size())));
      return;
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] = (*v)[i].get<double>();
  };
  numbers("ssm_multipliers", u.ssm);
  std::array<double, 2> mlp{1.0, 1.0};
  numbers("mlp_multipliers", mlp);
  u.mlp_gate = mlp[0], u.mlp_down = mlp[1];
}

// Llama-Nemotron NAS models (DeciLM, model_type nemotron-nas; ref: vLLM nemotron_nas.py
// DeciLMDecoderLayer, _ffn_mult_to_intermediate_size): block_configs gives each layer's attention
// (n_heads_in_group → K = heads / n_heads_in_group, or no_op) and FFN (ffn_mult → width
// int(2 · ffn_mult · hidden / 3) rounded up to a multiple of 256, or no_op). Linear replacements,
// sparsified blocks, windows and sink tokens are refused by name.
void nas_blocks(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  std::string key;
  const json* blocks = r.find({"block_configs"}, "block_configs", &key);
  if (!blocks || !blocks->is_array() || static_cast<i64>(blocks->size()) != c.n_layers) {
    r.issues.push_back(issue_row(r.prefix() + "block_configs", Str::imp_fam_block_configs, std::to_string(c.n_layers)));
    return;
  }
  std::vector<i64> kv, ffn;
  for (size_t i = 0; i < blocks->size(); ++i) {
    const std::string at = r.prefix() + "block_configs[" + std::to_string(i) + "]";
    const json& b = (*blocks)[i];
    const json* attn = b.is_object() && b.contains("attention") ? &b["attention"] : nullptr;
    const json* mlp = b.is_object() && b.contains("ffn") ? &b["ffn"] : nullptr;
    if (!attn || !attn->is_object() || !mlp || !mlp->is_object()) {
      r.issues.push_back(issue_row(at, Str::imp_fam_block_object));
      return;
    }
    auto on = [](const json& o, const char* k) { return o.contains(k) && o[k].is_boolean() && o[k].get<bool>(); };
    auto set = [](const json& o, const char* k) { return o.contains(k) && !o[k].is_null() && !(o[k].is_boolean() && !o[k].get<bool>()); };
    for (const char* k : {"replace_with_linear", "sparsify", "num_sink_tokens", "window_length", "unshifted_sink",
                          "use_prefill_window_in_sink_attention"})
      if (set(*attn, k)) {
        r.issues.push_back(issue_row(at + ".attention." + k, Str::imp_fam_null_or_false));
        return;
      }
    for (const char* k : {"replace_with_linear", "sparsify"})
      if (set(*mlp, k)) {
        r.issues.push_back(issue_row(at + ".ffn." + k, Str::imp_fam_null_or_false));
        return;
      }
    if (on(*attn, "no_op")) {
      kv.push_back(0);
    } else {
      const json* g = attn->contains("n_heads_in_group") ? &(*attn)["n_heads_in_group"] : nullptr;
      const auto group = g ? json_util::to_int(*g, at + ".attention.n_heads_in_group", r.issues) : std::nullopt;
      if (!group || *group < 1 || c.n_heads % *group != 0) {
        if (group)
          r.issues.push_back(issue_row(at + ".attention.n_heads_in_group", Str::imp_fam_heads_in_group, std::to_string(c.n_heads)));
        else if (!g)
          r.issues.push_back(issue_row(at + ".attention.n_heads_in_group", Str::imp_fam_group_required));
        return;
      }
      kv.push_back(c.n_heads / *group);
    }
    if (on(*mlp, "no_op")) {
      ffn.push_back(0);
    } else {
      const json* m = mlp->contains("ffn_mult") ? &(*mlp)["ffn_mult"] : nullptr;
      if (!m || !m->is_number() || !(m->get<double>() > 0) || m->get<double>() > 1024) {
        r.issues.push_back(issue_row(at + ".ffn.ffn_mult", Str::imp_fam_ffn_mult));
        return;
      }
      const auto width = static_cast<i64>(2.0 * m->get<double>() * static_cast<double>(c.d_model) / 3.0);
      ffn.push_back(ceil_div(width, 256) * 256);
    }
  }
  c.layer_kv_heads = std::move(kv);
  c.layer_ffn = std::move(ffn);
  c.n_kv_heads = *std::max_element(c.layer_kv_heads.begin(), c.layer_kv_heads.end());
  if (c.n_kv_heads == 0) c.n_kv_heads = c.n_heads;  // no layer attends: any valid K
  c.d_ff = c.widest_ffn();
}

// Gemma 4 (configuration_gemma4.py Gemma4TextConfig, modeling_gemma4.py): full layers use
// global_head_dim (512 when absent) and, only under attention_k_eq_v, num_global_key_value_heads;
// the last num_kv_shared_layers layers read an earlier layer's cache; use_double_wide_mlp doubles
// those layers' FFN; hidden_size_per_layer_input (256 when absent) adds the per-layer embeddings.
// The class forces the last layer to full attention and halves the window (+1) under
// use_bidirectional_attention "all". enable_moe_block (26B-A4B) gives every layer num_experts
// experts of moe_intermediate_size, top_k_experts a token, beside its dense MLP (MoeConfig::
// dense_beside); Gemma4TextConfig defaults the three to None, so each is required then. The newer
// per_layer_config spelling is refused by name.
void gemma4_layers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  if (r.boolean({"enable_moe_block"}, false)) {
    auto& m = c.moe;
    const char* keys[] = {"num_experts", "top_k_experts", "moe_intermediate_size"};
    i64* into[] = {&m.num_experts, &m.top_k, &m.expert_ffn};
    for (int i = 0; i < 3; ++i) {
      const json* v = r.find({keys[i]}, nullptr, nullptr);
      if (!v || v->is_null()) {
        r.issues.push_back(issue_row(r.prefix() + keys[i], Str::imp_fam_gemma4_moe));
      } else if (const auto x = r.opt_int(keys[i], {keys[i]})) {  // else its type is named
        *into[i] = *x;
        if (i == 0 && *x < 1)
          r.issues.push_back(issue_row(r.key_for("num_experts"), Str::imp_hf_experts_min, "gemma4_text", std::to_string(*x)));
      }
    }
    m.shared_ffn = c.d_ff;  // Gemma4TextMLP: intermediate_size (doubled only in KV-shared layers, refused with experts)
    m.num_shared_experts = 1;
    m.dense_beside = true;
    m.norm_topk = true;  // Gemma4TextRouter: top_k_weights /= their sum
  }
  if (const json* v = r.find({"per_layer_config"}, nullptr, nullptr); v && !(v->is_null() || (v->is_object() && v->empty())))
    r.issues.push_back(issue_row(r.prefix() + "per_layer_config", Str::imp_fam_per_layer_config));
  c.k_eq_v = r.boolean({"attention_k_eq_v"}, false);
  // For the reference block: Gemma4TextAttention's scaling is 1.0 (q and k are RMS-normalized per
  // head), and v_norm normalizes each value head without a weight.
  c.attn_mult = 1.0;
  c.norm_v = true;
  c.global_head_dim = r.integer("global_head_dim", {"global_head_dim"}, 512);
  if (c.global_head_dim == c.head_dim) c.global_head_dim = 0;
  std::string key;
  if (const json* v = r.find({"num_global_key_value_heads"}, "num_global_key_value_heads", &key); v && !v->is_null())
    if (const auto k = json_util::to_int(*v, key, r.issues); k && c.k_eq_v && *k != c.n_kv_heads) c.global_kv_heads = *k;
  c.kv_shared = r.integer("num_kv_shared_layers", {"num_kv_shared_layers"}, 0);
  c.double_wide = r.boolean({"use_double_wide_mlp"}, false);
  c.ple_dim = r.integer("hidden_size_per_layer_input", {"hidden_size_per_layer_input"}, 256);
  if (const json* v = r.find({"hidden_size_per_layer_input"}, nullptr, nullptr); v && v->is_null()) c.ple_dim = 0;
  c.ple_vocab = c.ple_dim > 0 ? r.integer("vocab_size_per_layer_input", {"vocab_size_per_layer_input"}, 262144) : 0;
  if (r.str({"use_bidirectional_attention"}, "") == "all") c.sliding_window = c.sliding_window / 2 + 1;
  if (c.sliding_window > 0 && c.layer_slides(c.n_layers - 1))
    r.issues.push_back(issue_row(r.prefix() + "layer_types", Str::imp_fam_gemma4_last));
}

// GLM-5 (configuration_glm_moe_dsa.py GlmMoeDsaConfig.__post_init__): indexer_types gives each
// layer a "full" indexer or a "shared" one that reuses an earlier layer's top-k; absent, it is
// index_topk_pattern ("F"/"S" per layer) or, from index_topk_freq (1) and index_skip_topk_offset
// (2), "full" iff max(i − offset + 1, 0) % freq == 0. GLM-5 and 5.1 leave them out: every layer
// full. Shared layers hold no indexer (modular_glm_moe_dsa.py: indexer None when skip_topk; the
// GLM-5.2 checkpoint has 57 fewer), a per-layer indexer the count and the caches do not model yet:
// refused by name.
void glm_dsa_indexers(Reader& r, ModelConfig& c, std::string_view /*model_type*/) {
  std::string key;
  if (const auto kinds = hf::layer_kinds(r, c.n_layers, {"indexer_types"}, {{"full", 'f'}, {"shared", 's'}})) {
    if (kinds->find('s') != std::string::npos)
      r.issues.push_back(issue_row(r.key_for("indexer_types"), Str::imp_fam_glm_index_share));
    return;
  }
  if (const json* v = r.find({"index_topk_pattern"}, nullptr, &key); v && !v->is_null()) {
    const std::string pattern = v->is_string() ? v->get<std::string>() : std::string();
    if (!v->is_string() || static_cast<i64>(pattern.size()) != c.n_layers || pattern.find_first_not_of("FS") != std::string::npos)
      r.issues.push_back(issue_row(key, Str::imp_fam_glm_index_pattern, std::to_string(c.n_layers)));
    else if (pattern.find('S') != std::string::npos)
      r.issues.push_back(issue_row(key, Str::imp_fam_glm_index_share));
    return;
  }
  const i64 freq = r.integer("index_topk_freq", {"index_topk_freq"}, 1);
  const i64 offset = r.integer("index_skip_topk_offset", {"index_skip_topk_offset"}, 2);
  if (freq < 1) {
    r.issues.push_back(issue_row(r.key_for("index_topk_freq"), Str::imp_fam_glm_index_freq));
    return;
  }
  for (i64 i = 0; i < c.n_layers; ++i)
    if (std::max<i64>(i - offset + 1, 0) % freq != 0) {
      r.issues.push_back(issue_row(r.key_for("index_topk_freq"), Str::imp_fam_glm_index_share));
      return;
    }
}

// Shared pieces of rows. Numbers in rows are the class defaults of transformers'
// configuration_<model_type>.py, used only when config.json omits the key.
constexpr FfnRule kClassicFfn4d{.keys = {}, .absent = {.per_hidden = 4}, .kind = FfnKind::Classic};  // 4·d, fixed
constexpr FfnRule classic_ffn_4d(const char* key) {
  return {.keys = {key}, .absent = {.per_hidden = 4}, .kind = FfnKind::Classic};
}
constexpr ActRule gpt_act(const char* name_default, Activation unknown) {
  return {.keys = {"activation_function"}, .name_default = name_default, .unknown = unknown};
}
constexpr ActRule kGeluFixed{.keys = {}, .name_default = "gelu", .unknown = Activation::Gelu};
// Gemma: hidden_activation, when given, overrides the older hidden_act.
constexpr ActRule kGemmaAct{.keys = {"hidden_activation", "hidden_act"}, .name_default = "gelu_pytorch_tanh",
                            .unknown = Activation::GeluTanh};
constexpr RotaryRule kNoRotary{.keys = {}};
constexpr BiasRule kEveryBias{.attn = {nullptr, true}, .ffn = {nullptr, true}};
constexpr WindowRule kWindowUnlessOff{.read = true, .on = {"use_sliding_window", true}};
constexpr WindowRule kWindowIfOn{.read = true, .on = {"use_sliding_window", false}};

// Qwen MoE: layer i is MoE iff (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers.
constexpr MoeRule qwen_moe(i64 experts, i64 top_k, i64 expert_width) {
  return {.experts = {"num_experts"}, .experts_default = experts, .top_k_default = top_k,
          .expert_ffn_default = expert_width, .freq = {"decoder_sparse_step"}, .last_of_group = true,
          .dense_list = "mlp_only_layers"};
}
constexpr MoeRule qwen2_moe() {
  MoeRule m = qwen_moe(60, 4, 1408);  // ref: Qwen2MoeConfig defaults (configuration_qwen2_moe.py)
  m.shared = SharedExpert::GatedWidth;
  m.shared_keys = {"shared_expert_intermediate_size"};
  m.shared_default = 5632;  // ref: Qwen2MoeConfig shared_expert_intermediate_size
  return m;
}
// DeepSeek: layer i is MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0;
// n_routed_experts absent (null in V2's class) means dense MLPs.
constexpr MoeRule kDeepseekMoe{.experts = {"n_routed_experts"}, .shared = SharedExpert::Count,
                               .shared_keys = {"n_shared_experts"}, .first_dense = {"first_k_dense_replace"},
                               .freq = {"moe_layer_freq"}};
// DeepSeek-style experts with a config class's defaults for the keys config.json leaves out:
// routed experts, top-k, their width, shared experts, leading dense layers.
constexpr MoeRule deepseek_moe(i64 experts, i64 top_k, i64 width, i64 shared, i64 first_dense) {
  MoeRule m = kDeepseekMoe;
  m.experts_default = experts;
  m.top_k_default = top_k;
  m.expert_ffn_default = width;
  m.shared_default = shared;
  m.first_dense_default = first_dense;
  return m;
}

// ref: Qwen3_5TextConfig and Qwen3_5MoeTextConfig linear_* defaults (those of Qwen3NextConfig).
constexpr LinearRule kQwen35Linear{.read = true, .interval_default = 4, .k_heads_default = 16, .v_heads_default = 32,
                                   .k_dim_default = 128, .v_dim_default = 128, .conv_default = 4};

}  // namespace

const std::vector<FamilyRow>& family_rows() {
  static const std::vector<FamilyRow> rows = {
      {.family = Family::Gpt2, .model_types = {"gpt2"}, .tied = true,
       .positions_default = 1024,  // ref: GPT2Config n_positions
       .ffn = classic_ffn_4d("n_inner"), .act = gpt_act("gelu_new", Activation::GeluTanh),
       .pos = PosKind::Learned, .rotary = kNoRotary, .norm = NormKind::LayerNorm, .bias = kEveryBias,
       .fused_qkv = true},
      {.family = Family::GptJ, .model_types = {"gptj"}, .ffn = classic_ffn_4d("n_inner"),
       .act = gpt_act("gelu_new", Activation::GeluTanh), .rotary = {.keys = {"rotary_dim"}, .in_head_dims = true},
       .norm = NormKind::LayerNorm, .parallel = {nullptr, true}, .shared_norm = true,
       .bias = {.attn = {nullptr, false}, .ffn = {nullptr, true}, .lm_head = true}},
      {.family = Family::GptNeoX, .model_types = {"gpt_neox"}, .ffn = classic_ffn_4d("intermediate_size"),
       .act = {.keys = {"hidden_act"}, .name_default = "gelu", .unknown = Activation::Gelu},
       .rotary = {.keys = {"rotary_pct", "partial_rotary_factor"}, .fraction_default = 0.25},  // ref: GPTNeoXConfig
       .norm = NormKind::LayerNorm, .parallel = {"use_parallel_residual", true},
       .bias = {.attn = {"attention_bias", true}, .ffn = {nullptr, true}}, .fused_qkv = true},
      {.family = Family::Opt, .model_types = {"opt"}, .tied = true, .ffn = classic_ffn_4d("ffn_dim"),
       .act = gpt_act("relu", Activation::Relu), .pos = PosKind::Learned,
       .pos_offset = 2,  // ref: OPTLearnedPositionalEmbedding (modeling_opt.py) keeps 2 extra rows
       .rotary = kNoRotary, .norm = NormKind::LayerNorm,
       .bias = {.attn = {"enable_bias", true}, .one_switch = true}, .hook = opt_projection_and_norms},
      {.family = Family::Bloom, .model_types = {"bloom"}, .tied = true, .ffn = kClassicFfn4d,
       .act = {.keys = {}, .name_default = "gelu_pytorch_tanh", .unknown = Activation::GeluTanh},
       .pos = PosKind::Alibi, .rotary = kNoRotary, .norm = NormKind::LayerNorm, .bias = kEveryBias,
       .norm_embed = true, .fused_qkv = true},
      {.family = Family::Falcon, .model_types = {"falcon", "RefinedWeb", "RefinedWebModel"}, .tied = true,
       .ffn = classic_ffn_4d("ffn_hidden_size"), .act = kGeluFixed, .alibi = {"alibi", false},
       .rotary = kNoRotary, .norm = NormKind::LayerNorm, .bias = {.attn = {"bias", false}, .one_switch = true},
       .fused_qkv = true, .hook = falcon_layout},
      {.family = Family::Llama, .model_types = {"llama"}},
      {.family = Family::Mistral, .model_types = {"mistral"}, .window = kWindowUnlessOff},
      {.family = Family::Mixtral, .model_types = {"mixtral"}, .window = kWindowUnlessOff,
       .moe = {.experts = {"num_local_experts"}, .experts_default = 8, .top_k_default = 2,  // ref: MixtralConfig
               .expert_ffn = {}, .expert_ffn_default = kDenseWidth}},  // experts as wide as intermediate_size
      // Qwen2Attention has biases on q, k and v whatever the config says.
      {.family = Family::Qwen2, .model_types = {"qwen2"}, .bias = {.attn = {nullptr, true}, .o_unbiased = true},
       .window = kWindowIfOn},
      {.family = Family::Qwen2Moe, .model_types = {"qwen2_moe"},
       .bias = {.attn = {nullptr, true}, .o_unbiased = true}, .window = kWindowIfOn, .moe = qwen2_moe()},
      {.family = Family::Qwen3, .model_types = {"qwen3"}, .norm_qk = {nullptr, true},
       .head_dim_default = 128,  // ref: Qwen3Config
       .window = kWindowIfOn},
      {.family = Family::Qwen3Moe, .model_types = {"qwen3_moe"}, .norm_qk = {nullptr, true},
       .head_dim_default = 128, .window = kWindowIfOn,
       .moe = qwen_moe(128, 8, 768)},  // ref: Qwen3MoeConfig
      {.family = Family::Gemma, .model_types = {"gemma"}, .tied = true, .act = kGemmaAct,
       .head_dim_default = 256},  // ref: GemmaConfig
      // Gemma-2 alternates local (even layers) and global attention, with sandwich norms.
      {.family = Family::Gemma2, .model_types = {"gemma2"}, .tied = true, .act = kGemmaAct,
       .norm_sandwich = true, .head_dim_default = 256,
       .window = {.read = true, .on = {nullptr, true}, .size_default = 4096, .pattern = 2}},  // ref: Gemma2Config
      // ref: PhiConfig (intermediate_size 8192, partial_rotary_factor 0.5)
      {.family = Family::Phi, .model_types = {"phi"}, .ffn = {.absent = {.fixed = 8192}, .kind = FfnKind::Classic},
       .act = {.keys = {"hidden_act"}, .name_default = "gelu_new", .unknown = Activation::GeluTanh},
       .rotary = {.fraction_default = 0.5}, .norm = NormKind::LayerNorm, .parallel = {nullptr, true},
       .shared_norm = true, .bias = {.attn = {nullptr, true}, .ffn = {nullptr, true}, .lm_head = true},
       .norm_qk = {"qk_layernorm", false}},
      {.family = Family::Phi3, .model_types = {"phi3"}, .fused_qkv = true, .fused_gate_up = true,
       .window = kWindowUnlessOff},
      {.family = Family::DeepseekV2, .model_types = {"deepseek_v2"}, .mla = true, .moe = kDeepseekMoe,
       .topk_method_default = "greedy", .mtp = true},
      {.family = Family::DeepseekV3, .model_types = {"deepseek_v3"}, .mla = true, .moe = kDeepseekMoe,
       .topk_method_default = "noaux_tc", .mtp = true},
      // DeepSeek-V3.2: DeepSeek-V3 plus the lightning indexer in every attention layer.
      {.family = Family::DeepseekV32, .model_types = {"deepseek_v32"}, .mla = true, .indexer = true, .moe = kDeepseekMoe,
       .topk_method_default = "noaux_tc", .mtp = true},
      // Kimi K2 (DeepseekV3ForCausalLM with its own model_type): DeepSeek-V3's tensors.
      {.family = Family::KimiK2, .model_types = {"kimi_k2"}, .mla = true, .moe = kDeepseekMoe,
       .topk_method_default = "noaux_tc", .mtp = true},
      // GLM-5 (modeling_glm_moe_dsa.py GlmMoeDsaForCausalLM): DeepSeek-V3.2's tensors (MLA, the
      // lightning indexer with its LayerNorm k_norm, a sigmoid router with a correction bias, shared
      // experts, DeepSeek-style MTP layers) at GLM's sizes; its indexer's rope pairs adjacent values
      // (indexer_rope_interleave), a permutation the reference block's random weights do not see.
      {.family = Family::GlmMoeDsa, .model_types = {"glm_moe_dsa"},
       .positions_default = 202752, .vocab_default = 154880,  // ref: GlmMoeDsaConfig
       .finish = glm_dsa_indexers, .mla = true, .indexer = true, .index_heads_default = 32,
       .moe = deepseek_moe(256, 8, 2048, 1, 3),  // ref: GlmMoeDsaConfig
       .topk_method_default = "noaux_tc", .mtp = true},
      // GLM-4.5 (modeling_glm4_moe.py Glm4MoeAttention, Glm4MoeMoE): biases on q, k and v only, q/k
      // RMSNorms of head_dim when use_qk_norm, half-rotary heads, DeepSeek-style experts (routed,
      // shared, first_k_dense_replace, a router correction bias) and DeepSeek-style MTP layers.
      {.family = Family::Glm4Moe, .model_types = {"glm4_moe"},
       .positions_default = 131072,  // ref: Glm4MoeConfig
       .rotary = {.fraction_default = 0.5}, .bias = {.attn = {"attention_bias", false}, .o_unbiased = true},
       .norm_qk = {"use_qk_norm", false}, .head_dim_default = 128,
       .moe = deepseek_moe(128, 8, 1408, 1, 1),  // ref: Glm4MoeConfig
       .topk_method_default = "noaux_tc", .mtp = true},
      // Llama 4 text (modeling_llama4.py Llama4ForCausalLM): dense layers of intermediate_size_mlp,
      // MoE layers of num_local_experts experts as wide as intermediate_size plus one shared expert.
      {.family = Family::Llama4, .model_types = {"llama4_text"},
       .positions_default = 131072,  // ref: Llama4TextConfig max_position_embeddings 4096 * 32
       .ffn = {.keys = {"intermediate_size_mlp"}, .absent = {.fixed = 16384}},  // ref: Llama4TextConfig
       .finish = llama4_layers, .head_dim_default = 128,
       .moe = {.experts = {"num_local_experts"}, .experts_default = 16, .top_k_default = 1,
               .expert_ffn = {"intermediate_size"}, .expert_ffn_default = 8192, .shared = SharedExpert::Count,
               .shared_keys = {}, .shared_default = 1, .freq = {"interleave_moe_layer_step"}, .last_of_group = true}},
      {.family = Family::NemotronH, .model_types = {"nemotron_h"},
       .positions_default = 4096,  // ref: NemotronHConfig
       .ffn = {.keys = {"intermediate_size"}, .absent = {.fixed = 21504}, .kind = FfnKind::Classic},
       .act = {.keys = {"mlp_hidden_act"}, .name_default = "relu2", .unknown = Activation::Relu2},
       .pos = PosKind::None, .rotary = kNoRotary, .hook = nemotron_h_blocks, .finish = nemotron_h_experts,
       .head_dim_default = 128,
       .moe = {.experts = {"n_routed_experts", "num_local_experts"}, .zero_means_dense = true,  // no class defaults
               .shared = SharedExpert::Width,
               .shared_keys = {"moe_shared_expert_intermediate_size"}}},
      // Granite 3.x (modeling_granite.py): LLaMA's layout and names, with the four scales above.
      {.family = Family::Granite, .model_types = {"granite"}, .hook = granite_scales},  // ref: GraniteConfig (positions 2048)
      {.family = Family::GraniteMoeHybrid, .model_types = {"granitemoehybrid"},
       .ffn = {.keys = {"shared_intermediate_size"}, .absent = {.fixed = 1024}},  // dense layers: shared_mlp alone
       .hook = granite_layers,
       .moe = {.experts = {"num_local_experts"}, .experts_default = 8, .zero_means_dense = true, .top_k_default = 2,
               .expert_ffn = {"intermediate_size"}, .expert_ffn_default = 1024, .shared = SharedExpert::Width,
               .shared_keys = {"shared_intermediate_size"}, .shared_default = 1024}},  // ref: GraniteMoeHybridConfig
      // GPTBigCode (modeling_gpt_bigcode.py): GPT-2's block with multi-query attention.
      {.family = Family::GptBigCode, .model_types = {"gpt_bigcode"}, .tied = true,
       .positions_default = 1024,  // ref: GPTBigCodeConfig n_positions
       .ffn = classic_ffn_4d("n_inner"), .act = gpt_act("gelu_pytorch_tanh", Activation::GeluTanh),
       .pos = PosKind::Learned, .rotary = kNoRotary, .norm = NormKind::LayerNorm, .bias = kEveryBias,
       .fused_qkv = true, .hook = bigcode_mqa},
      // StarCoder2 (modeling_starcoder2.py Starcoder2DecoderLayer): LayerNorms with biases whatever
      // norm_type says (the class reads neither norm_type nor mlp_type), use_bias on q, k, v, o, c_fc
      // and c_proj, a gelu MLP, and every layer sliding when sliding_window is set.
      {.family = Family::Starcoder2, .model_types = {"starcoder2"}, .tied = true,
       .positions_default = 4096,  // ref: Starcoder2Config
       .ffn = {.absent = {.fixed = 12288}, .kind = FfnKind::Classic},  // ref: Starcoder2Config intermediate_size
       .act = {.keys = {"hidden_act"}, .name_default = "gelu_pytorch_tanh", .unknown = Activation::GeluTanh},
       .norm = NormKind::LayerNorm, .bias = {.attn = {"use_bias", true}, .one_switch = true},
       .window = {.read = true, .on = {nullptr, true}}},
      {.family = Family::Ernie45Moe, .model_types = {"ernie4_5_moe"}, .tied = true,
       .positions_default = 131072, .vocab_default = 103424,  // ref: Ernie4_5_MoeConfig
       .ffn = {.absent = {.fixed = 12288}}, .bias = {.attn = {"use_bias", false}, .one_switch = true}, .finish = ernie_moe,
       .moe = {.experts = {"moe_num_experts"}, .experts_default = 64, .top_k = {"moe_k"}, .top_k_default = 6,
               .expert_ffn_default = 1536, .shared = SharedExpert::Count, .shared_keys = {"moe_num_shared_experts"},
               .shared_default = 2, .first_dense = {"moe_layer_start_index"}, .first_dense_default = 1,
               .freq = {"moe_layer_interval"}, .last_of_group = true}},
      // MiniMax-M2 (modeling_minimax_m2.py): full attention in every layer with q/k RMSNorms over all
      // heads and a partial rotary of rotary_dim, Mixtral-style experts as wide as intermediate_size
      // in every layer behind a sigmoid router with a correction bias (stored in the checkpoint: counted,
      // as DeepSeek-V3's). The config's MTP keys (use_mtp, num_mtp_modules) name modules that neither
      // the model nor the checkpoint holds.
      {.family = Family::MinimaxM2, .model_types = {"minimax_m2"},
       .positions_default = 196608, .vocab_default = 200064,  // ref: MiniMaxM2Config
       .rotary = {.keys = {"rotary_dim"}, .in_head_dims = true}, .norm_qk = {"use_qk_norm", true},
       .finish = minimax_layers, .head_dim_default = 128,
       .moe = {.experts = {"num_local_experts"}, .experts_default = 256, .top_k_default = 8, .expert_ffn = {},
               .expert_ffn_default = kDenseWidth}},
      // Jamba (modeling_jamba.py): Mamba-1 and attention layers, each with a dense or MoE FFN.
      {.family = Family::Jamba, .model_types = {"jamba"},
       .positions_default = 262144, .vocab_default = 65536,  // ref: JambaConfig
       .ffn = {.absent = {.fixed = 14336}}, .pos = PosKind::None, .rotary = kNoRotary, .bias = {.attn = {nullptr, false}},
       .hook = jamba_layers, .finish = jamba_experts,
       // ref: modeling_jamba.py JambaSparseMoeBlock: softmax over every expert, top-k, no renormalization.
       .moe = {.experts = {"num_experts"}, .experts_default = 16, .zero_means_dense = true, .top_k_default = 2,
               .expert_ffn = {}, .expert_ffn_default = kDenseWidth, .norm_topk_default = false}},
      // Falcon-H1 (modeling_falcon_h1.py FalconH1DecoderLayer): attention ‖ Mamba-2, then a SwiGLU MLP.
      {.family = Family::FalconH1, .model_types = {"falcon_h1"},
       .positions_default = 8192, .vocab_default = 128000,  // ref: FalconH1Config
       .ffn = {.absent = {.fixed = 14336}}, .hook = falcon_h1_layers},
      // Llama-Nemotron NAS (DeciLMForCausalLM): a Llama decoder whose layers each have their own K
      // and FFN width, or lack either block (block_configs); intermediate_size and
      // num_key_value_heads are null in these configs.
      {.family = Family::NemotronNas, .model_types = {"nemotron-nas"}, .ffn = {.absent = {.fixed = 0}},
       .hook = nas_blocks},
      // Gemma 4 text (modeling_gemma4.py): Gemma 3's sandwich norms and q/k norms (v_norm has no
      // scale), sliding and full layers from layer_types (5:1 when absent), and the per-layer shapes
      // gemma4_layers reads.
      {.family = Family::Gemma4, .model_types = {"gemma4_text"}, .tied = true,
       .positions_default = 131072, .vocab_default = 262144,  // ref: Gemma4TextConfig
       .ffn = {.absent = {.fixed = 9216}}, .act = kGemmaAct, .norm_qk = {nullptr, true}, .norm_sandwich = true,
       .finish = gemma4_layers, .head_dim_default = 256,
       .window = {.read = true, .on = {nullptr, true}, .size_default = 512, .pattern = 6, .layer_types = true}},
      {.family = Family::Lfm2, .model_types = {"lfm2"}, .tied = true,
       .positions_default = 128000,  // ref: Lfm2Config
       .norm_qk = {nullptr, true}, .hook = lfm2_layers},
      // GPT-1: GPT-2's tensors (Conv1D c_attn, c_proj, c_fc) with a 4·d MLP fixed by the class.
      {.family = Family::OpenaiGpt, .model_types = {"openai-gpt"}, .tied = true,
       .positions_default = 512,  // ref: OpenAIGPTConfig n_positions
       .ffn = kClassicFfn4d, .act = kGeluFixed, .pos = PosKind::Learned, .rotary = kNoRotary,
       .norm = NormKind::LayerNorm, .bias = kEveryBias, .fused_qkv = true, .hook = openai_gpt_block},
      // Gemma-3 (modeling_gemma3.py Gemma3Attention, Gemma3DecoderLayer): Gemma-2's sandwich norms plus
      // per-head q/k RMSNorms; layer i is full iff (i + 1) % sliding_window_pattern == 0, unless
      // layer_types says otherwise.
      {.family = Family::Gemma3, .model_types = {"gemma3_text"}, .tied = true,
       .positions_default = 131072,  // ref: Gemma3TextConfig max_position_embeddings
       .vocab_default = 262208,      // ref: Gemma3TextConfig vocab_size (the wrappers' text_config omits it)
       .heads_default = 8, .kv_heads_default = 4,  // ref: Gemma3TextConfig (gemma-3-4b-it's text_config omits both)
       .act = kGemmaAct, .norm_qk = {nullptr, true}, .norm_sandwich = true, .head_dim_default = 256,
       .window = {.read = true, .on = {nullptr, true}, .size_default = 4096,  // ref: Gemma3TextConfig
                  .pattern = 6, .pattern_key = "sliding_window_pattern", .layer_types = true}},
      // gpt-oss (modeling_gpt_oss.py GptOssAttention, GptOssMLP): biases on q, k, v, o, a sink logit
      // per head, sliding (window 128) and full layers alternating from layer_types, MoE in every
      // layer with a biased router and biased experts as wide as intermediate_size.
      {.family = Family::GptOss, .model_types = {"gpt_oss"},
       .positions_default = 131072,  // ref: GptOssConfig
       .bias = {.attn = {"attention_bias", true}}, .sinks = true, .head_dim_default = 64,
       .window = {.read = true, .on = {nullptr, true}, .size_default = 128, .pattern = 2, .layer_types = true},
       .moe = {.experts = {"num_local_experts"}, .experts_default = 128, .top_k = {"num_experts_per_tok", "experts_per_token"},
               .top_k_default = 4, .expert_ffn = {}, .expert_ffn_default = kDenseWidth, .router_bias = true,
               .expert_bias = true}},
      // Qwen3-Next (modeling_qwen3_next.py): Gated DeltaNet layers with every
      // full_attention_interval-th layer a gated softmax attention (q/k norms, partial rotary), and
      // Qwen2-MoE-style experts with a gated shared expert.
      {.family = Family::Qwen3Next, .model_types = {"qwen3_next"},
       .positions_default = 32768,  // ref: Qwen3NextConfig
       .rotary = {.fraction_default = 0.25}, .norm_qk = {nullptr, true}, .out_gate = true,
       .linear = {.read = true, .interval_default = 4, .k_heads_default = 16, .v_heads_default = 32,
                  .k_dim_default = 128, .v_dim_default = 128, .conv_default = 4},
       .head_dim_default = 256, .moe = [] {
         MoeRule m = qwen2_moe();  // ref: Qwen3NextConfig: 512 experts, top 10, width 512, shared 512
         m.experts_default = 512;
         m.top_k_default = 10;
         m.expert_ffn_default = 512;
         m.shared_default = 512;
         return m;
       }(), .mtp = true,
       .mtp_default = 1},  // ref: vLLM qwen3_next_mtp.py: getattr(config, "num_nextn_predict_layers", 1)
      // Qwen3.5 (modeling_qwen3_5.py, modeling_qwen3_5_moe.py): Qwen3-Next's layers with the Gated
      // DeltaNet input projections split in four, a dense MLP in every layer (qwen3_5_text) or
      // experts and a gated shared expert in every layer (qwen3_5_moe_text: the class drops
      // decoder_sparse_step and mlp_only_layers, so a value there changes nothing), and MTP layers
      // (mtp_num_hidden_layers) the model does not build but the checkpoints store.
      {.family = Family::Qwen35, .model_types = {"qwen3_5_text"},
       .positions_default = 32768, .vocab_default = 248320,  // ref: Qwen3_5TextConfig
       .ffn = {.absent = {.fixed = 12288}}, .rotary = {.fraction_default = 0.25}, .norm_qk = {nullptr, true},
       .out_gate = true, .linear = kQwen35Linear, .head_dim_default = 256, .mtp = true,
       .mtp_keys = {"mtp_num_hidden_layers"}},
      {.family = Family::Qwen35Moe, .model_types = {"qwen3_5_moe_text"},
       .positions_default = 32768, .vocab_default = 248320,  // ref: Qwen3_5MoeTextConfig
       .rotary = {.fraction_default = 0.25}, .norm_qk = {nullptr, true}, .out_gate = true, .linear = kQwen35Linear,
       .head_dim_default = 256,
       .moe = {.experts = {"num_experts"}, .experts_default = 256, .top_k_default = 8, .expert_ffn_default = 512,
               .shared = SharedExpert::GatedWidth, .shared_keys = {"shared_expert_intermediate_size"},
               .shared_default = 512},
       .mtp = true, .mtp_keys = {"mtp_num_hidden_layers"}},
      // SmolLM3 (modeling_smollm3.py): a LLaMA decoder whose no_rope_layers only decide where rotary
      // applies (no tensors, no cache change); tied head by class default.
      {.family = Family::Smollm3, .model_types = {"smollm3"}, .tied = true,
       .positions_default = 32768,  // ref: SmolLM3Config
       .window = kWindowIfOn},
      {.family = Family::Olmo2, .model_types = {"olmo2"}, .norm_qk = {nullptr, true}, .norm_sandwich = true,
       .hook = olmo2_norms},
  };
  return rows;
}

const FamilyRow& generic_row() {
  static const FamilyRow row{
      .family = Family::Custom, .note_tie_default = true, .window = kWindowUnlessOff,
      .moe = {.experts = {"num_local_experts", "num_experts", "n_routed_experts"}, .zero_means_dense = true,
              .top_k = {"num_experts_per_tok", "top_k"}, .expert_ffn_default = kDenseWidth}};
  return row;
}

}  // namespace llmsize::core::hf
