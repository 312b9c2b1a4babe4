// A model file's bytes per inventory tensor and layer (see file_weights.hpp).
#include "file_weights.hpp"

#include <unordered_map>

#include "format.hpp"
#include "text_value.hpp"

namespace llmsize::core {

std::optional<FileTensor> FileWeights::at(const Inventory& inv, const Tensor& t, i64 layer) const {
  auto within = [&](const std::vector<Tensor>& v) { return !v.empty() && &t >= v.data() && &t < v.data() + v.size(); };
  if (within(inv.global)) {
    const auto i = static_cast<size_t>(&t - inv.global.data());
    if (i < global.size()) return global[i];
    return std::nullopt;
  }
  if (layer < 0 || static_cast<size_t>(layer) >= slot.size()) return std::nullopt;
  for (size_t k = 0; k < inv.kinds.size() && k < kinds.size(); ++k)
    if (within(inv.kinds[k].tensors)) {
      const auto i = static_cast<size_t>(&t - inv.kinds[k].tensors.data());
      const auto j = static_cast<size_t>(slot[static_cast<size_t>(layer)]);
      if (i < kinds[k].size() && j < kinds[k][i].size()) return kinds[k][i][j];
      return std::nullopt;
    }
  return std::nullopt;
}

namespace {

constexpr std::string_view kMixed = "mixed";

// The slots, and a zeroed table shaped like the inventory.
FileWeights shaped_like(const Inventory& inv, std::string format) {
  FileWeights f;
  f.format = std::move(format);
  f.global.resize(inv.global.size());
  i64 layers = 0;
  for (const LayerKind& k : inv.kinds)
    for (i64 l : k.layers) layers = std::max(layers, l + 1);
  f.slot.assign(static_cast<size_t>(layers), 0);
  for (const LayerKind& k : inv.kinds) {
    for (size_t j = 0; j < k.layers.size(); ++j) f.slot[static_cast<size_t>(k.layers[j])] = static_cast<i64>(j);
    f.kinds.emplace_back(k.tensors.size(), std::vector<FileTensor>(k.layers.size()));
  }
  return f;
}

void add_type(FileTensor& x, std::string_view type) {
  if (x.type.empty()) x.type = type;
  else if (x.type != type) x.type = kMixed;
}

// Σ of everything claimed, and the unclaimed.
Result<FileWeights> finish(FileWeights f) {
  Checked total(f.other_bytes);
  for (const auto& g : f.global) total += g.bytes;
  for (const auto& k : f.kinds)
    for (const auto& t : k)
      for (const auto& x : t) total += x.bytes;
  if (!total.ok()) return memory_overflow();
  f.total_bytes = total.value();
  return f;
}

// ---- GGUF ------------------------------------------------------------------------------------

// Hugging Face name (after "model.layers.{i}." for layer tensors) → llama.cpp names (after
// "blk.N."), each alternative a set of names whose sum is the tensor. "%e" stands for the expert.
struct GgufName {
  std::string_view hf;
  std::vector<std::vector<std::string_view>> alternatives;
};

// gguf-py/gguf/tensor_mapping.py and src/llama-arch.cpp (LLM_TENSOR_NAMES) of llama.cpp b10573.
const std::vector<GgufName>& gguf_global_names() {
  static const std::vector<GgufName> names{
      {"model.embed_tokens.weight", {{"token_embd.weight"}}},
      {"model.norm.weight", {{"output_norm.weight"}}},
      {"model.norm.bias", {{"output_norm.bias"}}},  // LayerNorm models (StarCoder2)
      {"model.embedding_norm.weight", {{"token_embd_norm.weight"}}},  // LFM2's final norm (LLM_TENSOR_OUTPUT_NORM_LFM2)
      {"backbone.embeddings.weight", {{"token_embd.weight"}}},  // Nemotron-H's backbone.*
      {"backbone.norm_f.weight", {{"output_norm.weight"}}},
      {"lm_head.weight", {{"output.weight"}}},
      {"lm_head.bias", {{"output.bias"}}},  // Phi-2's biased head
      // Phi-2, Jamba and Falcon-H1's final norm (model.final_layernorm).
      {"model.final_layernorm.weight", {{"output_norm.weight"}}},
      {"model.final_layernorm.bias", {{"output_norm.bias"}}},
      // GPT-2, StarCoder (transformer.wte / wpe), Falcon and BLOOM (word_embeddings), their ln_f; GPT-NeoX's
      // gpt_neox.* and embed_out (gguf-py tensor_mapping.py).
      {"transformer.wte.weight", {{"token_embd.weight"}}},
      {"transformer.wpe.weight", {{"position_embd.weight"}}},
      {"transformer.word_embeddings.weight", {{"token_embd.weight"}}},
      {"transformer.word_embeddings_layernorm.weight", {{"token_embd_norm.weight"}}},  // BLOOM
      {"transformer.word_embeddings_layernorm.bias", {{"token_embd_norm.bias"}}},
      {"transformer.ln_f.weight", {{"output_norm.weight"}}},
      {"transformer.ln_f.bias", {{"output_norm.bias"}}},
      {"gpt_neox.embed_in.weight", {{"token_embd.weight"}}},
      {"gpt_neox.final_layer_norm.weight", {{"output_norm.weight"}}},
      {"gpt_neox.final_layer_norm.bias", {{"output_norm.bias"}}},
      {"embed_out.weight", {{"output.weight"}}},
      // Gemma 4's per-layer embeddings (src/models/gemma4.cpp; gemma3n's tensor names).
      {"model.embed_tokens_per_layer.weight", {{"per_layer_token_embd.weight"}}},
      {"model.per_layer_model_projection.weight", {{"per_layer_model_proj.weight"}}},
      {"model.per_layer_projection_norm.weight", {{"per_layer_proj_norm.weight"}}},
  };
  return names;
}
const std::vector<GgufName>& gguf_layer_names() {
  static const std::vector<GgufName> names{
      {"input_layernorm.weight", {{"attn_norm.weight"}}},
      {"self_attn.q_proj.weight", {{"attn_q.weight"}, {"attn_qkv.weight"}}},
      {"self_attn.k_proj.weight", {{"attn_k.weight"}, {"attn_qkv.weight"}}},
      {"self_attn.v_proj.weight", {{"attn_v.weight"}, {"attn_qkv.weight"}}},
      {"self_attn.q_proj.bias", {{"attn_q.bias"}, {"attn_qkv.bias"}}},
      {"self_attn.k_proj.bias", {{"attn_k.bias"}, {"attn_qkv.bias"}}},
      {"self_attn.v_proj.bias", {{"attn_v.bias"}, {"attn_qkv.bias"}}},
      {"self_attn.qkv_proj.weight", {{"attn_qkv.weight"}}},  // Phi-3's fused q, k, v
      {"self_attn.o_proj.weight", {{"attn_output.weight"}}},
      {"self_attn.o_proj.bias", {{"attn_output.bias"}}},
      {"self_attn.q_norm.weight", {{"attn_q_norm.weight"}}},
      {"self_attn.k_norm.weight", {{"attn_k_norm.weight"}}},
      {"self_attn.sinks", {{"attn_sinks.weight"}}},
      // Qwen3.5's Gated DeltaNet (src/models/qwen35.cpp load_arch_tensors; conversion/qwen.py).
      {"linear_attn.in_proj_qkv.weight", {{"attn_qkv.weight"}}},
      {"linear_attn.in_proj_z.weight", {{"attn_gate.weight"}}},
      {"linear_attn.in_proj_b.weight", {{"ssm_beta.weight"}}},
      {"linear_attn.in_proj_a.weight", {{"ssm_alpha.weight"}}},
      {"linear_attn.conv1d.weight", {{"ssm_conv1d.weight"}}},
      {"linear_attn.dt_bias", {{"ssm_dt.bias"}}},
      {"linear_attn.A_log", {{"ssm_a"}}},
      {"linear_attn.norm.weight", {{"ssm_norm.weight"}}},
      {"linear_attn.out_proj.weight", {{"ssm_out.weight"}}},
      // Qwen3-Next's fused projections (src/models/qwen3next.cpp): q‖k‖v and z as attn_qkv and attn_gate
      // (older files: one ssm_in), b‖a as ssm_ba.
      {"linear_attn.in_proj_qkvz.weight", {{"attn_qkv.weight", "attn_gate.weight"}, {"ssm_in.weight"}}},
      {"linear_attn.in_proj_ba.weight", {{"ssm_ba.weight"}}},
      // MLA (src/models/deepseek2.cpp): kv_b_proj is attn_kv_b, or attn_k_b + attn_v_b in files
      // converted since llama.cpp's MLA rework (the same values, split and transposed).
      {"self_attn.q_a_proj.weight", {{"attn_q_a.weight"}}},
      {"self_attn.q_a_layernorm.weight", {{"attn_q_a_norm.weight"}}},
      {"self_attn.q_b_proj.weight", {{"attn_q_b.weight"}}},
      {"self_attn.kv_a_proj_with_mqa.weight", {{"attn_kv_a_mqa.weight"}}},
      {"self_attn.kv_a_layernorm.weight", {{"attn_kv_a_norm.weight"}}},
      {"self_attn.kv_b_proj.weight", {{"attn_kv_b.weight"}, {"attn_k_b.weight", "attn_v_b.weight"}}},
      {"mlp.gate.e_score_correction_bias", {{"exp_probs_b.bias"}}},
      {"mlp.shared_experts.gate_proj.weight", {{"ffn_gate_shexp.weight"}}},
      {"mlp.shared_experts.up_proj.weight", {{"ffn_up_shexp.weight"}}},
      {"mlp.shared_experts.down_proj.weight", {{"ffn_down_shexp.weight"}}},
      // Gemma 2/3 and gpt-oss norm after attention (ATTN_POST_NORM); Llama and Qwen's same-named
      // norm is the FFN's input norm (FFN_NORM). Whichever the file has is the one.
      {"post_attention_layernorm.weight", {{"post_attention_norm.weight"}, {"ffn_norm.weight"}}},
      {"pre_feedforward_layernorm.weight", {{"ffn_norm.weight"}}},
      {"post_feedforward_layernorm.weight", {{"post_ffw_norm.weight"}}},
      // Nemotron-H (src/models/nemotron-h.cpp): one norm per block, its mixer Mamba-2, attention, MLP or experts.
      {"norm.weight", {{"attn_norm.weight"}}},
      {"mixer.in_proj.weight", {{"ssm_in.weight"}}},
      {"mixer.conv1d.weight", {{"ssm_conv1d.weight"}}},
      {"mixer.conv1d.bias", {{"ssm_conv1d.bias"}}},
      {"mixer.dt_bias", {{"ssm_dt.bias"}}},
      {"mixer.A_log", {{"ssm_a"}}},
      {"mixer.D", {{"ssm_d"}}},
      {"mixer.norm.weight", {{"ssm_norm.weight"}}},
      {"mixer.out_proj.weight", {{"ssm_out.weight"}}},
      {"mixer.q_proj.weight", {{"attn_q.weight"}}},
      {"mixer.k_proj.weight", {{"attn_k.weight"}}},
      {"mixer.v_proj.weight", {{"attn_v.weight"}}},
      {"mixer.o_proj.weight", {{"attn_output.weight"}}},
      {"mixer.up_proj.weight", {{"ffn_up.weight"}}},
      {"mixer.down_proj.weight", {{"ffn_down.weight"}}},
      {"mixer.gate.weight", {{"ffn_gate_inp.weight"}}},
      {"mixer.experts.{e}.up_proj.weight", {{"ffn_up_exps.weight"}, {"ffn_up.%e.weight"}}},
      {"mixer.experts.{e}.down_proj.weight", {{"ffn_down_exps.weight"}, {"ffn_down.%e.weight"}}},
      {"mixer.shared_experts.up_proj.weight", {{"ffn_up_shexp.weight"}}},
      {"mixer.shared_experts.down_proj.weight", {{"ffn_down_shexp.weight"}}},
      // LFM2 (src/models/lfm2.cpp): operator_norm before the mixer, short convolutions, q/k layernorms, w1/w3/w2.
      {"operator_norm.weight", {{"attn_norm.weight"}}},
      {"conv.in_proj.weight", {{"shortconv.in_proj.weight"}}},
      {"conv.conv.weight", {{"shortconv.conv.weight"}}},
      {"conv.out_proj.weight", {{"shortconv.out_proj.weight"}}},
      {"self_attn.q_layernorm.weight", {{"attn_q_norm.weight"}}},
      {"self_attn.k_layernorm.weight", {{"attn_k_norm.weight"}}},
      {"self_attn.out_proj.weight", {{"attn_output.weight"}}},
      {"ffn_norm.weight", {{"ffn_norm.weight"}}},
      {"feed_forward.w1.weight", {{"ffn_gate.weight"}}},
      {"feed_forward.w3.weight", {{"ffn_up.weight"}}},
      {"feed_forward.w2.weight", {{"ffn_down.weight"}}},
      // Granite 4.0-H (src/models/granite-hybrid.cpp; conversion/granite.py splits input_linear into gate and up).
      {"mamba.in_proj.weight", {{"ssm_in.weight"}}},
      {"mamba.conv1d.weight", {{"ssm_conv1d.weight"}}},
      {"mamba.conv1d.bias", {{"ssm_conv1d.bias"}}},
      {"mamba.dt_bias", {{"ssm_dt.bias"}}},
      {"mamba.A_log", {{"ssm_a"}}},
      {"mamba.D", {{"ssm_d"}}},
      {"mamba.norm.weight", {{"ssm_norm.weight"}}},
      {"mamba.out_proj.weight", {{"ssm_out.weight"}}},
      {"block_sparse_moe.router.layer.weight", {{"ffn_gate_inp.weight"}}},
      {"block_sparse_moe.input_linear.weight", {{"ffn_gate_exps.weight", "ffn_up_exps.weight"}}},
      {"block_sparse_moe.output_linear.weight", {{"ffn_down_exps.weight"}}},
      {"shared_mlp.input_linear.weight", {{"ffn_gate_shexp.weight", "ffn_up_shexp.weight"}}},
      {"shared_mlp.output_linear.weight", {{"ffn_down_shexp.weight"}}},
      // StarCoder2 (src/models/starcoder2.cpp): LayerNorms with biases, an MLP of c_fc and c_proj.
      {"input_layernorm.bias", {{"attn_norm.bias"}}},
      {"post_attention_layernorm.bias", {{"ffn_norm.bias"}}},
      {"mlp.c_fc.weight", {{"ffn_up.weight"}}},
      {"mlp.c_fc.bias", {{"ffn_up.bias"}}},
      {"mlp.c_proj.weight", {{"ffn_down.weight"}}},
      {"mlp.c_proj.bias", {{"ffn_down.bias"}}},
      {"mlp.gate_proj.weight", {{"ffn_gate.weight"}}},
      {"mlp.up_proj.weight", {{"ffn_up.weight"}}},
      {"mlp.down_proj.weight", {{"ffn_down.weight"}}},
      {"mlp.gate_up_proj.weight", {{"ffn_up.weight"}}},  // Phi-3: gate and up in one ffn_up of 2 × n_ff
      {"mlp.gate.weight", {{"ffn_gate_inp.weight"}}},
      // Gate and up of all experts in one tensor (create_tensor_gate_up_exps), shared in proportion.
      {"mlp.experts.{e}.gate_proj.weight", {{"ffn_gate_exps.weight"}, {"ffn_gate_up_exps.weight"}, {"ffn_gate.%e.weight"}}},
      {"mlp.experts.{e}.up_proj.weight", {{"ffn_up_exps.weight"}, {"ffn_gate_up_exps.weight"}, {"ffn_up.%e.weight"}}},
      {"mlp.experts.{e}.down_proj.weight", {{"ffn_down_exps.weight"}, {"ffn_down.%e.weight"}}},
      {"mlp.shared_expert.gate_proj.weight", {{"ffn_gate_shexp.weight"}}},
      {"mlp.shared_expert.up_proj.weight", {{"ffn_up_shexp.weight"}}},
      {"mlp.shared_expert.down_proj.weight", {{"ffn_down_shexp.weight"}}},
      {"mlp.shared_expert_gate.weight", {{"ffn_gate_inp_shexp.weight"}}},
      {"block_sparse_moe.gate.weight", {{"ffn_gate_inp.weight"}}},
      {"block_sparse_moe.experts.{e}.w1.weight", {{"ffn_gate_exps.weight"}, {"ffn_gate_up_exps.weight"}, {"ffn_gate.%e.weight"}}},
      {"block_sparse_moe.experts.{e}.w3.weight", {{"ffn_up_exps.weight"}, {"ffn_gate_up_exps.weight"}, {"ffn_up.%e.weight"}}},
      {"block_sparse_moe.experts.{e}.w2.weight", {{"ffn_down_exps.weight"}, {"ffn_down.%e.weight"}}},
      // Llama 4 (src/models/llama4.cpp; conversion/llama.py splits gate_up_proj into gate and up).
      {"feed_forward.gate_proj.weight", {{"ffn_gate.weight"}}},
      {"feed_forward.up_proj.weight", {{"ffn_up.weight"}}},
      {"feed_forward.down_proj.weight", {{"ffn_down.weight"}}},
      {"feed_forward.router.weight", {{"ffn_gate_inp.weight"}}},
      {"feed_forward.experts.gate_up_proj", {{"ffn_gate_exps.weight", "ffn_up_exps.weight"}}},
      {"feed_forward.experts.down_proj", {{"ffn_down_exps.weight"}}},
      {"feed_forward.shared_expert.gate_proj.weight", {{"ffn_gate_shexp.weight"}}},
      {"feed_forward.shared_expert.up_proj.weight", {{"ffn_up_shexp.weight"}}},
      {"feed_forward.shared_expert.down_proj.weight", {{"ffn_down_shexp.weight"}}},
      {"mlp.router.weight", {{"ffn_gate_inp.weight"}}},
      {"mlp.router.bias", {{"ffn_gate_inp.bias"}}},
      {"mlp.experts.gate_up_proj", {{"ffn_gate_exps.weight", "ffn_up_exps.weight"}, {"ffn_gate_up_exps.weight"}}},
      {"mlp.experts.gate_up_proj_bias", {{"ffn_gate_exps.bias", "ffn_up_exps.bias"}}},
      {"mlp.experts.down_proj", {{"ffn_down_exps.weight"}}},
      {"mlp.experts.down_proj_bias", {{"ffn_down_exps.bias"}}},
      // DeepSeek-V3.2's lightning indexer (src/models/deepseek32.cpp; tensor_mapping.py INDEXER_*).
      {"self_attn.indexer.wq_b.weight", {{"indexer.attn_q_b.weight"}}},
      {"self_attn.indexer.wk.weight", {{"indexer.attn_k.weight"}}},
      {"self_attn.indexer.k_norm.weight", {{"indexer.k_norm.weight"}}},
      {"self_attn.indexer.k_norm.bias", {{"indexer.k_norm.bias"}}},
      {"self_attn.indexer.weights_proj.weight", {{"indexer.proj.weight"}}},
      // Router correction biases under other names (FFN_EXP_PROBS_B): ERNIE 4.5's moe_statics and MiniMax-M2's.
      {"mlp.moe_statics.e_score_correction_bias", {{"exp_probs_b.bias"}}},
      {"block_sparse_moe.e_score_correction_bias", {{"exp_probs_b.bias"}}},
      // Jamba (src/models/jamba.cpp) and Falcon-H1: pre_ff_layernorm is FFN_NORM; Falcon-H1's converter maps the
      // whole key to FFN_PRE_NORM "blk.N.ffn_norm" without a suffix (falcon-h1.cpp loads tn(FFN_NORM, i)).
      {"pre_ff_layernorm.weight", {{"ffn_norm.weight"}, {"ffn_norm"}}},
      // Jamba's Mamba-1 mixer and its experts (the converter stacks them as ffn_*_exps).
      {"mamba.x_proj.weight", {{"ssm_x.weight"}}},
      {"mamba.dt_proj.weight", {{"ssm_dt.weight"}}},
      {"mamba.dt_proj.bias", {{"ssm_dt.bias"}}},
      {"mamba.dt_layernorm.weight", {{"ssm_dt_norm.weight"}}},
      {"mamba.b_layernorm.weight", {{"ssm_b_norm.weight"}}},
      {"mamba.c_layernorm.weight", {{"ssm_c_norm.weight"}}},
      {"feed_forward.experts.{e}.gate_proj.weight", {{"ffn_gate_exps.weight"}, {"ffn_gate.%e.weight"}}},
      {"feed_forward.experts.{e}.up_proj.weight", {{"ffn_up_exps.weight"}, {"ffn_up.%e.weight"}}},
      {"feed_forward.experts.{e}.down_proj.weight", {{"ffn_down_exps.weight"}, {"ffn_down.%e.weight"}}},
      // Gemma 4's per-layer embedding gate, projection and norm (src/models/gemma4.cpp).
      {"per_layer_input_gate.weight", {{"inp_gate.weight"}}},
      {"per_layer_projection.weight", {{"proj.weight"}}},
      {"post_per_layer_input_norm.weight", {{"post_norm.weight"}}},
      // Gemma 4 26B-A4B's router, experts and the norms of its two FFN branches (gemma4.cpp
      // load_arch_tensors: ffn_gate_inp's weight and scale, ffn_down_exps' per-expert scale; llama-arch.cpp
      // LLM_TENSOR_FFN_PRE_NORM_2, FFN_POST_NORM_1, FFN_POST_NORM_2).
      {"router.proj.weight", {{"ffn_gate_inp.weight"}}},
      {"router.scale", {{"ffn_gate_inp.scale"}}},
      {"router.per_expert_scale", {{"ffn_down_exps.scale"}}},
      {"experts.gate_up_proj", {{"ffn_gate_up_exps.weight"}, {"ffn_gate_exps.weight", "ffn_up_exps.weight"}}},
      {"experts.down_proj", {{"ffn_down_exps.weight"}}},
      {"pre_feedforward_layernorm_2.weight", {{"pre_ffw_norm_2.weight"}}},
      {"post_feedforward_layernorm_1.weight", {{"post_ffw_norm_1.weight"}}},
      {"post_feedforward_layernorm_2.weight", {{"post_ffw_norm_2.weight"}}},
      // GPT-2 and StarCoder (src/models/gpt2.cpp, starcoder.cpp): ln_1 / ln_2, c_attn (q‖k‖v) and c_proj.
      {"ln_1.weight", {{"attn_norm.weight"}}},
      {"ln_1.bias", {{"attn_norm.bias"}}},
      {"ln_2.weight", {{"ffn_norm.weight"}}},
      {"ln_2.bias", {{"ffn_norm.bias"}}},
      {"attn.c_attn.weight", {{"attn_qkv.weight"}}},
      {"attn.c_attn.bias", {{"attn_qkv.bias"}}},
      {"attn.c_proj.weight", {{"attn_output.weight"}}},
      {"attn.c_proj.bias", {{"attn_output.bias"}}},
      // GPT-NeoX, Falcon and BLOOM (gptneox.cpp, falcon.cpp, bloom.cpp): query_key_value, dense,
      // dense_h_to_4h / dense_4h_to_h; Falcon-40B's ln_attn is attn_norm_2 and its ln_mlp attn_norm.
      {"attention.query_key_value.weight", {{"attn_qkv.weight"}}},
      {"attention.query_key_value.bias", {{"attn_qkv.bias"}}},
      {"attention.dense.weight", {{"attn_output.weight"}}},
      {"attention.dense.bias", {{"attn_output.bias"}}},
      {"self_attention.query_key_value.weight", {{"attn_qkv.weight"}}},
      {"self_attention.query_key_value.bias", {{"attn_qkv.bias"}}},
      {"self_attention.dense.weight", {{"attn_output.weight"}}},
      {"self_attention.dense.bias", {{"attn_output.bias"}}},
      {"mlp.dense_h_to_4h.weight", {{"ffn_up.weight"}}},
      {"mlp.dense_h_to_4h.bias", {{"ffn_up.bias"}}},
      {"mlp.dense_4h_to_h.weight", {{"ffn_down.weight"}}},
      {"mlp.dense_4h_to_h.bias", {{"ffn_down.bias"}}},
      {"ln_attn.weight", {{"attn_norm_2.weight"}}},
      {"ln_attn.bias", {{"attn_norm_2.bias"}}},
      {"ln_mlp.weight", {{"attn_norm.weight"}}},
      {"ln_mlp.bias", {{"attn_norm.bias"}}},
      // Phi-2 (src/models/phi2.cpp): dense, fc1 / fc2.
      {"self_attn.dense.weight", {{"attn_output.weight"}}},
      {"self_attn.dense.bias", {{"attn_output.bias"}}},
      {"mlp.fc1.weight", {{"ffn_up.weight"}}},
      {"mlp.fc1.bias", {{"ffn_up.bias"}}},
      {"mlp.fc2.weight", {{"ffn_down.weight"}}},
      {"mlp.fc2.bias", {{"ffn_down.bias"}}},
  };
  return names;
}

constexpr std::string_view kLayerPrefix = "model.layers.{i}.";

const GgufName* gguf_name_of(const Tensor& t) {
  // Checkpoints that keep the text model inside a multimodal wrapper (Qwen3.5's
  // model.language_model.*) name the same tensors one level down; llama.cpp's are the same.
  constexpr std::string_view kWrapped = "model.language_model.", kBackbone = "backbone.layers.", kBlocks = "transformer.h.",
                             kNeoX = "gpt_neox.layers.";
  std::string name = t.name;
  if (name.rfind(kWrapped, 0) == 0) name = "model." + name.substr(kWrapped.size());
  if (name.rfind(kBackbone, 0) == 0) name = "model.layers." + name.substr(kBackbone.size());  // Nemotron-H
  // GPT-2, StarCoder, Falcon, BLOOM (transformer.h.{i}.) and GPT-NeoX (gpt_neox.layers.{i}.): the same layers.
  if (name.rfind(kBlocks, 0) == 0) name = "model.layers." + name.substr(kBlocks.size());
  if (name.rfind(kNeoX, 0) == 0) name = "model.layers." + name.substr(kNeoX.size());
  std::string_view n = name;
  const bool layer = n.substr(0, kLayerPrefix.size()) == kLayerPrefix;
  if (layer) n.remove_prefix(kLayerPrefix.size());
  for (const GgufName& g : layer ? gguf_layer_names() : gguf_global_names())
    if (g.hf == n) return &g;
  return nullptr;
}

std::string expand(std::string_view pattern, i64 layer, i64 expert) {
  std::string out = layer >= 0 ? "blk." + std::to_string(layer) + "." : "";
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'e') {
      out += std::to_string(expert);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

}  // namespace

Result<FileWeights> gguf_file_weights(const GgufHeader& h, const ModelConfig& cfg, const Inventory& inv) {
  FileWeights f = shaped_like(inv, "gguf");
  std::unordered_map<std::string_view, size_t> by_name;
  by_name.reserve(h.tensors.size());
  for (size_t i = 0; i < h.tensors.size(); ++i) by_name.emplace(h.tensors[i].name, i);
  std::vector<bool> claimed(h.tensors.size(), false);
  std::vector<i64> fused_share(h.tensors.size(), 0);  // a fused tensor's elements its parts claimed
  auto refuse = [](Issue why) { return Result<FileWeights>(std::vector<Issue>{std::move(why)}); };
  auto no = [](Str row, auto&&... args) -> std::optional<Issue> { return issue_row("gguf", row, std::forward<decltype(args)>(args)...); };

  // One inventory tensor in one layer: the first alternative whose names are all in the file.
  auto claim = [&](const Tensor& t, i64 layer, FileTensor& out) -> std::optional<Issue> {
    const GgufName* g = gguf_name_of(t);
    const std::string hf = tensor_name(t.name, layer);
    if (!g) return no(Str::rd_fw_no_name, hf);
    for (const auto& alt : g->alternatives) {
      std::vector<size_t> parts;
      bool all = true;
      for (std::string_view p : alt) {
        const bool per_expert = p.find("%e") != std::string_view::npos;
        for (i64 e = 0; e < (per_expert ? t.copies : 1) && all; ++e) {
          auto it = by_name.find(expand(p, layer, e));
          if (it == by_name.end()) all = false;
          else parts.push_back(it->second);
        }
      }
      if (!all) continue;
      Checked bytes, elements;
      for (size_t i : parts) {
        bytes += h.tensors[i].bytes;
        elements += h.tensors[i].elements;
        add_type(out, h.tensors[i].type->name);
      }
      if (!bytes.ok() || !elements.ok()) return no(Str::rd_fw_overflow, hf);
      const std::string file_name = gguf_printable(h.tensors[parts.front()].name);
      const bool fused = alt.size() == 1 && (file_name.find(".attn_qkv.") != std::string::npos ||
                                             file_name.find(".ffn_gate_up_exps.") != std::string::npos);
      for (size_t i : parts)  // a tensor stands for one of the model's (a fused one is shared, in proportion)
        if (claimed[i] && !fused) return no(Str::rd_fw_claimed_twice, gguf_printable(h.tensors[i].name), hf);
      if (fused) {
        // One fused tensor for q, k and v (or the experts' gate and up): this part's share, in
        // elements and so in bytes; the parts must add up to the whole (checked at the end).
        fused_share[parts.front()] += t.numel();
        const i64 whole = elements.value();
        if (whole <= 0 || t.numel() > whole) return no(Str::rd_fw_fused_fewer, file_name, hf);
        const Checked share = Checked(bytes.value()) * t.numel();
        if (!share.ok() || share.value() % whole != 0)
          return no(Str::rd_fw_fused_split, file_name, hf, with_commas(t.numel()));
        out.bytes += share.value() / whole;
      } else {
        if (elements.value() != t.numel())
          return no(Str::rd_fw_elements, file_name, with_commas(elements.value()), hf, with_commas(t.numel()));
        out.bytes += bytes.value();
      }
      for (size_t i : parts) claimed[i] = true;
      return std::nullopt;
    }
    return no(Str::rd_fw_missing, expand(g->alternatives.front().front(), layer, 0), hf);
  };

  for (size_t i = 0; i < inv.global.size(); ++i)
    if (auto why = claim(inv.global[i], -1, f.global[i])) return refuse(*why);
  for (size_t k = 0; k < inv.kinds.size(); ++k)
    for (size_t i = 0; i < inv.kinds[k].tensors.size(); ++i)
      for (size_t j = 0; j < inv.kinds[k].layers.size(); ++j)
        if (auto why = claim(inv.kinds[k].tensors[i], inv.kinds[k].layers[j], f.kinds[k][i][j])) return refuse(*why);
  // Multi-token-prediction layers a file keeps (GLM-4.5's nextn blocks): outside the weights.
  for (const LayerKind& k : inv.mtp)
    for (const Tensor& t : k.tensors)
      for (i64 l : k.layers) {
        FileTensor x;
        if (!claim(t, l, x)) f.mtp_bytes = sat_add(f.mtp_bytes, x.bytes);
      }
  for (size_t i = 0; i < h.tensors.size(); ++i)
    if (fused_share[i] > 0 && fused_share[i] != h.tensors[i].elements)
      return refuse(issue_row("gguf", Str::rd_fw_fused_total, gguf_printable(h.tensors[i].name), with_commas(h.tensors[i].elements),
                              with_commas(fused_share[i])));
  for (size_t i = 0; i < h.tensors.size(); ++i)
    if (!claimed[i]) {
      // A block past the trunk is a multi-token-prediction layer the file keeps (nextn.*).
      const std::string_view name = h.tensors[i].name;
      if (name.substr(0, 4) == "blk.") {
        const auto block = parse_int(name.substr(4, name.find('.', 4) - 4));
        if (block && *block >= cfg.n_layers) {
          f.mtp_bytes = sat_add(f.mtp_bytes, h.tensors[i].bytes);
          continue;
        }
      }
      ++f.other_tensors;
      f.other_bytes = sat_add(f.other_bytes, h.tensors[i].bytes);
      if (f.other_names.size() < 8) f.other_names.push_back(gguf_printable(h.tensors[i].name));
    }
  return finish(std::move(f));
}

// ---- safetensors -------------------------------------------------------------------------------

Result<FileWeights> safetensors_file_weights(const std::vector<const SafetensorsHeader*>& files, const Inventory& inv) {
  FileWeights f = shaped_like(inv, "safetensors");
  // Per tensor and layer: whether anything was found, and the elements of its plain weights
  // (float or 8-bit and wider: packed 4-bit weights hold fewer elements than the model's).
  struct Seen {
    bool any = false;
    bool plain = false;
    i64 elements = 0;
    std::string first;
  };
  std::vector<Seen> global_seen(inv.global.size());
  std::vector<std::vector<std::vector<Seen>>> kind_seen;
  for (const LayerKind& k : inv.kinds) kind_seen.emplace_back(k.tensors.size(), std::vector<Seen>(k.layers.size()));
  const SafetensorsMatcher matcher(inv);
  for (const SafetensorsHeader* file : files)
    for (const SafetensorsTensor& t : file->tensors) {
      const auto m = matcher.match(t.name);
      if (!m) {
        ++f.other_tensors;
        f.other_bytes = sat_add(f.other_bytes, t.bytes());
        if (f.other_names.size() < 8) f.other_names.push_back(gguf_printable(t.name));
        continue;
      }
      if (m->mtp) {
        f.mtp_bytes = sat_add(f.mtp_bytes, t.bytes());
        continue;
      }
      FileTensor* x = nullptr;
      Seen* s = nullptr;
      if (m->kind < 0) {
        x = &f.global[static_cast<size_t>(m->index)];
        s = &global_seen[static_cast<size_t>(m->index)];
      } else {
        const auto j = static_cast<size_t>(f.slot[static_cast<size_t>(m->layer)]);
        x = &f.kinds[static_cast<size_t>(m->kind)][static_cast<size_t>(m->index)][j];
        s = &kind_seen[static_cast<size_t>(m->kind)][static_cast<size_t>(m->index)][j];
      }
      x->bytes = sat_add(x->bytes, t.bytes());
      s->any = true;
      if (s->first.empty()) s->first = gguf_printable(t.name);
      if (m->primary) {
        add_type(*x, t.dtype->name);
        if (t.dtype->bits >= 8) {
          s->plain = true;
          s->elements = sat_add(s->elements, t.elements);
        }
      }
    }
  auto check = [&](const Tensor& t, i64 layer, const Seen& s) -> std::optional<Issue> {
    const std::string hf = tensor_name(t.name, layer, 0);
    if (!s.any) return issue_row("safetensors", Str::rd_fw_st_missing, hf);
    if (s.plain && s.elements != t.numel())
      return issue_row("safetensors", t.copies > 1 ? Str::rd_fw_st_experts : Str::rd_fw_st_elements, s.first, with_commas(s.elements),
                       with_commas(t.numel()));
    return std::nullopt;
  };
  for (size_t i = 0; i < inv.global.size(); ++i)
    if (auto issue = check(inv.global[i], -1, global_seen[i])) return std::vector<Issue>{*issue};
  for (size_t k = 0; k < inv.kinds.size(); ++k)
    for (size_t i = 0; i < inv.kinds[k].tensors.size(); ++i)
      for (size_t j = 0; j < inv.kinds[k].layers.size(); ++j)
        if (auto issue = check(inv.kinds[k].tensors[i], inv.kinds[k].layers[j], kind_seen[k][i][j])) return std::vector<Issue>{*issue};
  return finish(std::move(f));
}

// ---- A share link's summary ---------------------------------------------------------------------

namespace {
// Bytes of `elements` values of ggml type `t`, when they are whole blocks.
std::optional<i64> whole_blocks(const GgmlType& t, i64 elements) {
  if (elements % t.block != 0) return std::nullopt;
  return mul(elements / t.block, t.bytes);
}
const GgmlType* ggml_type_named(std::string_view name) {
  for (const GgmlType& t : ggml_types())
    if (t.name == name) return &t;
  return nullptr;
}
}  // namespace

namespace {
// One run's value in a summary: a ggml type id (a GGUF file: the bytes follow from the type), or
// a safetensors checkpoint's bytes and its weight's dtype ("M": parts of several dtypes), the bytes
// given because scales and zero points ride with the weight.
std::optional<std::string> run_token(const FileWeights& f, const Tensor& t, const FileTensor& x) {
  if (f.format == "gguf") {
    const GgmlType* type = ggml_type_named(x.type);
    if (!type || whole_blocks(*type, t.numel()) != x.bytes) return std::nullopt;
    return std::to_string(type->id);
  }
  if (x.type != kMixed && !safetensors_dtype(x.type)) return std::nullopt;
  return std::to_string(x.bytes) + "-" + (x.type == kMixed ? std::string("M") : std::string(x.type));
}
}  // namespace

std::optional<std::string> file_summary(const FileWeights& f, const Inventory& inv) {
  if ((f.format != "gguf" && f.format != "safetensors") || f.global.size() != inv.global.size() || f.kinds.size() != inv.kinds.size())
    return std::nullopt;
  std::string out = (f.format == "gguf" ? "gguf~" : "st~") + std::to_string(f.other_bytes) + "~" + std::to_string(f.total_bytes) + "~";
  bool first = true;
  // One tensor's runs; false when a layer's value cannot be written.
  auto tensor = [&](const Tensor& t, const std::vector<FileTensor>& layers) {
    out += first ? "" : ",";
    first = false;
    for (size_t j = 0; j < layers.size();) {
      const auto token = run_token(f, t, layers[j]);
      if (!token) return false;
      size_t n = 1;
      while (j + n < layers.size() && layers[j + n].type == layers[j].type && layers[j + n].bytes == layers[j].bytes) ++n;
      out += (j ? "." : "") + *token + (j == 0 && n == layers.size() ? "" : "x" + std::to_string(n));
      j += n;
    }
    return true;
  };
  for (size_t i = 0; i < inv.global.size(); ++i)
    if (!tensor(inv.global[i], {f.global[i]})) return std::nullopt;
  for (size_t k = 0; k < inv.kinds.size(); ++k) {
    if (f.kinds[k].size() != inv.kinds[k].tensors.size()) return std::nullopt;
    for (size_t i = 0; i < inv.kinds[k].tensors.size(); ++i)
      if (!tensor(inv.kinds[k].tensors[i], f.kinds[k][i])) return std::nullopt;
  }
  if (out.size() > kMaxFileSummaryBytes) return std::nullopt;
  return out;
}

Result<FileWeights> file_weights_from_summary(std::string_view s, const Inventory& inv) {
  auto bad = [](Issue why) { return Result<FileWeights>(std::vector<Issue>{std::move(why)}); };
  auto row = [](Str r, auto&&... args) { return issue_row("file", r, std::forward<decltype(args)>(args)...); };
  if (s.size() > kMaxFileSummaryBytes) return bad(row(Str::rd_sum_long, std::to_string(kMaxFileSummaryBytes)));
  const bool gguf = s.substr(0, 5) == "gguf~";
  if (!gguf && s.substr(0, 3) != "st~") return bad(row(Str::rd_sum_start));
  s.remove_prefix(gguf ? 5 : 3);
  const Str shape = gguf ? Str::rd_sum_shape_gguf : Str::rd_sum_shape_st;
  const size_t tilde = s.find('~');
  if (tilde == std::string_view::npos) return bad(row(shape));
  const auto other = parse_int(s.substr(0, tilde));
  if (!other || *other < 0 || *other > (i64{1} << 50)) return bad(row(Str::rd_sum_other));
  s.remove_prefix(tilde + 1);
  const size_t tilde2 = s.find('~');
  const auto total = tilde2 == std::string_view::npos ? std::nullopt : parse_int(s.substr(0, tilde2));
  if (!total || *total < 0) return bad(row(shape));
  s.remove_prefix(tilde2 + 1);
  FileWeights f = shaped_like(inv, gguf ? "gguf" : "safetensors");
  f.other_bytes = *other;
  // The tensors in order: each a list of runs over its kind's layers.
  std::vector<std::string_view> tensors;
  while (true) {
    const size_t comma = s.find(',');
    tensors.push_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  size_t expected = inv.global.size();
  for (const LayerKind& k : inv.kinds) expected += k.tensors.size();
  if (tensors.size() != expected)
    return bad(row(Str::rd_sum_count, std::to_string(tensors.size()), std::to_string(expected)));
  size_t next = 0;
  // One run's value for tensor t (see run_token), or why not.
  auto value = [&](std::string_view token, const Tensor& t) -> Result<FileTensor> {
    const RowArg which = row_arg(Str::rd_sum_which, std::to_string(next), std::string(token.substr(0, 24)));
    auto no = [](Issue why) { return Result<FileTensor>(std::move(why)); };
    if (gguf) {
      const auto id = parse_int(token);
      const GgmlType* type = id && *id >= 0 && *id < 256 ? ggml_type(static_cast<std::uint32_t>(*id)) : nullptr;
      if (!type) return no(row(Str::rd_sum_type_id, which));
      const auto bytes = whole_blocks(*type, t.numel());
      if (!bytes) return no(row(Str::rd_sum_blocks, which, std::string(type->name), with_commas(t.numel())));
      return FileTensor{*bytes, type->name};
    }
    const size_t dash = token.find('-');
    const auto bytes = parse_int(token.substr(0, dash));
    if (dash == std::string_view::npos || !bytes || *bytes < 0 || *bytes > (i64{1} << 50))
      return no(row(Str::rd_sum_bytes_dtype, which));
    const std::string_view name = token.substr(dash + 1);
    if (name == "M") return FileTensor{*bytes, kMixed};
    const SafetensorsDtype* dtype = safetensors_dtype(name);
    if (!dtype) return no(row(Str::rd_sum_dtype, which));
    // A plain weight (8 bits or wider) holds the model's elements; packed ones fewer, scales more.
    if (dtype->bits >= 8 && mul(t.numel(), dtype->bits / 8).value_or(i64{1} << 62) > *bytes)
      return no(row(Str::rd_sum_hold, which, with_commas(*bytes), with_commas(t.numel()), std::string(dtype->name)));
    return FileTensor{*bytes, dtype->name};
  };
  auto read = [&](const Tensor& t, std::vector<FileTensor*> layers) -> std::optional<Issue> {
    std::string_view runs = tensors[next++];
    size_t at = 0;
    while (!runs.empty()) {
      const size_t dot = runs.find('.');
      std::string_view run = runs.substr(0, dot);
      runs = dot == std::string_view::npos ? std::string_view() : runs.substr(dot + 1);
      const size_t x = run.find('x');
      const auto n = x == std::string_view::npos ? std::optional<i64>(static_cast<i64>(layers.size())) : parse_int(run.substr(x + 1));
      auto v = value(run.substr(0, x), t);
      if (!v) return v.issues().front();
      if (!n || *n < 1 || *n > static_cast<i64>(layers.size() - at))
        return row(Str::rd_sum_runs, std::to_string(next), std::to_string(layers.size()));
      for (i64 r = 0; r < *n; ++r, ++at) *layers[at] = *v;
    }
    if (at != layers.size()) return row(Str::rd_sum_runs, std::to_string(next), std::to_string(layers.size()));
    return std::nullopt;
  };
  for (size_t i = 0; i < inv.global.size(); ++i)
    if (auto why = read(inv.global[i], {&f.global[i]})) return bad(*why);
  for (size_t k = 0; k < inv.kinds.size(); ++k)
    for (size_t i = 0; i < inv.kinds[k].tensors.size(); ++i) {
      std::vector<FileTensor*> layers;
      for (auto& x : f.kinds[k][i]) layers.push_back(&x);
      if (auto why = read(inv.kinds[k].tensors[i], layers)) return bad(*why);
    }
  auto done = finish(std::move(f));
  // The file's total: the types applied to a model of other shapes (an edited config) differ.
  if (done && done->total_bytes != *total)
    return bad(row(gguf ? Str::rd_sum_total_types : Str::rd_sum_total_tensors, with_commas(*total), with_commas(done->total_bytes)));
  return done;
}

namespace {
void attach(PreparedModel& m, Result<FileWeights> f, const char* field) {
  m.file.reset();
  m.file_refused.reset();
  if (f) {
    m.file = std::make_shared<const FileWeights>(std::move(f).value());
    return;
  }
  m.file_refused = issue(field, [why = f.issues().front()](Lang l) { return row_text(Str::rd_fw_beside, {message_in(why, l)}, l); });
}
}  // namespace

void attach_file_summary(PreparedModel& m, std::string_view summary) {
  attach(m, file_weights_from_summary(summary, *m.inventory), "file");
}

void attach_file(PreparedModel& m, const GgufHeader& h) { attach(m, gguf_file_weights(h, m.cfg, *m.inventory), "gguf"); }
void attach_file(PreparedModel& m, const std::vector<SafetensorsHeader>& files) {
  attach(m, safetensors_file_weights(pointers_to(files), *m.inventory), "safetensors");
}

}  // namespace llmsize::core
