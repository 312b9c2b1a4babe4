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
    {"gemma2", "gemma2", ""},
    {"olmo2", "olmo2", ""},  // OLMo 2: full-width q/k norms, norms after attention and FFN (src/models/olmo2.cpp)
    {"starcoder2", "starcoder2", ""},  // StarCoder2 (src/models/starcoder2.cpp): LayerNorms and biases
    // LFM2 (src/models/lfm2.cpp): short convolutions where head_count_kv is 0; read below.
    {"lfm2", "lfm2", ""},
    // Phi-3 (src/models/phi3.cpp): q, k, v in one attn_qkv and gate, up in one ffn_up.
    {"phi3", "phi3", ""},
    {"gpt-oss", "gpt_oss", "gpt_oss", "num_local_experts", "intermediate_size"},
    // DeepSeek V2/V3, R1, Kimi K2 (convert_hf_to_gguf.py DeepseekV2Model): MLA, shared experts,
    // leading dense layers; read below (deepseek_keys). deepseek_v3 where the router is a sigmoid
    // with a correction bias (expert_gating_func 2, exp_probs_b tensors), else deepseek_v2.
    {"deepseek2", "deepseek_v2", "deepseek_v2", "n_routed_experts", "moe_intermediate_size"},
    // GLM-4.5/4.6/4.7 and Air (src/models/glm4-moe.cpp): DeepSeek-style experts and MTP layers
    // with grouped-query attention; biases and q/k norms read from the tensors the file holds.
    {"glm4moe", "glm4_moe", "glm4_moe", "n_routed_experts", "moe_intermediate_size"},
    // Qwen3.5 and 3.6, dense and MoE (src/models/qwen35.cpp, qwen35moe.cpp; conversion/qwen.py
    // Qwen3NextModel.set_gguf_parameters): the Gated DeltaNet's sizes as ssm.* keys, every
    // full_attention_interval-th layer attention, the MTP block counted in block_count; read below.
    // Llama 4 (src/models/llama4.cpp; conversion/llama.py Llama4Model): feed_forward_length is the
    // dense layers' intermediate_size_mlp, expert_feed_forward_length the experts'; read below.
    {"llama4", "llama4_text", "llama4_text", "num_local_experts", "intermediate_size"},
    // Nemotron-H and Nemotron 3 (src/models/nemotron-h.cpp, nemotron-h-moe.cpp; conversion/nemotron.py
    // NemotronHModel): the block pattern from per-layer head_count_kv and feed_forward_length; read below.
    {"nemotron_h", "nemotron_h", ""},
    {"nemotron_h_moe", "nemotron_h", "nemotron_h", "n_routed_experts", "moe_intermediate_size"},
    // Granite 4.0-H (src/models/granite-hybrid.cpp; conversion/granite.py GraniteHybridModel): Mamba-2
    // or attention by the per-layer head_count_kv, routed experts of feed_forward_length and the
    // shared MLP of expert_shared_feed_forward_length; read below.
    {"granitehybrid", "granitemoehybrid", "granitemoehybrid", "num_local_experts", "intermediate_size"},
    // Granite 3.x (src/models/granite.cpp; conversion/granite.py GraniteModel): LLaMA's keys and the
    // four scales, read below with Granite 4.0-H's.
    {"granite", "granite", ""},
    // Qwen3-Next (src/models/qwen3next.cpp): Qwen3.5's keys with experts in every layer.
    {"qwen3next", "qwen3_next", "qwen3_next"},
    {"qwen35", "qwen3_5_text", ""},
    {"qwen35moe", "qwen3_5_moe_text", "qwen3_5_moe_text"},
    // SmolLM3 (src/models/smollm3.cpp; conversion/llama.py SmolLM3Model: LlamaModel's keys): every 4th
    // layer without RoPE is fixed in llama.cpp (n_no_rope_layer_step = 4), no key; head_dim d / H.
    {"smollm3", "smollm3", ""},
    // Mistral Small 3.1/3.2 and Ministral 3 (conversion/mistral3.py Ministral3Model, a LlamaModel, since
    // llama.cpp of 2026-03-17; src/models/mistral3.cpp): Llama's keys. Earlier conversions of the same
    // checkpoints, and Mistral-Small-24B-2501's, are "llama"; both read as the same model.
    {"mistral3", "mistral", "mixtral", "num_local_experts", "intermediate_size"},
    // ERNIE 4.5 MoE (src/models/ernie4-5.cpp; conversion/ernie.py Ernie4_5MoeModel): read below.
    {"ernie4_5-moe", "ernie4_5_moe", "ernie4_5_moe", "moe_num_experts", "moe_intermediate_size"},
    // MiniMax-M2 (src/models/minimax-m2.cpp; conversion/minimax.py MiniMaxM2Model): experts as wide as
    // feed_forward_length, rotary_dim as rope.dimension_count; read below.
    {"minimax-m2", "minimax_m2", "minimax_m2", "num_local_experts", "intermediate_size"},
    // Llama-Nemotron NAS (src/models/deci.cpp; conversion/deci.py DeciModel): per-layer head counts and
    // FFN widths, written back as block_configs; read below.
    {"deci", "nemotron-nas", ""},
    // DeepSeek-V3.2 (src/models/deepseek32.cpp; conversion/deepseek.py DeepseekV32Model): deepseek2's
    // keys and the lightning indexer's attention.indexer.*; read with deepseek2 below.
    {"deepseek32", "deepseek_v32", "deepseek_v32", "n_routed_experts", "moe_intermediate_size"},
    // GLM-5 and 5.1 (src/models/glm-dsa.cpp; convert_hf_to_gguf.py GlmMoeDsaModel over DeepseekV2Model):
    // deepseek2's keys in the MLA layout with the nextn layer in block_count, and the indexer's
    // attention.indexer.*; read with deepseek2 below.
    {"glm-dsa", "glm_moe_dsa", "glm_moe_dsa", "n_routed_experts", "moe_intermediate_size"},
    // Jamba (src/models/jamba.cpp; conversion/jamba.py JambaModel): Mamba-1 where head_count_kv is 0,
    // experts where the file holds ffn_gate_inp (no expert_layer_* key), as wide as feed_forward_length.
    {"jamba", "jamba", "jamba", "num_experts", "intermediate_size"},
    // Falcon-H1 (src/models/falcon-h1.cpp; conversion/falcon_h1.py over mamba.py Mamba2Model): attention
    // beside Mamba-2 in every layer; the μP multipliers folded into the weights by the converter.
    {"falcon-h1", "falcon_h1", ""},
    // Gemma 4 (src/models/gemma4.cpp; conversion/gemma.py Gemma4Model): per-layer sliding pattern,
    // KV-shared layers, per-layer embeddings; key_length the full layers' head, key_length_swa the
    // sliding layers'; read below.
    {"gemma4", "gemma4_text", "gemma4_text"},
    // The classic families (conversion/{gemma,phi,gptneox,falcon,starcoder,gpt2,bloom}.py; src/models/
    // of the same names): Gemma 1 ties its head; the others are read below.
    {"gemma", "gemma", ""},
    {"phi2", "phi", ""},
    {"gptneox", "gpt_neox", ""},
    {"falcon", "falcon", ""},
    {"starcoder", "gpt_bigcode", ""},
    {"gpt2", "gpt2", ""},
    {"bloom", "bloom", ""},
};

// DeepSeek-V3.2's lightning indexer (DeepseekV32Model.set_gguf_parameters; required keys of
// deepseek32.cpp load_arch_hparams).
constexpr std::pair<std::string_view, std::string_view> kIndexerKeys[] = {
    {"attention.indexer.head_count", "index_n_heads"},
    {"attention.indexer.key_length", "index_head_dim"},
    {"attention.indexer.top_k", "index_topk"},
};

// (period, offset) such that layer i is on iff i % period == offset (Jamba's attn_layer_* and
// expert_layer_*); nullopt when no such pair gives `on`, or no layer is on.
std::optional<std::pair<i64, i64>> period_of(const std::vector<bool>& on) {
  const auto n = static_cast<i64>(on.size());
  i64 first = -1, second = -1;
  for (i64 i = 0; i < n; ++i)
    if (on[static_cast<size_t>(i)]) {
      if (first < 0) first = i;
      else if (second < 0) second = i;
    }
  if (first < 0) return std::nullopt;
  const i64 period = second < 0 ? std::max(n, first + 1) : second - first;
  if (first >= period) return std::nullopt;
  for (i64 i = 0; i < n; ++i)
    if (on[static_cast<size_t>(i)] != (i % period == first)) return std::nullopt;
  return std::pair{period, first};
}

// Qwen3.5's Gated DeltaNet as convert_hf_to_gguf.py writes it (Qwen3NextModel.set_gguf_parameters):
// ssm.conv_kernel = linear_conv_kernel_dim, ssm.state_size = linear_key_head_dim, ssm.group_count =
// linear_num_key_heads, ssm.time_step_rank = linear_num_value_heads (ssm.inner_size = the value
// heads × linear_value_head_dim, checked below).
constexpr std::pair<std::string_view, std::string_view> kGatedDeltaNetKeys[] = {
    {"ssm.conv_kernel", "linear_conv_kernel_dim"},
    {"ssm.state_size", "linear_key_head_dim"},
    {"ssm.group_count", "linear_num_key_heads"},
    {"ssm.time_step_rank", "linear_num_value_heads"},
    {"full_attention_interval", "full_attention_interval"},
};

// The DeepSeek-style expert keys deepseek2 and glm4moe write (llama.cpp src/models/deepseek2.cpp
// and glm4-moe.cpp load_hparams, b10573), and deepseek2's MLA ranks.
constexpr std::pair<std::string_view, std::string_view> kSharedExpertKeys[] = {
    {"expert_shared_count", "n_shared_experts"},
    {"leading_dense_block_count", "first_k_dense_replace"},
};
constexpr std::pair<std::string_view, std::string_view> kDeepseekKeys[] = {
    {"attention.q_lora_rank", "q_lora_rank"},
    {"attention.kv_lora_rank", "kv_lora_rank"},
    {"rope.dimension_count", "qk_rope_head_dim"},
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

// llama.h enum llama_ftype (b10573) with llama_model_ftype_name's words, and the weight format
// of the same mix (llama-quant.cpp's rules, quant.hpp) where llmsize has one.
struct FileType {
  std::uint32_t id;
  std::string_view name;
  std::optional<WeightFormat> format;
};
constexpr FileType kFileTypes[] = {
    {0, "all F32", WeightFormat::F32},           {1, "F16", WeightFormat::F16},
    {2, "Q4_0", WeightFormat::Q4_0},              {3, "Q4_1", std::nullopt},
    {7, "Q8_0", WeightFormat::Q8_0},              {8, "Q5_0", WeightFormat::Q5_0},
    {9, "Q5_1", std::nullopt},                    {10, "Q2_K - Medium", WeightFormat::Q2_K},
    {11, "Q3_K - Small", WeightFormat::Q3_K_S},   {12, "Q3_K - Medium", WeightFormat::Q3_K_M},
    {13, "Q3_K - Large", WeightFormat::Q3_K_L},   {14, "Q4_K - Small", WeightFormat::Q4_K_S},
    {15, "Q4_K - Medium", WeightFormat::Q4_K_M},  {16, "Q5_K - Small", WeightFormat::Q5_K_S},
    {17, "Q5_K - Medium", WeightFormat::Q5_K_M},  {18, "Q6_K", WeightFormat::Q6_K},
    {19, "IQ2_XXS - 2.0625 bpw", std::nullopt},   {20, "IQ2_XS - 2.3125 bpw", std::nullopt},
    {21, "Q2_K - Small", std::nullopt},           {22, "IQ3_XS - 3.3 bpw", std::nullopt},
    {23, "IQ3_XXS - 3.0625 bpw", std::nullopt},   {24, "IQ1_S - 1.5625 bpw", std::nullopt},
    {25, "IQ4_NL - 4.5 bpw", std::nullopt},       {26, "IQ3_S - 3.4375 bpw", std::nullopt},
    {27, "IQ3_S mix - 3.66 bpw", std::nullopt},   {28, "IQ2_S - 2.5 bpw", std::nullopt},
    {29, "IQ2_M - 2.7 bpw", std::nullopt},        {30, "IQ4_XS - 4.25 bpw", WeightFormat::IQ4_XS},
    {31, "IQ1_M - 1.75 bpw", std::nullopt},       {32, "BF16", WeightFormat::BF16},
    {36, "TQ1_0 - 1.69 bpw ternary", std::nullopt}, {37, "TQ2_0 - 2.06 bpw ternary", std::nullopt},
    {38, "MXFP4 MoE", WeightFormat::Mxfp4Moe},    {39, "NVFP4", std::nullopt},
    {40, "Q1_0", std::nullopt},                   {41, "Q2_0", std::nullopt},
};

const FileType* file_type_of(const GgufHeader& h) {
  const GgufValue* v = h.find("general.file_type");
  if (!v || !v->is_integer()) return nullptr;
  for (const FileType& t : kFileTypes)
    if (static_cast<i64>(t.id) == v->i) return &t;
  return nullptr;
}

}  // namespace

std::string gguf_file_type_name(const GgufHeader& h) {
  if (const FileType* t = file_type_of(h)) return std::string(t->name);
  const GgufValue* v = h.find("general.file_type");
  return v && v->is_integer() ? "file type " + std::to_string(v->i) : std::string();
}

std::optional<WeightFormat> gguf_weight_format(const GgufHeader& h) {
  const FileType* t = file_type_of(h);
  return t ? t->format : std::nullopt;
}

bool gguf_is_projector(const GgufHeader& h) { return h.string_of("general.architecture") == "clip"; }

Result<ImportedConfig> gguf_config(const GgufHeader& h) {
  const std::string arch = h.string_of("general.architecture");
  if (arch.empty()) return issue_row("general.architecture", Str::imp_gguf_no_arch);
  if (gguf_is_projector(h))
    return issue_row("general.architecture", Str::imp_gguf_clip);
  if (arch == "gptj")  // ref: llama-model.cpp has no LLM_ARCH_GPTJ loader; conversion/ has no GPT-J converter
    return issue_row("general.architecture", Str::imp_gguf_gptj);
  const GgufArch* row = nullptr;
  for (const GgufArch& a : kArchs)
    if (a.arch == arch) row = &a;
  if (!row) {
    std::string known;
    for (const GgufArch& a : kArchs) known += (known.empty() ? "" : ", ") + std::string(a.arch);
    return issue_row("general.architecture", Str::imp_gguf_arch_unread, gguf_printable(arch), known);
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
      issues.push_back(v->kind == GgufKind::Array ? issue_row(key, Str::imp_gguf_values_differ)
                                                  : issue_row(key, Str::imp_gguf_not_integer, std::string(to_string(v->kind))));
      return;
    }
    j[std::string(hf)] = *x;
    origin.emplace_back(hf, key);
  };
  const std::string p = arch + ".";
  const GgufValue* experts = h.find(p + "expert_count");
  const bool moe = experts && experts->is_integer() && experts->i > 0;
  const bool deepseek = arch == "deepseek2" || arch == "deepseek32" || arch == "glm-dsa", glm = arch == "glm4moe";
  auto read = [&](const std::string& key) -> std::optional<i64> {
    const GgufValue* v = h.find(key);
    return v && v->is_integer() ? std::optional<i64>(v->i) : std::nullopt;
  };
  auto has_tensor = [&](std::string_view part) {
    return std::any_of(h.tensors.begin(), h.tensors.end(), [&](const GgufTensor& t) { return t.name.find(part) != std::string::npos; });
  };
  j["model_type"] = std::string(moe && !row->moe_type.empty() ? row->moe_type : row->model_type);
  const bool nemotron = arch == "nemotron_h" || arch == "nemotron_h_moe", granite = arch == "granitehybrid", lfm2 = arch == "lfm2";
  const bool deci = arch == "deci", jamba = arch == "jamba", gemma4 = arch == "gemma4";
  for (const auto& [suffix, hf] : kKeys)
    if (!(deepseek && (hf == "head_dim" || hf == "num_key_value_heads")) &&
        !(nemotron && (hf == "num_key_value_heads" || hf == "intermediate_size")) &&
        !((granite || lfm2 || jamba) && hf == "num_key_value_heads") &&
        !(deci && (hf == "num_attention_heads" || hf == "num_key_value_heads" || hf == "intermediate_size")) &&
        !(gemma4 && (hf == "head_dim" || hf == "num_key_value_heads" || hf == "intermediate_size")))
      integer(p + std::string(suffix), hf);
  if (deepseek || glm) {
    for (const auto& [suffix, hf] : kSharedExpertKeys) integer(p + std::string(suffix), hf);
    // The trunk: block_count counts the multi-token-prediction layers a file keeps.
    if (const auto n = read(p + "nextn_predict_layers"); n && *n > 0 && j.contains("num_hidden_layers")) {
      j["num_hidden_layers"] = j["num_hidden_layers"].get<i64>() - *n;
      j["num_nextn_predict_layers"] = *n;
    }
    if (const GgufValue* s = h.find(p + "expert_weights_scale"); s && (s->kind == GgufKind::F32 || s->kind == GgufKind::F64))
      j["routed_scaling_factor"] = s->f;
  }
  if (glm) {
    // Half-rotary heads: rope.dimension_count of key_length; biases on q, k, v and q/k norms
    // where the file holds them (convert_hf_to_gguf.py writes no flag for either).
    const auto rope = read(p + "rope.dimension_count"), k = read(p + "attention.key_length");
    if (rope && k && *k > 0) j["partial_rotary_factor"] = static_cast<double>(*rope) / static_cast<double>(*k);
    j["attention_bias"] = has_tensor(".attn_q.bias") || has_tensor(".attn_qkv.bias");
    j["use_qk_norm"] = has_tensor(".attn_q_norm.");
  }
  if (deepseek) {
    for (const auto& [suffix, hf] : kDeepseekKeys) integer(p + std::string(suffix), hf);
    // MLA: the query/key head is nope + rope, the value head its own; files converted since
    // llama.cpp's MLA rework keep them in key_length_mla / value_length_mla (key_length is then
    // the latent's 576).
    const auto k = read(p + "attention.key_length_mla") ? read(p + "attention.key_length_mla") : read(p + "attention.key_length");
    const auto v = read(p + "attention.value_length_mla") ? read(p + "attention.value_length_mla") : read(p + "attention.value_length");
    const auto rope = read(p + "rope.dimension_count");
    if (!k || !v || !rope || *k <= *rope)
      issues.push_back(issue_row(p + "attention.key_length_mla", Str::imp_gguf_mla_widths));
    else {
      j["qk_nope_head_dim"] = *k - *rope;
      j["v_head_dim"] = *v;
      origin.emplace_back("qk_nope_head_dim", p + (read(p + "attention.key_length_mla") ? "attention.key_length_mla" : "attention.key_length"));
      origin.emplace_back("v_head_dim", p + (read(p + "attention.value_length_mla") ? "attention.value_length_mla" : "attention.value_length"));
    }
    // Every query head has its own K and V after the up-projection (the config's count; the
    // file's head_count_kv is 1 in the MLA layout).
    if (j.contains("num_attention_heads")) j["num_key_value_heads"] = j["num_attention_heads"];
    const auto gating = read(p + "expert_gating_func");
    if (has_tensor(".exp_probs_b.") || (gating && *gating == 2)) {  // LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID
      j["model_type"] = arch == "deepseek32" ? "deepseek_v32" : arch == "glm-dsa" ? "glm_moe_dsa" : "deepseek_v3";
      j["topk_method"] = "noaux_tc";
      j["scoring_func"] = "sigmoid";
    }
    if (!h.find(p + "attention.q_lora_rank")) j["q_lora_rank"] = nullptr;  // DeepSeek-V2-Lite: a plain q_proj
  }
  // Per-layer arrays (the hybrid architectures below): one value for each of block_count's layers.
  const auto blocks = read(p + "block_count");
  // `zero`: what a 0 in the array means (a row: "where the layer has none").
  auto per_layer = [&](const std::string& key, Str zero) -> const std::vector<i64>* {
    const GgufValue* v = h.find(key);
    if (v && v->kind == GgufKind::Array && static_cast<i64>(v->ints.size()) == v->count && blocks && v->count == *blocks)
      return &v->ints;
    issues.push_back(issue_row(key, Str::imp_gguf_per_layer, zero));
    return nullptr;
  };
  // layer_types from the per-layer head_count_kv (`attention` above 0, `other` at 0) and the one KV head count.
  auto kv_layer_types = [&](std::string_view attention, std::string_view other, Str zero) {
    const auto* kvs = per_layer(p + "attention.head_count_kv", zero);
    if (!kvs) return;
    json types = json::array();
    i64 heads_kv = 0;
    for (i64 a : *kvs) {
      types.push_back(a > 0 ? attention : other);
      if (a > 0 && heads_kv != 0 && a != heads_kv)
        issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_kv_heads_differ));
      if (a > 0) heads_kv = a;
    }
    j["layer_types"] = types;
    if (heads_kv > 0) j["num_key_value_heads"] = heads_kv;
  };
  if (nemotron) {
    // ref: nemotron-h.cpp load_arch_hparams: a layer is Mamba-2 iff its head_count_kv and
    // feed_forward_length are both 0; NemotronHModel.set_gguf_parameters writes head_count_kv for the
    // attention layers ('*') and feed_forward_length for the MLP ('-') or expert ('E') layers, the
    // MTP block (nextn_predict_layers, both) after the trunk.
    const i64 nextn = read(p + "nextn_predict_layers").value_or(0);
    const auto* kvs = per_layer(p + "attention.head_count_kv", Str::imp_gguf_zero_no_value);
    const auto* ffs = per_layer(p + "feed_forward_length", Str::imp_gguf_zero_no_value);
    if (kvs && ffs && nextn >= 0 && nextn < *blocks) {
      std::string pattern;
      i64 heads_kv = 0, width = 0;
      for (i64 i = 0; i < *blocks - nextn; ++i) {
        const i64 a = (*kvs)[static_cast<size_t>(i)], f = (*ffs)[static_cast<size_t>(i)];
        if (a > 0 && f > 0) {
          issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_layer_both, std::to_string(i)));
          break;
        }
        pattern += a > 0 ? '*' : f > 0 ? (moe ? 'E' : '-') : 'M';
        if (a > 0 && heads_kv != 0 && a != heads_kv)
          issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_kv_heads_differ));
        if (f > 0 && width != 0 && f != width)
          issues.push_back(issue_row(p + "feed_forward_length", Str::imp_gguf_ffn_widths_differ));
        if (a > 0) heads_kv = a;
        if (f > 0) width = f;
      }
      j["hybrid_override_pattern"] = pattern;
      j["num_hidden_layers"] = *blocks - nextn;
      if (heads_kv > 0) j["num_key_value_heads"] = heads_kv;
      if (width > 0) j[moe ? "moe_intermediate_size" : "intermediate_size"] = width;
      if (nextn > 0) j["num_nextn_predict_layers"] = nextn;
    }
    // The Mamba-2 mixer: ssm.time_step_rank is its head count (GraniteHybridModel), ssm.inner_size the heads × head width.
    integer(p + "ssm.conv_kernel", "conv_kernel");
    integer(p + "ssm.state_size", "ssm_state_size");
    integer(p + "ssm.group_count", "n_groups");
    integer(p + "ssm.time_step_rank", "mamba_num_heads");
    const auto inner = read(p + "ssm.inner_size"), mheads = read(p + "ssm.time_step_rank");
    if (!inner || !mheads || *mheads <= 0 || *inner % *mheads != 0)
      issues.push_back(issue_row(p + "ssm.inner_size", Str::imp_gguf_mamba2_inner));
    else
      j["mamba_head_dim"] = *inner / *mheads;
    if (moe) {
      integer(p + "expert_shared_feed_forward_length", "moe_shared_expert_intermediate_size");
      integer(p + "expert_shared_count", "n_shared_experts");
      if (h.find(p + "moe_latent_size")) {  // LatentMoE (Nemotron 3 Super): refused by the family by name
        j["moe_latent_size"] = read(p + "moe_latent_size").value_or(0);
        origin.emplace_back("moe_latent_size", p + "moe_latent_size");
      }
    }
  }
  if (lfm2) {
    // ref: lfm2.cpp load_arch_hparams: a layer is a short convolution iff its head_count_kv is 0;
    // feed_forward_length is the MLP's width as built (Lfm2MLP's auto-adjusted one), shortconv.l_cache
    // the convolution's width.
    kv_layer_types("full_attention", "conv", Str::imp_gguf_zero_conv);
    integer(p + "shortconv.l_cache", "conv_L_cache");
    j["block_auto_adjust_ff_dim"] = false;  // feed_forward_length is already the built width
    if (moe) issues.push_back(issue_row(p + "expert_count", Str::imp_gguf_lfm2_experts));
  }
  if (granite) {
    // GraniteHybridModel.set_gguf_parameters: head_count_kv per layer, 0 for the Mamba-2 layers; the
    // Mamba-2 sizes as ssm.* (time_step_rank = its heads); rope only where rope.scaling.finetuned is true.
    kv_layer_types("attention", "mamba", Str::imp_gguf_zero_mamba2);
    if (!moe) issues.push_back(issue_row(p + "expert_count", Str::imp_gguf_granite_dense));
    integer(p + "expert_shared_feed_forward_length", "shared_intermediate_size");
    integer(p + "ssm.conv_kernel", "mamba_d_conv");
    integer(p + "ssm.state_size", "mamba_d_state");
    integer(p + "ssm.group_count", "mamba_n_groups");
    integer(p + "ssm.time_step_rank", "mamba_n_heads");
    const auto inner = read(p + "ssm.inner_size"), mheads = read(p + "ssm.time_step_rank"), d = read(p + "embedding_length");
    if (!inner || !mheads || !d || *mheads <= 0 || *d <= 0 || *inner % *mheads != 0 || *inner % *d != 0)
      issues.push_back(issue_row(p + "ssm.inner_size", Str::imp_gguf_granite_inner));
    else
      j["mamba_d_head"] = *inner / *mheads, j["mamba_expand"] = *inner / *d;
    const GgufValue* rope = h.find(p + "rope.scaling.finetuned");
    j["position_embedding_type"] = rope && rope->kind == GgufKind::Bool && rope->i != 0 ? "rope" : "nope";
  }
  if (arch == "deepseek32" || arch == "glm-dsa") {
    // ref: deepseek32.cpp and glm-dsa.cpp load_arch_hparams: the indexer's sizes are required keys.
    for (const auto& [suffix, hf] : kIndexerKeys) {
      const std::string key = p + std::string(suffix);
      if (!read(key)) issues.push_back(issue_row(key, Str::imp_gguf_indexer));
      else integer(key, hf);
    }
  }
  if (arch == "ernie4_5-moe") {
    // ref: conversion/ernie.py Ernie4_5MoeModel.set_gguf_parameters: moe_k, moe_layer_interval and
    // moe_layer_start_index as expert_used_count, interleave_moe_layer_step and leading_dense_block_count;
    // moe_num_shared_experts as expert_shared_count (files converted since 2025-07-18, llama.cpp #14746).
    // expert_shared_feed_forward_length is intermediate_size / num_key_value_heads, not the shared MLP's
    // width (moe_num_shared_experts × moe_intermediate_size, Ernie4_5_MoeSparseMoeBlock): read only
    // where the count is absent (the first files, 2025-07-17), and the tensors hold the width.
    if (!moe) issues.push_back(issue_row(p + "expert_count", Str::imp_gguf_ernie_experts));
    integer(p + "expert_used_count", "moe_k");
    integer(p + "interleave_moe_layer_step", "moe_layer_interval");
    integer(p + "leading_dense_block_count", "moe_layer_start_index");
    j.erase("shared_expert_intermediate_size");
    const auto shexp = read(p + "expert_shared_feed_forward_length"), fexp = read(p + "expert_feed_forward_length");
    if (read(p + "expert_shared_count"))
      integer(p + "expert_shared_count", "moe_num_shared_experts");
    else if (!has_tensor(".ffn_up_shexp."))
      j["moe_num_shared_experts"] = 0;  // not the class default of 2
    else if (shexp && fexp && *fexp > 0 && *shexp % *fexp == 0)
      j["moe_num_shared_experts"] = *shexp / *fexp;
    else
      issues.push_back(issue_row(p + "expert_shared_count", Str::imp_gguf_ernie_shared));
    // use_bias: ernie4-5.cpp loads only an optional attn_output.bias; no released checkpoint has biases.
    if (has_tensor(".attn_q.bias") || has_tensor(".attn_output.bias"))
      issues.push_back(issue_row(p + "attention.head_count", Str::imp_gguf_ernie_bias));
  }
  if (arch == "minimax-m2") {
    // ref: conversion/minimax.py MiniMaxM2Model.set_gguf_parameters: rope.dimension_count = rotary_dim,
    // expert_feed_forward_length = intermediate_size; minimax-m2.cpp sizes the experts by feed_forward_length.
    integer(p + "rope.dimension_count", "rotary_dim");
    const auto ff = read(p + "feed_forward_length"), fe = read(p + "expert_feed_forward_length");
    if (ff && fe && *ff != *fe)
      issues.push_back(issue_row(p + "expert_feed_forward_length", Str::imp_gguf_minimax_ffn));
  }
  if (deci) {
    // ref: conversion/deci.py DeciModel (block_configs): per layer head_count and head_count_kv 0 where
    // attention is no_op, head_count H with head_count_kv 0 where it is replace_with_linear, else H and
    // H / n_heads_in_group; feed_forward_length 0 where ffn_mult is null, else int(2·ffn_mult·d / 3)
    // rounded up to 256. deci.cpp builds no attention where head_count is 0 and no FFN where
    // feed_forward_length is 0. Written back as block_configs with ffn_mult = 3·width / (2·d), which
    // nas_blocks turns back into the same width (every multiple of 256 round-trips).
    if (const GgufValue* ff = h.find(p + "feed_forward_length"); ff && ff->is_integer()) {
      issues.push_back(issue_row(p + "feed_forward_length", Str::imp_gguf_deci_one_width));
    } else {
      const auto* heads = per_layer(p + "attention.head_count", Str::imp_gguf_zero_no_attention);
      const auto* kvs = per_layer(p + "attention.head_count_kv", Str::imp_gguf_zero_no_attention);
      const auto* ffs = per_layer(p + "feed_forward_length", Str::imp_gguf_zero_no_ffn);
      const auto d = read(p + "embedding_length");
      if (heads && kvs && ffs && d && *d > 0 && !heads->empty()) {
        const i64 n_heads = *std::max_element(heads->begin(), heads->end());
        json configs = json::array();
        for (size_t i = 0; i < heads->size(); ++i) {
          const i64 hq = (*heads)[i], kv = (*kvs)[i], width = (*ffs)[i];
          const RowArg layer = row_arg(Str::imp_layer_n, std::to_string(i));
          json attention = json::object(), ffn = json::object();
          if (hq == 0 && kv == 0) {
            attention["no_op"] = true;
          } else if (kv == 0) {
            issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_deci_linear, layer));
            break;
          } else if (hq != n_heads || kv < 0 || hq % kv != 0) {
            issues.push_back(issue_row(p + "attention.head_count", Str::imp_gguf_deci_heads, layer, std::to_string(hq), std::to_string(kv)));
            break;
          } else {
            attention["n_heads_in_group"] = hq / kv;
          }
          if (width == 0) {
            ffn["no_op"] = true;
          } else if (width < 0 || width % 256 != 0) {
            issues.push_back(issue_row(p + "feed_forward_length", Str::imp_gguf_deci_ffn, layer, std::to_string(width)));
            break;
          } else {
            ffn["ffn_mult"] = 1.5 * static_cast<double>(width) / static_cast<double>(*d);
          }
          configs.push_back(json{{"attention", attention}, {"ffn", ffn}});
        }
        j["block_configs"] = configs;
        j["num_attention_heads"] = n_heads;
        origin.emplace_back("num_attention_heads", p + "attention.head_count");
      }
    }
  }
  if (jamba) {
    // ref: jamba.cpp load_arch_hparams: Mamba-1 iff head_count_kv is 0 (JambaModel writes num_key_value_heads
    // where i % attn_layer_period == attn_layer_offset); load_arch_tensors: experts iff the layer holds ffn_gate_inp.
    if (const auto* kvs = per_layer(p + "attention.head_count_kv", Str::imp_gguf_zero_mamba1)) {
      std::vector<bool> attn;
      i64 heads_kv = 0;
      for (i64 a : *kvs) {
        attn.push_back(a > 0);
        if (a > 0 && heads_kv != 0 && a != heads_kv)
          issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_kv_heads_differ));
        if (a > 0) heads_kv = a;
      }
      if (const auto at = period_of(attn)) {
        j["attn_layer_period"] = at->first, j["attn_layer_offset"] = at->second, j["num_key_value_heads"] = heads_kv;
        origin.emplace_back("attn_layer_offset", p + "attention.head_count_kv");
      } else {
        issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_jamba_attn));
      }
    }
    if (moe && blocks) {
      std::vector<bool> routed;  // layer i has a router (ffn_gate_inp)
      for (i64 i = 0; i < *blocks; ++i) routed.push_back(has_tensor("blk." + std::to_string(i) + ".ffn_gate_inp."));
      if (const auto at = period_of(routed)) j["expert_layer_period"] = at->first, j["expert_layer_offset"] = at->second;
      else issues.push_back(issue_row(p + "expert_count", Str::imp_gguf_jamba_experts));
    }
    // Mamba-1: ssm.inner_size = mamba_expand · embedding_length, time_step_rank = mamba_dt_rank.
    integer(p + "ssm.conv_kernel", "mamba_d_conv");
    integer(p + "ssm.state_size", "mamba_d_state");
    integer(p + "ssm.time_step_rank", "mamba_dt_rank");
    const auto inner = read(p + "ssm.inner_size"), d = read(p + "embedding_length");
    if (!inner || !d || *d <= 0 || *inner % *d != 0)
      issues.push_back(issue_row(p + "ssm.inner_size", Str::imp_gguf_mamba1_inner));
    else
      j["mamba_expand"] = *inner / *d;
    j["mamba_conv_bias"] = has_tensor(".ssm_conv1d.bias");
    j["mamba_proj_bias"] = has_tensor(".ssm_in.bias");
  }
  if (arch == "falcon-h1") {
    // Mamba2Model.set_gguf_parameters under FalconH1Model's "mamba_" prefix: ssm.inner_size = mamba_d_ssm,
    // ssm.time_step_rank = its heads, ssm.group_count, ssm.state_size, ssm.conv_kernel. mamba_chunk_size is
    // not written (its default stands, a note says so; it sizes only transformers' prefill temporaries).
    integer(p + "ssm.inner_size", "mamba_d_ssm");
    integer(p + "ssm.time_step_rank", "mamba_n_heads");
    integer(p + "ssm.state_size", "mamba_d_state");
    integer(p + "ssm.group_count", "mamba_n_groups");
    integer(p + "ssm.conv_kernel", "mamba_d_conv");
    const auto inner = read(p + "ssm.inner_size"), heads = read(p + "ssm.time_step_rank");
    if (!inner || !heads || *heads <= 0 || *inner % *heads != 0)
      issues.push_back(issue_row(p + "ssm.inner_size", Str::imp_gguf_mamba2_inner));
    else
      j["mamba_d_head"] = *inner / *heads;
    // ref: falcon-h1.cpp load_arch_tensors: the conv bias and the gated norm where the file holds them;
    // in_proj / out_proj biases are refused by the family by name.
    j["mamba_conv_bias"] = has_tensor(".ssm_conv1d.bias");
    j["mamba_rms_norm"] = has_tensor(".ssm_norm.weight");
    j["mamba_proj_bias"] = has_tensor(".ssm_in.bias");
    j["projectors_bias"] = has_tensor(".ssm_out.bias");
    for (const char* b : {".attn_q.bias", ".attn_output.bias", ".ffn_gate.bias", ".ffn_up.bias", ".ffn_down.bias"})
      if (has_tensor(b)) {
        issues.push_back(issue_row(p + "attention.head_count", Str::imp_gguf_biased_proj, b + 1));
        break;
      }
  }
  if (gemma4) {
    // ref: conversion/gemma.py Gemma4Model.set_gguf_parameters; gemma4.cpp load_arch_hparams.
    integer(p + "attention.key_length", "global_head_dim");
    integer(p + "attention.key_length_swa", "head_dim");
    if (!h.find(p + "attention.key_length_swa")) issues.push_back(issue_row(p + "attention.key_length_swa", Str::imp_gguf_gemma4_swa));
    integer(p + "embedding_length_per_layer_input", "hidden_size_per_layer_input");
    if (!h.find(p + "embedding_length_per_layer_input"))
      issues.push_back(issue_row(p + "embedding_length_per_layer_input", Str::imp_gguf_gemma4_ple));
    integer(p + "attention.shared_kv_layers", "num_kv_shared_layers");
    const i64 shared = read(p + "attention.shared_kv_layers").value_or(0);
    // 26B-A4B (gemma4.cpp: ffn_gate_inp and its scale, the experts beside the dense FFN): expert_count,
    // expert_feed_forward_length below, and top_k_experts from expert_used_count.
    j["enable_moe_block"] = moe;
    if (moe) {
      integer(p + "expert_used_count", "top_k_experts");
      if (!h.find(p + "expert_used_count")) issues.push_back(issue_row(p + "expert_used_count", Str::imp_gguf_gemma4_moe));
    }
    const auto* swa = per_layer(p + "attention.sliding_window_pattern", Str::imp_gguf_zero_full);
    if (swa) {
      json types = json::array();
      for (i64 x : *swa) types.push_back(x != 0 ? "sliding_attention" : "full_attention");
      j["layer_types"] = types;
    }
    // head_count_kv: one count, or per layer (sliding: num_key_value_heads, full: num_global_key_value_heads).
    if (const GgufValue* kv = h.find(p + "attention.head_count_kv"); kv && kv->kind == GgufKind::Array) {
      const auto* kvs = per_layer(p + "attention.head_count_kv", Str::imp_gguf_zero_gemma4);
      if (kvs && swa) {
        i64 sliding = 0, full = 0;
        bool one_each = true;
        for (size_t i = 0; i < kvs->size(); ++i) {
          i64& x = (*swa)[i] != 0 ? sliding : full;
          one_each = one_each && (x == 0 || x == (*kvs)[i]);
          x = (*kvs)[i];
        }
        if (!one_each) {
          issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_gemma4_kv_differ));
        } else {
          j["num_key_value_heads"] = sliding > 0 ? sliding : full;
          if (sliding > 0 && full > 0) j["num_global_key_value_heads"] = full;
          origin.emplace_back("num_key_value_heads", p + "attention.head_count_kv");
        }
      }
    } else {
      integer(p + "attention.head_count_kv", "num_key_value_heads");
    }
    // attention_k_eq_v (not written): gemma4.cpp takes attn_v as optional (absent: V is K); read from the
    // first full layer that keeps its own K (below block_count − shared_kv_layers).
    if (swa && blocks) {
      std::optional<bool> k_eq_v;
      for (i64 i = 0; i < *blocks - shared && !k_eq_v; ++i)
        if ((*swa)[static_cast<size_t>(i)] == 0) {
          const std::string b = "blk." + std::to_string(i) + ".";
          if (!has_tensor(b + "attn_k.weight")) {
            issues.push_back(issue_row(b + "attn_k.weight", Str::imp_gguf_gemma4_no_k, std::to_string(i)));
            break;
          }
          k_eq_v = !has_tensor(b + "attn_v.weight");
        }
      j["attention_k_eq_v"] = k_eq_v.value_or(false);
      if (!k_eq_v.value_or(false) && j.contains("num_global_key_value_heads") && j["num_global_key_value_heads"] != j["num_key_value_heads"])
        issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_gemma4_global_kv));
    }
    // feed_forward_length: one width, or per layer with the last shared_kv_layers doubled (use_double_wide_mlp).
    if (const GgufValue* ff = h.find(p + "feed_forward_length"); ff && ff->kind == GgufKind::Array) {
      const auto* ffs = per_layer(p + "feed_forward_length", Str::imp_gguf_zero_none);
      if (ffs && blocks && !ffs->empty()) {
        const i64 f = ffs->front();
        bool plain = true, doubled = shared > 0;
        for (i64 i = 0; i < *blocks; ++i) {
          const i64 x = (*ffs)[static_cast<size_t>(i)];
          plain = plain && x == f;
          doubled = doubled && x == (i >= *blocks - shared ? 2 * f : f);
        }
        if (plain || doubled) {
          j["intermediate_size"] = f, j["use_double_wide_mlp"] = !plain;
          origin.emplace_back("intermediate_size", p + "feed_forward_length");
        } else {
          issues.push_back(issue_row(p + "feed_forward_length", Str::imp_gguf_gemma4_ffn));
        }
      }
    } else {
      integer(p + "feed_forward_length", "intermediate_size");
    }
  }
  // The classic families: their converters write feed_forward_length as 4 × embedding_length (GPT-NeoX:
  // intermediate_size) and llama.cpp's loaders hold ffn_up to it; their config classes name it their own way.
  auto rename = [&](const std::string& from, const std::string& to) {
    if (!j.contains(from)) return;
    j[to] = j[from];
    j.erase(from);
    for (auto& o : origin)
      if (o.first == from) o.first = to;
  };
  if (arch == "gpt2" || arch == "starcoder") rename("intermediate_size", "n_inner");  // GPT2Config, GPTBigCodeConfig
  if (arch == "starcoder") {
    // StarCoderModel.set_gguf_parameters writes head_count_kv 1 (multi_query); GPTBigCode has no other grouping.
    const auto kv = read(p + "attention.head_count_kv"), heads = read(p + "attention.head_count");
    if (kv && heads && *kv != 1 && *kv != *heads)
      issues.push_back(issue_row(p + "attention.head_count_kv", Str::imp_gguf_starcoder_kv, std::to_string(*kv)));
    j["multi_query"] = kv && *kv == 1;
  }
  if (arch == "falcon") {
    // FalconModel.set_gguf_parameters: feed_forward_length 4 × hidden_size. ref: falcon.cpp load_arch_tensors:
    // attn_norm_2 (ln_attn beside ln_mlp) only in the new decoder architecture with two norms (40B, 180B).
    // Without it, head_count_kv 1 is the 7B's multi-query layout and more K heads the new architecture with
    // one norm (Falcon2-11B).
    rename("intermediate_size", "ffn_hidden_size");
    const bool two_norms = has_tensor(".attn_norm_2.weight");
    const i64 kv = j.value("num_key_value_heads", j.value("num_attention_heads", i64{0}));
    j["new_decoder_architecture"] = two_norms || kv != 1;
    if (two_norms || kv != 1) {
      j["num_ln_in_parallel_attn"] = two_norms ? 2 : 1;
    } else {
      j["multi_query"] = true;
      j["parallel_attn"] = true;
    }
  }
  if (arch == "bloom") {
    // BloomModel.set_gguf_parameters: feed_forward_length 4 × hidden_size (BloomMLP's fixed width);
    // context_length seq_length, else hidden_size — no trained length (ALiBi has no table).
    const auto ff = read(p + "feed_forward_length"), d = read(p + "embedding_length"), n = read(p + "context_length");
    if (ff && d && *ff != 4 * *d)
      issues.push_back(issue_row(p + "feed_forward_length", Str::imp_gguf_bloom_ffn, std::to_string(*ff)));
    j.erase("intermediate_size");
    if (n && d && *n == *d) j.erase("max_position_embeddings");
  }
  if (arch == "gptneox" || arch == "phi2") {
    // GPTNeoXModel: rope.dimension_count = int(rotary_pct · head); Phi2Model: int(partial_rotary_factor ·
    // hidden) / heads. Neither writes key_length: the head is hidden / heads; absent, llama.cpp rotates all of it.
    const auto rope = read(p + "rope.dimension_count"), d = read(p + "embedding_length"), heads = read(p + "attention.head_count");
    if (d && heads && *heads > 0 && *d % *heads == 0 && *d / *heads > 0)
      j["partial_rotary_factor"] = rope ? static_cast<double>(*rope) / static_cast<double>(*d / *heads) : 1.0;
  }
  if (arch == "gptneox")
    if (const GgufValue* v = h.find(p + "use_parallel_residual"); v && v->kind == GgufKind::Bool)
      j["use_parallel_residual"] = v->i != 0;
  if (arch == "llama4") {
    // Llama4Model.__init__ swaps the widths before writing them: feed_forward_length = intermediate_size_mlp.
    if (j.contains("intermediate_size")) {
      j["intermediate_size_mlp"] = j["intermediate_size"];
      j.erase("intermediate_size");
      origin.emplace_back("intermediate_size_mlp", p + "feed_forward_length");
    }
    integer(p + "expert_feed_forward_length", "intermediate_size");
    integer(p + "interleave_moe_layer_step", "interleave_moe_layer_step");
    // ref: llama4.cpp load_arch_hparams: chunked attention of 8192 tokens (its fixed n_swa) unless
    // sliding_window is 0, every sliding_window_pattern-th layer full (default 4).
    j.erase("sliding_window");
    if (const auto sw = read(p + "attention.sliding_window"); sw && *sw == 0)
      issues.push_back(issue_row(p + "attention.sliding_window", Str::imp_gguf_llama4_no_chunk));
    j["attention_chunk_size"] = 8192;
    integer(p + "attention.sliding_window_pattern", "no_rope_layer_interval");
  }
  if (arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next") {
    for (const auto& [suffix, hf] : kGatedDeltaNetKeys) integer(p + std::string(suffix), hf);
    // ref: qwen35.cpp load_arch_tensors: head_v_dim = head_k_dim = ssm.state_size; inner_size = value heads × head_v_dim.
    const auto inner = read(p + "ssm.inner_size"), state = read(p + "ssm.state_size"), vheads = read(p + "ssm.time_step_rank");
    if (!inner || !state || !vheads || *vheads <= 0 || *inner != *state * *vheads)
      issues.push_back(issue_row(p + "ssm.inner_size", Str::imp_gguf_qwen35_inner));
    else
      j["linear_value_head_dim"] = *state;
    // ref: qwen35.cpp load_arch_hparams: the layers after block_count − nextn_predict_layers are the MTP block.
    const auto n = read(p + "nextn_predict_layers");
    j[arch == "qwen3next" ? "num_nextn_predict_layers" : "mtp_num_hidden_layers"] = n && *n > 0 ? *n : 0;
    if (n && *n > 0 && j.contains("num_hidden_layers")) j["num_hidden_layers"] = j["num_hidden_layers"].get<i64>() - *n;
    // Partial rotary: rope.dimension_count of key_length (Qwen3NextModel writes head_dim × partial_rotary_factor).
    const auto rope = read(p + "rope.dimension_count"), k = read(p + "attention.key_length");
    if (rope && k && *k > 0) j["partial_rotary_factor"] = static_cast<double>(*rope) / static_cast<double>(*k);
    // attention.recurrent_layers, where written, must be the interval's pattern (the one read).
    if (const GgufValue* r = h.find(p + "attention.recurrent_layers"); r && j.contains("full_attention_interval") &&
                                                                       j.contains("num_hidden_layers")) {
      const i64 every = j["full_attention_interval"].get<i64>(), layers = j["num_hidden_layers"].get<i64>();
      bool same = r->kind == GgufKind::Array && static_cast<i64>(r->ints.size()) == r->count && r->count >= layers && every > 0;
      for (i64 i = 0; same && i < layers; ++i) same = (r->ints[static_cast<size_t>(i)] != 0) == ((i + 1) % every != 0);
      if (!same)
        issues.push_back(issue_row(p + "attention.recurrent_layers", Str::imp_gguf_recurrent_layers));
    }
  }
  if (moe) {
    integer(p + "expert_count", row->experts_key);
    if (arch != "llama4" && (row->expert_ffn_key != "intermediate_size" || !h.find(p + "feed_forward_length")))
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
  // ref: gemma4.cpp load_arch_tensors: per_layer_token_embd {n_embd_per_layer · n_layer, n_vocab}.
  if (gemma4 && j.contains("vocab_size")) j["vocab_size_per_layer_input"] = j["vocab_size"];
  if (const GgufValue* v = h.find(p + "rope.freq_base"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64)) j["rope_theta"] = v->f;
  if (const GgufValue* v = h.find(p + "attention.layer_norm_rms_epsilon"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64))
    j["rms_norm_eps"] = v->f;
  // ref: conversion/granite.py GraniteModel.set_gguf_parameters (add_embedding_scale, add_residual_scale,
  // add_attention_scale, add_logit_scale): the config's four multipliers (the reference block's).
  if (arch == "granite" || arch == "granitehybrid")
    for (const auto& [key, hf] : {std::pair{"embedding_scale", "embedding_multiplier"}, std::pair{"residual_scale", "residual_multiplier"},
                                  std::pair{"attention.scale", "attention_multiplier"}, std::pair{"logit_scale", "logits_scaling"}})
      if (const GgufValue* v = h.find(p + key); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64)) j[hf] = v->f;
  // ref: llama.cpp's loaders take token_embd as the head when the file has no output.weight.
  bool head = false;
  for (const auto& t : h.tensors) head |= t.name == "output.weight";
  j["tie_word_embeddings"] = !head;
  // The keys every architecture writes (convert_hf_to_gguf.py set_gguf_parameters), by their GGUF names.
  for (const char* hf : {"num_hidden_layers", "hidden_size", "num_attention_heads"})
    if (!j.contains(hf))
      for (const auto& [suffix, key] : kKeys)
        if (key == hf) issues.push_back(issue_row(p + std::string(suffix), Str::imp_required_int));
  if (!j.contains("vocab_size")) issues.push_back(issue_row(p + "vocab_size", Str::imp_gguf_vocab_required));
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
  // The name as a share link carries it (at most 120 bytes): printable ASCII, others as '?'.
  out.config.name = gguf_printable(h.string_of("general.name")).substr(0, 120);
  for (char& ch : out.config.name)
    if (static_cast<unsigned char>(ch) >= 0x80) ch = '?';
  if (out.config.name.empty()) out.config.name = arch + " (GGUF)";
  return out;
}

}  // namespace llmsize::core
