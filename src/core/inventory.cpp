// Builds the tensor inventory from a ModelConfig (see inventory.hpp). Shapes are written
// as x·W: rows = d_in, cols = d_out. Names follow each family's Hugging Face checkpoint.
#include "inventory.hpp"

#include <map>

namespace llmsize::core {

namespace {

// Checkpoint names of one family. Layer-local names are relative to `layer`.
struct Names {
  const char* embed;
  const char* pos = "";
  const char* embed_norm = "";
  const char* proj_in = "";
  const char* proj_out = "";
  const char* layer;
  const char* attn_norm;
  const char* ffn_norm;
  const char* post_attn_norm = "post_attention_layernorm";
  const char* post_ffn_norm = "post_feedforward_layernorm";
  const char* q = "self_attn.q_proj";
  const char* k = "self_attn.k_proj";
  const char* v = "self_attn.v_proj";
  const char* qkv = "self_attn.qkv_proj";
  const char* o = "self_attn.o_proj";
  const char* q_norm = "self_attn.q_norm";
  const char* k_norm = "self_attn.k_norm";
  const char* gate = "mlp.gate_proj";
  const char* up = "mlp.up_proj";
  const char* gate_up = "mlp.gate_up_proj";
  const char* down = "mlp.down_proj";
  const char* router = "mlp.gate";
  const char* expert = "mlp.experts.{e}";
  const char* e_gate = "gate_proj";
  const char* e_up = "up_proj";
  const char* e_down = "down_proj";
  const char* e_gate_up = "";      // routed experts stored as one 3-D gate_up tensor (gpt-oss)
  const char* e_weight = ".weight";  // suffixes of the routed experts' weights and biases
  const char* e_bias = ".bias";
  const char* sinks = "self_attn.sinks";
  const char* linear = "linear_attn";  // Gated DeltaNet module of a linear layer
  bool linear_split = false;  // q‖k‖v, z, b and a as four projections (Qwen3.5) instead of qkvz and ba
  const char* shared = "mlp.shared_experts";
  const char* shared_gate = "mlp.shared_expert_gate";
  const char* shared_gate_up = "";  // a shared expert stored with one gate‖up matrix (Granite shared_mlp)
  const char* correction = "";      // the router's correction bias when not router + ".e_score_correction_bias"
  const char* final_norm;
  const char* head = "lm_head";
};

Names names_for(const ModelConfig& c) {
  const Family f = c.family;
  Names llama{.embed = "model.embed_tokens", .layer = "model.layers.{i}",
              .attn_norm = "input_layernorm", .ffn_norm = "post_attention_layernorm",
              .final_norm = "model.norm"};
  switch (f) {
    case Family::Gpt2:
    case Family::GptBigCode: {  // ref: modeling_gpt_bigcode.py: GPT-2's names, c_attn of (H + 2K)·hd
      Names n{.embed = "transformer.wte", .pos = "transformer.wpe", .layer = "transformer.h.{i}",
              .attn_norm = "ln_1", .ffn_norm = "ln_2", .final_norm = "transformer.ln_f"};
      n.qkv = "attn.c_attn"; n.o = "attn.c_proj"; n.up = "mlp.c_fc"; n.down = "mlp.c_proj";
      return n;
    }
    case Family::GptJ: {
      Names n{.embed = "transformer.wte", .layer = "transformer.h.{i}", .attn_norm = "ln_1",
              .ffn_norm = "ln_2", .final_norm = "transformer.ln_f"};
      n.q = "attn.q_proj"; n.k = "attn.k_proj"; n.v = "attn.v_proj"; n.o = "attn.out_proj";
      n.up = "mlp.fc_in"; n.down = "mlp.fc_out";
      return n;
    }
    case Family::GptNeoX: {
      Names n{.embed = "gpt_neox.embed_in", .layer = "gpt_neox.layers.{i}",
              .attn_norm = "input_layernorm", .ffn_norm = "post_attention_layernorm",
              .final_norm = "gpt_neox.final_layer_norm", .head = "embed_out"};
      n.qkv = "attention.query_key_value"; n.o = "attention.dense";
      n.up = "mlp.dense_h_to_4h"; n.down = "mlp.dense_4h_to_h";
      return n;
    }
    case Family::Opt: {
      Names n{.embed = "model.decoder.embed_tokens", .pos = "model.decoder.embed_positions",
              .proj_in = "model.decoder.project_in", .proj_out = "model.decoder.project_out",
              .layer = "model.decoder.layers.{i}", .attn_norm = "self_attn_layer_norm",
              .ffn_norm = "final_layer_norm", .final_norm = "model.decoder.final_layer_norm"};
      n.o = "self_attn.out_proj"; n.up = "fc1"; n.down = "fc2";
      return n;
    }
    case Family::Bloom:
    case Family::Falcon: {
      const bool two_ln_parallel = f == Family::Falcon && c.parallel_block && c.norm_ffn_input;
      Names n{.embed = "transformer.word_embeddings",
              .embed_norm = "transformer.word_embeddings_layernorm", .layer = "transformer.h.{i}",
              .attn_norm = "input_layernorm", .ffn_norm = "post_attention_layernorm",
              .final_norm = "transformer.ln_f"};
      n.qkv = "self_attention.query_key_value"; n.o = "self_attention.dense";
      n.up = "mlp.dense_h_to_4h"; n.down = "mlp.dense_4h_to_h";
      if (two_ln_parallel) { n.attn_norm = "ln_attn"; n.ffn_norm = "ln_mlp"; }
      return n;
    }
    case Family::Phi: {
      Names n{.embed = "model.embed_tokens", .layer = "model.layers.{i}",
              .attn_norm = "input_layernorm", .ffn_norm = "post_attention_layernorm",
              .final_norm = "model.final_layernorm"};
      n.o = "self_attn.dense"; n.q_norm = "self_attn.q_layernorm"; n.k_norm = "self_attn.k_layernorm";
      n.up = "mlp.fc1"; n.down = "mlp.fc2";
      return n;
    }
    case Family::OpenaiGpt: {  // ref: modeling_openai.py OpenAIGPTModel, Block, Attention, MLP
      Names n{.embed = "transformer.tokens_embed", .pos = "transformer.positions_embed",
              .layer = "transformer.h.{i}", .attn_norm = "ln_1", .ffn_norm = "ln_2", .final_norm = ""};
      n.qkv = "attn.c_attn"; n.o = "attn.c_proj"; n.up = "mlp.c_fc"; n.down = "mlp.c_proj";
      return n;
    }
    case Family::Gemma4:  // ref: modeling_gemma4.py Gemma4TextDecoderLayer (the four norms of Gemma 3)
      if (c.moe.dense_beside) {  // Gemma4TextRouter router.proj, Gemma4TextExperts' 3-D parameters, the dense mlp.*
        llama.router = "router.proj";
        llama.expert = "experts";
        llama.e_gate_up = "gate_up_proj";
        llama.e_down = "down_proj";
        llama.e_weight = "";
        llama.shared = "mlp";
      }
      [[fallthrough]];
    case Family::Gemma2:
    case Family::Gemma3:  // ref: modeling_gemma3.py Gemma3DecoderLayer (+ Gemma3Attention q_norm, k_norm)
      llama.ffn_norm = "pre_feedforward_layernorm";
      return llama;
    case Family::MinimaxM2:  // ref: the MiniMax-M2 checkpoints' names (block_sparse_moe.*, w1/w3/w2)
      llama.correction = "block_sparse_moe.e_score_correction_bias";
      [[fallthrough]];
    case Family::Mixtral:
      llama.router = "block_sparse_moe.gate";
      llama.expert = "block_sparse_moe.experts.{e}";
      llama.e_gate = "w1"; llama.e_up = "w3"; llama.e_down = "w2";
      return llama;
    case Family::Qwen35:
    case Family::Qwen35Moe: {  // ref: modeling_qwen3_5.py Qwen3_5GatedDeltaNet, modeling_qwen3_5_moe.py Qwen3_5MoeExperts
      Names n = llama;
      n.embed = "model.language_model.embed_tokens";
      n.layer = "model.language_model.layers.{i}";
      n.final_norm = "model.language_model.norm";
      n.linear_split = true;
      n.shared = "mlp.shared_expert";
      n.expert = "mlp.experts";
      n.e_gate_up = "gate_up_proj";
      n.e_down = "down_proj";
      n.e_weight = "";
      return n;
    }
    case Family::Qwen2Moe:
    case Family::Qwen3Next:  // ref: modeling_qwen3_next.py Qwen3NextSparseMoeBlock
      llama.shared = "mlp.shared_expert";
      return llama;
    case Family::GraniteMoeHybrid:  // ref: modeling_granitemoehybrid.py (GraniteMoeShared MoE, BambaMixer)
      llama.gate_up = "shared_mlp.input_linear";
      llama.down = "shared_mlp.output_linear";
      llama.router = "block_sparse_moe.router.layer";
      llama.expert = "block_sparse_moe";
      llama.e_gate_up = "input_linear";
      llama.e_down = "output_linear";
      llama.shared = "shared_mlp";
      llama.shared_gate_up = "shared_mlp.input_linear";
      llama.linear = "mamba";
      return llama;
    case Family::Ernie45Moe:  // ref: modeling_ernie4_5_moe.py Ernie4_5_MoeSparseMoeBlock (moe_statics)
      llama.correction = "mlp.moe_statics.e_score_correction_bias";
      return llama;
    case Family::Jamba:  // ref: modeling_jamba.py JambaAttentionDecoderLayer, JambaMambaDecoderLayer, JambaSparseMoeBlock
      llama.ffn_norm = "pre_ff_layernorm";
      llama.final_norm = "model.final_layernorm";
      llama.gate = "feed_forward.gate_proj";
      llama.up = "feed_forward.up_proj";
      llama.down = "feed_forward.down_proj";
      llama.router = "feed_forward.router";
      llama.expert = "feed_forward.experts.{e}";
      llama.linear = "mamba";
      return llama;
    case Family::FalconH1:  // ref: modeling_falcon_h1.py FalconH1DecoderLayer, FalconH1Model
      llama.ffn_norm = "pre_ff_layernorm";
      llama.final_norm = "model.final_layernorm";
      llama.gate = "feed_forward.gate_proj";
      llama.up = "feed_forward.up_proj";
      llama.down = "feed_forward.down_proj";
      llama.linear = "mamba";
      return llama;
    case Family::Starcoder2:  // ref: modeling_starcoder2.py Starcoder2MLP (c_fc, c_proj)
      llama.up = "mlp.c_fc";
      llama.down = "mlp.c_proj";
      return llama;
    case Family::Lfm2:  // ref: modeling_lfm2.py Lfm2DecoderLayer, Lfm2ShortConv, Lfm2MLP, Lfm2Attention
      llama.attn_norm = "operator_norm";
      llama.ffn_norm = "ffn_norm";
      llama.gate = "feed_forward.w1";
      llama.up = "feed_forward.w3";
      llama.down = "feed_forward.w2";
      llama.o = "self_attn.out_proj";
      llama.q_norm = "self_attn.q_layernorm";
      llama.k_norm = "self_attn.k_layernorm";
      llama.final_norm = "model.embedding_norm";  // sic: the final norm, after the layers
      llama.linear = "conv";
      return llama;
    case Family::NemotronH: {  // ref: modeling_nemotron_h.py NemotronHForCausalLM (backbone.*), NemotronHBlock
      Names n{.embed = "backbone.embeddings", .layer = "backbone.layers.{i}", .attn_norm = "norm", .ffn_norm = "",
              .final_norm = "backbone.norm_f"};
      n.q = "mixer.q_proj"; n.k = "mixer.k_proj"; n.v = "mixer.v_proj"; n.o = "mixer.o_proj";
      n.up = "mixer.up_proj"; n.down = "mixer.down_proj"; n.linear = "mixer";
      // ref: modeling_nemotron_h.py NemotronHMoE: gate (router), experts.{e}.up_proj/down_proj (relu², not
      // gated), shared_experts.up_proj/down_proj; its e_score_correction_bias is a buffer in every
      // implementation, and the published totals leave it out.
      n.router = "mixer.gate"; n.expert = "mixer.experts.{e}"; n.shared = "mixer.shared_experts";
      return n;
    }
    case Family::Llama4:  // ref: modeling_llama4.py Llama4TextMoe (router, 3-D experts, shared_expert), Llama4TextMLP
      llama.gate = "feed_forward.gate_proj";
      llama.up = "feed_forward.up_proj";
      llama.down = "feed_forward.down_proj";
      llama.router = "feed_forward.router";
      llama.expert = "feed_forward.experts";
      llama.e_gate_up = "gate_up_proj";
      llama.e_down = "down_proj";
      llama.e_weight = "";
      llama.shared = "feed_forward.shared_expert";
      return llama;
    case Family::GptOss:  // ref: modeling_gpt_oss.py GptOssTopKRouter, GptOssExperts (3-D parameters)
      llama.router = "mlp.router";
      llama.expert = "mlp.experts";
      llama.e_gate_up = "gate_up_proj";
      llama.e_down = "down_proj";
      llama.e_weight = "";
      llama.e_bias = "_bias";
      return llama;
    default:
      return llama;
  }
}

std::string join_name(const char* prefix, const char* name, const char* suffix) {
  std::string s = prefix;
  if (!s.empty() && *name) s += '.';
  s += name;
  s += suffix;
  return s;
}

// Appends tensors with overflow checks; `bad` records the first overflow.
struct Builder {
  std::vector<Tensor>* out;
  Group group;  // forced group (Mtp for MTP layers), or kGroupCount to keep each tensor's own
  std::string prefix;
  bool overflow = false;
  i64 kv_heads = 0;  // stamped on the tensors added while set (a layer's own K)
  TpSplit tp_split = TpSplit::ByRole;  // stamped the same way (a layer vLLM builds otherwise than its role says)

  // Adds what `f` adds with `s` stamped on it, then stamps what it stamped before.
  template <class F>
  void with_split(TpSplit s, F&& f) {
    const TpSplit before = tp_split;
    tp_split = s;
    f();
    tp_split = before;
  }

  void add(const char* name, const char* suffix, Group g, Role r, i64 rows, i64 cols,
           i64 copies = 1, bool routed = false, Role of = Role::Bias) {
    if (!(Checked(rows) * cols * copies).ok()) {
      overflow = true;
      return;
    }
    Tensor t;
    t.name = join_name(prefix.c_str(), name, suffix);
    t.group = group == static_cast<Group>(kGroupCount) ? g : group;
    t.role = r;
    t.rows = rows;
    t.cols = cols;
    t.copies = copies;
    t.routed = routed;
    t.of = of;
    t.kv_heads = kv_heads;
    t.tp_split = tp_split;
    out->push_back(std::move(t));
  }
  void norm(const ModelConfig& c, const char* name, i64 width, Group g = Group::Norm,
            bool force_rms = false) {
    if (!*name) return;
    add(name, ".weight", g, Role::Norm, 1, width);
    if (!force_rms && c.norm == NormKind::LayerNorm) add(name, ".bias", g, Role::Norm, 1, width);
  }
  void linear(const char* name, Group g, Role r, i64 din, i64 dout, bool bias, i64 copies = 1,
              bool routed = false, const char* w_suffix = ".weight", const char* b_suffix = ".bias") {
    add(name, w_suffix, g, r, din, dout, copies, routed);
    if (bias) add(name, b_suffix, g, Role::Bias, 1, dout, copies, routed, r);
  }
};

constexpr Group kOwnGroup = static_cast<Group>(kGroupCount);

void add_attention(const ModelConfig& c, const Names& n, Builder& b, i64 layer = -1) {
  const i64 d = c.d_model, H = c.n_heads;
  const auto A = Group::Attention;
  if (c.mla.enabled) {
    const auto& m = c.mla;
    const i64 qk = m.qk_nope_dim + m.qk_rope_dim;
    if (m.q_lora_rank > 0) {
      b.linear("self_attn.q_a_proj", A, Role::MlaQA, d, m.q_lora_rank, c.bias_qkv);
      b.norm(c, "self_attn.q_a_layernorm", m.q_lora_rank, Group::Norm, true);
      b.linear("self_attn.q_b_proj", A, Role::MlaQB, m.q_lora_rank, H * qk, false);
    } else {
      b.linear("self_attn.q_proj", A, Role::AttnQ, d, H * qk, c.bias_qkv);
    }
    b.linear("self_attn.kv_a_proj_with_mqa", A, Role::MlaKVA, d, m.kv_lora_rank + m.qk_rope_dim,
             c.bias_qkv);
    b.norm(c, "self_attn.kv_a_layernorm", m.kv_lora_rank, Group::Norm, true);
    b.linear("self_attn.kv_b_proj", A, Role::MlaKVB, m.kv_lora_rank, H * (m.qk_nope_dim + m.v_head_dim),
             false);
    b.linear(n.o, A, Role::AttnO, H * m.v_head_dim, d, c.bias_o);
    if (m.has_indexer()) {
      // ref: DeepSeek-V3.2-Exp inference/model.py Indexer (vLLM deepseek_v2.py Indexer): wq_b from the q
      // latent to index_n_heads × index_head_dim, wk d → index_head_dim, k_norm a LayerNorm with bias,
      // weights_proj d → index_n_heads; no biases on the linears.
      b.linear("self_attn.indexer.wq_b", A, Role::IdxQ, m.q_lora_rank, m.index_heads * m.index_dim, false);
      b.linear("self_attn.indexer.wk", A, Role::IdxK, d, m.index_dim, false);
      ModelConfig ln = c;
      ln.norm = NormKind::LayerNorm;
      b.norm(ln, "self_attn.indexer.k_norm", m.index_dim);
      b.linear("self_attn.indexer.weights_proj", A, Role::IdxWeights, d, m.index_heads, false);
    }
    return;
  }
  // This layer's shape: Gemma 4's full layers have their own head size (and K), KV-shared layers no
  // k or v projection and no k_norm, and full layers under attention_k_eq_v no v_proj
  // (ref: modeling_gemma4.py Gemma4TextAttention).
  const bool own = layer >= 0 && c.varies_by_layer();
  const i64 hd = own ? c.head_dim_at(layer) : c.head_dim, K = own ? c.kv_heads_at(layer) : c.n_kv_heads;
  const bool kv_proj = !own || !c.kv_shared_at(layer), v_proj = kv_proj && (!own || c.v_proj_at(layer));
  // ref: modeling_qwen3_next.py Qwen3NextAttention: q_proj yields q and the output gate, 2·H·hd.
  const i64 q_width = H * hd * (c.attn_out_gate ? 2 : 1);
  if (c.fused_qkv) {
    b.linear(n.qkv, A, Role::AttnQKV, d, q_width + 2 * K * hd, c.bias_qkv);
  } else {
    b.linear(n.q, A, Role::AttnQ, d, q_width, c.bias_qkv);
    b.kv_heads = K != c.n_kv_heads ? K : 0;
    if (kv_proj) b.linear(n.k, A, Role::AttnK, d, K * hd, c.bias_qkv);
    if (v_proj) b.linear(n.v, A, Role::AttnV, d, K * hd, c.bias_qkv);
    b.kv_heads = 0;
  }
  if (c.norm_qk) {  // ref: modeling_olmo2.py Olmo2Attention: q_norm over H·hd, k_norm over K·hd
    b.norm(c, n.q_norm, c.norm_qk_full ? H * hd : hd);
    if (kv_proj) b.norm(c, n.k_norm, c.norm_qk_full ? K * hd : hd);
  }
  b.linear(n.o, A, Role::AttnO, H * hd, d, c.bias_o);
  if (c.attn_sinks) b.add(n.sinks, "", A, Role::AttnSink, 1, H);  // ref: GptOssAttention.sinks
}

// Gated DeltaNet (ref: modeling_qwen3_next.py Qwen3NextGatedDeltaNet): in_proj_qkvz gives q, k
// (key_dim each), v and the output gate z (value_dim each); in_proj_ba one beta and one decay
// input per value head; a depthwise causal conv1d over q‖k‖v without bias (weight conv_dim × 1 ×
// kernel); dt_bias and A_log per value head; a gated RMSNorm of one value head's width; out_proj.
void add_linear_attention(const ModelConfig& c, const Names& n, Builder& b) {
  const auto& a = c.linear;
  const i64 d = c.d_model;
  const auto A = Group::Attention;
  const std::string m = n.linear;
  if (n.linear_split) {  // ref: modeling_qwen3_5.py Qwen3_5GatedDeltaNet: the same widths, four matrices
    b.linear((m + ".in_proj_qkv").c_str(), A, Role::LinQKVZ, d, a.conv_dim(), false);
    b.linear((m + ".in_proj_z").c_str(), A, Role::LinQKVZ, d, a.value_dim(), false);
    b.linear((m + ".in_proj_b").c_str(), A, Role::LinBA, d, a.v_heads, false);
    b.linear((m + ".in_proj_a").c_str(), A, Role::LinBA, d, a.v_heads, false);
  } else {
    b.linear((m + ".in_proj_qkvz").c_str(), A, Role::LinQKVZ, d, 2 * a.key_dim() + 2 * a.value_dim(), false);
    b.linear((m + ".in_proj_ba").c_str(), A, Role::LinBA, d, 2 * a.v_heads, false);
  }
  b.add((m + ".conv1d").c_str(), ".weight", A, Role::LinConv, a.conv_kernel, a.conv_dim());
  b.add((m + ".dt_bias").c_str(), "", A, Role::LinDtBias, 1, a.v_heads);
  b.add((m + ".A_log").c_str(), "", A, Role::LinALog, 1, a.v_heads);
  b.norm(c, (m + ".norm").c_str(), a.v_dim, Group::Norm, true);
  b.linear((m + ".out_proj").c_str(), A, Role::LinOut, a.value_dim(), d, false);
}

// A dense, shared or routed MLP; `gate_up` non-empty where the checkpoint fuses gate and up.
void add_mlp(const ModelConfig& c, Builder& b, const char* gate, const char* up, const char* down,
             const char* gate_up, i64 width, bool bias, i64 copies = 1, bool routed = false) {
  const i64 d = c.d_model;
  const auto F = Group::Ffn;
  if (c.ffn_kind == FfnKind::Gated) {
    if (c.fused_gate_up && *gate_up) {
      b.linear(gate_up, F, Role::FfnGateUp, d, 2 * width, bias);
    } else {
      b.linear(gate, F, Role::FfnGate, d, width, bias, copies, routed);
      b.linear(up, F, Role::FfnUp, d, width, bias, copies, routed);
    }
  } else {
    b.linear(up, F, Role::FfnUp, d, width, bias, copies, routed);
  }
  b.linear(down, F, Role::FfnDown, width, d, bias, copies, routed);
}

std::string sub(const char* base, const char* leaf) { return std::string(base) + "." + leaf; }

// A Mamba-2 mixer (see Mamba2Config), under the layer's mixer prefix.
void add_mamba(const ModelConfig& c, const Names& n, Builder& b) {
  const auto& m = c.mamba;
  const i64 d = c.d_model;
  const auto A = Group::Attention;
  const std::string x = n.linear;
  b.linear((x + ".in_proj").c_str(), A, Role::MambaIn, d, m.in_proj(), m.proj_bias);
  b.add((x + ".conv1d").c_str(), ".weight", A, Role::LinConv, m.conv_kernel, m.conv_dim());
  if (m.conv_bias) b.add((x + ".conv1d").c_str(), ".bias", A, Role::Bias, 1, m.conv_dim(), 1, false, Role::LinConv);
  b.add((x + ".dt_bias").c_str(), "", A, Role::LinDtBias, 1, m.heads);
  b.add((x + ".A_log").c_str(), "", A, Role::LinALog, 1, m.heads);
  b.add((x + ".D").c_str(), "", A, Role::MambaD, 1, m.heads);
  if (m.gated_norm) b.norm(c, (x + ".norm").c_str(), m.d_inner(), Group::Norm, true);
  b.linear((x + ".out_proj").c_str(), A, Role::LinOut, m.d_inner(), d, m.proj_bias);
}

// A Mamba-1 mixer (see Mamba1Config; ref: modeling_jamba.py JambaMambaMixer), under the layer's
// mixer prefix.
void add_mamba1(const ModelConfig& c, const Names& n, Builder& b) {
  const auto& m = c.mamba1;
  const i64 d = c.d_model, di = c.mamba1_inner();
  const auto A = Group::Attention;
  const std::string x = n.linear;
  b.linear((x + ".in_proj").c_str(), A, Role::MambaIn, d, 2 * di, m.proj_bias);
  b.add((x + ".conv1d").c_str(), ".weight", A, Role::LinConv, m.conv_kernel, di);
  if (m.conv_bias) b.add((x + ".conv1d").c_str(), ".bias", A, Role::Bias, 1, di, 1, false, Role::LinConv);
  b.linear((x + ".x_proj").c_str(), A, Role::MambaIn, di, m.dt_rank + 2 * m.state, false);
  b.linear((x + ".dt_proj").c_str(), A, Role::LinDtBias, m.dt_rank, di, true);
  b.add((x + ".A_log").c_str(), "", A, Role::LinALog, 1, di * m.state);  // d_inner × state, not a matmul
  b.add((x + ".D").c_str(), "", A, Role::MambaD, 1, di);
  b.linear((x + ".out_proj").c_str(), A, Role::LinOut, di, d, m.proj_bias);
  if (m.inner_norms) {
    b.norm(c, (x + ".dt_layernorm").c_str(), m.dt_rank, Group::Norm, true);
    b.norm(c, (x + ".b_layernorm").c_str(), m.state, Group::Norm, true);
    b.norm(c, (x + ".c_layernorm").c_str(), m.state, Group::Norm, true);
  }
}

// An LFM2 short convolution: in_proj d → 3d (B, C, x), a depthwise conv1d of conv_L_cache taps,
// out_proj d → d; biases when conv_bias.
void add_short_conv(const ModelConfig& c, const Names& n, Builder& b) {
  const i64 d = c.d_model;
  const auto A = Group::Attention;
  const std::string x = n.linear;
  b.linear((x + ".in_proj").c_str(), A, Role::LinQKVZ, d, 3 * d, c.short_conv_bias);
  b.add((x + ".conv").c_str(), ".weight", A, Role::LinConv, c.short_conv, d);
  if (c.short_conv_bias) b.add((x + ".conv").c_str(), ".bias", A, Role::Bias, 1, d, 1, false, Role::LinConv);
  b.linear((x + ".out_proj").c_str(), A, Role::LinOut, d, d, c.short_conv_bias);
}

// A MoE block: the router (and its correction bias), the routed experts, the shared expert.
void add_moe(const ModelConfig& c, const Names& n, Builder& b) {
  const i64 d = c.d_model;
  const auto& m = c.moe;
  b.linear(n.router, Group::Router, Role::Router, d, m.num_experts, m.router_bias);
  if (m.router_correction_bias) {
    if (*n.correction) b.add(n.correction, "", Group::Router, Role::RouterBias, 1, m.num_experts);
    else b.add(n.router, ".e_score_correction_bias", Group::Router, Role::RouterBias, 1, m.num_experts);
  }
  const std::string eg = sub(n.expert, n.e_gate), eu = sub(n.expert, n.e_up), ed = sub(n.expert, n.e_down);
  if (*n.e_gate_up && c.ffn_kind == FfnKind::Gated) {
    const std::string egu = sub(n.expert, n.e_gate_up);
    b.linear(egu.c_str(), Group::Ffn, Role::FfnGateUp, d, 2 * m.expert_ffn, m.expert_bias, m.num_experts, true,
             n.e_weight, n.e_bias);
    b.linear(ed.c_str(), Group::Ffn, Role::FfnDown, m.expert_ffn, d, m.expert_bias, m.num_experts, true, n.e_weight,
             n.e_bias);
  } else {
    add_mlp(c, b, eg.c_str(), eu.c_str(), ed.c_str(), "", m.expert_ffn, m.expert_bias, m.num_experts, true);
  }
  if (m.shared_ffn > 0) {
    const std::string sg = sub(n.shared, "gate_proj"), su = sub(n.shared, "up_proj"),
                      sd = *n.shared_gate_up ? sub(n.shared, "output_linear") : sub(n.shared, "down_proj");
    add_mlp(c, b, sg.c_str(), su.c_str(), sd.c_str(), n.shared_gate_up, m.shared_ffn, false);
  }
  if (m.shared_gate) b.linear(n.shared_gate, Group::Router, Role::SharedGate, d, 1, false);
  if (m.dense_beside) {
    // ref: modeling_gemma4.py Gemma4TextRouter (scale: d, per_expert_scale: E) and the decoder
    // layer's norms of the two branches: pre_feedforward_layernorm_2 before the experts,
    // post_feedforward_layernorm_1 after the dense MLP, post_feedforward_layernorm_2 after the experts.
    b.add("router.scale", "", Group::Router, Role::RouterScale, 1, d);
    b.add("router.per_expert_scale", "", Group::Router, Role::RouterScale, 1, m.num_experts);
    b.norm(c, "pre_feedforward_layernorm_2", d);
    b.norm(c, "post_feedforward_layernorm_1", d);
    b.norm(c, "post_feedforward_layernorm_2", d);
  }
}

void add_layer(const ModelConfig& c, const Names& n, bool moe, bool linear, Builder& b, i64 layer = -1) {
  const i64 d = c.d_model;
  if (!c.block_pattern.empty() && !c.block_ffn) {  // one norm, then one block: a Mamba-2 mixer, attention or an MLP
    b.norm(c, n.attn_norm, d);
    switch (c.layer_mixer(layer)) {
      case Mixer::Mamba: add_mamba(c, n, b); break;
      case Mixer::Attention: add_attention(c, n, b); break;
      default:
        if (c.layer_is_moe(layer)) add_moe(c, n, b);  // ref: modeling_nemotron_h.py NemotronHMoE
        else add_mlp(c, b, n.gate, n.up, n.down, n.gate_up, c.d_ff, c.bias_ffn);
        break;
    }
    return;
  }
  if (c.per_layer()) {  // ref: vLLM nemotron_nas.py DeciLMDecoderLayer: a no_op block has no norm and no tensors
    const i64 kv = c.kv_heads_at(layer), f = c.ffn_at(layer);
    if (kv > 0) {
      b.norm(c, n.attn_norm, d);
      ModelConfig at = c;
      at.n_kv_heads = kv;
      add_attention(at, n, b);
    }
    if (f > 0) {
      b.norm(c, n.ffn_norm, d);
      add_mlp(c, b, n.gate, n.up, n.down, n.gate_up, f, c.bias_ffn);
    }
    return;
  }
  if (c.norm_pre) b.norm(c, n.attn_norm, d);
  if (c.norm_pre && c.norm_ffn_input) b.norm(c, n.ffn_norm, d);
  if (c.norm_sandwich) {
    b.norm(c, n.post_attn_norm, d);
    b.norm(c, n.post_ffn_norm, d);
  }
  const Mixer mixer = layer >= 0 ? c.layer_mixer(layer) : linear ? Mixer::Linear : Mixer::Attention;
  if (mixer == Mixer::Linear) add_linear_attention(c, n, b);
  else if (mixer == Mixer::Mamba) add_mamba(c, n, b);
  else if (mixer == Mixer::Mamba1) add_mamba1(c, n, b);
  else if (mixer == Mixer::AttentionMamba) {  // ref: modeling_falcon_h1.py FalconH1DecoderLayer: mamba beside self_attn
    add_mamba(c, n, b);
    add_attention(c, n, b);
  }
  else if (mixer == Mixer::ShortConv) add_short_conv(c, n, b);
  else add_attention(c, n, b, layer);
  if (c.ple_dim > 0) {  // ref: modeling_gemma4.py Gemma4TextDecoderLayer: the per-layer input's gate, projection and norm
    b.linear("per_layer_input_gate", Group::Embedding, Role::EmbedProj, d, c.ple_dim, false);
    b.linear("per_layer_projection", Group::Embedding, Role::EmbedProj, c.ple_dim, d, false);
    b.norm(c, "post_per_layer_input_norm", d);
  }
  if (!moe) {
    add_mlp(c, b, n.gate, n.up, n.down, n.gate_up, layer >= 0 ? c.ffn_at(layer) : c.d_ff, c.bias_ffn);
    return;
  }
  add_moe(c, n, b);
}

// The vision tower and projector (see VisionConfig), named as the wrappers' checkpoints name
// them (LlavaForConditionalGeneration, Gemma3ForConditionalGeneration: vision_tower.vision_model.*,
// multi_modal_projector.*). Vision tensors carry the roles of their language-model twins.
// Over tensor-parallel GPUs they are split as vLLM builds them (mm_encoder_tp_mode "weights", its
// default): attention and MLP column- and row-parallel by role, K and V by the tower's own heads;
// patch embeddings (Conv2dLayer, Conv3dLayer, nn.Conv2d), position tables (nn.Embedding, a bare
// nn.Parameter) and norms whole; the exceptions each builder marks (TpSplit). ref: vLLM clip.py,
// siglip.py, pixtral.py (PixtralHFVisionModel), qwen2_5_vl.py, qwen3_vl.py, mllama4.py, moonvit.py;
// llava.py, gemma3_mm.py, mistral3.py, kimi_vl.py for the projectors.
// Qwen's towers, under model.visual (Qwen3.5) or visual (Qwen2.5-VL): Conv3d patches over
// temporal_patch frames, blocks of two norms, a fused qkv and proj with biases and an MLP with
// biases, then the merger: a norm over h and two linears over the merge² patches joined, into d.
// ref: modeling_qwen3_5.py Qwen3_5VisionPatchEmbed (with bias), pos_embed, Qwen3_5VisionBlock
// (LayerNorms; mlp.linear_fc1/fc2), Qwen3_5VisionPatchMerger (norm, linear_fc1, linear_fc2);
// modeling_qwen2_5_vl.py Qwen2_5_VisionPatchEmbed (no bias, no learned positions), Qwen2_5_VLVisionBlock
// (RMSNorms; gated mlp.gate_proj/up_proj/down_proj), Qwen2_5_VLPatchMerger (ln_q RMSNorm, mlp.0, mlp.2).
void add_qwen_vision(const ModelConfig& c, Inventory& inv, bool& overflow) {
  const auto& v = c.vision;
  const bool q35 = v.kind == VisionKind::Qwen35;
  const i64 h = v.hidden, f = v.ffn, d = c.d_model, joined = h * v.merge * v.merge;
  ModelConfig ln = c;
  ln.norm = q35 ? NormKind::LayerNorm : NormKind::RmsNorm;
  Builder g{&inv.vision, kOwnGroup, q35 ? "model.visual" : "visual"};
  g.linear("patch_embed.proj", Group::Embedding, Role::EmbedProj, v.channels * v.temporal_patch * v.patch * v.patch, h, q35);
  if (q35) g.add("pos_embed", ".weight", Group::Embedding, Role::PosEmbed, v.positions, h);
  g.norm(ln, q35 ? "merger.norm" : "merger.ln_q", h);
  g.linear(q35 ? "merger.linear_fc1" : "merger.mlp.0", Group::Ffn, Role::FfnUp, joined, joined, true);
  g.linear(q35 ? "merger.linear_fc2" : "merger.mlp.2", Group::Ffn, Role::FfnDown, joined, d, true);
  inv.vision_layer.words = [](Lang l) { return std::string(tr(Str::kind_vision, l)); };
  inv.vision_layer.label = inv.vision_layer.words(Lang::En);
  for (i64 i = 0; i < v.layers; ++i) inv.vision_layer.layers.push_back(i);
  Builder l{&inv.vision_layer.tensors, kOwnGroup, q35 ? "model.visual.blocks.{i}" : "visual.blocks.{i}"};
  l.norm(ln, "norm1", h);
  l.norm(ln, "norm2", h);
  l.linear("attn.qkv", Group::Attention, Role::AttnQKV, h, 3 * h, true);
  l.linear("attn.proj", Group::Attention, Role::AttnO, h, h, true);
  if (!q35) l.linear("mlp.gate_proj", Group::Ffn, Role::FfnGate, h, f, true);
  l.linear(q35 ? "mlp.linear_fc1" : "mlp.up_proj", Group::Ffn, Role::FfnUp, h, f, true);
  l.linear(q35 ? "mlp.linear_fc2" : "mlp.down_proj", Group::Ffn, Role::FfnDown, f, h, true);
  overflow |= g.overflow || l.overflow;
}

// Mistral 3's Pixtral tower and projector (ref: modeling_pixtral.py PixtralVisionModel: patch_conv
// (Conv2d without bias), ln_pre, PixtralAttentionLayer (attention_norm, ffn_norm RMSNorms;
// attention q/k/v/o_proj and feed_forward gate/up/down_proj, no biases); modeling_mistral3.py
// Mistral3MultiModalProjector: norm (RMSNorm of h), patch_merger.merging_layer (h·merge² → h, no
// bias), linear_1 h → d and linear_2 d → d with multimodal_projector_bias).
void add_pixtral_vision(const ModelConfig& c, Inventory& inv, bool& overflow) {
  const auto& v = c.vision;
  const i64 h = v.hidden, f = v.ffn, d = c.d_model;
  Builder g{&inv.vision, kOwnGroup, "vision_tower"};
  g.add("patch_conv", ".weight", Group::Embedding, Role::EmbedProj, v.channels * v.patch * v.patch, h);
  g.norm(c, "ln_pre", h, Group::Norm, true);
  Builder p{&inv.vision, kOwnGroup, "multi_modal_projector"};
  p.norm(c, "norm", h, Group::Norm, true);
  p.with_split(TpSplit::Whole,  // vLLM mistral3.py PatchMerger: an nn.Linear
               [&] { p.linear("patch_merger.merging_layer", Group::Ffn, Role::FfnUp, h * v.merge * v.merge, h, false); });
  p.linear("linear_1", Group::Ffn, Role::FfnUp, h, d, v.projector_bias);
  p.linear("linear_2", Group::Ffn, Role::FfnDown, d, d, v.projector_bias);
  inv.vision_layer.words = [](Lang l) { return std::string(tr(Str::kind_vision, l)); };
  inv.vision_layer.label = inv.vision_layer.words(Lang::En);
  for (i64 i = 0; i < v.layers; ++i) inv.vision_layer.layers.push_back(i);
  Builder l{&inv.vision_layer.tensors, kOwnGroup, "vision_tower.transformer.layers.{i}"};
  l.kv_heads = v.heads;  // K and V split by the tower's heads
  l.norm(c, "attention_norm", h, Group::Norm, true);
  l.norm(c, "ffn_norm", h, Group::Norm, true);
  l.linear("attention.q_proj", Group::Attention, Role::AttnQ, h, h, false);
  l.linear("attention.k_proj", Group::Attention, Role::AttnK, h, h, false);
  l.linear("attention.v_proj", Group::Attention, Role::AttnV, h, h, false);
  l.linear("attention.o_proj", Group::Attention, Role::AttnO, h, h, false);
  l.linear("feed_forward.gate_proj", Group::Ffn, Role::FfnGate, h, f, false);
  l.linear("feed_forward.up_proj", Group::Ffn, Role::FfnUp, h, f, false);
  l.linear("feed_forward.down_proj", Group::Ffn, Role::FfnDown, f, h, false);
  overflow |= g.overflow || p.overflow || l.overflow;
}

// Kimi-VL's MoonViT tower and projector (ref: vLLM moonvit.py MoonVitPretrainedModel: patch_embed.proj
// (Conv2d with bias) and patch_embed.pos_emb (Learnable2DInterpPosEmb, init_pos_emb_height ×
// init_pos_emb_width × hidden), encoder.blocks of MoonVitEncoderLayer (norm0, norm1 LayerNorms;
// wqkv and wo with attn_bias True; mlp.fc0/fc1 with biases), encoder.final_layernorm; its 2D RoPE
// is computed, not stored. kimi_vl.py KimiVLMultiModalProjector: pre_norm LayerNorm of the tower's
// width, linear_1 over the merge² patches joined (to the same width) and linear_2 into d, with biases).
void add_moonvit_vision(const ModelConfig& c, Inventory& inv, bool& overflow) {
  const auto& v = c.vision;
  const i64 h = v.hidden, f = v.ffn, d = c.d_model, joined = h * v.merge * v.merge;
  ModelConfig ln = c;  // LayerNorms with biases
  ln.norm = NormKind::LayerNorm;
  Builder g{&inv.vision, kOwnGroup, "vision_tower"};
  g.linear("patch_embed.proj", Group::Embedding, Role::EmbedProj, v.channels * v.patch * v.patch, h, true);
  g.add("patch_embed.pos_emb", ".weight", Group::Embedding, Role::PosEmbed, v.positions, h);
  g.norm(ln, "encoder.final_layernorm", h);
  Builder p{&inv.vision, kOwnGroup, "multi_modal_projector"};
  p.tp_split = TpSplit::Whole;  // vLLM kimi_vl.py KimiVLMultiModalProjector: ReplicatedLinear
  p.norm(ln, "pre_norm", h);
  p.linear("linear_1", Group::Ffn, Role::FfnUp, joined, joined, true);
  p.linear("linear_2", Group::Ffn, Role::FfnDown, joined, d, true);
  inv.vision_layer.words = [](Lang l) { return std::string(tr(Str::kind_vision, l)); };
  inv.vision_layer.label = inv.vision_layer.words(Lang::En);
  for (i64 i = 0; i < v.layers; ++i) inv.vision_layer.layers.push_back(i);
  Builder l{&inv.vision_layer.tensors, kOwnGroup, "vision_tower.encoder.blocks.{i}"};
  l.norm(ln, "norm0", h);
  l.norm(ln, "norm1", h);
  l.linear("wqkv", Group::Attention, Role::AttnQKV, h, 3 * h, true);
  l.linear("wo", Group::Attention, Role::AttnO, h, h, true);
  l.linear("mlp.fc0", Group::Ffn, Role::FfnUp, h, f, true);
  l.linear("mlp.fc1", Group::Ffn, Role::FfnDown, f, h, true);
  overflow |= g.overflow || p.overflow || l.overflow;
}

// Gemma 4's tower and projector, as the checkpoints name them (ref: modeling_gemma4.py
// Gemma4VisionPatchEmbedder: input_proj over 3·patch² pixels without bias and position_embedding_table
// 2 × position_embedding_size × hidden; Gemma4VisionEncoderLayer: Gemma 3's four RMSNorms, q/k/v/o
// (Gemma4ClippableLinear: the weight under .linear) with per-head q_norm and k_norm (v_norm has no
// weight), a gated MLP; Gemma4VisionModel: std_bias and std_scale under standardize, buffers the
// checkpoint stores; Gemma4MultimodalEmbedder: an unweighted RMSNorm, then embedding_projection into d).
// Under use_clipped_linears each linear also keeps four scalar clamp bounds: left out, as the text
// model's layer_scalar buffers are.
void add_gemma4_vision(const ModelConfig& c, Inventory& inv, bool& overflow) {
  const auto& v = c.vision;
  const i64 h = v.hidden, f = v.ffn, d = c.d_model, hd = v.heads > 0 ? h / v.heads : 0;
  Builder g{&inv.vision, kOwnGroup, "model.vision_tower"};
  g.add("patch_embedder.input_proj", ".weight", Group::Embedding, Role::EmbedProj, v.channels * v.patch * v.patch, h);
  g.add("patch_embedder.position_embedding_table", "", Group::Embedding, Role::PosEmbed, 2 * v.positions, h);
  if (v.standardize) {
    g.add("std_bias", "", Group::Norm, Role::Norm, 1, h);
    g.add("std_scale", "", Group::Norm, Role::Norm, 1, h);
  }
  Builder p{&inv.vision, kOwnGroup, "model.embed_vision"};
  p.linear("embedding_projection", Group::Ffn, Role::FfnUp, h, d, false);
  inv.vision_layer.words = [](Lang l) { return std::string(tr(Str::kind_vision, l)); };
  inv.vision_layer.label = inv.vision_layer.words(Lang::En);
  for (i64 i = 0; i < v.layers; ++i) inv.vision_layer.layers.push_back(i);
  Builder l{&inv.vision_layer.tensors, kOwnGroup, "model.vision_tower.encoder.layers.{i}"};
  l.kv_heads = v.heads;
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
    l.norm(c, n, h, Group::Norm, true);
  l.linear("self_attn.q_proj.linear", Group::Attention, Role::AttnQ, h, h, false);
  l.linear("self_attn.k_proj.linear", Group::Attention, Role::AttnK, h, h, false);
  l.linear("self_attn.v_proj.linear", Group::Attention, Role::AttnV, h, h, false);
  l.linear("self_attn.o_proj.linear", Group::Attention, Role::AttnO, h, h, false);
  l.norm(c, "self_attn.q_norm", hd, Group::Norm, true);
  l.norm(c, "self_attn.k_norm", hd, Group::Norm, true);
  l.linear("mlp.gate_proj.linear", Group::Ffn, Role::FfnGate, h, f, false);
  l.linear("mlp.up_proj.linear", Group::Ffn, Role::FfnUp, h, f, false);
  l.linear("mlp.down_proj.linear", Group::Ffn, Role::FfnDown, f, h, false);
  overflow |= g.overflow || p.overflow || l.overflow;
}

void add_vision(const ModelConfig& c, Inventory& inv, bool& overflow) {
  const auto& v = c.vision;
  if (v.kind == VisionKind::Gemma4) return add_gemma4_vision(c, inv, overflow);
  if (v.kind == VisionKind::Qwen35 || v.kind == VisionKind::Qwen25) return add_qwen_vision(c, inv, overflow);
  if (v.kind == VisionKind::Pixtral) return add_pixtral_vision(c, inv, overflow);
  if (v.kind == VisionKind::MoonVit) return add_moonvit_vision(c, inv, overflow);
  const i64 h = v.hidden, f = v.ffn, d = c.d_model;
  const bool clip = v.kind == VisionKind::Clip, llama4 = v.kind == VisionKind::Llama4;
  ModelConfig ln = c;  // vision norms are LayerNorms with biases
  ln.norm = NormKind::LayerNorm;
  const char* root = llama4 ? "vision_model" : "vision_tower.vision_model";
  Builder g{&inv.vision, kOwnGroup, root};
  if (llama4) {
    // ref: modeling_llama4.py Llama4UnfoldConvolution (a Linear of channels·patch² without bias),
    // class_embedding, positional_embedding_vlm (patches + 1), layernorm_pre/post, and
    // Llama4VisionPixelShuffleMLP (vision_adapter.mlp.fc1/fc2, no biases).
    g.with_split(TpSplit::Columns,  // vLLM mllama4.py Llama4UnfoldConvolution: ColumnParallelLinear (gather_output)
                 [&] { g.add("patch_embedding.linear", ".weight", Group::Embedding, Role::EmbedProj, v.channels * v.patch * v.patch, h); });
    g.add("class_embedding", "", Group::Embedding, Role::Embed, 1, h);
    g.add("positional_embedding_vlm", "", Group::Embedding, Role::PosEmbed, v.patches() + 1, h);
    g.norm(ln, "layernorm_pre", h);
    g.norm(ln, "layernorm_post", h);
    g.linear("vision_adapter.mlp.fc1", Group::Ffn, Role::FfnUp, f, v.adapter_dim, false);
    g.linear("vision_adapter.mlp.fc2", Group::Ffn, Role::FfnDown, v.adapter_dim, v.adapter_dim, false);
  } else {
    // ref: CLIPVisionEmbeddings: class_embedding, patch conv without bias, num_patches + 1 positions;
    // SiglipVisionEmbeddings: patch conv with bias, num_patches positions.
    if (clip) g.add("embeddings.class_embedding", "", Group::Embedding, Role::Embed, 1, h);
    g.add("embeddings.patch_embedding", ".weight", Group::Embedding, Role::EmbedProj, v.channels * v.patch * v.patch, h);
    if (!clip) g.add("embeddings.patch_embedding", ".bias", Group::Embedding, Role::Bias, 1, h, 1, false, Role::EmbedProj);
    g.add("embeddings.position_embedding", ".weight", Group::Embedding, Role::PosEmbed, v.patches() + (clip ? 1 : 0), h);
    if (clip) g.norm(ln, "pre_layrnorm", h);  // sic: the checkpoint's spelling
    g.norm(ln, "post_layernorm", h);
  }
  Builder p{&inv.vision, kOwnGroup, "multi_modal_projector"};
  if (v.projector == ProjectorKind::Mlp2) {  // ref: modeling_llava.py LlavaMultiModalProjector
    p.linear("linear_1", Group::Ffn, Role::FfnUp, h, d, v.projector_bias);
    p.linear("linear_2", Group::Ffn, Role::FfnDown, d, d, v.projector_bias);
  } else if (v.projector == ProjectorKind::Gemma3) {  // ref: modeling_gemma3.py Gemma3MultiModalProjector
    p.with_split(TpSplit::Whole,  // vLLM gemma3_mm.py: a bare nn.Parameter
                 [&] { p.add("mm_input_projection_weight", "", Group::Ffn, Role::FfnUp, h, d); });
    p.norm(c, "mm_soft_emb_norm", h, Group::Norm, true);
  } else if (v.projector == ProjectorKind::Llama4) {  // ref: modeling_llama4.py Llama4MultiModalProjector
    p.linear("linear_1", Group::Ffn, Role::FfnUp, v.adapter_dim, d, false);
  }
  inv.vision_layer.words = [](Lang l) { return std::string(tr(Str::kind_vision, l)); };
  inv.vision_layer.label = inv.vision_layer.words(Lang::En);
  for (i64 i = 0; i < v.layers; ++i) inv.vision_layer.layers.push_back(i);
  Builder l{&inv.vision_layer.tensors, kOwnGroup,
            llama4 ? "vision_model.model.layers.{i}" : "vision_tower.vision_model.encoder.layers.{i}"};
  l.kv_heads = v.heads;  // K and V split by the tower's heads
  l.norm(ln, llama4 ? "input_layernorm" : "layer_norm1", h);
  l.linear("self_attn.q_proj", Group::Attention, Role::AttnQ, h, h, true);
  l.linear("self_attn.k_proj", Group::Attention, Role::AttnK, h, h, true);
  l.linear("self_attn.v_proj", Group::Attention, Role::AttnV, h, h, true);
  l.linear(llama4 ? "self_attn.o_proj" : "self_attn.out_proj", Group::Attention, Role::AttnO, h, h, true);
  l.norm(ln, llama4 ? "post_attention_layernorm" : "layer_norm2", h);
  l.linear("mlp.fc1", Group::Ffn, Role::FfnUp, h, f, true);
  l.linear("mlp.fc2", Group::Ffn, Role::FfnDown, f, h, true);
  overflow |= g.overflow || p.overflow || l.overflow;
}

}  // namespace

std::string_view to_string(Group g) {
  constexpr std::array<std::string_view, kGroupCount> names = {
      "embedding", "attention", "ffn", "router", "norm", "lm_head", "mtp"};
  return names[static_cast<int>(g)];
}

std::string_view to_string(Role r) {
  switch (r) {
    case Role::Embed: return "embed";
    case Role::PosEmbed: return "pos_embed";
    case Role::LayerEmbed: return "layer_embed";
    case Role::EmbedProj: return "embed_proj";
    case Role::AttnQ: return "q";
    case Role::AttnK: return "k";
    case Role::AttnV: return "v";
    case Role::AttnQKV: return "qkv";
    case Role::AttnO: return "o";
    case Role::AttnSink: return "sinks";
    case Role::LinQKVZ: return "qkvz";
    case Role::LinBA: return "ba";
    case Role::LinConv: return "conv";
    case Role::LinDtBias: return "dt_bias";
    case Role::LinALog: return "a_log";
    case Role::LinOut: return "linear_out";
    case Role::MambaIn: return "mamba_in";
    case Role::MambaD: return "mamba_d";
    case Role::MlaQA: return "q_a";
    case Role::MlaQB: return "q_b";
    case Role::MlaKVA: return "kv_a";
    case Role::MlaKVB: return "kv_b";
    case Role::IdxQ: return "index_q";
    case Role::IdxK: return "index_k";
    case Role::IdxWeights: return "index_weights";
    case Role::FfnGate: return "gate";
    case Role::FfnUp: return "up";
    case Role::FfnGateUp: return "gate_up";
    case Role::FfnDown: return "down";
    case Role::Router: return "router";
    case Role::RouterBias: return "router_bias";
    case Role::SharedGate: return "shared_gate";
    case Role::RouterScale: return "router_scale";
    case Role::Norm: return "norm";
    case Role::Bias: return "bias";
    case Role::LmHead: return "lm_head";
    case Role::MtpProj: return "mtp_proj";
  }
  return "?";
}

std::string tensor_name(const std::string& pattern, i64 layer, i64 expert) {
  std::string out;
  out.reserve(pattern.size() + 8);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 2] == '}' &&
        (pattern[i + 1] == 'i' || pattern[i + 1] == 'e')) {
      out += std::to_string(pattern[i + 1] == 'i' ? layer : expert);
      i += 2;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

Result<Inventory> build_inventory(const ModelConfig& c) {
  if (auto issues = validate(c); !issues.empty()) return issues;
  const Names n = names_for(c);
  const i64 d = c.d_model;
  const i64 de = c.embed_proj_dim > 0 ? c.embed_proj_dim : d;
  Inventory inv;

  Builder g{&inv.global, kOwnGroup, ""};
  g.add(n.embed, ".weight", Group::Embedding, Role::Embed, c.vocab, de);
  if (c.pos == PosKind::Learned)
    g.add(n.pos, ".weight", Group::Embedding, Role::PosEmbed, c.max_positions + c.pos_offset, d);
  if (c.embed_proj_dim > 0 && c.embed_proj_dim != d) {
    g.add(n.proj_in, ".weight", Group::Embedding, Role::EmbedProj, de, d);
    g.add(n.proj_out, ".weight", Group::Embedding, Role::EmbedProj, d, de);
  }
  if (c.norm_embed) g.norm(c, n.embed_norm, d);
  if (c.ple_dim > 0) {  // ref: modeling_gemma4.py Gemma4TextModel: embed_tokens_per_layer, per_layer_model_projection and its norm
    g.add("model.embed_tokens_per_layer", ".weight", Group::Embedding, Role::LayerEmbed, c.ple_vocab, c.n_layers * c.ple_dim);
    g.add("model.per_layer_model_projection", ".weight", Group::Embedding, Role::EmbedProj, d, c.n_layers * c.ple_dim);
    g.norm(c, "model.per_layer_projection_norm", c.ple_dim);
  }
  if (c.norm_final) g.norm(c, n.final_norm, d);
  if (!c.tie_embeddings) g.add(n.head, ".weight", Group::LmHead, Role::LmHead, de, c.vocab);
  if (c.bias_lm_head) g.add(n.head, ".bias", Group::LmHead, Role::Bias, 1, c.vocab, 1, false, Role::LmHead);

  // Group consecutive-or-not layers by structure: softmax or linear attention, dense or MoE FFN;
  // a block-pattern model's Mamba-2, attention and MLP blocks.
  bool overflow = g.overflow;
  if (!c.block_pattern.empty())
    for (const auto& [mixer, row] : {std::pair{Mixer::Mamba, Str::kind_mamba}, std::pair{Mixer::Mamba1, Str::kind_mamba1},
                                     std::pair{Mixer::AttentionMamba, Str::kind_attention_mamba},
                                     std::pair{Mixer::ShortConv, Str::kind_conv},
                                     std::pair{Mixer::Attention, Str::kind_attention}, std::pair{Mixer::None, Str::kind_mlp}})
      for (int moe = 0; moe < 2; ++moe) {
        LayerKind kind;
        kind.words = [mixer_row = row, block_ffn = c.block_ffn, moe](Lang l) {
          if (!block_ffn) return std::string(tr(moe ? Str::kind_moe : mixer_row, l));
          return printf_text(tr(moe ? Str::kind_x_moe : Str::kind_x_dense, l), tr(mixer_row, l));
        };
        kind.label = kind.words(Lang::En);
        kind.is_moe = moe;
        for (i64 i = 0; i < c.n_layers; ++i)
          if (c.layer_mixer(i) == mixer && c.layer_is_moe(i) == static_cast<bool>(moe)) kind.layers.push_back(i);
        if (kind.layers.empty()) continue;
        Builder lb{&kind.tensors, kOwnGroup, n.layer};
        add_layer(c, n, moe, false, lb, kind.layers.front());
        overflow |= lb.overflow;
        inv.kinds.push_back(std::move(kind));
      }
  if (c.varies_by_layer()) {  // one kind per distinct layer shape, in order of first appearance
    struct Shape {
      i64 kv, ffn, hd;
      bool slides, shared, v, moe;  // moe: Gemma 4 26B-A4B's layers (every one routed)
      bool operator==(const Shape&) const = default;
    };
    std::vector<Shape> shapes;
    for (i64 i = 0; i < c.n_layers; ++i) {
      const Shape s{c.kv_heads_at(i), c.ffn_at(i), c.head_dim_at(i), c.layer_slides(i), c.kv_shared_at(i), c.v_proj_at(i),
                    c.layer_is_moe(i)};
      size_t k = 0;
      while (k < shapes.size() && !(shapes[k] == s)) ++k;
      if (k == shapes.size()) {
        shapes.push_back(s);
        LayerKind kind;
        const Str what = c.sliding_window > 0 ? (s.slides ? Str::kind_sliding_kv : Str::kind_full_kv) : Str::kind_attention_kv;
        kind.words = [s, what, hd = c.head_dim](Lang l) {
          std::string out = s.kv > 0 ? printf_text(tr(what, l), std::to_string(s.kv).c_str()) : std::string(tr(Str::kind_no_attention, l));
          if (s.hd != hd) out += " × " + std::to_string(s.hd);
          if (s.shared) out += tr(Str::kind_shared_kv, l);
          if (s.moe) return printf_text(tr(Str::kind_x_moe, l), out.c_str());
          out += s.ffn > 0 ? printf_text(tr(Str::kind_ffn, l), std::to_string(s.ffn).c_str()) : std::string(tr(Str::kind_no_ffn, l));
          return out;
        };
        kind.label = kind.words(Lang::En);
        kind.is_moe = s.moe;
        inv.kinds.push_back(std::move(kind));
      }
      inv.kinds[k].layers.push_back(i);
    }
    for (LayerKind& kind : inv.kinds) {
      Builder lb{&kind.tensors, kOwnGroup, n.layer};
      add_layer(c, n, kind.is_moe, false, lb, kind.layers.front());
      overflow |= lb.overflow;
    }
  }
  for (int linear = 0; linear < (c.block_pattern.empty() && !c.varies_by_layer() ? 2 : 0); ++linear)
    for (int moe = 0; moe < 2; ++moe) {
      LayerKind kind;
      kind.words = [linear, moe](Lang l) {
        const char* ffn = tr(moe ? Str::kind_moe : Str::kind_dense, l);
        return linear ? printf_text(tr(Str::kind_linear, l), ffn) : std::string(ffn);
      };
      kind.label = kind.words(Lang::En);
      kind.is_moe = moe;
      for (i64 i = 0; i < c.n_layers; ++i)
        if (c.layer_is_moe(i) == static_cast<bool>(moe) && c.layer_is_linear(i) == static_cast<bool>(linear))
          kind.layers.push_back(i);
      if (kind.layers.empty()) continue;
      Builder lb{&kind.tensors, kOwnGroup, n.layer};
      add_layer(c, n, moe, linear, lb);
      overflow |= lb.overflow;
      inv.kinds.push_back(std::move(kind));
    }

  // Qwen3-Next and Qwen3.5 multi-token prediction (stored as mtp.*; ref: vLLM qwen3_next_mtp.py
  // Qwen3NextMultiTokenPredictor, qwen3_5_mtp.py): fc over [embedding ‖ hidden], two norms before
  // it, softmax-attention decoder layers, a final norm; it shares the model's embedding and head.
  const bool qwen_mtp = c.family == Family::Qwen3Next || c.family == Family::Qwen35 || c.family == Family::Qwen35Moe;
  if (qwen_mtp)
    for (i64 j = 0; j < c.mtp_layers; ++j) {
      LayerKind kind;
      kind.words = [](Lang l) { return std::string(tr(Str::kind_mtp, l)); };
      kind.label = kind.words(Lang::En);
      kind.layers.push_back(c.n_layers + j);
      kind.is_moe = c.is_moe();
      Builder mb{&kind.tensors, Group::Mtp, ""};
      if (j == 0) {
        mb.add("mtp.fc", ".weight", Group::Mtp, Role::MtpProj, 2 * d, d);
        mb.norm(c, "mtp.pre_fc_norm_embedding", d);
        mb.norm(c, "mtp.pre_fc_norm_hidden", d);
        mb.norm(c, "mtp.norm", d);
      }
      mb.prefix = "mtp.layers." + std::to_string(j);
      add_layer(c, n, kind.is_moe, false, mb);
      overflow |= mb.overflow;
      inv.mtp.push_back(std::move(kind));
    }
  // DeepSeek-V3 multi-token prediction: projections plus a full decoder layer and its own
  // copies of the embedding and head, as stored in the checkpoint. GLM-5's stores no copies
  // (model.layers.78 holds eh_proj, enorm, hnorm, shared_head.norm and the layer; the engines
  // share the model's embedding and head with it).
  const bool mtp_copies = c.family != Family::GlmMoeDsa;
  for (i64 j = 0; j < (qwen_mtp ? 0 : c.mtp_layers); ++j) {
    const i64 idx = c.n_layers + j;
    LayerKind kind;
    kind.words = [](Lang l) { return std::string(tr(Str::kind_mtp, l)); };
      kind.label = kind.words(Lang::En);
    kind.layers.push_back(idx);
    kind.is_moe = c.layer_is_moe(idx);
    const std::string prefix = tensor_name(n.layer, idx);
    Builder mb{&kind.tensors, Group::Mtp, prefix};
    mb.norm(c, "enorm", d);
    mb.norm(c, "hnorm", d);
    mb.add("eh_proj", ".weight", Group::Mtp, Role::MtpProj, 2 * d, d);
    if (mtp_copies) mb.add("embed_tokens", ".weight", Group::Mtp, Role::Embed, c.vocab, d);
    add_layer(c, n, kind.is_moe, false, mb);
    mb.norm(c, "shared_head.norm", d);
    if (mtp_copies) mb.add("shared_head.head", ".weight", Group::Mtp, Role::LmHead, d, c.vocab);
    overflow |= mb.overflow;
    inv.mtp.push_back(std::move(kind));
  }
  if (c.vision.enabled()) add_vision(c, inv, overflow);
  if (overflow)
    return issue_row("hidden_size", Str::issue_tensors_overflow);
  return inv;
}

}  // namespace llmsize::core
