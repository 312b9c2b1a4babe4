// Storage bytes per quantization scheme and the per-tensor choice (see quant.hpp).
#include "quant.hpp"

namespace llmsize::core {

namespace {


QType compute_qtype(ComputeDtype d) {
  return d == ComputeDtype::F32 ? QType::F32 : d == ComputeDtype::F16 ? QType::F16 : QType::BF16;
}

// ---- llama.cpp GGUF file types ------------------------------------------------------------
// ref: llama.cpp src/llama-quant.cpp, llama_ftype_get_default_type().
QType gguf_default_type(WeightFormat f) {
  switch (f) {
    case WeightFormat::Q8_0: return QType::Q8_0;
    case WeightFormat::Q6_K: return QType::Q6_K;
    case WeightFormat::Q5_K_M: case WeightFormat::Q5_K_S: case WeightFormat::Q5_K: return QType::Q5_K;
    case WeightFormat::Q5_0: return QType::Q5_0;
    case WeightFormat::Q4_K_M: case WeightFormat::Q4_K_S: case WeightFormat::Q4_K: return QType::Q4_K;
    case WeightFormat::Q4_0: return QType::Q4_0;
    case WeightFormat::Q3_K_L: case WeightFormat::Q3_K_M: case WeightFormat::Q3_K_S: case WeightFormat::Q3_K:
      return QType::Q3_K;
    case WeightFormat::Q2_K: return QType::Q2_K;
    case WeightFormat::IQ4_XS: return QType::IQ4_XS;
    case WeightFormat::Mxfp4Moe: return QType::Mxfp4;
    default: return QType::F16;
  }
}
bool gguf_pure(WeightFormat f) {  // single-type files (llama-quantize --pure)
  return f == WeightFormat::Q5_K || f == WeightFormat::Q4_K || f == WeightFormat::Q3_K;
}

// tensor_get_category() of llama-quant.cpp, from the tensor's role instead of its GGUF name.
enum class Cat : std::uint8_t { TokenEmbd, Q, V, K, Qkv, KvB, AttnOut, FfnUp, FfnGate, FfnDown, Output, Other };
Cat gguf_category(Role r) {
  switch (r) {
    case Role::Embed: return Cat::TokenEmbd;
    case Role::LmHead: return Cat::Output;
    case Role::AttnQKV: return Cat::Qkv;
    case Role::MlaKVB: return Cat::KvB;
    case Role::AttnV: return Cat::V;
    case Role::AttnK: return Cat::K;
    case Role::AttnQ: return Cat::Q;
    case Role::AttnO: return Cat::AttnOut;
    case Role::FfnUp: case Role::FfnGateUp: return Cat::FfnUp;
    case Role::FfnGate: return Cat::FfnGate;
    case Role::FfnDown: return Cat::FfnDown;
    default: return Cat::Other;  // MLA q_a/q_b/kv_a ("attn_q_a", …), OPT projections
  }
}

// ref: llama-quant.cpp llama_tensor_get_type_impl(), the branches for the file types above
// (no importance matrix, no user overrides). `layer` doubles as i_attention_wv and i_ffn_down:
// llama.cpp visits tensors sorted by layer and each layer has one attn_v-like tensor. Since
// the categories of that file, a fused attn_qkv and MLA's attn_kv_b take the attn_v rules (its
// separate ATTENTION_QKV branch is unreachable); GGUFs quantized before gave attn_qkv Q5_K.
QType gguf_mix_type(const ModelConfig& c, WeightFormat f, Cat cat, i64 layer, i64 ne0, bool expert_3d) {
  using F = WeightFormat;
  QType t = gguf_default_type(f);
  const i64 n = c.n_layers;
  const bool falcon = c.family == Family::Falcon;
  const i64 n_gqa = c.n_heads / std::max<i64>(1, c.n_kv_heads);
  const i64 n_expert = c.moe.num_experts;
  // LLM_TYPE_70B: LLaMA-architecture models with 80 layers and GQA (llama-model.cpp).
  const bool is_70b = (c.family == Family::Llama || c.family == Family::Mistral || c.family == Family::Mixtral) &&
                      n == 80 && c.n_kv_heads != c.n_heads;
  auto more_bits = [n](i64 i) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; };  // use_more_bits
  if (cat == Cat::Output || (c.tie_embeddings && cat == Cat::TokenEmbd)) {
    if (f == F::Mxfp4Moe || falcon || ne0 % block_shape(t).values != 0) return QType::Q8_0;
    return t == QType::Q8_0 ? t : QType::Q6_K;
  }
  if (f == F::Mxfp4Moe) return expert_3d ? QType::Mxfp4 : QType::Q8_0;
  switch (cat) {
    case Cat::V: case Cat::Qkv: case Cat::KvB:  // category_is_attn_v
      if (f == F::Q2_K) t = n_gqa >= 4 ? QType::Q4_K : QType::Q3_K;
      else if (f == F::Q3_K_M) t = layer < 2 ? QType::Q5_K : QType::Q4_K;
      else if (f == F::Q3_K_L) t = QType::Q5_K;
      else if (f == F::IQ4_XS && n_gqa >= 4) t = QType::Q5_K;
      else if ((f == F::Q4_K_M || f == F::Q5_K_M) && more_bits(layer)) t = QType::Q6_K;
      else if (f == F::Q4_K_S && layer < 4) t = QType::Q5_K;
      if (is_70b && (t == QType::Q3_K || t == QType::Q4_K)) t = QType::Q5_K;
      if (n_expert == 8) t = QType::Q8_0;
      return t;
    case Cat::K:
      return n_expert == 8 ? QType::Q8_0 : t;
    case Cat::FfnDown:
      if (f == F::Q2_K) return QType::Q3_K;
      if (f == F::Q3_K_M)
        return layer < n / 16 ? QType::Q5_K : (!falcon || more_bits(layer)) ? QType::Q4_K : QType::Q3_K;
      if (f == F::Q3_K_L) return falcon ? QType::Q4_K : QType::Q5_K;
      if (f == F::Q4_K_M) {
        if (falcon) return layer < n / 16 ? QType::Q6_K : more_bits(layer) ? QType::Q5_K : QType::Q4_K;
        return more_bits(layer) ? QType::Q6_K : t;
      }
      if (f == F::IQ4_XS && layer < n / 8) return QType::Q5_K;
      if (f == F::Q5_K_M && more_bits(layer)) return QType::Q6_K;
      if (f == F::Q4_K_S && !falcon && layer < n / 8) return QType::Q5_K;
      return t;
    case Cat::AttnOut:
      if (falcon) return f == F::Q3_K_L ? QType::Q4_K : t;
      if (n_expert == 8)
        return (f == F::Q2_K || f == F::Q3_K_S || f == F::Q3_K_M || f == F::Q4_K_S || f == F::Q4_K_M ||
                f == F::IQ4_XS) ? QType::Q5_K : t;
      if (f == F::Q2_K) return QType::Q3_K;
      if (f == F::Q3_K_M) return QType::Q4_K;
      if (f == F::Q3_K_L) return QType::Q5_K;
      return t;
    default:
      return t;
  }
}

// ref: llama-quant.cpp tensor_type_fallback(): rows that do not divide into the type's
// blocks take a 32-block type, or F16 when even that does not divide.
QType gguf_fallback(QType t, i64 ne0) {
  const i64 blk = block_shape(t).values;
  if (blk <= 1 || ne0 % blk == 0) return t;
  QType r = QType::F16;
  switch (t) {
    case QType::IQ4_XS: r = QType::IQ4_NL; break;
    case QType::Q2_K: case QType::Q3_K: r = QType::Q4_0; break;
    case QType::Q4_K: r = QType::Q5_0; break;
    case QType::Q5_K: r = QType::Q5_1; break;
    case QType::Q6_K: r = QType::Q8_0; break;
    default: return QType::F16;  // llama.cpp refuses (no fallback defined): counted as F16
  }
  return ne0 % block_shape(r).values == 0 ? r : QType::F16;
}

// Which Keep field governs a tensor (nullptr: none, a plain layer matrix).
const Keep* keep_field(const Workload& w, Role r) {
  switch (r) {
    case Role::Embed: return &w.keep_embedding;
    case Role::LmHead: return &w.keep_head;
    case Role::Router: case Role::RouterBias: case Role::SharedGate: case Role::RouterScale: return &w.keep_router;
    default: return nullptr;
  }
}
Group keep_group(Role r) {
  switch (r) {
    case Role::Embed: return Group::Embedding;
    case Role::LmHead: return Group::LmHead;
    case Role::AttnQ: case Role::AttnK: case Role::AttnV: case Role::AttnQKV: case Role::AttnO:
    case Role::MlaQA: case Role::MlaQB: case Role::MlaKVA: case Role::MlaKVB:
    case Role::IdxQ: case Role::IdxK: case Role::IdxWeights:
      return Group::Attention;  // the self_attn module's matrices (vectors never quantize)
    default: return Group::Router;
  }
}

}  // namespace

bool operator==(const Storage& a, const Storage& b) {
  return a.type == b.type && a.bits == b.bits && a.group == b.group;
}

std::string_view to_string(QType t) {
  switch (t) {
    case QType::F32: return "fp32";
    case QType::F16: return "fp16";
    case QType::BF16: return "bf16";
    case QType::Fp8: return "fp8";
    case QType::Fp8Block: return "fp8-block";
    case QType::Int8Channel: return "int8";
    case QType::Gptq: return "gptq";
    case QType::Awq: return "awq";
    case QType::Nf4: return "nf4";
    case QType::Nf4Dq: return "nf4-dq";
    case QType::Mxfp4: return "MXFP4";
    case QType::Int4Sym: return "int4";
    case QType::Q4_0: return "Q4_0";
    case QType::Q4_1: return "Q4_1";
    case QType::Q5_0: return "Q5_0";
    case QType::Q5_1: return "Q5_1";
    case QType::Q8_0: return "Q8_0";
    case QType::Q2_K: return "Q2_K";
    case QType::Q3_K: return "Q3_K";
    case QType::Q4_K: return "Q4_K";
    case QType::Q5_K: return "Q5_K";
    case QType::Q6_K: return "Q6_K";
    case QType::IQ4_NL: return "IQ4_NL";
    case QType::IQ4_XS: return "IQ4_XS";
  }
  return "?";
}

std::string storage_name(const Storage& s) {
  switch (s.type) {
    case QType::Gptq: case QType::Awq:
      return std::string(to_string(s.type)) + " int" + std::to_string(s.bits) + " g" + std::to_string(s.group);
    case QType::Fp8: return "fp8 e4m3 + tensor scale";
    case QType::Fp8Block: return "fp8 e4m3 + 128×128 block scales";
    case QType::Int8Channel: return "int8 + channel scales";
    case QType::Nf4: return "nf4 (absmax/64)";
    case QType::Nf4Dq: return "nf4 + double quant";
    case QType::Int4Sym: return "int4 g" + std::to_string(s.group) + " symmetric";
    default: return std::string(to_string(s.type));
  }
}

// ref: ggml/src/ggml-common.h — block_q4_0 {fp16 d; 16 B}, block_q4_1 {2 fp16; 16 B},
// block_q5_0 {fp16; 4 B high bits; 16 B}, block_q5_1, block_q8_0 {fp16; 32 B},
// block_q2_K {16 B scales; 64 B; 2 fp16}, block_q3_K {32 B hmask; 64 B; 12 B scales; fp16},
// block_q4_K {2 fp16; 12 B scales; 128 B}, block_q5_K {+32 B high bits}, block_q6_K
// {128 B ql; 64 B qh; 16 B scales; fp16}, block_iq4_nl {fp16; 16 B}, block_iq4_xs {fp16;
// uint16 scales_h; 4 B scales_l; 128 B}, block_mxfp4 {e8m0; 16 B}.
BlockShape block_shape(QType t) {
  switch (t) {
    case QType::F32: return {1, 4};
    case QType::F16: case QType::BF16: return {1, 2};
    case QType::Mxfp4: return {32, 17};
    case QType::Q4_0: return {32, 18};
    case QType::Q4_1: return {32, 20};
    case QType::Q5_0: return {32, 22};
    case QType::Q5_1: return {32, 24};
    case QType::Q8_0: return {32, 34};
    case QType::Q2_K: return {256, 84};
    case QType::Q3_K: return {256, 110};
    case QType::Q4_K: return {256, 144};
    case QType::Q5_K: return {256, 176};
    case QType::Q6_K: return {256, 210};
    case QType::IQ4_NL: return {32, 18};
    case QType::IQ4_XS: return {256, 136};
    default: return {0, 0};
  }
}

StoredDims stored_dims(const Tensor& t) {
  if (t.rows == 1 || t.cols == 1) return {t.rows * t.cols, 1};  // a vector, however it is shaped
  if (t.role == Role::Embed || t.role == Role::PosEmbed) return {t.cols, t.rows};  // vocab × d, rows of d
  return {t.rows, t.cols};  // x·W: d_in along the contiguous dimension, d_out rows
}

std::optional<i64> storage_bytes(const Storage& s, StoredDims dims) {
  const i64 in = dims.row_len, out = dims.n_rows;
  const auto numel = mul(in, out);
  if (!numel) return std::nullopt;
  Checked b;
  switch (s.type) {
    case QType::Fp8:  // ref: per-tensor fp8 checkpoints: weight e4m3 + one fp32 weight_scale
      b = Checked(*numel) + 4;
      break;
    case QType::Fp8Block:  // ref: DeepSeek-V3 weight_scale_inv, fp32 [ceil(out/128), ceil(in/128)]
      b = Checked(*numel) + Checked(ceil_div(in, 128)) * ceil_div(out, 128) * 4;
      break;
    case QType::Int8Channel:  // ref: bitsandbytes Int8Params: int8 CB + fp32 SCB per output row
      b = Checked(*numel) + Checked(out) * 4;
      break;
    case QType::Gptq: case QType::Awq: {
      // ref: AutoGPTQ QuantLinear: qweight int32 [in·bits/32, out], qzeros int32 [groups, out·bits/32],
      // scales fp16 [groups, out], g_idx int32 [in]. AutoAWQ WQLinear_GEMM: qweight int32
      // [in, out·bits/32], qzeros int32 [groups, out·bits/32], scales fp16 [groups, out].
      const i64 groups = ceil_div(in, s.group);
      const Checked zeros = Checked(groups) * ceil_div(out * s.bits, 32) * 4;
      const Checked scales = Checked(groups) * out * 2;
      if (s.type == QType::Gptq) b = Checked(ceil_div(in * s.bits, 32)) * out * 4 + zeros + scales + Checked(in) * 4;
      else b = Checked(in) * ceil_div(out * s.bits, 32) * 4 + zeros + scales;
      break;
    }
    case QType::Int4Sym:  // ref: compressed-tensors pack-quantized (Kimi K2.5's experts): weight_packed
      // int32 [out, in/8], weight_scale bf16 [out, in/group], weight_shape int32 [2]
      b = Checked(out) * ceil_div(in, 8) * 4 + Checked(out) * ceil_div(in, s.group) * 2 + Checked(8);
      break;
    case QType::Nf4:  // ref: bitsandbytes quantize_4bit, blocksize 64: packed nibbles + fp32 absmax
      b = Checked(ceil_div(*numel, 2)) + Checked(ceil_div(*numel, 64)) * 4;
      break;
    case QType::Nf4Dq: {  // ref: QLoRA §3 double quantization: 8-bit absmax, fp32 scale per 256 absmax
      const i64 blocks = ceil_div(*numel, 64);
      b = Checked(ceil_div(*numel, 2)) + Checked(blocks) + Checked(ceil_div(blocks, 256)) * 4;
      break;
    }
    default: {
      const BlockShape bs = block_shape(s.type);
      b = Checked(ceil_div(in, bs.values)) * bs.bytes * out;
    }
  }
  if (!b.ok()) return std::nullopt;
  return b.value();
}

bool auto_keeps(WeightFormat f, Group g) {
  using F = WeightFormat;
  if (f == F::F32 || f == F::BF16 || f == F::F16) return true;
  if (is_gguf(f)) return g == Group::Router;  // token_embd/output follow the mix rules
  if (f == F::Int8 || f == F::Nf4 || f == F::Nf4Dq) return g != Group::Router;  // bitsandbytes: all nn.Linear but lm_head
  return true;  // fp8, gptq, awq, mxfp4: only the layer matrices; int4-experts: only the routed experts
}

Storage storage_for(const ModelConfig& c, const Workload& w, const Tensor& t, i64 layer) {
  using F = WeightFormat;
  const F f = w.weights;
  const bool gguf = is_gguf(f);
  const QType kept = compute_qtype(w.dtype);
  if (f == F::F32) return {QType::F32};
  if (f == F::BF16) return {QType::BF16};
  if (f == F::F16) return {QType::F16};
  const bool vector = t.rows == 1 || t.cols == 1;
  // Vectors and position tables are never quantized (llama.cpp: n_dims < 2, POS_EMBD; convert
  // writes them, and the router ffn_gate_inp, in F32).
  if (vector || t.role == Role::PosEmbed) return {gguf ? QType::F32 : kept};
  // ref: transformers quantizers (modules_to_not_convert): gpt-oss's MXFP4 checkpoints keep every
  // self_attn module in bf16; llmsize's formats quantize the attention matrices unless asked.
  if (w.keep_attention == Keep::Yes && keep_group(t.role) == Group::Attention) return {kept};
  if (f == F::Int4Experts) return t.routed ? Storage{QType::Int4Sym, 4, 32} : Storage{kept};
  if (const Keep* k = keep_field(w, t.role)) {
    const bool keep = *k == Keep::Yes || (*k == Keep::Auto && auto_keeps(f, keep_group(t.role)));
    if (keep) return {gguf && t.role == Role::Router && *k == Keep::Auto ? QType::F32 : kept};
  }
  switch (f) {
    case F::Fp8: return {QType::Fp8};
    case F::Fp8Block: return {QType::Fp8Block};
    case F::Int8: return {QType::Int8Channel};
    case F::GptqInt4: return {QType::Gptq, 4, w.group_size};
    case F::GptqInt3: return {QType::Gptq, 3, w.group_size};
    case F::GptqInt8: return {QType::Gptq, 8, w.group_size};
    case F::AwqInt4: return {QType::Awq, 4, w.group_size};
    case F::Nf4: return {QType::Nf4};
    case F::Nf4Dq: return {QType::Nf4Dq};
    case F::Mxfp4: return {QType::Mxfp4};
    default: break;
  }
  const i64 ne0 = stored_dims(t).row_len;
  QType q = gguf_default_type(f);
  if (!gguf_pure(f)) q = gguf_mix_type(c, f, gguf_category(t.role), layer, ne0, t.routed);
  return {gguf_fallback(q, ne0)};
}

}  // namespace llmsize::core
