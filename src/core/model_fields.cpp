// The ModelConfig field table (see model_fields.hpp).
#include "model_fields.hpp"

#include <algorithm>

#include "text_value.hpp"

namespace llmsize::core {

namespace {

std::string join_choices(const std::vector<std::string_view>& c) {
  std::string s;
  for (auto v : c) s += (s.empty() ? "" : ", ") + std::string(v);
  return s;
}

// Integer field within the storable range [lo, hi]. The table's ranges contain
// field_limits()' (a test checks it); 0 is storable where it means "unused" (MoE and MLA
// fields of a dense model), and validate() applies the semantic bounds.
std::optional<Issue> set_int(i64& dst, std::string_view key, std::string_view text, i64 lo, i64 hi) {
  auto v = parse_int(text);
  if (!v || *v < lo || *v > hi)
    return Issue{std::string(key), "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                       "], got \"" + std::string(text.substr(0, 40)) + "\""};
  dst = *v;
  return std::nullopt;
}
std::optional<Issue> set_bool(bool& dst, std::string_view key, std::string_view text) {
  auto v = parse_bool(text);
  if (!v) return Issue{std::string(key), "must be 0 or 1, got \"" + std::string(text.substr(0, 40)) + "\""};
  dst = *v;
  return std::nullopt;
}
template <class E>
std::optional<Issue> set_enum(E& dst, std::string_view key, std::string_view text,
                              const std::vector<std::string_view>& names) {
  auto it = std::find(names.begin(), names.end(), text);
  if (it == names.end())
    return Issue{std::string(key), "must be one of " + join_choices(names) + ", got \"" +
                                       std::string(text.substr(0, 40)) + "\""};
  dst = static_cast<E>(it - names.begin());
  return std::nullopt;
}

const std::vector<std::string_view> kFamilies = {
    "gpt2", "gptj", "gpt_neox", "opt", "bloom", "falcon", "llama", "mistral", "mixtral", "qwen2",
    "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "phi", "phi3", "deepseek_v2", "deepseek_v3", "custom"};
const std::vector<std::string_view> kFfn = {"classic", "gated"};
const std::vector<std::string_view> kAct = {"gelu", "gelu_tanh", "relu", "silu"};
const std::vector<std::string_view> kPos = {"learned", "rotary", "alibi", "none"};
const std::vector<std::string_view> kNorm = {"layernorm", "layernorm_nobias", "rmsnorm"};
const std::vector<std::string_view> kBool = {"0", "1"};

std::string b(bool v) { return v ? "1" : "0"; }

#define INT_FIELD(KEY, CANON, LABEL, HELP, MEMBER, LO, HI)                                          \
  ModelField{KEY, CANON, LABEL, HELP, FieldKind::Int, {}, LO, HI, 0, 0,                         \
             [](const ModelConfig& c) { return std::to_string(c.MEMBER); },                       \
             [](ModelConfig& c, std::string_view t) { return set_int(c.MEMBER, KEY, t, LO, HI); }}
#define BOOL_FIELD(KEY, LABEL, HELP, MEMBER)                                                      \
  ModelField{KEY, KEY, LABEL, HELP, FieldKind::Bool, kBool, 0, 1, 0, 0,                         \
             [](const ModelConfig& c) { return b(c.MEMBER); },                                    \
             [](ModelConfig& c, std::string_view t) { return set_bool(c.MEMBER, KEY, t); }}
#define ENUM_FIELD(KEY, LABEL, HELP, MEMBER, NAMES)                                               \
  ModelField{KEY, KEY, LABEL, HELP, FieldKind::Enum, NAMES, 0, 0, 0, 0,                         \
             [](const ModelConfig& c) { return std::string(NAMES[static_cast<size_t>(c.MEMBER)]); }, \
             [](ModelConfig& c, std::string_view t) { return set_enum(c.MEMBER, KEY, t, NAMES); }}

}  // namespace

std::optional<Family> family_from_id(std::string_view id) {
  auto it = std::find(kFamilies.begin(), kFamilies.end(), id);
  if (it == kFamilies.end()) return std::nullopt;
  return static_cast<Family>(it - kFamilies.begin());
}

const std::vector<ModelField>& model_fields() {
  static const std::vector<ModelField> fields = {
      ENUM_FIELD("fam", "family", "Hugging Face model_type: decides tensor names", family, kFamilies),
      INT_FIELD("L", "num_hidden_layers", "layers", "decoder layers", n_layers, 1, 10000),
      INT_FIELD("d", "hidden_size", "hidden size", "model width d", d_model, 1, 1 << 20),
      INT_FIELD("H", "num_attention_heads", "heads", "query heads", n_heads, 1, 65536),
      INT_FIELD("KV", "num_key_value_heads", "KV heads", "key/value heads (H: MHA, 1: MQA, between: GQA)",
                n_kv_heads, 1, 65536),
      INT_FIELD("hd", "head_dim", "head dim", "dimension of one head", head_dim, 1, 65536),
      INT_FIELD("ff", "intermediate_size", "FFN width", "width of the dense FFN", d_ff, 1, 1 << 24),
      ENUM_FIELD("ffk", "FFN kind", "classic: up+down; gated: gate+up+down (SwiGLU/GeGLU)", ffn_kind, kFfn),
      ENUM_FIELD("act", "activation", "FFN activation", act, kAct),
      INT_FIELD("V", "vocab_size", "vocab", "vocabulary size", vocab, 1, 1 << 24),
      INT_FIELD("P", "max_position_embeddings", "max positions", "trained context; rows of a learned position table",
                max_positions, 1, 1 << 27),
      ENUM_FIELD("pos", "positions", "position encoding", pos, kPos),
      ModelField{"rot", "partial_rotary_factor", "rotary fraction", "fraction of head dims rotated (partial RoPE)",
                 FieldKind::Real, {}, 0, 0, 0.0, 1.0,
                 [](const ModelConfig& c) { return format_real(c.rotary_fraction); },
                 [](ModelConfig& c, std::string_view t) -> std::optional<Issue> {
                   auto v = parse_real(t);
                   if (!v || !(*v > 0.0 && *v <= 1.0))
                     return Issue{"rot", "must be a number in (0, 1], got \"" + std::string(t.substr(0, 40)) + "\""};
                   c.rotary_fraction = *v;
                   return std::nullopt;
                 }},
      ModelField{"theta", "rope_theta", "RoPE base", "rotary base frequency theta", FieldKind::Real, {}, 0, 0, 0.0, 1e12,
                 [](const ModelConfig& c) { return format_real(c.rope_theta); },
                 [](ModelConfig& c, std::string_view t) -> std::optional<Issue> {
                   auto v = parse_real(t);
                   if (!v || !(*v > 0.0 && *v <= 1e12))
                     return Issue{"theta", "must be a number in (0, 1e12], got \"" + std::string(t.substr(0, 40)) + "\""};
                   c.rope_theta = *v;
                   return std::nullopt;
                 }},
      INT_FIELD("po", "position_offset", "position offset", "extra learned position rows (OPT: 2)", pos_offset, 0, 1024),
      ENUM_FIELD("norm", "norm", "normalization", norm, kNorm),
      BOOL_FIELD("par", "parallel block", "attention and FFN read the same input", parallel_block),
      BOOL_FIELD("nf", "FFN norm", "a norm before the FFN", norm_ffn_input),
      BOOL_FIELD("ns", "sandwich norms", "norms after attention and FFN (Gemma-2)", norm_sandwich),
      BOOL_FIELD("nqk", "q/k norms", "per-head norms on q and k (Qwen3)", norm_qk),
      BOOL_FIELD("ne", "embedding norm", "a norm after the embedding (BLOOM)", norm_embed),
      BOOL_FIELD("nfin", "final norm", "a norm before the head", norm_final),
      BOOL_FIELD("bqkv", "q/k/v bias", "biases on q, k, v", bias_qkv),
      BOOL_FIELD("bo", "out bias", "bias on the attention output", bias_o),
      BOOL_FIELD("bff", "FFN bias", "biases on the FFN matrices", bias_ffn),
      BOOL_FIELD("bh", "head bias", "bias on the LM head", bias_lm_head),
      BOOL_FIELD("fqkv", "fused qkv", "one qkv tensor (naming only)", fused_qkv),
      BOOL_FIELD("fgu", "fused gate_up", "one gate_up tensor (naming only)", fused_gate_up),
      BOOL_FIELD("tie", "tied embeddings", "the LM head shares the embedding matrix", tie_embeddings),
      INT_FIELD("ep", "word_embed_proj_dim", "embedding width", "OPT word_embed_proj_dim (0: same as d)",
                embed_proj_dim, 0, 1 << 20),
      INT_FIELD("sw", "sliding_window", "sliding window", "tokens kept by sliding layers (0: none)", sliding_window,
                0, 1 << 27),
      INT_FIELD("swp", "sliding_window_pattern", "window pattern", "1: every layer slides; n: every n-th is global",
                sliding_pattern, 1, 10000),
      INT_FIELD("E", "num_experts", "experts", "routed experts per MoE layer (0: dense)", moe.num_experts, 0, 65536),
      INT_FIELD("topk", "num_experts_per_tok", "top-k", "routed experts per token", moe.top_k, 0, 65536),
      INT_FIELD("fe", "moe_intermediate_size", "expert width", "width of one routed expert", moe.expert_ffn, 0, 1 << 24),
      INT_FIELD("S", "n_shared_experts", "shared experts", "shared experts (count)", moe.num_shared_experts, 0, 65536),
      INT_FIELD("fs", "shared_expert_intermediate_size", "shared width", "total width of the shared-expert MLP",
                moe.shared_ffn, 0, 1 << 24),
      BOOL_FIELD("sg", "shared gate", "sigmoid gate on the shared expert (Qwen2-MoE)", moe.shared_gate),
      INT_FIELD("fd", "first_k_dense_replace", "first dense", "leading dense layers", moe.first_dense, 0, 10000),
      INT_FIELD("mf", "moe_layer_freq", "MoE every", "every n-th layer is MoE", moe.freq, 1, 10000),
      INT_FIELD("mp", "moe_layer_phase", "MoE phase", "layer i is MoE iff i % every == phase", moe.phase, 0, 9999),
      BOOL_FIELD("rb", "router bias", "bias on the router", moe.router_bias),
      BOOL_FIELD("rcb", "correction bias", "router correction bias (DeepSeek-V3)", moe.router_correction_bias),
      ModelField{"dl", "mlp_only_layers", "dense layers", "explicitly dense layers, comma separated",
                 FieldKind::IntList, {}, 0, 9999, 0, 0,
                 [](const ModelConfig& c) {
                   std::string s;
                   for (i64 l : c.moe.dense_layers) s += (s.empty() ? "" : ",") + std::to_string(l);
                   return s;
                 },
                 [](ModelConfig& c, std::string_view t) -> std::optional<Issue> {
                   std::vector<i64> out;
                   while (!t.empty()) {
                     const size_t comma = t.find(',');
                     auto v = parse_int(t.substr(0, comma));
                     if (!v || *v < 0 || *v > 9999 || out.size() >= 10000)
                       return Issue{"dl", "must be comma-separated layer indices in [0, 9999]"};
                     out.push_back(*v);
                     if (comma == std::string_view::npos) break;
                     t.remove_prefix(comma + 1);
                   }
                   c.moe.dense_layers = std::move(out);
                   return std::nullopt;
                 }},
      BOOL_FIELD("mla", "MLA", "multi-head latent attention (DeepSeek)", mla.enabled),
      INT_FIELD("qlr", "q_lora_rank", "q LoRA rank", "MLA query bottleneck (0: none)", mla.q_lora_rank, 0, 1 << 20),
      INT_FIELD("kvlr", "kv_lora_rank", "KV LoRA rank", "MLA latent width", mla.kv_lora_rank, 0, 1 << 20),
      INT_FIELD("nope", "qk_nope_head_dim", "qk nope dim", "MLA non-rotary q/k head dims", mla.qk_nope_dim, 0, 65536),
      INT_FIELD("rope", "qk_rope_head_dim", "qk rope dim", "MLA rotary q/k head dims", mla.qk_rope_dim, 0, 65536),
      INT_FIELD("vhd", "v_head_dim", "v head dim", "MLA value head dims", mla.v_head_dim, 0, 65536),
      INT_FIELD("mtp", "num_nextn_predict_layers", "MTP layers", "multi-token-prediction layers", mtp_layers, 0, 16),
  };
  return fields;
}

std::string allowed_text(FieldKind kind, const std::vector<std::string_view>& choices, i64 min_int, i64 max_int,
                         double min_real, double max_real) {
  switch (kind) {
    case FieldKind::Int: return "an integer in [" + std::to_string(min_int) + ", " + std::to_string(max_int) + "]";
    case FieldKind::Real: return "a number in (" + format_real(min_real) + ", " + format_real(max_real) + "]";
    case FieldKind::Bool: return "0 or 1";
    case FieldKind::Enum: return "one of " + join_choices(choices);
    case FieldKind::Flags: return "\"all\" or a comma-separated subset of " + join_choices(choices);
    case FieldKind::IntList:
      return "comma-separated integers in [" + std::to_string(min_int) + ", " + std::to_string(max_int) + "]";
  }
  return "";
}

std::string allowed_text(const ModelField& f) {
  return allowed_text(f.kind, f.choices, f.min_int, f.max_int, f.min_real, f.max_real);
}

const ModelField* find_model_field(std::string_view key) {
  for (const auto& f : model_fields())
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace llmsize::core
