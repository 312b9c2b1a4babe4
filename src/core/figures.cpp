// The figure table (see figures.hpp): every figure of an Estimate with its JSON key, label,
// unit, mode, value, bound and derivation — the formula with the values substituted and the
// reference it follows — and explain(), which reads it (declared in estimate.hpp). Only
// formats numbers the estimate already holds; the formulas themselves live in
// memory/training/throughput.
#include "figures.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>

#include "format.hpp"

namespace llmsize::core {

namespace {

std::string n(i64 v) { return with_commas(v); }
std::string by(i64 v) { return with_commas(v) + " B (" + format_bytes(v, ByteUnit::GB) + ", " + format_bytes(v, ByteUnit::GiB) + ")"; }
std::string real(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e7 || a < 1e-3) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
  }
  std::string t = fixed(v, 3);  // at most 3 decimals, no trailing zeros
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t;
}

// How the weight format stores one tensor, and where that layout comes from.
std::pair<std::string, std::string> format_rule(const Workload& w) {
  using F = WeightFormat;
  const std::string g = n(w.group_size);
  switch (w.weights) {
    case F::F32: return {"4 bytes per parameter", "IEEE fp32"};
    case F::BF16: case F::F16: return {"2 bytes per parameter", "16-bit floats"};
    case F::Fp8: return {"layer matrices: n + 4 (e4m3 values + one fp32 scale per tensor)", "per-tensor fp8 checkpoints (weight_scale)"};
    case F::Fp8Block:
      return {"layer matrices: n + 4·ceil(in/128)·ceil(out/128) (e4m3 + fp32 scale per 128×128 block)",
              "DeepSeek-V3 checkpoint, weight_scale_inv with weight_block_size [128, 128]"};
    case F::Int8: return {"nn.Linear: n + 4·out (int8 + fp32 scale per output row)", "bitsandbytes Int8Params (CB, SCB)"};
    case F::GptqInt4: case F::GptqInt3: case F::GptqInt8:
      return {"layer matrices: 4·ceil(in·bits/32)·out (qweight) + 4·ceil(in/g)·ceil(out·bits/32) (qzeros) + 2·ceil(in/g)·out (fp16 "
              "scales) + 4·in (g_idx), g = " + g,
              "AutoGPTQ QuantLinear packed layout"};
    case F::AwqInt4:
      return {"layer matrices: 4·in·ceil(out·bits/32) (qweight) + 4·ceil(in/g)·ceil(out·bits/32) (qzeros) + 2·ceil(in/g)·out (fp16 "
              "scales), g = " + g,
              "AutoAWQ WQLinear_GEMM packed layout"};
    case F::Nf4: return {"nn.Linear: ceil(n/2) + 4·ceil(n/64) (4-bit codes + fp32 absmax per 64)", "bitsandbytes Params4bit, blocksize 64"};
    case F::Nf4Dq:
      return {"nn.Linear: ceil(n/2) + ceil(n/64) + 4·ceil(n/64/256) (8-bit absmax, fp32 scale per 256 absmax) ≈ 4.127 bits",
              "Dettmers et al. 2023, QLoRA §3 double quantization; bitsandbytes compress_statistics"};
    case F::Mxfp4: return {"layer matrices: 17 bytes per 32 values (e2m1 + e8m0 scale) = 4.25 bits", "OCP Microscaling Formats (MX) v1.0"};
    default:
      return {"GGUF blocks (bytes per values): Q8_0 34/32, Q6_K 210/256, Q5_K 176/256, Q5_0 22/32, Q5_1 24/32, Q4_K "
              "144/256, Q4_0 18/32, Q3_K 110/256, Q2_K 84/256, IQ4_XS 136/256, IQ4_NL 18/32, MXFP4 17/32; 1-D "
              "tensors and the router F32; per-tensor types of the file type's mix",
              "ggml/src/ggml-common.h block structs; llama.cpp src/llama-quant.cpp llama_tensor_get_type_impl, "
              "tensor_type_fallback"};
  }
}

std::string layout(const Workload& w, const Estimate& e, i64 stage, i64 layers) {
  if (e.llamacpp_devices && stage < static_cast<i64>(e.llamacpp_devices->devices.size())) {
    const LlamaCppDevice& d = e.llamacpp_devices->devices[static_cast<size_t>(stage)];
    std::string s = "this GPU: " + d.name + ", device " + n(stage + 1) + " of " + n(w.pp) + ", llama.cpp's model buffer of " +
                    llamacpp_layers_text(d) + " (-ngl " + n(e.llamacpp_devices->ngl) + ", " +
                    (e.llamacpp_devices->even_split ? std::string("equal shares") : "--tensor-split " + find_field("ts")->get(w)) +
                    "); the token embedding stays mapped on the CPU";
    return s;
  }
  std::string s = "this GPU: pipeline stage " + n(stage + 1) + " of " + n(w.pp) + " (" + n(layers) + " layers)";
  if (w.tp > 1) s += ", tensor parallel " + n(w.tp) + " (heads and FFN width split; norms and router replicated)";
  if (w.ep > 1) s += ", expert parallel " + n(w.ep) + " (whole experts split)";
  if (e.dp > 1) s += ", " + n(e.dp) + " data-parallel replicas";
  return s;
}

// Shared pieces of several derivations.
std::string temps(const ModelConfig& c, const Workload& w, const Temporaries& t, i64 chunk, const char* what) {
  const i64 hT = (c.n_heads + w.tp - 1) / w.tp;
  return std::string(what) + ": max(attention " + n(t.attention) + ", FFN " + n(t.ffn) + ", logits " + n(t.logits) +
         ") with b = " + n(w.batch) + ", c = " + n(chunk) + " query tokens, T = " + n(w.seq) + " keys, d = " +
         n(c.d_model) + ", H/tp = " + n(hT) + ", e = " + n(dtype_bytes(w.dtype)) +
         "; attention = 2·b·c·d·e (x, normed x) + q + k + v + " +
         (w.flash_attention ? std::string("flash output b·c·H·hd_v·e") : std::string("S and P, 2·b·H·c·T·e")) +
         "; FFN = 2·b·c·d·e + " + (c.ffn_kind == FfnKind::Gated ? "3" : "2") + "·b·c·f·e" +
         (c.is_moe() ? " (MoE: fp32 router logits 4·b·c·E + fused buffers b·c·k·(3·f_e + d)·e)" : "") +
         "; logits = b·n·d·e + 4·b·n·v, n = " + (w.logits == LogitsMode::All ? "all positions" : "last position");
}

std::string zero_where(const Workload& w, const Estimate& e) {
  const TrainingMemory& m = e.training;
  const auto z = w.sharding;
  const std::string zs = z == Sharding::None ? "no ZeRO" : z == Sharding::Fsdp ? "FSDP FULL_SHARD" : "ZeRO-" + std::string(to_string(z));
  return layout(w, e, m.stage, m.stage_layers) + "; " + zs + " over dp = " + n(e.dp);
}
const char* const kZeroRef = "Rajbhandari et al. 2020 (ZeRO) §5: stage 1 shards optimizer states, 2 also gradients, 3 also weights";

std::string optimizer_rule(const Workload& w) {
  std::string of;
  switch (w.optimizer) {
    case Optimizer::AdamW: of = "2 states (m, v) · " + std::string(to_string(w.opt_state)); break;
    case Optimizer::AdamW8bit: of = "2 · (1 B + 4 B per 256-value block), 8 B/param below 4,096 values"; break;
    case Optimizer::Sgd: of = "no state"; break;
    case Optimizer::SgdMomentum: of = "momentum · " + std::string(to_string(w.opt_state)); break;
    case Optimizer::Lion: of = "momentum · " + std::string(to_string(w.opt_state)) + " (Chen et al. 2023)"; break;
    case Optimizer::Adafactor: of = "(rows + cols) · " + std::string(to_string(w.opt_state)) + " per matrix (factored second moment)"; break;
  }
  return of;
}

std::string peak_text(const Workload& w, const Throughput& t) {
  return real(t.peak_tflops) + " TFLOPS " + (t.fp8_compute ? "fp8" : "bf16") + " × utilization " + real(w.utilization);
}

// Bounds.
template <Bound B>
Bound always(const Workload&, const Estimate&) { return B; }
bool reserve_estimated(const Workload& w) { return w.reserve_mib < 0 && w.runtime != Runtime::None; }
Bound reserve_bound(const Workload& w, const Estimate&) { return reserve_estimated(w) ? Bound::Estimate : Bound::Lower; }
Bound capacity_bound(const Workload&, const Estimate& e) { return e.gpu.unified ? Bound::Estimate : Bound::Exact; }

// KV bytes per token from the layer plan: one term per cache shape (a uniform plan prints the
// classic 2·L·K·hd form, MLA its latent form).
std::string kv_per_token_text(const ModelConfig& c, const LayerPlan& p, const std::string& dtype) {
  std::vector<CacheShape> caches;  // the shapes that keep a per-token cache
  for (const CacheShape& s : p.caches)
    if (keeps_tokens(s.kind)) caches.push_back(s);
  if (caches.empty()) return "no layer keeps a per-token cache = 0";
  const CacheShape& f = caches.front();
  bool uniform = true;  // one cached width on every layer (windows may differ)
  i64 layers = 0;
  for (const CacheShape& s : caches) {
    uniform = uniform && is_mla(s.kind) == is_mla(f.kind) && s.heads == f.heads &&
              s.k_dim == f.k_dim && s.v_dim == f.v_dim;
    layers += s.layers;
  }
  if (uniform && is_mla(f.kind))
    return "L · (kv_lora_rank + qk_rope_head_dim) · bytes = " + n(layers) + " · (" + n(c.mla.kv_lora_rank) + " + " +
           n(c.mla.qk_rope_dim) + ") · " + dtype;
  if (uniform && f.k_dim == f.v_dim)
    return "2 · L · K · hd · bytes = 2 · " + n(layers) + " · " + n(f.heads) + " · " + n(f.k_dim) + " · " + dtype;
  std::string t = "Σ over cache shapes of layers · K · (hd_k + hd_v) · bytes = ";
  for (size_t k = 0; k < caches.size(); ++k) {
    const CacheShape& s = caches[k];
    t += (k ? " + " : "") + n(s.layers) + " · " + n(s.heads) + " · (" + n(s.k_dim) + " + " + n(s.v_dim) + ") · " + dtype;
  }
  return t;
}

// KV cache of one GPU's layers `r` from the plan: layers that keep every token grow with s,
// windowed layers stop at their window.
std::string kv_cache_text(const LayerPlan& p, StageRange r, const Workload& w) {
  const i64 b = w.batch, s = w.seq;
  i64 full = 0, sliding = 0, window = 0, bytes = -1;
  bool one_bytes = true, one_window = true;
  for (size_t k = 0; k < p.caches.size(); ++k) {
    const CacheShape& c = p.caches[k];
    const i64 in = p.layers_in(k, r);
    if (!keeps_tokens(c.kind)) continue;  // no per-token cache: the recurrent state's figure
    if (c.window > 0 && window > 0 && c.window != window) one_window = false;
    if (c.window > 0) window = c.window;
    if (in == 0) continue;
    (c.window > 0 ? sliding : full) += in;
    if (bytes >= 0 && c.bytes_per_token_gpu != bytes) one_bytes = false;
    bytes = c.bytes_per_token_gpu;
  }
  bool chunked = false;  // Llama 4: the windowed layers keep the current chunk
  for (const CacheShape& c : p.caches) chunked = chunked || c.kind == AttnKind::Chunked;
  if (one_bytes && one_window)
    return std::string("b · per-layer bytes · (full layers · s + ") + (chunked ? "chunked" : "sliding") +
           " layers · min(s, W)) = " + n(b) + " · " + n(std::max<i64>(0, bytes)) +
           " · (" + n(full) + " · " + n(s) + " + " + n(sliding) + " · " + n(window > 0 ? std::min(s, window) : s) + ")";
  std::string t = "Σ over cache shapes of b · bytes per layer · layers · tokens kept = ";
  bool first = true;
  for (size_t k = 0; k < p.caches.size(); ++k) {
    const CacheShape& c = p.caches[k];
    const i64 in = p.layers_in(k, r);
    if (in == 0 || !keeps_tokens(c.kind)) continue;
    t += (first ? "" : " + ") + n(b) + " · " + n(c.bytes_per_token_gpu) + " · " + n(in) + " " + std::string(to_string(c.kind)) +
         " · " + n(c.tokens_kept(s));
    first = false;
  }
  return t;
}

// Recurrent state of the stateful layers of `r` (per GPU when `gpu`), per sequence.
std::string state_text(const ModelConfig& c, const LayerPlan& p, StageRange r, const Workload& w, bool gpu) {
  std::string t;
  const i64 tp = gpu ? w.tp : 1, e = dtype_bytes(w.dtype);
  for (size_t k = 0; k < p.caches.size(); ++k) {
    const CacheShape& s = p.caches[k];
    const i64 layers = p.layers_in(k, r);
    if (!has_state(s.kind) || layers == 0) continue;
    const i64 one = gpu ? s.state_bytes_gpu : s.state_bytes;
    std::string f;
    if (s.kind == AttnKind::Linear) {
      const auto& a = c.linear;
      f = "linear layers · (conv_dim · conv_kernel · activation bytes + value heads · dk · dv · 4) = " + n(layers) +
          " · (" + n(ceil_div(a.conv_dim(), tp)) + " · " + n(a.conv_kernel) + " · " + n(e) + " + " +
          n(ceil_div(a.v_heads, tp)) + " · " + n(a.k_dim) + " · " + n(a.v_dim) + " · 4)";
    } else if (s.kind == AttnKind::Mamba1) {
      const auto& m = c.mamba1;
      f = "Mamba-1 layers · d_inner · (d_conv + d_state) · activation bytes = " + n(layers) + " · " +
          n(ceil_div(c.mamba1_inner(), tp)) + " · (" + n(m.conv_kernel) + " + " + n(m.state) + ") · " + n(e);
    } else if (s.kind == AttnKind::Conv) {
      f = "conv layers · hidden · conv_L_cache · activation bytes = " + n(layers) + " · " + n(ceil_div(c.d_model, tp)) +
          " · " + n(c.short_conv) + " · " + n(e);
    } else {
      const auto& m = c.mamba;
      f = std::string(s.kind == AttnKind::FullMamba ? "attention + Mamba" : "Mamba") + " layers · (conv_dim · conv_kernel + heads · head_dim · state) · activation bytes = " + n(layers) +
          " · (" + n(ceil_div(m.conv_dim(), tp)) + " · " + n(m.conv_kernel) + " + " + n(ceil_div(m.heads, tp)) + " · " +
          n(m.head_dim) + " · " + n(m.state) + ") · " + n(e);
    }
    t += (t.empty() ? "" : " + ") + (gpu ? n(w.batch) + " · " : std::string()) + f + " = " +
         (gpu ? n(w.batch) + " · " : std::string()) + n(layers) + " · " + n(one);
  }
  return t.empty() ? "no layer keeps a recurrent state = 0" : t;
}

// A phase's sum, naming only the parts this model has: weights (+ vision tower) + reserve, then
// (temps ≥ 0) KV(b·s) (+ state(b)) + the phase's temporaries.
std::string phase_text(const InferenceMemory& m, i64 temps, const char* phase = "") {
  std::string names = "weights", values = n(m.weights_bytes);
  auto term = [&](const std::string& name, i64 v) {
    names += " + " + name;
    values += " + " + n(v);
  };
  if (m.vision_weights_bytes > 0) term("vision tower", m.vision_weights_bytes);
  term("reserve", m.overhead_bytes);
  if (temps >= 0) {
    term("KV(b·s)", m.kv_cache_bytes);
    if (m.indexer_cache_bytes > 0) term("indexer(b·s)", m.indexer_cache_bytes);  // sparse attention's keys
    if (m.state_bytes > 0) term("state(b)", m.state_bytes);  // linear-attention layers
    term(std::string(phase) + " temporaries", temps);
  }
  return names + " = " + values;
}

// A training figure's bound: a lower bound of the papers' formulas, an estimate where a recipe's
// code is followed (its allocations as modelled, within the calibration's error either way).
Bound lower_unless_recipe(const Workload&, const Estimate& e) { return e.training.recipe ? Bound::Estimate : Bound::Lower; }

// A recipe's peak (training_recipe.hpp) as a sum of its parts: "label bytes + …", with the phase.
std::string recipe_parts_text(const RecipePeak& p) {
  std::string out;
  for (const RecipePart& part : p.parts)
    out += (out.empty() ? "" : " + ") + std::string(tr(part.label, Lang::En)) + " " + with_commas(part.bytes);
  return out + " = " + with_commas(p.peak_allocated_bytes) + " bytes at its peak: " + tr(recipe_phase_row(p.phase), Lang::En);
}
// The derivation of a training figure the recipe replaces: its part of the recipe's peak.
std::optional<Derivation> recipe_derivation(const Estimate& e, const char* what) {
  if (!e.training.recipe) return std::nullopt;
  const RecipePeak& p = *e.training.recipe;
  return Derivation{std::string(what) + " at " + p.version + "'s peak; " + recipe_parts_text(p),
                    p.version + ": each part's code in llmsize --explain (training.recipe.parts)"};
}

using C = const ModelConfig&;
using W = const Workload&;
using E = const Estimate&;
using V = FigureValue;
using D = Derivation;
constexpr auto Lower = always<Bound::Lower>;
constexpr auto Exact = always<Bound::Exact>;
constexpr auto Upper = always<Bound::Upper>;
constexpr auto Estimated = always<Bound::Estimate>;
constexpr std::optional<Mode> Both = std::nullopt;
constexpr Mode Inf = Mode::Inference, Train = Mode::Training;

// The table. Each row: key (JSON path), label, unit, mode, value, bound, derivation.
const Figure kFigures[] = {
    {"params.total", "Parameters", Unit::Count, Both, [](E e) -> V { return e.params.total; }, Exact,
     [](C, W, E e) -> D {
       return {"Σ over the tensor inventory = " + n(e.params.total) + " (active per token " + n(e.params.active) + ")",
               "the exact tensor list of the Hugging Face model (inventory.hpp)"};
     }},

    // ---- Inference memory (most loaded GPU) ----------------------------------------------
    {"inference.weights_bytes", "Weights", Unit::Bytes, Inf, [](E e) -> V { return e.inference.weights_bytes; }, Lower,
     [](C, W w, E e) -> D {
       const InferenceMemory& m = e.inference;
       const i64 bits100 = m.weights.params > 0 ? m.weights.total_bytes * 800 / m.weights.params : 0;
       if (m.weights.from_file)  // a model file's bytes, its tensors matched to the inventory
         return {"Σ over every tensor of its bytes in the model file (its type's blocks, scales with their weights)" +
                     std::string(m.weights.other_bytes > 0 ? " + " + by(m.weights.other_bytes) + " of the file's other tensors" : "") +
                     "; whole model " + by(m.weights.total_bytes) + " for " + n(m.weights.params) + " parameters (" +
                     fixed(static_cast<double>(bits100) / 100.0, 2) + " bits each; " + n(m.weights.kept_params) +
                     " kept in float; the format " + std::string(to_string(w.weights)) + " would give " +
                     by(e.format_weights ? e.format_weights->total_bytes : 0) + "); " + layout(w, e, m.stage, m.stage_layers),
                 "the file's header: ggml's block table (ggml.c type_traits) or the safetensors dtypes and data_offsets; "
                 "tensor names matched as file_weights.cpp lists them; stored bytes only (runtimes add alignment padding)"};
       const auto [rule, rule_ref] = format_rule(w);
       return {"Σ over every tensor of its stored bytes, format " + std::string(to_string(w.weights)) + ": " + rule +
                   "; whole model " + by(m.weights.total_bytes) + " for " + n(m.weights.params) + " parameters (" +
                   fixed(static_cast<double>(bits100) / 100.0, 2) + " bits each; " + n(m.weights.kept_params) +
                   " kept in float); " + layout(w, e, m.stage, m.stage_layers),
               rule_ref + "; stored bytes only (runtimes add alignment padding)"};
     }},
    {"inference.vision_weights_bytes", "Vision tower", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.vision_weights_bytes; }, Lower,
     [](C c, W w, E e) -> D {
       if (e.projector_bytes >= 0)
         return {"the multimodal projector file's tensors (vision encoder and projector, as stored) = " + by(e.projector_bytes) +
                     ", whole on the first GPU",
                 "its GGUF header (general.architecture clip): ggml's block table; llama.cpp's mtmd loads it as one clip "
                 "context on the main device"};
       if (!c.vision.enabled()) return {"no vision tower = 0", "a text model"};
       return {"vision tower + projector, " + n(e.params.vision) + " parameters × " + n(dtype_bytes(w.dtype)) +
                   " bytes (" + std::string(to_string(w.dtype)) + ", unquantized), matrices / tp " + n(w.tp) +
                   ", on the first pipeline stage",
               "modeling_clip.py / modeling_siglip.py and the wrapper's projector; vLLM shards the encoder's "
               "linear layers over tensor parallel GPUs; llama.cpp loads it from an f16 mmproj file"};
     }},
    {"inference.kv_bytes_per_token", "KV cache per token", Unit::Bytes, Inf, [](E e) -> V { return e.inference.kv_bytes_per_token; },
     Exact,
     [](C c, W w, E e) -> D {
       const std::string kvf = kv_per_token_text(c, e.plan, std::string(to_string(w.kv_dtype)));
       const bool mla = !e.plan.caches.empty() && is_mla(e.plan.caches.front().kind);
       return {kvf + " (q8_0/q4_0: 34/18 bytes per 32 values)",
               mla ? "DeepSeek-V2 2024 §2.1 (MLA caches c_KV and the rope key); vLLM MLA cache"
                   : "Kwon et al. 2023 (vLLM/PagedAttention) §2: K and V per layer per token"};
     }},
    {"inference.kv_cache_bytes", "KV cache", Unit::Bytes, Inf, [](E e) -> V { return e.inference.kv_cache_bytes; }, Lower,
     [](C, W w, E e) -> D {
       const InferenceMemory& m = e.inference;
       if (e.llamacpp && e.llamacpp_devices && w.pp > 1)
         return {"llama-server's cache of the " + n(m.stage_layers) + " layers on " +
                     e.llamacpp_devices->devices[static_cast<size_t>(m.stage)].name + " (the most loaded device), for -c seq × batch = " +
                     n(w.seq * w.batch) + " = " + n(m.kv_cache_bytes),
                 std::string(kLlamaCppVersion) + ", llama_kv_cache and load_tensors' layer split (engine_llamacpp.hpp)"};
       if (e.llamacpp && w.tp == 1 && w.pp == 1)
         return {"llama-server's cache for -c seq × batch = " + n(w.seq * w.batch) + ": " + n(e.llamacpp->n_ctx) + " cells" +
                     (e.llamacpp->iswa ? " and an SWA cache of " + n(e.llamacpp->caches.back().cells) : std::string()) +
                     (e.llamacpp->dsa ? " (the MLA latent, and the indexer's keys in a second cache of as many cells)" : std::string()) + " = " +
                     n(m.kv_cache_bytes),
                 std::string(kLlamaCppVersion) + ", llama_kv_cache (engine_llamacpp.hpp)"};
       std::string kvc = kv_cache_text(e.plan, StageRange{m.stage_first, m.stage_layers}, w);
       const CacheShape* first = e.plan.caches.empty() ? nullptr : &e.plan.caches.front();
       if (first && !is_mla(first->kind) && w.tp > 1)
         kvc += "; K heads per GPU = " + n(first->heads_gpu) + (w.tp > first->heads ? " (replicated: tp > K)" : " (K / tp)");
       if (first && is_mla(first->kind) && w.tp > 1) kvc += "; the MLA latent is replicated on every tensor-parallel GPU";
       return {kvc, "vLLM/llama.cpp KV layout; paged allocators round up to whole blocks"};
     }},
    {"inference.indexer_bytes_per_token", "Indexer keys per token", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.indexer_bytes_per_token; }, Exact,
     [](C c, W, E e) -> D {
       if (!c.mla.has_indexer()) return {"no sparse-attention indexer = 0", "a model without DeepSeek Sparse Attention"};
       i64 layers = 0;
       for (const CacheShape& s : e.plan.caches) layers += s.index_bytes_per_token > 0 ? s.layers : 0;
       return {"L · (index_head_dim fp8 + index_head_dim / 128 fp32 scales) = " + n(layers) + " · (" + n(c.mla.index_dim) +
                   " + " + n(ceil_div(c.mla.index_dim, 128)) + " · 4)",
               "DeepSeek-V3.2-Exp inference/model.py Indexer (k_cache float8_e4m3fn, k_scale_cache float32); "
               "vLLM DeepseekV32IndexerCache; whatever the KV dtype of the latent"};
     }},
    {"inference.indexer_cache_bytes", "Indexer key cache", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.indexer_cache_bytes; }, Lower,
     [](C c, W w, E e) -> D {
       if (!c.mla.has_indexer()) return {"no sparse-attention indexer = 0", "a model without DeepSeek Sparse Attention"};
       if (e.llamacpp && e.llamacpp->dsa)
         return {"0 here: llama.cpp keeps the indexer's keys in the KV cache (a second cache of one " + n(c.mla.index_dim) +
                     "-wide key per token and layer, in the cache type)",
                 std::string(kLlamaCppVersion) + ", llama_kv_cache_dsa"};
       const InferenceMemory& m = e.inference;
       const StageRange r = StageRange{m.stage_first, m.stage_layers};
       i64 layers = 0, per_layer = 0;
       for (size_t k = 0; k < e.plan.caches.size(); ++k)
         if (e.plan.caches[k].index_bytes_per_token > 0) {
           layers += e.plan.layers_in(k, r);
           per_layer = e.plan.caches[k].index_bytes_per_token;
         }
       return {"b · bytes per layer · layers · s = " + n(w.batch) + " · " + n(per_layer) + " · " + n(layers) + " · " +
                   n(w.seq) + "; every tensor-parallel GPU holds it whole",
               "one indexer key per token per layer, like the MLA latent; the attention then reads only index_topk = " +
                   n(c.mla.index_topk) + " keys per query"};
     }},
    {"inference.state_bytes_per_sequence", "Recurrent state per sequence", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.state_bytes_per_sequence; }, Exact,
     [](C c, W w, E e) -> D {
       return {state_text(c, e.plan, e.plan.all(), w, false),
               "modeling_qwen3_next.py Qwen3NextDynamicCache: conv state of conv_kernel inputs in the activation "
               "dtype, fp32 recurrent state per value head (Yang et al. 2024, Gated DeltaNet); modeling_nemotron_h.py "
               "HybridMambaAttentionDynamicCache: conv and SSM states in the model dtype (Dao & Gu 2024, Mamba-2; "
               "modeling_jamba.py's the same for Mamba-1, Gu & Dao 2023; modeling_falcon_h1.py's in every layer); "
               "modeling_lfm2.py Lfm2HybridConvCache: the last conv_L_cache inputs of each short convolution; "
               "constant in context"};
     }},
    {"inference.state_bytes", "Recurrent state", Unit::Bytes, Inf, [](E e) -> V { return e.inference.state_bytes; }, Lower,
     [](C c, W w, E e) -> D {
       const InferenceMemory& m = e.inference;
       return {state_text(c, e.plan, StageRange{m.stage_first, m.stage_layers}, w, true),
               "one state per sequence; vLLM splits the value heads over tensor-parallel GPUs"};
     }},
    {"inference.activation_bytes", "Temporaries (prefill peak)", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.activation_bytes; }, Lower,
     [](C c, W w, E e) -> D {
       return {temps(c, w, e.inference.prefill, e.inference.chunk, "largest live set of one layer in prefill"),
               "PyTorch eager / vLLM fused_moe buffers; flash attention (Dao et al. 2022) never stores S"};
     }},
    {"inference.decode_activation_bytes", "Temporaries (decode)", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.decode.peak; }, Lower,
     [](C c, W w, E e) -> D {
       return {temps(c, w, e.inference.decode, 1, "one decode step"), "as above, one query token per sequence"};
     }},
    {"inference.overhead_bytes", "Runtime reserve", Unit::Bytes, Inf, [](E e) -> V { return e.inference.overhead_bytes; },
     reserve_bound,
     [](C, W w, E e) -> D {
       const InferenceMemory& m = e.inference;
       return {"reserve (" + std::string(w.reserve_mib >= 0 ? "set: " + n(w.reserve_mib) + " MiB" : "profile " + std::string(to_string(w.runtime))) +
                   ") " + n(m.reserve_bytes) + " + communication workspace " + n(m.comm_bytes) + " (NCCL buffers when a replica spans GPUs)",
               "typical CUDA context + allocator + graph memory of the runtime; editable with --reserve-mib"};
     }},
    {"inference.after_load_bytes", "After load", Unit::Bytes, Inf, [](E e) -> V { return e.inference.after_load_bytes; },
     reserve_bound, [](C, W, E e) -> D { return {phase_text(e.inference, -1), "phase 1: model loaded, no sequence"}; }},
    {"inference.prefill_peak_bytes", "Prefill peak", Unit::Bytes, Inf, [](E e) -> V { return e.inference.prefill_peak_bytes; },
     reserve_bound,
     [](C, W, E e) -> D {
       return {phase_text(e.inference, e.inference.prefill.peak, "prefill"), "phase 2: the last prompt chunk with the full KV cache"};
     }},
    {"inference.decode_bytes", "Decode steady state", Unit::Bytes, Inf, [](E e) -> V { return e.inference.decode_bytes; },
     reserve_bound,
     [](C, W, E e) -> D {
       return {phase_text(e.inference, e.inference.decode.peak, "decode"), "phase 3: generating with a full context"};
     }},
    {"inference.total_bytes", "Inference total per GPU", Unit::Bytes, Inf, [](E e) -> V { return e.inference.total_bytes; },
     reserve_bound, [](C, W, E) -> D { return {"max(prefill peak, decode)", "most loaded GPU"}; }},
    {"inference.capacity_bytes", "Usable GPU memory", Unit::Bytes, Inf, [](E e) -> V { return e.inference.capacity_bytes; },
     capacity_bound,
     [](C, W w, E e) -> D {
       if (e.sglang)
         return {"SGLang's static budget: free memory before the load × mem_fraction_static = " + real(e.sglang->pre_gib) +
                     " GiB × " + real(e.sglang->mem_fraction_static),
                 std::string(kSglangVersion) + ", model_runner.py profile_max_num_token"};
       if (e.vllm)
         return {"vLLM's budget ceil(CUDA total × gpu_memory_utilization) = ceil(" + n(e.vllm->total_bytes) + " × " + real(w.gpu_mem_util) +
                     ") = " + n(e.vllm->budget_bytes),
                 std::string(kVllmVersion) + ", v1/worker/utils.py request_memory; total: " + e.gpu.cuda_total_source};
       return {n(e.gpu.memory_bytes) + " × usable fraction " + real(e.gpu.usable_fraction) +
                   (w.runtime == Runtime::Vllm ? " × gpu_memory_utilization " + real(w.gpu_mem_util) : std::string()),
               e.gpu.source};
     }},
    {"inference.max_context", "Max context that fits", Unit::Tokens, Inf, [](E e) -> V { return e.inference.max_context; }, Upper,
     [](C, W w, E e) -> D {
       const InferenceMemory& m = e.inference;
       if (e.sglang)
         return {"SGLang's token pool (" + n(e.sglang->max_total_tokens) + " tokens" +
                     (e.sglang->hybrid ? ", the full layers'; the sliding layers' " + n(e.sglang->swa_tokens) + " where under a window" : "") +
                     "), at most the model's positions = " +
                     n(m.max_context),
                 std::string(kSglangVersion) + ", model_runner.py profile_max_num_token"};
       if (e.vllm)
         return {"largest max_model_len whose one request's KV fits vLLM's available KV memory (" + n(e.vllm->kv_available_bytes) +
                     ") = " + n(m.max_context) + (m.max_context_is_model_limit ? " (the model's max_position_embeddings)" : ""),
                 std::string(kVllmVersion) + ", v1/core/kv_cache_utils.py estimate_max_model_len"};
       return {"largest s with total(s) ≤ capacity at b = " + n(w.batch) + " = " + n(m.max_context) +
                   (m.max_context_is_model_limit ? " (the model's max_position_embeddings)" : ""),
               "binary search over the same memory model; an upper bound because the memory is a lower bound"};
     }},
    {"inference.max_sequences", "Max concurrent sequences", Unit::Count, Inf, [](E e) -> V { return e.inference.max_sequences; },
     Upper,
     [](C, W, E e) -> D {
       if (e.sglang && e.sglang->hybrid)
         return {"min(floor(full layers' pool / context), floor(sliding layers' pool / min(context, window))) = min(floor(" +
                     n(e.sglang->max_total_tokens) + " / " + n(e.sglang->context_len) + "), floor(" + n(e.sglang->swa_tokens) + " / min(" +
                     n(e.sglang->context_len) + ", " + n(e.sglang->window) + "))) = " + n(e.inference.max_sequences),
                 std::string(kSglangVersion) + ", swa_memory_pool.py SWAKVPool (the tokens that leave the window are freed)"};
       if (e.sglang)
         return {"floor(SGLang's token pool / context length) = floor(" + n(e.sglang->max_total_tokens) + " / " + n(e.sglang->context_len) +
                     ") = " + n(e.inference.max_sequences),
                 std::string(kSglangVersion) + ", the token pool every running request's KV shares"};
       if (e.vllm)
         return {"floor(vLLM's maximum concurrency) = floor(blocks / blocks per request) = floor(" + n(e.vllm->num_blocks) + " / " +
                     n(e.vllm->blocks_per_request) + ") = " + n(e.inference.max_sequences),
                 std::string(kVllmVersion) + ", v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config"};
       return {"floor((capacity − weights − reserve − one prefill's temporaries) / KV per sequence) = " + n(e.inference.max_sequences),
               "vLLM-style scheduling: chunked prefill of one sequence at a time, all KV caches resident"};
     }},
    {"inference.min_gpus", "Minimum GPUs", Unit::Count, Inf, [](E e) -> V { return e.inference.min_gpus; }, Lower,
     [](C, W, E e) -> D {
       const InferenceMemory& m = e.inference;
       return {"ceil((weights + KV + temporaries) / (capacity − reserve − comm)) = " + n(m.min_gpus) + (m.min_gpus == 0 ? " (never fits)" : ""),
               "an ideal split of everything but the per-GPU reserve"};
     }},

    // ---- Training memory (most loaded GPU) -----------------------------------------------
    {"training.vision_weights_bytes", "Vision tower (frozen)", Unit::Bytes, Train,
     [](E e) -> V { return e.training.vision_weights_bytes; }, Lower,
     [](C c, W w, E e) -> D {
       if (e.projector_bytes >= 0)
         return {"the multimodal projector file's tensors (vision encoder and projector, as stored) = " + by(e.projector_bytes) +
                     ", whole on the first GPU",
                 "its GGUF header (general.architecture clip): ggml's block table; llama.cpp's mtmd loads it as one clip "
                 "context on the main device"};
       if (!c.vision.enabled()) return {"no vision tower = 0", "a text model"};
       const auto z = w.sharding;
       return {"frozen vision tower + projector, " + n(e.params.vision) + " parameters × " + n(dtype_bytes(w.dtype)) +
                   " bytes, matrices / tp " + n(w.tp) + (z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : "") +
                   ", on the first pipeline stage; no gradients or optimizer states",
               "LLaVA-style recipes train the language model (and projector) on frozen vision features"};
     }},
    {"training.weights_bytes", "Weights", Unit::Bytes, Train, [](E e) -> V { return e.training.weights_bytes; }, lower_unless_recipe,
     [](C, W w, E e) -> D {
       if (auto r = recipe_derivation(e, "the base as stored + the LoRA adapters")) return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const bool lora = w.lora_rank > 0;
       const auto z = w.sharding;
       return {(lora ? std::string(w.qlora ? "frozen base in NF4 + double quantization" : "frozen base at " + n(sb.weights) + " B/param") +
                           " + adapters " + n(m.trainable_params_gpu) + " · " + n(sb.weights)
                     : "P_gpu · " + n(sb.weights) + " = " + n(m.params_gpu) + " · " + n(sb.weights)) +
                   (z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : "") + "; " + zero_where(w, e),
               kZeroRef};
     }},
    {"training.gradients_bytes", "Gradients", Unit::Bytes, Train, [](E e) -> V { return e.training.gradients_bytes; }, lower_unless_recipe,
     [](C, W w, E e) -> D {
       if (auto r = recipe_derivation(e, "no gradient exists yet")) return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const auto z = w.sharding;
       return {"trainable P_gpu · " + n(sb.grads) + " = " + n(m.trainable_params_gpu) + " · " + n(sb.grads) +
                   (z == Sharding::Zero2 || z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : ""),
               kZeroRef};
     }},
    {"training.master_weights_bytes", "fp32 master weights", Unit::Bytes, Train,
     [](E e) -> V { return e.training.master_weights_bytes; }, lower_unless_recipe,
     [](C, W w, E e) -> D {
       if (auto r = recipe_derivation(e, "no master copy (bf16-true)")) return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const auto z = w.sharding;
       return {"trainable P_gpu · " + n(sb.master) + " = " + n(m.trainable_params_gpu) + " · " + n(sb.master) +
                   (z != Sharding::None ? " / dp" : "") + " (precision " + std::string(to_string(w.precision)) + ")",
               "Micikevicius et al. 2018, mixed precision training: fp32 master copy"};
     }},
    {"training.optimizer_bytes", "Optimizer states", Unit::Bytes, Train, [](E e) -> V { return e.training.optimizer_bytes; }, lower_unless_recipe,
     [](C, W w, E e) -> D {
       if (auto r = recipe_derivation(e, "no optimizer state exists yet (created at the first step)")) return *r;
       const auto z = w.sharding;
       return {"per trainable tensor: " + optimizer_rule(w) + (z != Sharding::None ? ", / dp" : "") + (w.qlora ? "; paged to CPU only under memory pressure" : ""),
               w.optimizer == Optimizer::AdamW8bit ? "Dettmers et al. 2022 (8-bit optimizers); bitsandbytes Optimizer2State blocksize 256, min_8bit_size 4096"
               : w.optimizer == Optimizer::Adafactor ? "Shazeer & Stern 2018 (Adafactor) §3"
                                                     : "Loshchilov & Hutter 2019 (AdamW); ZeRO's K = 12 for mixed-precision Adam"};
     }},
    {"training.activation_bytes", "Activations", Unit::Bytes, Train, [](E e) -> V { return e.training.activation_bytes; }, lower_unless_recipe,
     [](C c, W w, E e) -> D {
       if (auto r = recipe_derivation(e, "the tensors saved for backward + the logits and loss")) return *r;
       const TrainingMemory& m = e.training;
       const LayerActivations& a = m.layer;
       std::string parts = "per dense layer " + n(a.total) + " = norm inputs " + n(a.norm_inputs) + " + qkv input " + n(a.attn_input) +
                           " + q,k " + n(a.qk) + " + v " + n(a.v) + " + scores " + n(a.scores) + " + attention dropout " +
                           n(a.attn_dropout) + " + softmax stats " + n(a.softmax_stats) + " + out-proj input " + n(a.attn_out_input) +
                           " + FFN input " + n(a.ffn_input) + " + FFN hidden " + n(a.ffn_hidden) + " + masks " + n(a.dropout_masks);
       if (a.mla_latent) parts += " + MLA latents " + n(a.mla_latent);
       if (a.qk_norm) parts += " + q/k norm inputs " + n(a.qk_norm);
       if (a.sandwich_norms) parts += " + sandwich norms " + n(a.sandwich_norms);
       if (a.lora) parts += " + LoRA x·A " + n(a.lora);
       if (a.layer_input) parts = "full recomputation: layer input only, " + n(a.layer_input) + " per layer";
       if (m.layer_moe.total) parts += "; per MoE layer " + n(m.layer_moe.total) + " (routing " + n(m.layer_moe.moe_routing) + ")";
       return {parts + "; × " + n(m.stage_layers) + " layers × " + n(m.inflight) + " in-flight micro-batches (1F1B)" +
                   (m.logits_bytes ? " + fp32 logits 4·s·b·v/t " + n(m.logits_bytes) + " + final-norm and head inputs" : "") +
                   (m.recompute_bytes ? " + one recomputed layer " + n(m.recompute_bytes) : "") + "; s = " + n(w.seq) +
                   ", b = " + n(w.batch) + ", h = " + n(c.d_model) + ", a = " + n(c.n_heads) + ", t = " + n(w.tp),
               "Korthikanti et al. 2022 §4 and Table 2: sbh(34 + 5as/h) per GPT layer in 16-bit; sequence parallel divides "
               "all by t; selective recomputation drops the 5as²b attention terms; Narayanan et al. 2021 (1F1B)"};
     }},
    {"training.overhead_bytes", "Reserve and buffers", Unit::Bytes, Train, [](E e) -> V { return e.training.overhead_bytes; },
     reserve_bound,
     [](C, W, E e) -> D {
       const TrainingMemory& m = e.training;
       if (m.recipe)
         return {"reserve " + n(m.reserve_bytes) + " + RoPE cache and cuBLAS workspace " + n(m.recipe->fixed_bytes),
                 "PyTorch CUDA context and allocator; " + m.recipe->version};
       return {"reserve " + n(m.reserve_bytes) + " + NCCL workspace " + n(m.comm_bytes) + " + gathered layers (ZeRO-3/FSDP, 2 layers) " +
                   n(m.gathered_bytes) + " + QLoRA bf16 compute copy " + n(m.dequant_bytes),
               "PyTorch CUDA context and allocator; FSDP prefetch of the next unit"};
     }},
    {"training.total_bytes", "Training total per GPU", Unit::Bytes, Train, [](E e) -> V { return e.training.total_bytes; },
     reserve_bound,
     [](C, W, E) -> D { return {"weights + gradients + master + optimizer + activations + reserve", "most loaded GPU"}; }},
    {"training.peak_allocated_bytes", "Peak allocated (max_memory_allocated)", Unit::Bytes, Train,
     [](E e) -> V { return e.training.peak_allocated_bytes; },
     [](W w, E e) { return e.training.recipe ? Bound::Estimate : reserve_bound(w, e); },
     [](C, W, E e) -> D {
       const TrainingMemory& m = e.training;
       if (m.recipe) return {recipe_parts_text(*m.recipe), m.recipe->version + "; torch.cuda.max_memory_allocated() counts each tensor rounded up to 512 B"};
       return {"total − reserve = " + n(m.total_bytes) + " − " + n(m.reserve_bytes) + " = " + n(m.peak_allocated_bytes),
               "what the caching allocator hands out (max_memory_allocated): the CUDA context and cached free blocks are the reserve"};
     }},
    {"training.trainable_params", "Trainable parameters", Unit::Count, Train, [](E e) -> V { return e.training.trainable_params; },
     Exact,
     [](C, W w, E e) -> D {
       const TrainingMemory& m = e.training;
       const bool lora = w.lora_rank > 0;
       return {lora ? "Σ r·(d_in + d_out) over adapted matrices, r = " + n(w.lora_rank) + " = " + n(m.lora_params)
                    : "all parameters = " + n(m.trainable_params),
               lora ? "Hu et al. 2021 (LoRA): A r×d_in, B d_out×r" : "tensor inventory"};
     }},
    {"training.min_gpus", "Minimum GPUs", Unit::Count, Train, [](E e) -> V { return e.training.min_gpus; }, Lower,
     [](C, W, E e) -> D {
       return {"ceil((model states + one micro-batch's activations) / (capacity − reserve − comm)) = " + n(e.training.min_gpus),
               "an ideal split (ZeRO-3 with tensor/pipeline parallel)"};
     }},

    // ---- Throughput ------------------------------------------------------------------------
    {"throughput.decode_bytes_per_step", "Bytes read per decode step", Unit::Bytes, Inf,
     [](E e) -> V { return e.throughput.decode_bytes_per_step; }, Lower,
     [](C, W, E e) -> D {
       const Throughput& t = e.throughput;
       return {"weights read " + n(t.decode_weight_bytes) + " (embedding: b rows; routed experts: " + real(t.experts_touched) +
                   " touched per MoE layer = E·(1 − (1 − k/E)^b)) + KV cache " + n(t.decode_kv_bytes),
               "memory-bound decode: every active weight and the whole KV cache are read once per step"};
     }},
    {"throughput.decode_tokens_per_s", "Decode tokens/s", Unit::TokensPerSecond, Inf,
     [](E e) -> V { return e.throughput.decode_tokens_per_s; }, Upper,
     [](C, W w, E e) -> D {
       const Throughput& t = e.throughput;
       return {"dp · b · tp · bandwidth / bytes per step = " + n(e.dp) + " · " + n(w.batch) + " · " + n(w.tp) + " · " +
                   real(t.bandwidth_gbs) + " GB/s / " + n(t.decode_bytes_per_step) + " B = " + real(t.decode_tokens_per_s) +
                   " (per sequence " + real(t.decode_tokens_per_s_per_seq) + ")",
               "roofline: decode is bound by memory bandwidth (" + e.gpu.source + ")"};
     }},
    {"throughput.prefill_seconds", "Prefill time", Unit::Seconds, Inf, [](E e) -> V { return e.throughput.prefill_seconds; },
     Estimated,
     [](C, W w, E e) -> D {
       const Throughput& t = e.throughput;
       return {"b·(2·P_active·s + attention) / (tp · peak · u) = " + real(t.prefill_flops) + " FLOP / (" + n(w.tp) + " · " +
                   peak_text(w, t) + ") = " + format_duration(t.prefill_seconds),
               "Kaplan et al. 2020 §2.1 (C_forward ≈ 2N + attention); attention 2·H·(hd_qk + hd_v) per causal (query, key) pair"};
     }},
    {"throughput.train_flops_per_token", "Training FLOPs per token", Unit::Flops, Train,
     [](E e) -> V { return e.throughput.train_flops_per_token; }, Estimated,
     [](C, W w, E e) -> D {
       const Throughput& t = e.throughput;
       return {std::string(w.lora_rank > 0 ? "4·P_active + 6·P_adapters" : "6·P_active") + " + 3·attention/s" +
                   (w.recompute == Recompute::Full ? " + recomputed forward 2·P + attention/s" : w.recompute == Recompute::Selective ? " + recomputed attention/s" : "") +
                   " = " + real(t.train_flops_per_token),
               "Kaplan et al. 2020; Hoffmann et al. 2022 (C ≈ 6ND); Korthikanti et al. 2022 §5 (recomputation cost)"};
     }},
    {"throughput.step_seconds", "Time per optimizer step", Unit::Seconds, Train, [](E e) -> V { return e.throughput.step_seconds; },
     Estimated,
     [](C, W w, E e) -> D {
       const Throughput& t = e.throughput;
       return {"FLOPs/token · tokens/step / (gpus · peak · u) = " + real(t.train_flops_per_token) + " · " + n(t.tokens_per_step) + " / (" +
                   n(w.gpus) + " · " + peak_text(w, t) + ") = " + format_duration(t.step_seconds),
               "tokens/step = s · micro-batch · grad_accum · dp"};
     }},
    {"throughput.train_seconds", "Training time", Unit::Seconds, Train, [](E e) -> V { return e.throughput.train_seconds; },
     Estimated,
     [](C, W w, E e) -> D {
       const Throughput& t = e.throughput;
       return {"FLOPs/token · D / (gpus · peak · u), D = " + n(t.train_tokens) + (w.train_tokens == 0 ? " (Chinchilla-optimal)" : "") +
                   " = " + format_duration(t.train_seconds),
               "compute-bound training at the given utilization (MFU)"};
     }},
    {"throughput.chinchilla_tokens", "Chinchilla-optimal tokens", Unit::Tokens, Train,
     [](E e) -> V { return e.throughput.chinchilla_tokens; }, Estimated,
     [](C, W, E e) -> D {
       return {"≈ 20 · P = 20 · " + n(e.params.total) + " = " + n(e.throughput.chinchilla_tokens),
               "Hoffmann et al. 2022 (Chinchilla), Table 3: about 20 tokens per parameter"};
     }},
};

const Figure* fig(std::string_view key) {
  const Figure* f = find_figure(key);
  assert(f && "a mode's figure is missing from the table");
  return f;
}

}  // namespace

std::span<const Figure> figures() { return kFigures; }

const Figure* find_figure(std::string_view key) {
  for (const Figure& f : kFigures)
    if (f.key == key) return &f;
  return nullptr;
}

const ModeFigures& mode_figures(Mode m) {
  static const ModeFigures inference = {
      Mode::Inference, "inference", fig("inference.total_bytes"), fig("inference.min_gpus"), fig("inference.kv_cache_bytes"),
      fig("throughput.decode_tokens_per_s"), fig("inference.max_context"),
      {{"weights", fig("inference.weights_bytes")},
       {"vision tower", fig("inference.vision_weights_bytes")},
       {"KV cache", fig("inference.kv_cache_bytes")},
       {"indexer cache", fig("inference.indexer_cache_bytes")},
       {"recurrent state", fig("inference.state_bytes")},
       {"activations", fig("inference.activation_bytes")},
       {"reserve and buffers", fig("inference.overhead_bytes")}},
      [](E e) { return e.inference.capacity_bytes; }, [](E e) { return e.inference.fits; }};
  static const ModeFigures training = {
      Mode::Training, "training", fig("training.total_bytes"), fig("training.min_gpus"), fig("training.activation_bytes"),
      fig("throughput.train_seconds"), nullptr,
      {{"weights", fig("training.weights_bytes")},
       {"vision tower", fig("training.vision_weights_bytes")},
       {"gradients", fig("training.gradients_bytes")},
       {"optimizer states", fig("training.optimizer_bytes")},
       {"master weights", fig("training.master_weights_bytes")},
       {"activations", fig("training.activation_bytes")},
       {"reserve and buffers", fig("training.overhead_bytes")}},
      [](E e) { return e.training.capacity_bytes; }, [](E e) { return e.training.fits; }};
  return m == Mode::Training ? training : inference;
}

std::vector<Explanation> explain(const ModelConfig& cfg, const Workload& w, const Estimate& e) {
  std::vector<Explanation> out;
  out.reserve(std::size(kFigures));
  for (const Figure& f : kFigures) {
    const FigureValue v = f.value(e);
    Derivation d = f.derive(cfg, w, e);
    if (f.unit == Unit::Bytes) d.formula += " = " + by(v.whole);
    out.push_back({std::string(f.key), std::string(f.label), f.unit, v.as_double(), f.bound(w, e), std::move(d.formula),
                   std::move(d.reference)});
  }
  return out;
}

}  // namespace llmsize::core
