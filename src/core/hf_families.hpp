// Private to the config.json importer: one FamilyRow per Hugging Face model family, saying
// which keys it reads (with their spellings), the class default of each absent key and the
// fixed facts of its architecture. hf_config.cpp reads every row with the same steps; a
// family's few irreducible quirks are named hooks. A field left at its default below reads
// like a LLaMA decoder (gated SiLU FFN, RMSNorm, rotary, separate q/k/v/o), which is also
// the generic reading of an unknown model_type. Tensor names live in inventory.cpp.
#pragma once
#include <string_view>
#include <vector>

#include "hf_reader.hpp"
#include "model.hpp"

namespace llmsize::core::hf {

// A boolean read from `key` with `value` as its class default, or fixed at `value`.
struct Flag {
  const char* key = nullptr;
  bool value = false;
};

// A default for an integer key: `fixed` plus `per_hidden` × hidden_size (GPT-2's 4·d).
struct Width {
  i64 fixed = 0;
  i64 per_hidden = 0;
};

// Absent expert width that falls back to the dense intermediate_size (Mixtral reads none).
inline constexpr i64 kDenseWidth = -1;

enum class SharedExpert : std::uint8_t {
  None,
  GatedWidth,  // Qwen2-MoE: one shared expert of the given width, behind a sigmoid gate
  Width,       // Granite: one shared expert of the given width, no gate
  Count,       // DeepSeek: n_shared_experts, each as wide as a routed expert
};

struct MoeRule {
  Names experts{};                // empty: a dense family
  i64 experts_default = 0;      // 0: absent key means a dense model (DeepSeek-V2 class)
  bool zero_means_dense = false;  // generic reading and Granite; other MoE families refuse E < 1
  Names top_k{"num_experts_per_tok"};
  i64 top_k_default = 0;
  Names expert_ffn{"moe_intermediate_size"};
  i64 expert_ffn_default = 0;   // or kDenseWidth
  SharedExpert shared = SharedExpert::None;
  Names shared_keys{};
  i64 shared_default = 0;
  // Placement: layer i >= first_dense is MoE iff i % freq == phase, unless in the dense list.
  Names first_dense{};            // DeepSeek first_k_dense_replace
  i64 first_dense_default = 0;
  Names freq{};                   // DeepSeek moe_layer_freq, Qwen decoder_sparse_step
  bool last_of_group = false;   // Qwen: MoE when (i + 1) % freq == 0, so phase = freq − 1
  const char* dense_list = nullptr;  // Qwen mlp_only_layers
  bool router_bias = false;   // gpt-oss: the router Linear has a bias
  bool expert_bias = false;   // gpt-oss: every routed expert's matrices have biases
  bool norm_topk_default = true;  // norm_topk_prob when absent; Jamba: false (softmax, then top-k, no renormalization)
};

// Gated DeltaNet layers (Qwen3-Next): linear_* sizes, and which layers are linear, from
// full_attention_interval or layer_types ("linear_attention" / "full_attention").
struct LinearRule {
  bool read = false;
  i64 interval_default = 0;
  i64 k_heads_default = 0, v_heads_default = 0, k_dim_default = 0, v_dim_default = 0, conv_default = 0;
};

struct WindowRule {
  bool read = false;
  Flag on{"use_sliding_window", false};  // key nullptr: every config of the family slides
  i64 size_default = 0;
  i64 pattern = 1;  // see ModelConfig::sliding_pattern
  const char* pattern_key = nullptr;  // read the pattern from this key (Gemma-3 sliding_window_pattern)
  bool layer_types = false;  // read layer_types, one "sliding_attention"/"full_attention" per layer
};

struct BiasRule {
  Flag attn{"attention_bias", false};  // q, k, v and o
  Flag ffn{"mlp_bias", false};
  bool one_switch = false;  // attn's key also switches the FFN biases (OPT enable_bias, Falcon bias)
  bool o_unbiased = false;  // Qwen2Attention: q, k, v have biases and o has none
  bool lm_head = false;
};

struct RotaryRule {
  Names keys{"partial_rotary_factor"};
  double fraction_default = 1.0;
  bool in_head_dims = false;  // GPT-J rotary_dim counts dimensions of a head (default: all)
};

struct ActRule {
  Names keys{"hidden_act", "hidden_activation"};
  const char* name_default = "silu";
  Activation unknown = Activation::Silu;  // for a name activation_of() does not know
};

struct FfnRule {
  Names keys{"intermediate_size"};
  Width absent{};
  FfnKind kind = FfnKind::Gated;
};

// Reads what the table cannot say; runs after the biases and norm flags, before head_dim.
using Hook = void (*)(Reader& r, ModelConfig& c, std::string_view model_type);

struct FamilyRow {
  Family family = Family::Custom;
  Names model_types{};  // spellings read natively, as config.json writes them
  bool tied = false;  // tie_word_embeddings class default
  bool note_tie_default = false;  // say so when tie_word_embeddings is absent (generic reading)
  i64 positions_default = 2048;  // ref: LlamaConfig max_position_embeddings
  i64 vocab_default = 0;         // 0: vocab_size is required
  // 0: num_attention_heads is required; else the class default, and num_key_value_heads' (0: the heads)
  i64 heads_default = 0, kv_heads_default = 0;
  FfnRule ffn{};
  ActRule act{};
  PosKind pos = PosKind::Rotary;
  Flag alibi{};        // Falcon: "alibi": true replaces rotary with ALiBi
  i64 pos_offset = 0;  // OPT keeps 2 extra learned position rows
  RotaryRule rotary{};
  NormKind norm = NormKind::RmsNorm;
  Flag parallel{};            // attention and FFN read the same input
  bool shared_norm = false;   // a parallel block with one norm for both branches
  BiasRule bias{};
  Flag norm_qk{};
  bool sinks = false;     // gpt-oss attention sinks
  bool out_gate = false;  // Qwen3-Next gated attention output (q_proj twice as wide)
  LinearRule linear{};
  bool norm_sandwich = false, norm_embed = false, fused_qkv = false, fused_gate_up = false;
  Hook hook = nullptr;
  Hook finish = nullptr;     // runs last, after the MoE fields are read
  i64 head_dim_default = 0;  // 0: hidden_size / heads when head_dim is absent
  WindowRule window{};
  bool mla = false;          // DeepSeek multi-head latent attention (kv_lora_rank, …)
  bool indexer = false;      // DeepSeek-V3.2 lightning indexer (index_n_heads, index_head_dim, index_topk)
  i64 index_heads_default = 64;  // index_n_heads when absent (ref: DeepSeek-V3.2-Exp's ModelArgs)
  MoeRule moe{};
  const char* topk_method_default = nullptr;  // DeepSeek router; "noaux_tc" adds a correction bias
  bool mtp = false;          // DeepSeek num_nextn_predict_layers (V3 has 1)
  Names mtp_keys{"num_nextn_predict_layers"};
  i64 mtp_default = 0;       // when the key is absent (Qwen3-Next checkpoints store one mtp layer)
};

// Rows of the natively read families, in the order supported_model_types() lists them.
const std::vector<FamilyRow>& family_rows();
// The generic LLaMA-like reading of an unknown model_type (optional MoE and window).
const FamilyRow& generic_row();

}  // namespace llmsize::core::hf
