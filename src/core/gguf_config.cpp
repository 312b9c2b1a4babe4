// A GGUF file's metadata as a model (see gguf.hpp): each llama.cpp architecture is a row that
// names the Hugging Face model_type it comes from and how its keys read; the keys become a
// config.json read by import_hf_config, the one importer, so a GGUF model and its Hugging Face
// config give the same ModelConfig. Key names: llama.cpp src/llama-arch.cpp LLM_KV_NAMES (b10573).
#include <algorithm>
#include <optional>

#include "gguf.hpp"
#include "json_util.hpp"

namespace llmsize::core {

namespace {

// One architecture: its GGUF name, the model_type it is read as (`moe_type` when it has
// experts), and the config.json keys of its expert count and expert width.
struct GgufArch {
  std::string_view arch, model_type, moe_type;
  std::string_view experts_key = "num_experts";          // <arch>.expert_count
  std::string_view expert_ffn_key = "moe_intermediate_size";  // <arch>.expert_feed_forward_length
};
constexpr GgufArch kArchs[] = {
    // convert_hf_to_gguf.py writes Llama, Mistral and Mixtral checkpoints as "llama"; experts as
    // wide as feed_forward_length (MixtralConfig).
    {"llama", "llama", "mixtral", "num_local_experts", "intermediate_size"},
    {"qwen2", "qwen2", ""},
    {"qwen2moe", "qwen2_moe", "qwen2_moe"},
    {"qwen3", "qwen3", ""},
    {"qwen3moe", "qwen3_moe", "qwen3_moe"},
    {"gemma3", "gemma3_text", ""},
    {"gpt-oss", "gpt_oss", "gpt_oss", "num_local_experts", "intermediate_size"},
};

// <arch>.<suffix> → config.json key, for every architecture above.
constexpr std::pair<std::string_view, std::string_view> kKeys[] = {
    {"block_count", "num_hidden_layers"},
    {"embedding_length", "hidden_size"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"context_length", "max_position_embeddings"},
    {"expert_used_count", "num_experts_per_tok"},
    {"expert_shared_feed_forward_length", "shared_expert_intermediate_size"},
    {"attention.sliding_window", "sliding_window"},
};

}  // namespace

Result<ImportedConfig> gguf_config(const GgufHeader& h) {
  const std::string arch = h.string_of("general.architecture");
  if (arch.empty()) return Issue{"general.architecture", "the GGUF file names no architecture (a string key)"};
  const GgufArch* row = nullptr;
  for (const GgufArch& a : kArchs)
    if (a.arch == arch) row = &a;
  if (!row) {
    std::string known;
    for (const GgufArch& a : kArchs) known += (known.empty() ? "" : ", ") + std::string(a.arch);
    return Issue{"general.architecture", "\"" + arch + "\" is not read from GGUF metadata yet; read are " + known};
  }
  using json_util::json;
  json j = json::object();
  std::vector<std::pair<std::string, std::string>> origin;  // config.json key → the GGUF key it came from
  std::vector<Issue> issues;
  // A scalar, or a per-layer array whose entries agree (llama.cpp writes some counts per layer).
  auto integer = [&](const std::string& key, std::string_view hf) {
    const GgufValue* v = h.find(key);
    if (!v) return;
    std::optional<i64> x;
    if (v->is_integer()) x = v->i;
    if (v->kind == GgufKind::Array && !v->ints.empty() && static_cast<i64>(v->ints.size()) == v->count &&
        std::all_of(v->ints.begin(), v->ints.end(), [&](i64 e) { return e == v->ints.front(); }))
      x = v->ints.front();
    if (!x) {
      issues.push_back({key, v->kind == GgufKind::Array ? "per-layer values that differ are not read from GGUF yet"
                                                       : "must be an integer, got a " + std::string(to_string(v->kind))});
      return;
    }
    j[std::string(hf)] = *x;
    origin.emplace_back(hf, key);
  };
  const std::string p = arch + ".";
  const GgufValue* experts = h.find(p + "expert_count");
  const bool moe = experts && experts->is_integer() && experts->i > 0;
  j["model_type"] = std::string(moe && !row->moe_type.empty() ? row->moe_type : row->model_type);
  for (const auto& [suffix, hf] : kKeys) integer(p + std::string(suffix), hf);
  if (moe) {
    integer(p + "expert_count", row->experts_key);
    if (row->expert_ffn_key != "intermediate_size" || !h.find(p + "feed_forward_length"))
      integer(p + "expert_feed_forward_length", row->expert_ffn_key);
  }
  // The vocabulary: <arch>.vocab_size where written, else the tokenizer's token list.
  if (const GgufValue* v = h.find(p + "vocab_size"); v && v->is_integer()) {
    j["vocab_size"] = v->i;
    origin.emplace_back("vocab_size", p + "vocab_size");
  } else if (const GgufValue* t = h.find("tokenizer.ggml.tokens"); t && t->kind == GgufKind::Array) {
    j["vocab_size"] = t->count;
    origin.emplace_back("vocab_size", "tokenizer.ggml.tokens");
  }
  if (const GgufValue* v = h.find(p + "rope.freq_base"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64)) j["rope_theta"] = v->f;
  if (const GgufValue* v = h.find(p + "attention.layer_norm_rms_epsilon"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64))
    j["rms_norm_eps"] = v->f;
  // ref: llama.cpp's loaders take token_embd as the head when the file has no output.weight.
  bool head = false;
  for (const auto& t : h.tensors) head |= t.name == "output.weight";
  j["tie_word_embeddings"] = !head;
  if (!issues.empty()) return issues;
  auto imported = import_hf_config(j.dump());
  if (!imported) {
    std::vector<Issue> named = imported.issues();
    for (auto& i : named)  // name the GGUF key the value came from
      for (const auto& [hf, key] : origin)
        if (i.field == hf) i.field = key;
    return named;
  }
  ImportedConfig out = std::move(imported).value();
  out.config.name = h.string_of("general.name");
  if (out.config.name.empty()) out.config.name = arch + " (GGUF)";
  return out;
}

}  // namespace llmsize::core
