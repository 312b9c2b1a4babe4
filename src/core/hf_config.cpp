// config.json import (see hf_config.hpp). One reader per family below; each lists the keys
// it reads, their aliases and the Hugging Face class default used when a key is absent.
#include "hf_config.hpp"

#include "hf_reader.hpp"
#include "params.hpp"

namespace llmsize::core {

namespace {

using json_util::json;

struct TypeEntry {
  std::string_view model_type;
  Family family;
};
const std::vector<TypeEntry>& type_table() {
  static const std::vector<TypeEntry> t = {
      {"gpt2", Family::Gpt2},          {"gptj", Family::GptJ},
      {"gpt_neox", Family::GptNeoX},   {"opt", Family::Opt},
      {"bloom", Family::Bloom},        {"falcon", Family::Falcon},
      {"RefinedWeb", Family::Falcon},  {"RefinedWebModel", Family::Falcon},
      {"llama", Family::Llama},        {"mistral", Family::Mistral},
      {"mixtral", Family::Mixtral},    {"qwen2", Family::Qwen2},
      {"qwen2_moe", Family::Qwen2Moe}, {"qwen3", Family::Qwen3},
      {"qwen3_moe", Family::Qwen3Moe}, {"gemma", Family::Gemma},
      {"gemma2", Family::Gemma2},      {"phi", Family::Phi},
      {"phi3", Family::Phi3},          {"deepseek_v2", Family::DeepseekV2},
      {"deepseek_v3", Family::DeepseekV3},
  };
  return t;
}

using hf::Reader;

Activation activation_of(const std::string& name, Activation def) {
  if (name == "silu" || name == "swish" || name == "swiglu") return Activation::Silu;
  if (name == "relu") return Activation::Relu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast" || name == "gelu_tanh")
    return Activation::GeluTanh;
  if (name.rfind("gelu", 0) == 0) return Activation::Gelu;
  return def;
}

// Fields every family reads the same way.
void read_common(Reader& r, ModelConfig& c, bool tie_default) {
  c.n_layers = r.required("num_hidden_layers", {"num_hidden_layers", "n_layer", "n_layers", "num_layers"});
  c.d_model = r.required("hidden_size", {"hidden_size", "n_embd", "n_embed", "d_model"});
  c.n_heads = r.required("num_attention_heads", {"num_attention_heads", "n_head", "n_heads", "num_heads"});
  c.n_kv_heads = r.integer("num_key_value_heads", {"num_key_value_heads", "num_kv_heads", "n_head_kv"}, c.n_heads);
  c.vocab = r.required("vocab_size", {"vocab_size", "padded_vocab_size", "n_vocab"});
  c.tie_embeddings = r.boolean({"tie_word_embeddings"}, tie_default);
  c.rope_theta = r.number("rope_theta", {"rope_theta", "rotary_emb_base", "rope_base"}, 10000.0);
}

void read_positions(Reader& r, ModelConfig& c, i64 def) {
  auto p = r.opt_int("max_position_embeddings",
                     {"max_position_embeddings", "n_positions", "n_ctx", "seq_length", "max_sequence_length"});
  if (!p) r.notes.push_back("max_position_embeddings absent: assumed " + std::to_string(def));
  c.max_positions = p.value_or(def);
}

// head_dim from the config, else d/H — which then must divide evenly.
void read_head_dim(Reader& r, ModelConfig& c, i64 class_default = 0) {
  if (auto hd = r.opt_int("head_dim", {"head_dim", "attention_head_dim"})) {
    c.head_dim = *hd;
    return;
  }
  if (class_default > 0) {
    c.head_dim = class_default;
    r.notes.push_back("head_dim absent: the class default " + std::to_string(class_default) + " is used");
    return;
  }
  if (c.n_heads > 0 && c.d_model > 0) {
    if (c.d_model % c.n_heads != 0) {
      r.issues.push_back({r.key_for("num_attention_heads"),
                          "must divide hidden_size (" + std::to_string(c.d_model) +
                              ") when head_dim is not given, got " + std::to_string(c.n_heads)});
    }
    c.head_dim = c.d_model / c.n_heads;
  }
}

// LLaMA-like decoders: gated SiLU FFN, RMSNorm, rotary, separate q/k/v/o.
void read_llama_like(Reader& r, ModelConfig& c, bool tie_default) {
  read_common(r, c, tie_default);
  read_positions(r, c, 2048);
  c.d_ff = r.integer("intermediate_size", {"intermediate_size"}, 0);
  c.ffn_kind = FfnKind::Gated;
  c.act = activation_of(r.str({"hidden_act", "hidden_activation"}, "silu"), Activation::Silu);
  c.pos = PosKind::Rotary;
  c.rotary_fraction = r.number("partial_rotary_factor", {"partial_rotary_factor"}, 1.0);
  c.norm = NormKind::RmsNorm;
  const bool ab = r.boolean({"attention_bias"}, false);
  c.bias_qkv = c.bias_o = ab;
  c.bias_ffn = r.boolean({"mlp_bias"}, false);
}

void read_sliding(Reader& r, ModelConfig& c, bool enabled_by_default) {
  const bool use = r.boolean({"use_sliding_window"}, enabled_by_default);
  const i64 w = r.integer("sliding_window", {"sliding_window"}, 0);
  c.sliding_window = use ? w : 0;
}

// Which layers of a Qwen MoE model are MoE: (i + 1) % decoder_sparse_step == 0, except the
// explicitly dense mlp_only_layers.
void read_qwen_moe_layers(Reader& r, MoeConfig& m) {
  m.freq = r.integer("moe_layer_freq", {"decoder_sparse_step"}, 1);
  m.phase = m.freq - 1;
  m.dense_layers = r.int_list("mlp_only_layers", "mlp_only_layers");
}

void read_moe_deepseek(Reader& r, ModelConfig& c) {
  auto& m = c.moe;
  m.num_experts = r.integer("num_experts", {"n_routed_experts"}, 0);
  if (m.num_experts == 0) return;
  m.top_k = r.integer("num_experts_per_tok", {"num_experts_per_tok"}, 0);
  m.expert_ffn = r.integer("moe_intermediate_size", {"moe_intermediate_size"}, 0);
  m.num_shared_experts = r.integer("n_shared_experts", {"n_shared_experts"}, 0);
  m.first_dense = r.integer("first_k_dense_replace", {"first_k_dense_replace"}, 0);
  m.freq = r.integer("moe_layer_freq", {"moe_layer_freq"}, 1);
  m.phase = 0;  // DeepSeek: MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0
}

}  // namespace

const std::vector<std::string_view>& supported_model_types() {
  static const std::vector<std::string_view> v = [] {
    std::vector<std::string_view> out;
    for (const auto& e : type_table()) out.push_back(e.model_type);
    return out;
  }();
  return v;
}

Result<ImportedConfig> import_hf_config(std::string_view text, const ImportOptions& opt) {
  auto parsed = json_util::parse(text, "config.json", kMaxConfigBytes, kMaxConfigDepth);
  if (!parsed) return parsed.issues();
  const json* obj = &parsed.value();
  if (!obj->is_object()) return Issue{"config.json", "must be a JSON object, got " + json_util::type_name(*obj)};
  std::string prefix;
  std::string model_type;
  if (auto mt = obj->find("model_type"); mt != obj->end() && mt->is_string()) model_type = mt->get<std::string>();
  else if (mt != obj->end() && !mt->is_null())
    return Issue{"model_type", "must be a string, got " + json_util::type_name(*mt)};
  if (auto tc = obj->find("text_config"); tc != obj->end() && !tc->is_null()) {
    if (!tc->is_object()) return Issue{"text_config", "must be an object, got " + json_util::type_name(*tc)};
    obj = &*tc;
    prefix = "text_config.";
    if (auto mt = obj->find("model_type"); mt != obj->end() && mt->is_string()) model_type = mt->get<std::string>();
  }

  std::optional<Family> family;
  for (const auto& e : type_table())
    if (e.model_type == model_type) family = e.family;

  Reader r(*obj, prefix);
  ModelConfig c;
  if (!family) {
    std::string list;
    for (auto t : supported_model_types()) list += std::string(list.empty() ? "" : ", ") + std::string(t);
    if (!opt.generic_fallback)
      return Issue{prefix + "model_type",
                   (model_type.empty() ? std::string("is missing") : "\"" + model_type + "\" is not supported") +
                       "; supported: " + list + " (or choose the generic LLaMA-like reading)"};
    r.notes.push_back("model_type \"" + model_type + "\" is read as a generic LLaMA-like decoder");
    c.family = Family::Custom;
  } else {
    c.family = *family;
  }

  switch (c.family) {
    case Family::Gpt2:
      read_common(r, c, true);
      read_positions(r, c, 1024);
      c.d_ff = r.integer("intermediate_size", {"n_inner"}, 4 * c.d_model);
      c.ffn_kind = FfnKind::Classic;
      c.act = activation_of(r.str({"activation_function"}, "gelu_new"), Activation::GeluTanh);
      c.pos = PosKind::Learned;
      c.norm = NormKind::LayerNorm;
      c.fused_qkv = true;
      c.bias_qkv = c.bias_o = c.bias_ffn = true;
      read_head_dim(r, c);
      break;
    case Family::GptJ:
      read_common(r, c, false);
      read_positions(r, c, 2048);
      c.d_ff = r.integer("intermediate_size", {"n_inner"}, 4 * c.d_model);
      c.ffn_kind = FfnKind::Classic;
      c.act = activation_of(r.str({"activation_function"}, "gelu_new"), Activation::GeluTanh);
      c.pos = PosKind::Rotary;
      c.norm = NormKind::LayerNorm;
      c.parallel_block = true;
      c.norm_ffn_input = false;
      c.bias_ffn = c.bias_lm_head = true;
      read_head_dim(r, c);
      if (c.head_dim > 0) {
        const i64 rd = r.integer("partial_rotary_factor", {"rotary_dim"}, c.head_dim);
        c.rotary_fraction = static_cast<double>(rd) / static_cast<double>(c.head_dim);
      }
      break;
    case Family::GptNeoX: {
      read_common(r, c, false);
      read_positions(r, c, 2048);
      c.d_ff = r.integer("intermediate_size", {"intermediate_size"}, 4 * c.d_model);
      c.ffn_kind = FfnKind::Classic;
      c.act = activation_of(r.str({"hidden_act"}, "gelu"), Activation::Gelu);
      c.pos = PosKind::Rotary;
      c.rotary_fraction = r.number("partial_rotary_factor", {"rotary_pct", "partial_rotary_factor"}, 0.25);
      c.norm = NormKind::LayerNorm;
      c.parallel_block = r.boolean({"use_parallel_residual"}, true);
      c.fused_qkv = true;
      c.bias_qkv = c.bias_o = r.boolean({"attention_bias"}, true);
      c.bias_ffn = true;
      read_head_dim(r, c);
      break;
    }
    case Family::Opt: {
      read_common(r, c, true);
      read_positions(r, c, 2048);
      c.d_ff = r.integer("intermediate_size", {"ffn_dim"}, 4 * c.d_model);
      c.ffn_kind = FfnKind::Classic;
      c.act = activation_of(r.str({"activation_function"}, "relu"), Activation::Relu);
      c.pos = PosKind::Learned;
      c.pos_offset = 2;  // OPTLearnedPositionalEmbedding keeps 2 extra rows
      c.norm = NormKind::LayerNorm;
      if (!r.boolean({"layer_norm_elementwise_affine"}, true))
        r.issues.push_back({prefix + "layer_norm_elementwise_affine", "false is not supported (only true)"});
      const bool bias = r.boolean({"enable_bias"}, true);
      c.bias_qkv = c.bias_o = c.bias_ffn = bias;
      const i64 proj = r.integer("word_embed_proj_dim", {"word_embed_proj_dim"}, c.d_model);
      c.embed_proj_dim = proj == c.d_model ? 0 : proj;
      c.norm_final = r.boolean({"do_layer_norm_before"}, true) && !r.boolean({"_remove_final_layer_norm"}, false);
      read_head_dim(r, c);
      break;
    }
    case Family::Bloom:
      read_common(r, c, true);
      read_positions(r, c, 2048);
      c.d_ff = 4 * c.d_model;
      c.ffn_kind = FfnKind::Classic;
      c.act = Activation::GeluTanh;
      c.pos = PosKind::Alibi;
      c.norm = NormKind::LayerNorm;
      c.norm_embed = true;
      c.fused_qkv = true;
      c.bias_qkv = c.bias_o = c.bias_ffn = true;
      read_head_dim(r, c);
      break;
    case Family::Falcon: {
      read_common(r, c, true);
      read_positions(r, c, 2048);
      c.d_ff = r.integer("intermediate_size", {"ffn_hidden_size"}, 4 * c.d_model);
      c.ffn_kind = FfnKind::Classic;
      c.act = Activation::Gelu;
      c.pos = r.boolean({"alibi"}, false) ? PosKind::Alibi : PosKind::Rotary;
      c.norm = NormKind::LayerNorm;
      c.fused_qkv = true;
      const bool new_arch = r.boolean({"new_decoder_architecture"}, model_type == "RefinedWeb");
      const bool bias = r.boolean({"bias"}, false);
      c.bias_qkv = c.bias_o = c.bias_ffn = bias;
      if (new_arch) {
        // K from num_kv_heads (read by read_common); two norms (ln_attn, ln_mlp) by default.
        c.parallel_block = true;
        c.norm_ffn_input = r.integer("num_ln_in_parallel_attn", {"num_ln_in_parallel_attn"}, 2) == 2;
      } else {
        c.parallel_block = r.boolean({"parallel_attn"}, true);
        c.norm_ffn_input = !c.parallel_block;
        if (r.boolean({"multi_query"}, true)) c.n_kv_heads = 1;
        else if (!r.has("num_kv_heads") && !r.has("n_head_kv")) c.n_kv_heads = c.n_heads;
      }
      read_head_dim(r, c);
      break;
    }
    case Family::Llama:
    case Family::Custom:
      read_llama_like(r, c, false);
      read_head_dim(r, c);
      if (c.family == Family::Custom) {
        if (!r.has("tie_word_embeddings")) r.notes.push_back("tie_word_embeddings absent: assumed false (untied head)");
        c.moe.num_experts = r.integer("num_experts", {"num_local_experts", "num_experts", "n_routed_experts"}, 0);
        if (c.moe.num_experts > 0) {
          c.moe.top_k = r.integer("num_experts_per_tok", {"num_experts_per_tok", "top_k"}, 0);
          c.moe.expert_ffn = r.integer("moe_intermediate_size", {"moe_intermediate_size"}, c.d_ff);
        }
        read_sliding(r, c, true);
      }
      break;
    case Family::Mistral:
      read_llama_like(r, c, false);
      read_head_dim(r, c);
      read_sliding(r, c, true);
      break;
    case Family::Mixtral:
      read_llama_like(r, c, false);
      read_head_dim(r, c);
      read_sliding(r, c, true);
      c.moe.num_experts = r.integer("num_experts", {"num_local_experts"}, 8);
      c.moe.top_k = r.integer("num_experts_per_tok", {"num_experts_per_tok"}, 2);
      c.moe.expert_ffn = c.d_ff;
      break;
    case Family::Qwen2:
    case Family::Qwen2Moe:
      read_llama_like(r, c, false);
      c.bias_qkv = true;  // Qwen2Attention: q, k, v with bias, o without
      c.bias_o = false;
      read_head_dim(r, c);
      read_sliding(r, c, false);
      if (c.family == Family::Qwen2Moe) {
        auto& m = c.moe;
        m.num_experts = r.integer("num_experts", {"num_experts"}, 60);
        m.top_k = r.integer("num_experts_per_tok", {"num_experts_per_tok"}, 4);
        m.expert_ffn = r.integer("moe_intermediate_size", {"moe_intermediate_size"}, 1408);
        m.shared_ffn = r.integer("shared_expert_intermediate_size", {"shared_expert_intermediate_size"}, 5632);
        m.num_shared_experts = m.shared_ffn > 0 ? 1 : 0;
        m.shared_gate = m.shared_ffn > 0;
        read_qwen_moe_layers(r, m);
      }
      break;
    case Family::Qwen3:
    case Family::Qwen3Moe:
      read_llama_like(r, c, false);
      read_head_dim(r, c, 128);
      read_sliding(r, c, false);
      c.norm_qk = true;
      if (c.family == Family::Qwen3Moe) {
        auto& m = c.moe;
        m.num_experts = r.integer("num_experts", {"num_experts"}, 128);
        m.top_k = r.integer("num_experts_per_tok", {"num_experts_per_tok"}, 8);
        m.expert_ffn = r.integer("moe_intermediate_size", {"moe_intermediate_size"}, 768);
        read_qwen_moe_layers(r, m);
      }
      break;
    case Family::Gemma:
    case Family::Gemma2:
      read_llama_like(r, c, true);
      c.act = activation_of(r.str({"hidden_activation", "hidden_act"}, "gelu_pytorch_tanh"), Activation::GeluTanh);
      read_head_dim(r, c, 256);
      if (c.family == Family::Gemma2) {
        c.norm_sandwich = true;
        c.sliding_window = r.integer("sliding_window", {"sliding_window"}, 4096);
        c.sliding_pattern = 2;  // Gemma-2 alternates local (even layers) and global attention
      }
      break;
    case Family::Phi:
      read_common(r, c, false);
      read_positions(r, c, 2048);
      c.d_ff = r.integer("intermediate_size", {"intermediate_size"}, 8192);
      c.ffn_kind = FfnKind::Classic;
      c.act = activation_of(r.str({"hidden_act"}, "gelu_new"), Activation::GeluTanh);
      c.pos = PosKind::Rotary;
      c.rotary_fraction = r.number("partial_rotary_factor", {"partial_rotary_factor"}, 0.5);
      c.norm = NormKind::LayerNorm;
      c.parallel_block = true;
      c.norm_ffn_input = false;
      c.norm_qk = r.boolean({"qk_layernorm"}, false);
      c.bias_qkv = c.bias_o = c.bias_ffn = c.bias_lm_head = true;
      read_head_dim(r, c);
      break;
    case Family::Phi3:
      read_llama_like(r, c, false);
      c.fused_qkv = true;
      c.fused_gate_up = true;
      read_head_dim(r, c);
      read_sliding(r, c, true);
      break;
    case Family::DeepseekV2:
    case Family::DeepseekV3: {
      read_llama_like(r, c, false);
      auto& m = c.mla;
      m.enabled = true;
      m.q_lora_rank = r.integer("q_lora_rank", {"q_lora_rank"}, 0);
      m.kv_lora_rank = r.required("kv_lora_rank", {"kv_lora_rank"});
      m.qk_nope_dim = r.required("qk_nope_head_dim", {"qk_nope_head_dim"});
      m.qk_rope_dim = r.required("qk_rope_head_dim", {"qk_rope_head_dim"});
      m.v_head_dim = r.required("v_head_dim", {"v_head_dim"});
      c.head_dim = m.qk_nope_dim + m.qk_rope_dim;
      c.n_kv_heads = c.n_heads;  // MLA: every head has its own k and v, from one shared latent
      read_moe_deepseek(r, c);
      c.moe.shared_ffn = c.moe.num_shared_experts * c.moe.expert_ffn;
      const std::string method = r.str({"topk_method"}, c.family == Family::DeepseekV3 ? "noaux_tc" : "greedy");
      c.moe.router_correction_bias = method == "noaux_tc";
      c.mtp_layers = r.integer("num_nextn_predict_layers", {"num_nextn_predict_layers"}, 0);
      break;
    }
  }
  if (!r.issues.empty()) return r.issues;

  // Validation issues carry canonical names; report them under the key the config used.
  // Sizes can each be in range while their products overflow: count_params refuses those.
  std::vector<Issue> issues = validate(c);
  if (issues.empty())
    if (auto counted = count_params(c); !counted) issues = counted.issues();
  if (!issues.empty()) {
    for (auto& i : issues) i.field = r.key_for(i.field);
    return issues;
  }
  return ImportedConfig{std::move(c), std::move(r.notes)};
}

}  // namespace llmsize::core
