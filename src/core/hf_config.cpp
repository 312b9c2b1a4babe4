// config.json import (see hf_config.hpp). read_row() walks one row of the family table
// (hf_families.cpp) in a fixed order: shape, FFN, attention, norms, head size, window,
// MoE. Every family goes through the same steps; a row's hook covers what a table cannot.
#include "hf_config.hpp"

#include <algorithm>

#include "hf_families.hpp"
#include "hf_reader.hpp"
#include "params.hpp"
#include "field.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {

using hf::FamilyRow;
using hf::Flag;
using hf::Reader;
using json_util::json;

bool read_flag(Reader& r, const Flag& f) { return f.key ? r.boolean({f.key}, f.value) : f.value; }

Activation activation_of(const std::string& name, Activation def) {
  if (name == "silu" || name == "swish" || name == "swiglu") return Activation::Silu;
  if (name == "relu") return Activation::Relu;
  if (name == "relu2") return Activation::Relu2;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast" || name == "gelu_tanh")
    return Activation::GeluTanh;
  if (name.rfind("gelu", 0) == 0) return Activation::Gelu;
  return def;
}

// The rows a serving engine's rotary cache holds. ref: vLLM rotary_embedding/__init__.py get_rope and
// the scaled classes' _compute_cos_sin_cache (SGLang's rotary_embedding.py ports them): linear and
// dynamic NTK scaling cache int(max_position × factor) rows, YaRN and DeepSeek's YaRN
// int(original_max_position_embeddings × factor); every other type max_position. Kept only where
// it differs from max_position_embeddings (0).
void read_rope_cache(Reader& r, ModelConfig& c) {
  const json* rs = r.find({"rope_scaling"}, nullptr);
  if (!rs || !rs->is_object()) return;
  std::string type;
  for (const char* k : {"rope_type", "type"})
    if (auto t = rs->find(k); t != rs->end() && t->is_string()) {
      type = t->get<std::string>();
      break;
    }
  const bool yarn = type == "yarn" || type == "deepseek_yarn";
  if (!yarn && type != "linear" && type != "dynamic") return;
  auto fac = rs->find("factor");
  if (fac == rs->end()) {
    r.issues.push_back(issue_row(r.prefix() + "rope_scaling.factor", Str::imp_hf_rope_factor_absent, type));
    return;
  }
  if (!fac->is_number()) {
    r.issues.push_back(issue_row(r.prefix() + "rope_scaling.factor", Str::imp_hf_rope_factor, type, json_util::type_name(*fac)));
    return;
  }
  const FieldLimit& lim = *find_limit("rope_cache_positions");
  i64 base = c.max_positions;
  if (auto o = rs->find("original_max_position_embeddings"); yarn && o != rs->end() && !o->is_null()) {
    const std::string key = r.prefix() + "rope_scaling.original_max_position_embeddings";
    const auto v = json_util::to_int(*o, key, r.issues);
    if (!v) return;
    if (auto i = check_range(key, 1, lim.max, *v)) {
      r.issues.push_back(*i);
      return;
    }
    base = *v;
  }
  if (base < 1) return;  // max_position_embeddings out of range: validate() names it
  const double rows = static_cast<double>(base) * fac->get<double>();
  if (!(rows >= static_cast<double>(lim.min) && rows <= static_cast<double>(lim.max))) {
    r.issues.push_back(issue_row(r.prefix() + "rope_scaling.factor", Str::imp_hf_rope_rows, type, format_real(rows), std::to_string(lim.min),
                                 std::to_string(lim.max)));
    return;
  }
  if (const i64 n = static_cast<i64>(rows); n != c.max_positions) c.rope_cache_positions = n;
}

// Sizes every family spells alike, and the context length.
void read_shape(const FamilyRow& f, Reader& r, ModelConfig& c) {
  c.n_layers = r.required("num_hidden_layers", {"num_hidden_layers", "n_layer", "n_layers", "num_layers"});
  c.d_model = r.required("hidden_size", {"hidden_size", "n_embd", "n_embed", "d_model"});
  c.n_heads = f.heads_default > 0 ? r.integer("num_attention_heads", {"num_attention_heads", "n_head", "n_heads", "num_heads"}, f.heads_default)
                                  : r.required("num_attention_heads", {"num_attention_heads", "n_head", "n_heads", "num_heads"});
  c.n_kv_heads = r.integer("num_key_value_heads", {"num_key_value_heads", "num_kv_heads", "n_head_kv"},
                           f.kv_heads_default > 0 ? f.kv_heads_default : c.n_heads);
  c.vocab = f.vocab_default > 0 ? r.integer("vocab_size", {"vocab_size", "padded_vocab_size", "n_vocab"}, f.vocab_default)
                                : r.required("vocab_size", {"vocab_size", "padded_vocab_size", "n_vocab"});
  c.tie_embeddings = r.boolean({"tie_word_embeddings"}, f.tied);
  c.rope_theta = r.number("rope_theta", {"rope_theta", "rotary_emb_base", "rope_base"}, 10000.0);

  auto p = r.opt_int("max_position_embeddings",
                     {"max_position_embeddings", "n_positions", "n_ctx", "seq_length", "max_sequence_length"});
  if (!p) r.notes.push_back(issue_row("max_position_embeddings", Str::import_note_positions, std::to_string(f.positions_default)));
  c.max_positions = p.value_or(f.positions_default);
  read_rope_cache(r, c);
  if (f.note_tie_default && !r.has("tie_word_embeddings"))
    r.notes.push_back(issue_row("tie_word_embeddings", Str::import_note_tie));
}

void read_block(const FamilyRow& f, Reader& r, ModelConfig& c) {
  // The class default (e.g. 4·hidden_size) of an absent width, checked: an absurd hidden_size
  // must reach validate(), which names it, not overflow here. 0 on overflow (refused too).
  const Checked ffn_default = Checked(f.ffn.absent.per_hidden) * c.d_model + f.ffn.absent.fixed;
  c.d_ff = r.integer("intermediate_size", f.ffn.keys, ffn_default.value());
  c.ffn_kind = f.ffn.kind;
  c.act = activation_of(r.str(f.act.keys, f.act.name_default), f.act.unknown);
  c.pos = read_flag(r, f.alibi) ? PosKind::Alibi : f.pos;
  c.pos_offset = f.pos_offset;
  if (!f.rotary.in_head_dims)
    c.rotary_fraction = r.number("partial_rotary_factor", f.rotary.keys, f.rotary.fraction_default);
  c.norm = f.norm;
  c.parallel_block = read_flag(r, f.parallel);
  c.norm_ffn_input = !f.shared_norm;

  const bool attn_bias = read_flag(r, f.bias.attn);
  c.bias_qkv = attn_bias;
  c.bias_o = attn_bias && !f.bias.o_unbiased;
  c.bias_ffn = f.bias.one_switch ? attn_bias : read_flag(r, f.bias.ffn);
  c.bias_lm_head = f.bias.lm_head;

  c.norm_qk = read_flag(r, f.norm_qk);
  c.norm_sandwich = f.norm_sandwich;
  c.norm_embed = f.norm_embed;
  c.fused_qkv = f.fused_qkv;
  c.fused_gate_up = f.fused_gate_up;
}

// head_dim from the config, else the class default, else d/H — which then must divide evenly.
void read_head_dim(Reader& r, ModelConfig& c, i64 class_default) {
  if (auto hd = r.opt_int("head_dim", {"head_dim", "attention_head_dim"})) {
    c.head_dim = *hd;
    return;
  }
  if (class_default > 0) {
    c.head_dim = class_default;
    r.notes.push_back(issue_row("head_dim", Str::import_note_head_dim, std::to_string(class_default)));
    return;
  }
  if (c.n_heads > 0 && c.d_model > 0) {
    if (c.d_model % c.n_heads != 0) {
      r.issues.push_back(issue_row(r.key_for("num_attention_heads"), Str::imp_hf_head_dim_divide, std::to_string(c.d_model),
                                   std::to_string(c.n_heads)));
    }
    c.head_dim = c.d_model / c.n_heads;
  }
}

// DeepSeek multi-head latent attention: every head has its own k and v, from one shared latent.
void read_mla(Reader& r, ModelConfig& c) {
  auto& m = c.mla;
  m.enabled = true;
  m.q_lora_rank = r.integer("q_lora_rank", {"q_lora_rank"}, 0);  // null or absent: plain q projection
  m.kv_lora_rank = r.required("kv_lora_rank", {"kv_lora_rank"});
  m.qk_nope_dim = r.required("qk_nope_head_dim", {"qk_nope_head_dim"});
  m.qk_rope_dim = r.required("qk_rope_head_dim", {"qk_rope_head_dim"});
  m.v_head_dim = r.required("v_head_dim", {"v_head_dim"});
  c.head_dim = m.qk_nope_dim + m.qk_rope_dim;
  c.n_kv_heads = c.n_heads;
}

// ref: DeepSeek-V3.2-Exp config.json / inference/model.py ModelArgs: index_n_heads 64,
// index_head_dim 128, index_topk 2048 (GlmMoeDsaConfig: index_n_heads 32).
void read_indexer(Reader& r, ModelConfig& c, i64 heads_default) {
  c.mla.index_heads = r.integer("index_n_heads", {"index_n_heads"}, heads_default);
  c.mla.index_dim = r.integer("index_head_dim", {"index_head_dim"}, 128);
  c.mla.index_topk = r.integer("index_topk", {"index_topk"}, 2048);
}

void read_attention_size(const FamilyRow& f, Reader& r, ModelConfig& c) {
  if (f.mla) {
    read_mla(r, c);
    if (f.indexer) read_indexer(r, c, f.index_heads_default);
    return;
  }
  read_head_dim(r, c, f.head_dim_default);
  if (f.rotary.in_head_dims && c.head_dim > 0) {
    const i64 rd = r.integer("partial_rotary_factor", f.rotary.keys, c.head_dim);
    c.rotary_fraction = static_cast<double>(rd) / static_cast<double>(c.head_dim);
  }
}

// layer_types as a pattern of two kinds: every layer `other` (1), or layer i "full_attention" iff
// (i + 1) % n == 0 (n), or every layer full (0). Any other mix, or a kind the plan has no row
// for, is refused rather than approximated. nullopt: absent, or refused (the issue is pushed).
std::optional<i64> layer_types_pattern(Reader& r, const ModelConfig& c, const char* other) {
  const auto kinds = hf::layer_kinds(r, c.n_layers, {"layer_types"}, {{other, 'o'}, {"full_attention", 'f'}});
  if (!kinds) return std::nullopt;
  std::vector<bool> full;
  for (char k : *kinds) full.push_back(k == 'f');
  const auto first_full = std::find(full.begin(), full.end(), true);
  if (first_full == full.begin() && std::find(full.begin(), full.end(), false) == full.end()) return 0;
  const i64 n = first_full == full.end() ? 1 : (first_full - full.begin()) + 1;
  for (size_t i = 0; i < full.size(); ++i)
    if (full[i] != (n > 1 && (static_cast<i64>(i) + 1) % n == 0)) {
      r.issues.push_back(issue_row(r.key_for("layer_types"), Str::imp_hf_layer_types_mix, other, other));
      return std::nullopt;
    }
  return n;
}

void read_window(const FamilyRow& f, Reader& r, ModelConfig& c) {
  if (!f.window.read) return;
  const bool on = read_flag(r, f.window.on);
  const i64 w = r.integer("sliding_window", {"sliding_window"}, f.window.size_default);
  c.sliding_window = on ? w : 0;
  c.sliding_pattern = f.window.pattern_key
                          ? r.integer("sliding_window_pattern", {f.window.pattern_key}, f.window.pattern)
                          : f.window.pattern;
  if (f.window.layer_types && on)  // ref: Gemma3TextConfig, GptOssConfig: layer_types wins
    if (auto n = layer_types_pattern(r, c, "sliding_attention")) {
      if (*n == 0) c.sliding_window = 0;  // every layer attends to all tokens
      else c.sliding_pattern = *n;
    }
}

void read_moe(const FamilyRow& f, Reader& r, ModelConfig& c, const std::string& model_type) {
  const hf::MoeRule& rule = f.moe;
  if (rule.experts.empty()) return;
  auto& m = c.moe;
  const auto given = r.opt_int("num_experts", rule.experts);
  m.num_experts = given.value_or(rule.experts_default);
  if (m.num_experts < 1) {
    // A MoE class with no experts is a typo, not a dense model (that is another model_type).
    if (given && !rule.zero_means_dense)
      r.issues.push_back(issue_row(r.key_for("num_experts"), Str::imp_hf_experts_min, model_type, std::to_string(m.num_experts)));
    return;
  }
  m.top_k = r.integer("num_experts_per_tok", rule.top_k, rule.top_k_default);
  const i64 width = rule.expert_ffn_default == hf::kDenseWidth ? c.d_ff : rule.expert_ffn_default;
  m.expert_ffn = r.integer("moe_intermediate_size", rule.expert_ffn, width);
  switch (rule.shared) {
    case hf::SharedExpert::None: break;
    case hf::SharedExpert::GatedWidth:
      m.shared_ffn = r.integer("shared_expert_intermediate_size", rule.shared_keys, rule.shared_default);
      m.num_shared_experts = m.shared_ffn > 0 ? 1 : 0;
      m.shared_gate = m.shared_ffn > 0;
      break;
    case hf::SharedExpert::Width:
      m.shared_ffn = r.integer("shared_expert_intermediate_size", rule.shared_keys, rule.shared_default);
      m.num_shared_experts = m.shared_ffn > 0 ? 1 : 0;
      break;
    case hf::SharedExpert::Count:
      m.num_shared_experts = r.integer("n_shared_experts", rule.shared_keys, rule.shared_default);
      m.shared_ffn = m.num_shared_experts * m.expert_ffn;
      break;
  }
  m.first_dense = r.integer("first_k_dense_replace", rule.first_dense, rule.first_dense_default);
  m.freq = r.integer("moe_layer_freq", rule.freq, 1);
  m.phase = rule.last_of_group ? m.freq - 1 : 0;
  if (rule.dense_list) m.dense_layers = r.int_list("mlp_only_layers", rule.dense_list);
  m.router_bias = rule.router_bias;
  m.expert_bias = rule.expert_bias;
  // ref: modeling_qwen2_moe.py (if self.norm_topk_prob: routing_weights /= sum), modeling_deepseek_v3.py
  // DeepseekV3TopkRouter / modeling_nemotron_h.py (normalized if norm_topk_prob, then
  // · routed_scaling_factor); absent, the family's rule says (Mixtral and gpt-oss renormalize, Jamba
  // does not) and the scale is 1.
  m.norm_topk = r.boolean({"norm_topk_prob"}, rule.norm_topk_default);
  m.routed_scale = r.number("routed_scaling_factor", {"routed_scaling_factor"}, 1.0);
}

// Gated DeltaNet sizes and placement (ref: Qwen3NextConfig: layer_types defaults to
// "full_attention" iff (i + 1) % full_attention_interval == 0, else "linear_attention").
void read_linear(const hf::LinearRule& rule, Reader& r, ModelConfig& c) {
  if (!rule.read) return;
  auto& a = c.linear;
  a.full_interval = r.integer("full_attention_interval", {"full_attention_interval"}, rule.interval_default);
  if (auto n = layer_types_pattern(r, c, "linear_attention")) {
    // A model whose every layer is linear keeps no KV cache at all: not a Qwen3-Next; refused
    // rather than read as a pattern that would give it one.
    if (*n == 1)
      r.issues.push_back(issue_row(r.prefix() + "layer_types", Str::imp_hf_all_linear));
    a.full_interval = *n;
  }
  if (a.full_interval == 1) a.full_interval = 0;  // every layer full: no linear layers
  a.k_heads = r.integer("linear_num_key_heads", {"linear_num_key_heads"}, rule.k_heads_default);
  a.v_heads = r.integer("linear_num_value_heads", {"linear_num_value_heads"}, rule.v_heads_default);
  a.k_dim = r.integer("linear_key_head_dim", {"linear_key_head_dim"}, rule.k_dim_default);
  a.v_dim = r.integer("linear_value_head_dim", {"linear_value_head_dim"}, rule.v_dim_default);
  a.conv_kernel = r.integer("linear_conv_kernel_dim", {"linear_conv_kernel_dim"}, rule.conv_default);
  read_state_dtype(r, "mamba_ssm_dtype", a.ssm_dtype);
}

// The one reader: every family, native or generic, is these steps over its row.
void read_row(const FamilyRow& f, Reader& r, ModelConfig& c, const std::string& model_type) {
  c.family = f.family;
  read_shape(f, r, c);
  read_block(f, r, c);
  if (f.hook) f.hook(r, c, model_type);
  read_attention_size(f, r, c);
  read_window(f, r, c);
  read_linear(f.linear, r, c);
  c.attn_sinks = f.sinks;
  c.attn_out_gate = f.out_gate;
  read_moe(f, r, c, model_type);
  if (f.topk_method_default)
    c.moe.router_correction_bias = r.str({"topk_method"}, f.topk_method_default) == "noaux_tc";
  if (f.mtp) c.mtp_layers = r.integer("num_nextn_predict_layers", f.mtp_keys, f.mtp_default);
  if (f.finish) f.finish(r, c, model_type);
}

// The generic reading knows a LLaMA-like decoder only. A key it did not read that could change
// the layers, their caches or the experts means the model is something else: refuse, naming the
// key, rather than print memory for a model it is not. Other unread keys are listed in a note.
bool changes_memory(std::string_view key) {
  static constexpr std::string_view kMarks[] = {
      "layer_types", "window", "pattern", "interval", "period", "offset", "chunk", "expert", "moe", "mamba", "ssm",
      "linear_", "conv", "state", "lora_rank", "nope", "rope_head", "v_head_dim", "nextn", "mtp", "index_", "sink",
      "rope_layers", "kv_heads", "key_value", "head_dim", "vision", "audio", "hybrid", "attn_layer", "shared",
      "dense", "sparse", "global", "local", "kv_", "cross", "encoder", "num_layers", "layers_block", "per_layer",
      "block_config", "latent", "attn_type", "parallel"};
  for (std::string_view m : kMarks)
    if (key.find(m) != std::string_view::npos) return true;
  return false;
}

// A value that turns a feature off (null, false, 0, empty) changes nothing, whatever its key.
bool is_off(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0.0) ||
         ((v.is_array() || v.is_object()) && v.empty()) || (v.is_string() && v.get<std::string>().empty());
}

void check_generic(Reader& r) {
  std::vector<std::string> quiet;
  for (const std::string& k : r.unread()) {
    if (changes_memory(k) && !is_off(r.object().at(k)))
      r.issues.push_back(issue_row(r.prefix() + k, Str::imp_hf_generic_unread));
    else
      quiet.push_back(k);
  }
  if (quiet.empty()) return;
  std::string list;
  for (size_t i = 0; i < quiet.size() && i < 24; ++i) list += (i ? ", " : "") + quiet[i].substr(0, 60);
  if (quiet.size() > 24) list += ", … (+" + std::to_string(quiet.size() - 24) + ")";
  r.notes.push_back(issue_row("config", Str::import_note_unread, list));
}

// Multimodal wrappers whose vision tower the core counts, with the class defaults of their
// vision_config (configuration_clip.py CLIPVisionConfig, configuration_siglip.py
// SiglipVisionConfig, or the wrapper's own default tower when vision_config is absent).
struct Wrapper {
  const char* type;
  const char* text_default;  // text_config's model_type when it gives none
  const char* vision_type;
  const char* vision_alias;  // an older spelling the wrapper's config class also accepts, or nullptr
  const char* text_alias;    // text_config's own model_type when it names the text_default family otherwise
  bool flat_text;            // without text_config, the text model's keys sit at the top level
  VisionKind kind;
  ProjectorKind projector;
  VisionConfig absent;    // vision_config absent: the wrapper's default tower
  VisionConfig defaults;  // a key absent from vision_config: the vision config class's default
};
// MoonViTConfig's (and KimiK25VisionConfig's) tower: 27 layers of 1152, intermediate 4304, 16 heads,
// patch 14, a 64 × 64 learned position grid, merge kernel 2 × 2, Kimi-VL's projector.
constexpr VisionConfig kMoonVit{VisionKind::MoonVit, 27, 1152, 4304, 16, 14, 0, 3, ProjectorKind::KimiVl, true, 0, 0, 2, 4096};

const Wrapper* find_wrapper(const std::string& model_type) {
  static const Wrapper rows[] = {
      // ref: LlavaConfig: a CLIP ViT-L/14 at 336 px when vision_config is None; CLIPVisionConfig defaults.
      {"llava", "llama", "clip_vision_model", nullptr, nullptr, false, VisionKind::Clip, ProjectorKind::Mlp2,
       {VisionKind::Clip, 24, 1024, 4096, 16, 14, 336, 3, ProjectorKind::Mlp2, true},
       {VisionKind::Clip, 12, 768, 3072, 12, 32, 224, 3, ProjectorKind::Mlp2, true}},
      // ref: Gemma3Config: SiglipVisionConfig() when vision_config is None; SiglipVisionConfig defaults.
      {"gemma3", "gemma3_text", "siglip_vision_model", nullptr, nullptr, false, VisionKind::Siglip, ProjectorKind::Gemma3,
       {VisionKind::Siglip, 12, 768, 3072, 12, 16, 224, 3, ProjectorKind::Gemma3, false},
       {VisionKind::Siglip, 12, 768, 3072, 12, 16, 224, 3, ProjectorKind::Gemma3, false}},
      // ref: Llama4Config: Llama4VisionConfig() when vision_config is None (hidden 768, 34 layers,
      // 16 heads, intermediate 5632, 448 px, patch 14, projector dims 4096).
      {"llama4", "llama4_text", "llama4_vision_model", nullptr, nullptr, false, VisionKind::Llama4, ProjectorKind::Llama4,
       {VisionKind::Llama4, 34, 768, 5632, 16, 14, 448, 3, ProjectorKind::Llama4, false, 4096},
       {VisionKind::Llama4, 34, 768, 5632, 16, 14, 448, 3, ProjectorKind::Llama4, false, 4096}},
      // ref: Qwen3_5Config, Qwen3_5MoeConfig: Qwen3_5VisionConfig() when vision_config is None (depth 27,
      // hidden 1152, intermediate 4304, 16 heads, patch 16, 3 channels, temporal patch 2, merge 2, 2,304
      // positions); an old checkpoint's vision model_type "qwen3_5" / "qwen3_5_moe" is accepted, as the class does.
      {"qwen3_5", "qwen3_5_text", "qwen3_5_vision", "qwen3_5", nullptr, false, VisionKind::Qwen35, ProjectorKind::Qwen35,
       {VisionKind::Qwen35, 27, 1152, 4304, 16, 16, 0, 3, ProjectorKind::Qwen35, true, 0, 2, 2, 2304},
       {VisionKind::Qwen35, 27, 1152, 4304, 16, 16, 0, 3, ProjectorKind::Qwen35, true, 0, 2, 2, 2304}},
      {"qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_moe_vision", "qwen3_5_moe", nullptr, false, VisionKind::Qwen35, ProjectorKind::Qwen35,
       {VisionKind::Qwen35, 27, 1152, 4304, 16, 16, 0, 3, ProjectorKind::Qwen35, true, 0, 2, 2, 2304},
       {VisionKind::Qwen35, 27, 1152, 4304, 16, 16, 0, 3, ProjectorKind::Qwen35, true, 0, 2, 2, 2304}},
      // ref: Qwen2_5_VLConfig (a Qwen2 text model, at the top level in the configs the checkpoints shipped
      // with, in text_config as qwen2_5_vl_text since); Qwen2_5_VLVisionConfig defaults (depth 32, hidden
      // 3584, intermediate 3420, 16 heads, patch 14, 3 channels, temporal patch 2, merge 2).
      {"qwen2_5_vl", "qwen2", "qwen2_5_vl", nullptr, "qwen2_5_vl_text", true, VisionKind::Qwen25, ProjectorKind::Qwen25,
       {VisionKind::Qwen25, 32, 3584, 3420, 16, 14, 0, 3, ProjectorKind::Qwen25, true, 0, 2, 2, 0},
       {VisionKind::Qwen25, 32, 3584, 3420, 16, 14, 0, 3, ProjectorKind::Qwen25, true, 0, 2, 2, 0}},
      // ref: Mistral3Config: a pixtral tower of 24 layers, hidden 1024, intermediate 4096, 16 heads, patch
      // 14, 1540 px when vision_config is None; PixtralVisionConfig defaults (patch 16, 1024 px) for keys
      // it leaves out; spatial_merge_size 2 and multimodal_projector_bias false at the top level.
      {"mistral3", "mistral", "pixtral", nullptr, nullptr, false, VisionKind::Pixtral, ProjectorKind::Mistral3,
       {VisionKind::Pixtral, 24, 1024, 4096, 16, 14, 1540, 3, ProjectorKind::Mistral3, false, 0, 0, 2, 0},
       {VisionKind::Pixtral, 24, 1024, 4096, 16, 16, 1024, 3, ProjectorKind::Mistral3, false, 0, 0, 2, 0}},
      // ref: KimiVLConfig (configuration_kimi_vl.py, as vLLM's transformers_utils/configs/kimi_vl.py
      // copies it): MoonViTConfig() when vision_config is None and for the keys it leaves out (patch 14,
      // a 64 × 64 learned position grid, 16 heads, 27 layers, hidden 1152, intermediate 4304, merge
      // kernel 2 × 2); text_config, whatever its model_type, is read as DeepseekV3Config.
      {"kimi_vl", "deepseek_v3", "moonvit", nullptr, nullptr, false, VisionKind::MoonVit, ProjectorKind::KimiVl,
       kMoonVit, kMoonVit},
      // ref: Kimi-K2.5's configuration_kimi_k25.py KimiK25VisionConfig (as vLLM's and SGLang's copies
      // keep it): MoonViT3d with the tower's keys spelled vt_* (vt_num_hidden_layers 27, vt_hidden_size
      // 1152, vt_intermediate_size 4304, vt_num_attention_heads 16), patch 14, a 64 × 64 learned grid
      // (its time embedding is a fixed, unsaved buffer), merge kernel 2 × 2, and the "patchmerger"
      // projector: Kimi-VL's tensors (vision_tower.*, mm_projector.pre_norm, proj.0, proj.2). The
      // checkpoint's vision_config names model_type "".
      {"kimi_k25", "deepseek_v3", "", nullptr, nullptr, false, VisionKind::MoonVit, ProjectorKind::KimiVl,
       kMoonVit, kMoonVit},
      // ref: configuration_gemma4.py Gemma4Config (vision_config None: no vision tower is built) and
      // Gemma4VisionConfig's defaults (hidden 768, intermediate 3072, 16 layers, 12 heads, patch 16,
      // pooling kernel 3, a position table of 10,240 a side, standardize false); the projector is
      // Gemma4MultimodalEmbedder. The audio tower (E2B, E4B) is refused below.
      {"gemma4", "gemma4_text", "gemma4_vision", nullptr, nullptr, false, VisionKind::Gemma4, ProjectorKind::Gemma4,
       VisionConfig{},
       {VisionKind::Gemma4, 16, 768, 3072, 12, 16, 0, 3, ProjectorKind::Gemma4, false, 0, 0, 3, 10240}},
  };
  for (const auto& w : rows)
    if (model_type == w.type) return &w;
  return nullptr;
}

void read_vision(const json& top, const Wrapper& w, std::vector<Issue>& issues, VisionConfig& v, i64 d_model) {
  auto it = top.find("vision_config");
  if (it == top.end() || it->is_null()) {
    v = w.absent;
  } else if (!it->is_object()) {
    issues.push_back(issue_row("vision_config", Str::imp_must_be_object, json_util::type_row(*it)));
    return;
  } else {
    Reader r(*it, "vision_config.");
    const std::string type = r.str({"model_type"}, w.vision_type);
    if (type != w.vision_type && !(w.vision_alias && type == w.vision_alias)) {
      issues.push_back(issue_row("vision_config.model_type", Str::imp_hf_vision_type, type.substr(0, 40), w.type, w.vision_type));
      return;
    }
    const VisionConfig& d = w.defaults;
    v = d;
    // Kimi-K2.5 spells the tower's sizes vt_* (vt_num_hidden_layers, vt_hidden_size, …).
    v.layers = r.integer("vision_config.num_hidden_layers", {"num_hidden_layers", "depth", "vt_num_hidden_layers"}, d.layers);
    v.hidden = r.integer("vision_config.hidden_size", {"hidden_size", "vt_hidden_size"}, d.hidden);
    v.ffn = r.integer("vision_config.intermediate_size", {"intermediate_size", "vt_intermediate_size"}, d.ffn);
    v.heads = r.integer("vision_config.num_attention_heads", {"num_attention_heads", "num_heads", "vt_num_attention_heads"}, d.heads);
    v.patch = r.integer("vision_config.patch_size", {"patch_size"}, d.patch);
    v.channels = r.integer("vision_config.num_channels", {"num_channels", "in_channels", "in_chans"}, d.channels);
    if (w.kind == VisionKind::Qwen35 || w.kind == VisionKind::Qwen25) {
      // ref: Qwen3_5VisionConfig. The merger's linear_fc2 maps into out_hidden_size, which the language
      // model adds to its embeddings: it must be hidden_size. Qwen3.5 builds no DeepStack mergers, so a
      // non-empty deepstack_visual_indexes names a tower (Qwen3-VL's) this reading does not count.
      v.temporal_patch = r.integer("vision_config.temporal_patch_size", {"temporal_patch_size"}, d.temporal_patch);
      v.merge = r.integer("vision_config.spatial_merge_size", {"spatial_merge_size"}, d.merge);
      if (w.kind == VisionKind::Qwen35)
        v.positions = r.integer("vision_config.num_position_embeddings", {"num_position_embeddings"}, d.positions);
      if (const i64 out = r.integer("out_hidden_size", {"out_hidden_size"}, 3584); out != d_model)
        r.issues.push_back(issue_row("vision_config.out_hidden_size", Str::imp_hf_out_hidden, std::to_string(d_model), std::to_string(out)));
      if (const json* ds = r.find({"deepstack_visual_indexes"}, nullptr, nullptr); ds && !(ds->is_array() && ds->empty()))
        r.issues.push_back(issue_row("vision_config.deepstack_visual_indexes", Str::imp_hf_deepstack));
    } else if (w.kind == VisionKind::MoonVit) {
      // ref: vLLM moonvit.py MoonVisionPatchEmbed (Learnable2DInterpPosEmb: a height × width × hidden
      // grid, interpolated to each image's patches: no fixed image size) and patch_merger (a
      // kernel_height × kernel_width window of patches joined); KimiVLMultiModalProjector's width is
      // hidden × kh × kw. A non-square kernel is refused, not miscounted.
      const i64 ph = r.integer("vision_config.init_pos_emb_height", {"init_pos_emb_height"}, 64);
      const i64 pw = r.integer("vision_config.init_pos_emb_width", {"init_pos_emb_width"}, 64);
      const auto bad_h = check_limit("vision_config.init_pos_emb_height", ph), bad_w = check_limit("vision_config.init_pos_emb_width", pw);
      for (const auto& i : {bad_h, bad_w})
        if (i) r.issues.push_back(*i);
      if (!bad_h && !bad_w) v.positions = ph * pw;
      if (const json* k = r.find({"merge_kernel_size"}, nullptr)) {
        if (!(k->is_array() && k->size() == 2 && (*k)[0].is_number_integer() && (*k)[1].is_number_integer() && (*k)[0] == (*k)[1]))
          r.issues.push_back(issue_row("vision_config.merge_kernel_size", Str::imp_hf_merge_kernel, k->dump().substr(0, 40)));
        else
          v.merge = (*k)[0].get<i64>();
      }
      // Kimi-K2.5's projector: "patchmerger" is Kimi-VL's (Kimi-K3's "patchmergerv2" differs), into
      // text_hidden_size, which must be the language model's width.
      if (const std::string pt = r.str({"mm_projector_type"}, "patchmerger"); pt != "patchmerger")
        r.issues.push_back(issue_row("vision_config.mm_projector_type", Str::imp_hf_vision_type, pt.substr(0, 40), w.type, "patchmerger"));
      if (const i64 out = r.integer("text_hidden_size", {"text_hidden_size"}, d_model); out != d_model)
        r.issues.push_back(issue_row("vision_config.text_hidden_size", Str::imp_hf_out_hidden, std::to_string(d_model), std::to_string(out)));
    } else if (w.kind == VisionKind::Gemma4) {
      // ref: modeling_gemma4.py Gemma4VisionPatchEmbedder (input_proj over 3·patch² pixels, a
      // position_embedding_table of 2 × position_embedding_size × hidden: any image size up to it),
      // Gemma4VisionPooler (pooling_kernel_size² patches a soft token), Gemma4VisionModel (std_bias and
      // std_scale under standardize), Gemma4VisionAttention (num_key_value_heads of head_dim).
      v.positions = r.integer("vision_config.position_embedding_size", {"position_embedding_size"}, d.positions);
      v.merge = r.integer("vision_config.pooling_kernel_size", {"pooling_kernel_size"}, d.merge);
      v.standardize = r.boolean({"standardize"}, d.standardize);
      // use_clipped_linears: Gemma4ClippableLinear's four clamp bounds per linear are scalar buffers,
      // left out of the count as the text model's layer_scalar buffers are.
      if (const i64 k = r.integer("vision_config.num_key_value_heads", {"num_key_value_heads"}, v.heads); k != v.heads)
        r.issues.push_back(issue_row("vision_config.num_key_value_heads", Str::imp_hf_gemma4_vision_shape, std::to_string(v.heads), std::to_string(k)));
      if (v.heads > 0 && v.hidden % v.heads == 0)
        if (const i64 hd = r.integer("vision_config.head_dim", {"head_dim"}, v.hidden / v.heads); hd != v.hidden / v.heads)
          r.issues.push_back(issue_row("vision_config.head_dim", Str::imp_hf_gemma4_vision_shape, std::to_string(v.hidden / v.heads), std::to_string(hd)));
    } else {
      v.image = r.integer("vision_config.image_size", {"image_size"}, d.image);
    }
    if (w.kind == VisionKind::Llama4) {
      // ref: modeling_llama4.py Llama4VisionMLP2 (fc1 → projector_input_dim, fc2 projector_output_dim²)
      // and Llama4MultiModalProjector (linear_1 from vision_output_dim): one width, or the model
      // could not run.
      v.adapter_dim = r.integer("vision_config.projector_input_dim", {"projector_input_dim"}, d.adapter_dim);
      for (const char* k : {"projector_output_dim", "vision_output_dim"})
        if (const i64 x = r.integer(k, {k}, v.adapter_dim); x != v.adapter_dim)
          r.issues.push_back(issue_row(std::string("vision_config.") + k, Str::imp_hf_projector_dim, std::to_string(v.adapter_dim),
                                       std::to_string(x)));
      if (r.boolean({"multi_modal_projector_bias"}, false))
        r.issues.push_back(issue_row("vision_config.multi_modal_projector_bias", Str::imp_true_only_false));
    }
    // ref: SiglipVisionConfig vision_use_head (default true) adds a pooling head that Gemma 3's
    // checkpoints do not have; a tower with one is refused rather than miscounted.
    if (w.kind == VisionKind::Siglip && r.boolean({"vision_use_head"}, true))
      r.issues.push_back(issue_row("vision_config.vision_use_head", Str::imp_hf_pooling_head));
    for (auto& i : r.issues) issues.push_back(std::move(i));
  }
  if (w.projector == ProjectorKind::Mistral3) {
    // ref: Mistral3Config spatial_merge_size (the patch merger's merge × merge patches) and
    // vision_feature_layer: one layer's features (a list would widen linear_1; not counted).
    Reader r(top, "");
    v.merge = r.integer("spatial_merge_size", {"spatial_merge_size"}, 2);
    if (auto f = top.find("vision_feature_layer"); f != top.end() && !f->is_null() && !f->is_number_integer())
      r.issues.push_back(issue_row("vision_feature_layer", Str::imp_hf_feature_layer, json_util::type_row(*f)));
    for (auto& i : r.issues) issues.push_back(std::move(i));
  }
  if (w.projector == ProjectorKind::Gemma3) {
    // ref: modeling_gemma3.py Gemma3MultiModalProjector: patches_per_image = image_size // patch_size,
    // tokens_per_side = int(mm_tokens_per_image ** 0.5), kernel_size = patches_per_image //
    // tokens_per_side, an AvgPool2d of that kernel: each image gives mm_tokens_per_image (Gemma3Config
    // default 256) soft tokens. The pool is kept as the merge; tokens that do not tile the grid
    // would not match the prompt's placeholders, and are refused.
    Reader r(top, "");
    const i64 tokens = r.integer("mm_tokens_per_image", {"mm_tokens_per_image"}, 256);
    if (auto i = check_limit("mm_tokens_per_image", tokens)) {
      r.issues.push_back(*i);
    } else if (v.patch >= 1 && v.image >= v.patch) {
      i64 side = 1;
      while ((side + 1) * (side + 1) <= tokens) ++side;
      const i64 per_side = v.image / v.patch;
      if (side * side != tokens || per_side % side != 0)
        r.issues.push_back(issue_row("mm_tokens_per_image", Str::imp_hf_mm_tokens, std::to_string(tokens), std::to_string(per_side)));
      else
        v.merge = per_side / side;
    }
    for (auto& i : r.issues) issues.push_back(std::move(i));
  }
  if (w.projector == ProjectorKind::Mlp2 || w.projector == ProjectorKind::Mistral3) {  // ref: LlavaConfig, Mistral3Config multimodal_projector_bias
    auto b = top.find("multimodal_projector_bias");
    if (b != top.end() && !b->is_null()) {
      if (b->is_boolean()) v.projector_bias = b->get<bool>();
      else issues.push_back(issue_row("multimodal_projector_bias", Str::imp_must_be_bool, json_util::type_row(*b)));
    }
  }
}

const FamilyRow* find_row(const std::string& model_type) {
  for (const auto& f : hf::family_rows())
    for (const char* t : f.model_types)
      if (model_type == t) return &f;
  return nullptr;
}

}  // namespace

const std::vector<std::string_view>& supported_model_types() {
  static const std::vector<std::string_view> v = [] {
    std::vector<std::string_view> out;
    for (const auto& f : hf::family_rows())
      for (const char* t : f.model_types) out.push_back(t);
    return out;
  }();
  return v;
}

Result<ImportedConfig> import_hf_config(std::string_view text, const ImportOptions& opt) {
  auto parsed = json_util::parse(text, "config.json", kMaxConfigBytes, kMaxConfigDepth);
  if (!parsed) return parsed.issues();
  return hf::import_object(parsed.value(), opt);
}

Result<ImportedConfig> hf::import_object(const json& config, const ImportOptions& opt) {
  const json* obj = &config;
  if (!obj->is_object()) return issue_row("config.json", Str::imp_hf_json_object, json_util::type_row(*obj));
  std::string prefix;
  std::string model_type;
  if (auto mt = obj->find("model_type"); mt != obj->end() && mt->is_string()) model_type = mt->get<std::string>();
  else if (mt != obj->end() && !mt->is_null())
    return issue_row("model_type", Str::imp_hf_must_be_string, json_util::type_row(*mt));
  // A multimodal wrapper: its vision tower is read when the core counts that kind, else refused by
  // name rather than left out.
  const Wrapper* wrapper = find_wrapper(model_type);
  const json* top = obj;
  // No wrapper's audio tower is counted (Gemma 4 E2B and E4B carry one).
  for (const char* tower : {"vision_config", "audio_config"})
    if (auto v = obj->find(tower); v != obj->end() && !v->is_null() && (!wrapper || std::string_view(tower) == "audio_config"))
      return issue_row(tower, Str::imp_hf_encoder,
                       std::string_view(tower) == "vision_config" ? Str::imp_hf_encoder_vision : Str::imp_hf_encoder_audio,
                       model_type.substr(0, 40));
  if (auto tc = obj->find("text_config"); tc != obj->end() && !tc->is_null()) {
    if (!tc->is_object()) return issue_row("text_config", Str::imp_must_be_object, json_util::type_row(*tc));
    obj = &*tc;
    prefix = "text_config.";
    if (auto mt = obj->find("model_type"); mt != obj->end() && mt->is_string()) model_type = mt->get<std::string>();
    else if (wrapper) model_type = wrapper->text_default;
    if (wrapper && wrapper->text_alias && model_type == wrapper->text_alias) model_type = wrapper->text_default;
  } else if (wrapper && wrapper->flat_text) {
    model_type = wrapper->text_default;  // the text model's keys at the top level, beside vision_config
  } else if (wrapper) {
    return issue_row("text_config", Str::imp_hf_text_config_required, model_type);
  }

  Reader r(*obj, prefix);
  const FamilyRow* row = find_row(model_type);
  if (!row) {
    std::string list;
    for (auto t : supported_model_types()) list += std::string(list.empty() ? "" : ", ") + std::string(t);
    if (!opt.generic_fallback)
      return model_type.empty() ? issue_row(prefix + "model_type", Str::imp_hf_model_type_missing, list)
                                : issue_row(prefix + "model_type", Str::imp_hf_model_type_unsupported, model_type, list);
    r.notes.push_back(issue_row("model_type", Str::import_note_generic, model_type));
    row = &hf::generic_row();
  }
  ModelConfig c;
  read_row(*row, r, c, model_type);
  if (wrapper) {
    read_vision(*top, *wrapper, r.issues, c.vision, c.d_model);
    // The wrapper's own tie_word_embeddings (Qwen3_5Config keeps one beside text_config's) decides
    // the head of the model it builds; two that disagree are refused rather than one picked.
    if (auto t = top->find("tie_word_embeddings"); t != top->end() && !t->is_null()) {
      if (!t->is_boolean())
        r.issues.push_back(issue_row("tie_word_embeddings", Str::imp_must_be_bool, json_util::type_row(*t)));
      else if (obj->contains("tie_word_embeddings") && (*obj)["tie_word_embeddings"] != *t)
        r.issues.push_back(issue_row("tie_word_embeddings", Str::imp_hf_tie_differs));
      else
        c.tie_embeddings = t->get<bool>();
    }
  }
  if (row == &hf::generic_row()) {
    for (const char* k : {"model_type", "architectures"}) (void)r.has(k);
    check_generic(r);
  }
  if (!r.issues.empty()) return r.issues;

  // Validation issues carry canonical names; report them under the key the config used.
  // Sizes can each be in range while their products overflow: count_params refuses those.
  std::vector<Issue> issues = validate(c);
  if (issues.empty())
    if (auto counted = count_params(c); !counted) issues = counted.issues();
  if (!issues.empty()) {
    for (auto& i : issues)
      // Vision keys, and the wrapper's own top-level spatial_merge_size, are named as written.
      if (i.field.rfind("vision_config", 0) != 0 && !(c.vision.projector == ProjectorKind::Mistral3 && i.field == "spatial_merge_size"))
        i.field = r.key_for(i.field);
    return issues;
  }
  return ImportedConfig{std::move(c), std::move(r.notes)};
}

}  // namespace llmsize::core
