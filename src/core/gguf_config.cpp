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
    {"olmo2", "olmo2", ""},
    {"starcoder2", "starcoder2", ""},
    // LFM2 (src/models/lfm2.cpp): short convolutions where head_count_kv is 0; read below.
    {"lfm2", "lfm2", ""},  // StarCoder2 (src/models/starcoder2.cpp): LayerNorms and biases, the family's own  // OLMo 2: full-width q/k norms, norms after attention and FFN (src/models/olmo2.cpp)
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
    // Qwen3-Next (src/models/qwen3next.cpp): Qwen3.5's keys with experts in every layer.
    {"qwen3next", "qwen3_next", "qwen3_next"},
    {"qwen35", "qwen3_5_text", ""},
    {"qwen35moe", "qwen3_5_moe_text", "qwen3_5_moe_text"},
};

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
  if (arch.empty()) return Issue{"general.architecture", "the GGUF file names no architecture (a string key)"};
  if (gguf_is_projector(h))
    return Issue{"general.architecture", "\"clip\" is a multimodal projector (an mmproj file), not a language model: give it "
                                         "beside the model (--mmproj FILE, or open both files together)"};
  const GgufArch* row = nullptr;
  for (const GgufArch& a : kArchs)
    if (a.arch == arch) row = &a;
  if (!row) {
    std::string known;
    for (const GgufArch& a : kArchs) known += (known.empty() ? "" : ", ") + std::string(a.arch);
    return Issue{"general.architecture", "\"" + gguf_printable(arch) + "\" is not read from GGUF metadata yet; read are " + known};
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
  const bool deepseek = arch == "deepseek2", glm = arch == "glm4moe";
  auto read = [&](const std::string& key) -> std::optional<i64> {
    const GgufValue* v = h.find(key);
    return v && v->is_integer() ? std::optional<i64>(v->i) : std::nullopt;
  };
  auto has_tensor = [&](std::string_view part) {
    return std::any_of(h.tensors.begin(), h.tensors.end(), [&](const GgufTensor& t) { return t.name.find(part) != std::string::npos; });
  };
  j["model_type"] = std::string(moe && !row->moe_type.empty() ? row->moe_type : row->model_type);
  const bool nemotron = arch == "nemotron_h" || arch == "nemotron_h_moe", granite = arch == "granitehybrid", lfm2 = arch == "lfm2";
  for (const auto& [suffix, hf] : kKeys)
    if (!(deepseek && (hf == "head_dim" || hf == "num_key_value_heads")) &&
        !(nemotron && (hf == "num_key_value_heads" || hf == "intermediate_size")) &&
        !((granite || lfm2) && hf == "num_key_value_heads"))
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
      issues.push_back({p + "attention.key_length_mla",
                        "MLA needs the key and value head widths (key_length[_mla] > rope.dimension_count, value_length[_mla])"});
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
      j["model_type"] = "deepseek_v3";
      j["topk_method"] = "noaux_tc";
      j["scoring_func"] = "sigmoid";
    }
    if (!h.find(p + "attention.q_lora_rank")) j["q_lora_rank"] = nullptr;  // DeepSeek-V2-Lite: a plain q_proj
  }
  // Per-layer arrays (the hybrid architectures below): one value for each of block_count's layers.
  const auto blocks = read(p + "block_count");
  auto per_layer = [&](const std::string& key, std::string_view zero) -> const std::vector<i64>* {
    const GgufValue* v = h.find(key);
    if (v && v->kind == GgufKind::Array && static_cast<i64>(v->ints.size()) == v->count && blocks && v->count == *blocks)
      return &v->ints;
    issues.push_back({key, "must list a value for each of the block_count layers (0 " + std::string(zero) + ")"});
    return nullptr;
  };
  // layer_types from the per-layer head_count_kv (`attention` above 0, `other` at 0) and the one KV head count.
  auto kv_layer_types = [&](std::string_view attention, std::string_view other, std::string_view zero) {
    const auto* kvs = per_layer(p + "attention.head_count_kv", zero);
    if (!kvs) return;
    json types = json::array();
    i64 heads_kv = 0;
    for (i64 a : *kvs) {
      types.push_back(a > 0 ? attention : other);
      if (a > 0 && heads_kv != 0 && a != heads_kv)
        issues.push_back({p + "attention.head_count_kv", "attention layers with different KV head counts are not read yet"});
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
    const auto* kvs = per_layer(p + "attention.head_count_kv", "where the layer has none");
    const auto* ffs = per_layer(p + "feed_forward_length", "where the layer has none");
    if (kvs && ffs && nextn >= 0 && nextn < *blocks) {
      std::string pattern;
      i64 heads_kv = 0, width = 0;
      for (i64 i = 0; i < *blocks - nextn; ++i) {
        const i64 a = (*kvs)[static_cast<size_t>(i)], f = (*ffs)[static_cast<size_t>(i)];
        if (a > 0 && f > 0) {
          issues.push_back({p + "attention.head_count_kv", "layer " + std::to_string(i) + " has both attention and a feed-forward"});
          break;
        }
        pattern += a > 0 ? '*' : f > 0 ? (moe ? 'E' : '-') : 'M';
        if (a > 0 && heads_kv != 0 && a != heads_kv)
          issues.push_back({p + "attention.head_count_kv", "attention layers with different KV head counts are not read yet"});
        if (f > 0 && width != 0 && f != width)
          issues.push_back({p + "feed_forward_length", "feed-forward layers of different widths are not read yet"});
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
      issues.push_back({p + "ssm.inner_size", "must be a multiple of ssm.time_step_rank (the Mamba-2 heads × their width)"});
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
    kv_layer_types("full_attention", "conv", "for a convolution");
    integer(p + "shortconv.l_cache", "conv_L_cache");
    j["block_auto_adjust_ff_dim"] = false;  // feed_forward_length is already the built width
    if (moe) issues.push_back({p + "expert_count", "LFM2's experts (lfm2moe) are not read from GGUF yet"});
  }
  if (granite) {
    // GraniteHybridModel.set_gguf_parameters: head_count_kv per layer, 0 for the Mamba-2 layers; the
    // Mamba-2 sizes as ssm.* (time_step_rank = its heads); rope only where rope.scaling.finetuned is true.
    kv_layer_types("attention", "mamba", "for Mamba-2");
    if (!moe) issues.push_back({p + "expert_count", "a Granite hybrid without experts is not read from GGUF yet"});
    integer(p + "expert_shared_feed_forward_length", "shared_intermediate_size");
    integer(p + "ssm.conv_kernel", "mamba_d_conv");
    integer(p + "ssm.state_size", "mamba_d_state");
    integer(p + "ssm.group_count", "mamba_n_groups");
    integer(p + "ssm.time_step_rank", "mamba_n_heads");
    const auto inner = read(p + "ssm.inner_size"), mheads = read(p + "ssm.time_step_rank"), d = read(p + "embedding_length");
    if (!inner || !mheads || !d || *mheads <= 0 || *d <= 0 || *inner % *mheads != 0 || *inner % *d != 0)
      issues.push_back({p + "ssm.inner_size", "must be a multiple of ssm.time_step_rank and of embedding_length"});
    else
      j["mamba_d_head"] = *inner / *mheads, j["mamba_expand"] = *inner / *d;
    const GgufValue* rope = h.find(p + "rope.scaling.finetuned");
    j["position_embedding_type"] = rope && rope->kind == GgufKind::Bool && rope->i != 0 ? "rope" : "nope";
  }
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
      issues.push_back({p + "attention.sliding_window", "0 (no chunked attention: MobileLLM) is not read from GGUF yet"});
    j["attention_chunk_size"] = 8192;
    integer(p + "attention.sliding_window_pattern", "no_rope_layer_interval");
  }
  if (arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next") {
    for (const auto& [suffix, hf] : kGatedDeltaNetKeys) integer(p + std::string(suffix), hf);
    // ref: qwen35.cpp load_arch_tensors: head_v_dim = head_k_dim = ssm.state_size; inner_size = value heads × head_v_dim.
    const auto inner = read(p + "ssm.inner_size"), state = read(p + "ssm.state_size"), vheads = read(p + "ssm.time_step_rank");
    if (!inner || !state || !vheads || *vheads <= 0 || *inner != *state * *vheads)
      issues.push_back({p + "ssm.inner_size", "must be ssm.time_step_rank × ssm.state_size (llama.cpp's value heads × their width)"});
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
        issues.push_back({p + "attention.recurrent_layers",
                          "a pattern other than every full_attention_interval-th layer attention is not read from GGUF yet"});
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
  if (const GgufValue* v = h.find(p + "rope.freq_base"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64)) j["rope_theta"] = v->f;
  if (const GgufValue* v = h.find(p + "attention.layer_norm_rms_epsilon"); v && (v->kind == GgufKind::F32 || v->kind == GgufKind::F64))
    j["rms_norm_eps"] = v->f;
  // ref: llama.cpp's loaders take token_embd as the head when the file has no output.weight.
  bool head = false;
  for (const auto& t : h.tensors) head |= t.name == "output.weight";
  j["tie_word_embeddings"] = !head;
  // The keys every architecture writes (convert_hf_to_gguf.py set_gguf_parameters), by their GGUF names.
  for (const char* hf : {"num_hidden_layers", "hidden_size", "num_attention_heads"})
    if (!j.contains(hf))
      for (const auto& [suffix, key] : kKeys)
        if (key == hf) issues.push_back({p + std::string(suffix), "is required (an integer)"});
  if (!j.contains("vocab_size")) issues.push_back({p + "vocab_size", "is required, or the tokenizer's tokenizer.ggml.tokens"});
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
