// The figure table (see figures.hpp): every figure of an Estimate with its JSON key, label,
// unit, mode, value, bound and derivation — the formula with the values substituted and the
// reference it follows — and explain(), which reads it (declared in estimate.hpp). Only
// formats numbers the estimate already holds; the formulas themselves live in
// memory/training/throughput. The derivations' words are rows of the string table
// (lang/en_formulas.inc, zh_formulas.inc); symbols, numbers, code and file names stay as they are.
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

// A row of the formulas' table in `l`; with values, its %s placeholders filled in order.
std::string tx(Lang l, Str k) { return tr(k, l); }
template <class... A>
std::string tx(Lang l, Str k, const A&... a) {
  return printf_text(tr(k, l), std::string(a).c_str()...);
}

// How the weight format stores one tensor, and where that layout comes from.
std::pair<std::string, std::string> format_rule(const Workload& w, Lang l) {
  using F = WeightFormat;
  const std::string g = n(w.group_size);
  switch (w.weights) {
    case F::F32: return {tx(l, Str::fx_rule_f32), "IEEE fp32"};
    case F::BF16: case F::F16: return {tx(l, Str::fx_rule_16bit), tx(l, Str::fx_ref_16bit)};
    case F::Fp8: return {tx(l, Str::fx_rule_fp8), tx(l, Str::fx_ref_fp8)};
    case F::Fp8Block: return {tx(l, Str::fx_rule_fp8_block), tx(l, Str::fx_ref_fp8_block)};
    case F::Int8: return {tx(l, Str::fx_rule_int8), "bitsandbytes Int8Params (CB, SCB)"};
    case F::GptqInt4: case F::GptqInt3: case F::GptqInt8: return {tx(l, Str::fx_rule_gptq, g), tx(l, Str::fx_ref_gptq)};
    case F::AwqInt4: return {tx(l, Str::fx_rule_awq, g), tx(l, Str::fx_ref_awq)};
    case F::Nf4: return {tx(l, Str::fx_rule_nf4), "bitsandbytes Params4bit, blocksize 64"};
    case F::Nf4Dq: return {tx(l, Str::fx_rule_nf4_dq), tx(l, Str::fx_ref_nf4_dq)};
    case F::Mxfp4: return {tx(l, Str::fx_rule_mxfp4), "OCP Microscaling Formats (MX) v1.0"};
    case F::Int4Experts: return {tx(l, Str::fx_rule_int4_experts), "compressed-tensors pack-quantized (Kimi K2 Thinking, K2.5 config.json)"};
    default: return {tx(l, Str::fx_rule_gguf), tx(l, Str::fx_ref_gguf)};
  }
}

std::string layout(const Workload& w, const Estimate& e, i64 stage, i64 layers, Lang l) {
  if (e.llamacpp_devices && stage < static_cast<i64>(e.llamacpp_devices->devices.size())) {
    const LlamaCppDevice& d = e.llamacpp_devices->devices[static_cast<size_t>(stage)];
    return tx(l, Str::fx_layout_llamacpp, d.name, n(stage + 1), n(w.pp), llamacpp_layers_text(d, l), n(e.llamacpp_devices->ngl),
              e.llamacpp_devices->even_split ? tx(l, Str::fx_equal_shares) : "--tensor-split " + find_field("ts")->get(w));
  }
  std::string s = tx(l, Str::fx_layout_stage, n(stage + 1), n(w.pp), n(layers));
  if (w.tp > 1) s += tx(l, Str::fx_layout_tp, n(w.tp));
  if (w.ep > 1) s += tx(l, Str::fx_layout_ep, n(w.ep));
  if (e.dp > 1) s += tx(l, Str::fx_layout_dp, n(e.dp));
  return s;
}

// Shared pieces of several derivations.
std::string temps(const ModelConfig& c, const Workload& w, const Temporaries& t, i64 batch, i64 chunk, i64 keys, Str what, Lang l) {
  const i64 hT = (c.n_heads + w.tp - 1) / w.tp;
  return tx(l, Str::fx_temps, tx(l, what), n(t.attention), n(t.ffn), n(t.logits), n(batch), n(chunk), n(keys), n(c.d_model),
            n(hT), n(dtype_bytes(w.dtype))) +
         tx(l, w.flash_attention ? Str::fx_temps_flash : Str::fx_temps_scores) +
         tx(l, Str::fx_temps_ffn, c.ffn_kind == FfnKind::Gated ? "3" : "2") + (c.is_moe() ? tx(l, Str::fx_temps_moe) : std::string()) +
         tx(l, Str::fx_temps_logits, tx(l, w.logits == LogitsMode::All ? Str::fx_all_positions : Str::fx_last_position));
}

std::string zero_where(const Workload& w, const Estimate& e, Lang l) {
  const TrainingMemory& m = e.training;
  const auto z = w.sharding;
  const std::string zs = z == Sharding::None ? tx(l, Str::fx_no_zero) : z == Sharding::Fsdp ? "FSDP FULL_SHARD" : "ZeRO-" + std::string(to_string(z));
  return tx(l, Str::fx_zero_over, layout(w, e, m.stage, m.stage_layers, l), zs, n(e.dp));
}

std::string optimizer_rule(const Workload& w, Lang l) {
  const std::string s(to_string(w.opt_state));
  switch (w.optimizer) {
    case Optimizer::AdamW: return tx(l, Str::fx_opt_adamw, s);
    case Optimizer::AdamW8bit: return tx(l, Str::fx_opt_adamw8bit);
    case Optimizer::Sgd: return tx(l, Str::fx_opt_sgd);
    case Optimizer::SgdMomentum: return tx(l, Str::fx_opt_momentum, s);
    case Optimizer::Lion: return tx(l, Str::fx_opt_lion, s);
    case Optimizer::Adafactor: return tx(l, Str::fx_opt_adafactor, s);
  }
  return {};
}

std::string peak_text(const Workload& w, const Throughput& t, Lang l) {
  return tx(l, Str::fx_peak, real(t.peak_tflops), t.fp8_compute ? "fp8" : "bf16", real(w.utilization));
}

// Bounds.
template <Bound B>
Bound always(const Workload&, const Estimate&) { return B; }
bool reserve_estimated(const Workload& w) { return w.reserve_mib < 0 && w.runtime != Runtime::None; }
Bound reserve_bound(const Workload& w, const Estimate&) { return reserve_estimated(w) ? Bound::Estimate : Bound::Lower; }

// llama-server of 2026 may add its slots' backend samplers to the reserved graph (PR #17004, whose
// inputs PR #19266 moved into it); llmsize does not follow them.
bool llamacpp_samplers(const Workload& w) {
  return w.llamacpp_caller == LlamaCppCaller::Server &&
         llamacpp_embd_input(w.llamacpp_graph);
}

// The temporaries are a lower bound, or under llama.cpp, where its compute buffer is modelled, that
// buffer: an estimate (ggml's allocator followed over a graph of the build's, not measured), a
// lower bound where llama-server's samplers may join the graph.
Bound temps_bound(const Workload& w, const Estimate& e) {
  return e.inference.compute_buffer_bytes > 0 && !llamacpp_samplers(w) ? Bound::Estimate : Bound::Lower;
}

// llama.cpp's host memory (LlamaCppBuffers::host_bytes): an estimate where every part is
// followed; a lower bound where the host's compute buffer is not modelled, where the CPU holds
// tensors beside a GPU (llama.cpp maps the file span from the first to the last of them), or where
// the CPU computes layers (its kernels may repack tensors into a CPU_REPACK buffer of their own).
Bound host_bound(const Workload&, const Estimate& e) {
  const LlamaCppBuffers* d = e.llamacpp_devices ? &*e.llamacpp_devices : nullptr;
  return d && d->host_compute_bytes > 0 && !d->cpu_computes_layers() ? Bound::Estimate : Bound::Lower;  // cpu_span: computes too
}

// llama.cpp's compute buffer as the temporaries (inference_memory.hpp), where it is modelled.
std::optional<Derivation> llamacpp_temps(const Workload& w, const Estimate& e, Lang l) {
  if (e.inference.compute_buffer_bytes <= 0 || !e.llamacpp_devices || !e.llamacpp || e.llamacpp->caches.empty()) return std::nullopt;
  const LlamaCppBuffers& d = *e.llamacpp_devices;
  std::string device;  // the device the per-GPU figures are of (the most loaded), else the one modelled
  for (const LlamaCppDevice& dv : d.devices)
    if (d.compute_on(dv) && d.compute_of(dv) == e.inference.compute_buffer_bytes) device = dv.name;
  if (d.no_gpu)  // the host is the one device: its compute buffer, and the output buffer beside it
    return Derivation{tx(l, Str::fx_temps_llamacpp, d.host_buffer, n(d.compute_tokens), n(e.llamacpp->caches.front().cells),
                         n(d.compute_outputs)) +
                          " = " + n(d.host_compute_bytes) + tx(l, Str::fx_temps_llamacpp_output, d.output_buffer, n(d.output_buffer_bytes)) +
                          (llamacpp_samplers(w) ? tx(l, Str::fx_temps_llamacpp_server) : std::string()),
                      tx(l, Str::fx_temps_llamacpp_ref)};
  return Derivation{tx(l, d.compute_layers ? Str::fx_temps_llamacpp : Str::fx_temps_llamacpp_head, device, n(d.compute_tokens),
                       n(e.llamacpp->caches.front().cells), n(d.compute_outputs)) +
                        (llamacpp_samplers(w) ? tx(l, Str::fx_temps_llamacpp_server) : std::string()),
                    tx(l, Str::fx_temps_llamacpp_ref)};
}
Bound capacity_bound(const Workload&, const Estimate& e) { return e.gpu.unified ? Bound::Estimate : Bound::Exact; }

// KV bytes per token from the layer plan: one term per cache shape (a uniform plan prints the
// classic 2·L·K·hd form, MLA its latent form).
std::string kv_per_token_text(const ModelConfig& c, const LayerPlan& p, const std::string& dtype, Lang l) {
  std::vector<CacheShape> caches;  // the shapes that keep a per-token cache
  for (const CacheShape& s : p.caches)
    if (keeps_tokens(s.kind)) caches.push_back(s);
  if (caches.empty()) return tx(l, Str::fx_kv_none);
  const CacheShape& f = caches.front();
  bool uniform = true;  // one cached width on every layer (windows may differ)
  i64 layers = 0;
  for (const CacheShape& s : caches) {
    uniform = uniform && is_mla(s.kind) == is_mla(f.kind) && s.heads == f.heads &&
              s.k_dim == f.k_dim && s.v_dim == f.v_dim;
    layers += s.layers;
  }
  if (uniform && is_mla(f.kind)) return tx(l, Str::fx_kv_mla, n(layers), n(c.mla.kv_lora_rank), n(c.mla.qk_rope_dim), dtype);
  if (uniform && f.k_dim == f.v_dim) return tx(l, Str::fx_kv_uniform, n(layers), n(f.heads), n(f.k_dim), dtype);
  std::string t = tx(l, Str::fx_kv_shapes);
  for (size_t k = 0; k < caches.size(); ++k) {
    const CacheShape& s = caches[k];
    t += (k ? " + " : "") + n(s.layers) + " · " + n(s.heads) + " · (" + n(s.k_dim) + " + " + n(s.v_dim) + ") · " + dtype;
  }
  return t;
}

// KV cache of one GPU's layers `r` from the plan: layers that keep every token grow with s,
// windowed layers stop at their window.
std::string kv_cache_text(const LayerPlan& p, StageRange r, const Workload& w, Lang l) {
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
    return tx(l, Str::fx_kvc_one, tx(l, chunked ? Str::fx_chunked : Str::fx_sliding), n(b), n(std::max<i64>(0, bytes)), n(full), n(s),
              n(sliding), n(window > 0 ? std::min(s, window) : s));
  std::string t = tx(l, Str::fx_kvc_shapes);
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
std::string state_text(const ModelConfig& c, const LayerPlan& p, StageRange r, const Workload& w, bool gpu, Lang l) {
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
      f = tx(l, Str::fx_state_linear, n(layers), n(ceil_div(a.conv_dim(), tp)), n(a.conv_kernel), n(e), n(ceil_div(a.v_heads, tp)),
             n(a.k_dim), n(a.v_dim));
    } else if (s.kind == AttnKind::Mamba1) {
      const auto& m = c.mamba1;
      f = tx(l, Str::fx_state_mamba1, n(layers), n(ceil_div(c.mamba1_inner(), tp)), n(m.conv_kernel), n(m.state), n(e));
    } else if (s.kind == AttnKind::Conv) {
      f = tx(l, Str::fx_state_conv, n(layers), n(ceil_div(c.d_model, tp)), n(c.short_conv), n(e));
    } else {
      const auto& m = c.mamba;
      f = tx(l, Str::fx_state_mamba, s.kind == AttnKind::FullMamba ? tx(l, Str::fx_attention_mamba) : "Mamba", n(layers),
             n(ceil_div(m.conv_dim(), tp)), n(m.conv_kernel), n(ceil_div(m.heads, tp)), n(m.head_dim), n(m.state), n(e));
    }
    t += (t.empty() ? "" : " + ") + (gpu ? n(w.batch) + " · " : std::string()) + f + " = " +
         (gpu ? n(w.batch) + " · " : std::string()) + n(layers) + " · " + n(one);
  }
  return t.empty() ? tx(l, Str::fx_state_none) : t;
}

// A phase's sum, naming only the parts this model has: weights (+ vision tower) + reserve, then
// (temps ≥ 0) KV(b·s) (+ state(b)) + the phase's temporaries.
std::string phase_text(const InferenceMemory& m, i64 temps, Lang l, Str temps_name = Str::fx_ph_prefill_temps) {
  std::string names = tx(l, Str::fx_ph_weights), values = n(m.weights_bytes);
  auto term = [&](const std::string& name, i64 v) {
    names += " + " + name;
    values += " + " + n(v);
  };
  if (m.vision_weights_bytes > 0) term(tx(l, Str::fx_ph_vision), m.vision_weights_bytes);
  term(tx(l, Str::fx_ph_reserve), m.overhead_bytes);
  if (temps >= 0) {
    term("KV(b·s)", m.kv_cache_bytes);
    if (m.indexer_cache_bytes > 0) term(tx(l, Str::fx_ph_indexer), m.indexer_cache_bytes);  // sparse attention's keys
    if (m.state_bytes > 0) term(tx(l, Str::fx_ph_state), m.state_bytes);  // linear-attention layers
    term(tx(l, temps_name), temps);
  }
  return names + " = " + values;
}

// A training figure's bound: a lower bound of the papers' formulas, an estimate where a recipe's
// code is followed (its allocations as modelled, within the calibration's error either way).
Bound lower_unless_recipe(const Workload&, const Estimate& e) { return e.training.recipe ? Bound::Estimate : Bound::Lower; }

// A recipe's peak (training_recipe.hpp) as a sum of its parts: "label bytes + …", with the phase.
std::string recipe_parts_text(const RecipePeak& p, Lang l) {
  std::string out;
  for (const RecipePart& part : p.parts)
    out += (out.empty() ? "" : " + ") + std::string(tr(part.label, l)) + " " + with_commas(part.bytes);
  return out + tx(l, Str::fx_recipe_peak, with_commas(p.peak_allocated_bytes), tr(recipe_phase_row(p.phase), l));
}
// The derivation of a training figure the recipe replaces: its part of the recipe's peak.
std::optional<Derivation> recipe_derivation(const Estimate& e, Str what, Lang l) {
  if (!e.training.recipe) return std::nullopt;
  const RecipePeak& p = *e.training.recipe;
  return Derivation{tx(l, Str::fx_recipe_at, tx(l, what), p.version, recipe_parts_text(p, l)), tx(l, Str::fx_recipe_ref, p.version)};
}

using C = const ModelConfig&;
using W = const Workload&;
using E = const Estimate&;
using V = FigureValue;
using D = Derivation;
using La = Lang;
constexpr auto Lower = always<Bound::Lower>;
constexpr auto Exact = always<Bound::Exact>;
constexpr auto Upper = always<Bound::Upper>;
constexpr auto Estimated = always<Bound::Estimate>;
constexpr std::optional<Mode> Both = std::nullopt;
constexpr Mode Inf = Mode::Inference, Train = Mode::Training;

// The table. Each row: key (JSON path), label, unit, mode, value, bound, derivation.
const Figure kFigures[] = {
    {"params.total", "Parameters", Unit::Count, Both, [](E e) -> V { return e.params.total; }, Exact,
     [](C, W, E e, La l) -> D {
       return {tx(l, Str::fx_params_total, n(e.params.total), n(e.params.active)), tx(l, Str::fx_params_ref)};
     }},

    // ---- Inference memory (most loaded GPU) ----------------------------------------------
    {"inference.weights_bytes", "Weights", Unit::Bytes, Inf, [](E e) -> V { return e.inference.weights_bytes; }, Lower,
     [](C, W w, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       const i64 bits100 = m.weights.params > 0 ? m.weights.total_bytes * 800 / m.weights.params : 0;
       const std::string bits = fixed(static_cast<double>(bits100) / 100.0, 2);
       if (m.weights.from_file)  // a model file's bytes, its tensors matched to the inventory
         return {tx(l, Str::fx_w_file) + (m.weights.other_bytes > 0 ? tx(l, Str::fx_w_file_other, by(m.weights.other_bytes)) : std::string()) +
                     tx(l, Str::fx_w_file_whole, by(m.weights.total_bytes), n(m.weights.params), bits, n(m.weights.kept_params),
                        to_string(w.weights), by(e.format_weights ? e.format_weights->total_bytes : 0),
                        layout(w, e, m.stage, m.stage_layers, l)),
                 tx(l, Str::fx_w_file_ref)};
       const auto [rule, rule_ref] = format_rule(w, l);
       return {tx(l, Str::fx_w_format, to_string(w.weights), rule, by(m.weights.total_bytes), n(m.weights.params), bits,
                  n(m.weights.kept_params), layout(w, e, m.stage, m.stage_layers, l)),
               tx(l, Str::fx_w_format_ref, rule_ref)};
     }},
    {"inference.vision_weights_bytes", "Vision tower", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.vision_weights_bytes; }, Lower,
     [](C c, W w, E e, La l) -> D {
       if (e.projector_bytes >= 0) return {tx(l, Str::fx_vis_projector, by(e.projector_bytes)), tx(l, Str::fx_vis_projector_ref)};
       if (!c.vision.enabled()) return {tx(l, Str::fx_vis_none), tx(l, Str::fx_vis_text_model)};
       return {tx(l, Str::fx_vis_inference, n(e.params.vision), n(dtype_bytes(w.dtype)), to_string(w.dtype), n(w.tp)),
               tx(l, Str::fx_vis_inference_ref)};
     }, true},
    {"inference.kv_bytes_per_token", "KV cache per token", Unit::Bytes, Inf, [](E e) -> V { return e.inference.kv_bytes_per_token; },
     Exact,
     [](C c, W w, E e, La l) -> D {
       const std::string kvf = kv_per_token_text(c, e.plan, std::string(to_string(w.kv_dtype)), l);
       const bool mla = !e.plan.caches.empty() && is_mla(e.plan.caches.front().kind);
       return {kvf + tx(l, Str::fx_kvpt_quant), tx(l, mla ? Str::fx_kvpt_mla_ref : Str::fx_kvpt_ref)};
     }},
    {"inference.kv_cache_bytes", "KV cache", Unit::Bytes, Inf, [](E e) -> V { return e.inference.kv_cache_bytes; }, Lower,
     [](C, W w, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       if (e.llamacpp && e.llamacpp_devices && w.pp > 1)
         return {tx(l, Str::fx_kvc_llamacpp_pp, n(m.stage_layers), e.llamacpp_devices->devices[static_cast<size_t>(m.stage)].name,
                    n(w.seq * w.batch), n(m.kv_cache_bytes)),
                 tx(l, Str::fx_kvc_llamacpp_pp_ref, kLlamaCppVersion)};
       if (e.llamacpp && w.tp == 1 && w.pp == 1)
         return {tx(l, Str::fx_kvc_llamacpp, n(w.seq * w.batch), n(e.llamacpp->n_ctx)) +
                     (e.llamacpp->iswa ? tx(l, Str::fx_kvc_llamacpp_swa, n(e.llamacpp->caches.back().cells)) : std::string()) +
                     (e.llamacpp->dsa ? tx(l, Str::fx_kvc_llamacpp_dsa) : std::string()) + " = " + n(m.kv_cache_bytes),
                 std::string(kLlamaCppVersion) + ", llama_kv_cache (engine_llamacpp.hpp)"};
       std::string kvc = kv_cache_text(e.plan, StageRange{m.stage_first, m.stage_layers}, w, l);
       const CacheShape* first = e.plan.caches.empty() ? nullptr : &e.plan.caches.front();
       if (first && !is_mla(first->kind) && w.tp > 1)
         kvc += tx(l, Str::fx_kvc_heads, n(first->heads_gpu)) + (w.tp > first->heads ? tx(l, Str::fx_kvc_replicated) : std::string(" (K / tp)"));
       if (first && is_mla(first->kind) && w.tp > 1) kvc += tx(l, Str::fx_kvc_mla_replicated);
       return {kvc, tx(l, Str::fx_kvc_ref)};
     }},
    {"inference.indexer_bytes_per_token", "Indexer keys per token", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.indexer_bytes_per_token; }, Exact,
     [](C c, W, E e, La l) -> D {
       if (!c.mla.has_indexer()) return {tx(l, Str::fx_idx_none), tx(l, Str::fx_idx_none_ref)};
       i64 layers = 0;
       for (const CacheShape& s : e.plan.caches) layers += s.index_bytes_per_token > 0 ? s.layers : 0;
       return {tx(l, Str::fx_idx_per_token, n(layers), n(c.mla.index_dim), n(ceil_div(c.mla.index_dim, 128))), tx(l, Str::fx_idx_per_token_ref)};
     }, true},
    {"inference.indexer_cache_bytes", "Indexer key cache", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.indexer_cache_bytes; }, Lower,
     [](C c, W w, E e, La l) -> D {
       if (!c.mla.has_indexer()) return {tx(l, Str::fx_idx_none), tx(l, Str::fx_idx_none_ref)};
       if (e.llamacpp && e.llamacpp->dsa)
         return {tx(l, Str::fx_idx_llamacpp, n(c.mla.index_dim)), std::string(kLlamaCppVersion) + ", llama_kv_cache_dsa"};
       const InferenceMemory& m = e.inference;
       const StageRange r = StageRange{m.stage_first, m.stage_layers};
       i64 layers = 0, per_layer = 0;
       for (size_t k = 0; k < e.plan.caches.size(); ++k)
         if (e.plan.caches[k].index_bytes_per_token > 0) {
           layers += e.plan.layers_in(k, r);
           per_layer = e.plan.caches[k].index_bytes_per_token;
         }
       return {tx(l, Str::fx_idx_cache, n(w.batch), n(per_layer), n(layers), n(w.seq)), tx(l, Str::fx_idx_cache_ref, n(c.mla.index_topk))};
     }, true},
    {"inference.state_bytes_per_sequence", "Recurrent state per sequence", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.state_bytes_per_sequence; }, Exact,
     [](C c, W w, E e, La l) -> D { return {state_text(c, e.plan, e.plan.all(), w, false, l), tx(l, Str::fx_state_sequence_ref)}; }, true},
    {"inference.state_bytes", "Recurrent state", Unit::Bytes, Inf, [](E e) -> V { return e.inference.state_bytes; }, Lower,
     [](C c, W w, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       return {state_text(c, e.plan, StageRange{m.stage_first, m.stage_layers}, w, true, l), tx(l, Str::fx_state_ref)};
     }, true},
    {"inference.activation_bytes", "Temporaries (prefill peak)", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.activation_bytes; }, temps_bound,
     [](C c, W w, E e, La l) -> D {
       if (auto d = llamacpp_temps(w, e, l)) return *d;
       return {temps(c, w, e.inference.prefill, e.inference.chunk_batch, e.inference.chunk, e.inference.chunk_keys, Str::fx_temps_prefill, l), tx(l, Str::fx_temps_prefill_ref)};
     }},
    {"inference.decode_activation_bytes", "Temporaries (decode)", Unit::Bytes, Inf,
     [](E e) -> V { return e.inference.decode.peak; }, temps_bound,
     [](C c, W w, E e, La l) -> D {
       if (auto d = llamacpp_temps(w, e, l)) return *d;
       return {temps(c, w, e.inference.decode, w.batch, 1, w.seq, Str::fx_temps_decode, l), tx(l, Str::fx_temps_decode_ref)};
     }},
    {"inference.overhead_bytes", "Runtime reserve", Unit::Bytes, Inf, [](E e) -> V { return e.inference.overhead_bytes; },
     reserve_bound,
     [](C, W w, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       const bool no_gpu = w.llamacpp_on_host();
       return {tx(l, Str::fx_reserve, w.reserve_mib >= 0 ? tx(l, Str::fx_reserve_set, n(w.reserve_mib))
                                      : no_gpu         ? tx(l, Str::fx_reserve_no_gpu)
                                                       : tx(l, Str::fx_reserve_profile, to_string(w.runtime)),
                  n(m.reserve_bytes), n(m.comm_bytes)),
               tx(l, Str::fx_reserve_ref)};
     }},
    {"inference.after_load_bytes", "After load", Unit::Bytes, Inf, [](E e) -> V { return e.inference.after_load_bytes; },
     reserve_bound, [](C, W, E e, La l) -> D { return {phase_text(e.inference, -1, l), tx(l, Str::fx_phase1_ref)}; }},
    {"inference.prefill_peak_bytes", "Prefill peak", Unit::Bytes, Inf, [](E e) -> V { return e.inference.prefill_peak_bytes; },
     reserve_bound,
     [](C, W, E e, La l) -> D {
       return {phase_text(e.inference, e.inference.prefill.peak, l, Str::fx_ph_prefill_temps), tx(l, Str::fx_phase2_ref)};
     }},
    {"inference.decode_bytes", "Decode steady state", Unit::Bytes, Inf, [](E e) -> V { return e.inference.decode_bytes; },
     reserve_bound,
     [](C, W, E e, La l) -> D {
       return {phase_text(e.inference, e.inference.decode.peak, l, Str::fx_ph_decode_temps), tx(l, Str::fx_phase3_ref)};
     }},
    {"inference.total_bytes", "Inference total per GPU", Unit::Bytes, Inf, [](E e) -> V { return e.inference.total_bytes; },
     reserve_bound, [](C, W, E, La l) -> D { return {tx(l, Str::fx_inference_total), tx(l, Str::fx_most_loaded_gpu)}; }},
    {"inference.capacity_bytes", "Usable GPU memory", Unit::Bytes, Inf, [](E e) -> V { return e.inference.capacity_bytes; },
     capacity_bound,
     [](C, W w, E e, La l) -> D {
       if (e.sglang)
         return {tx(l, Str::fx_cap_sglang, real(e.sglang->pre_gib), real(e.sglang->mem_fraction_static)),
                 std::string(e.sglang->version) + ", model_runner.py profile_max_num_token"};
       if (w.llamacpp_on_host() && w.host_mem_gib > 0)  // the host is llama.cpp's one device
         return {tx(l, Str::fx_cap_host, real(w.host_mem_gib)), tx(l, Str::fx_hostcap_ref)};
       if (e.vllm)
         return {tx(l, Str::fx_cap_vllm, n(e.vllm->total_bytes), real(w.vllm_util()), n(e.vllm->budget_bytes)),
                 tx(l, Str::fx_cap_vllm_ref, e.vllm->version(), e.gpu.cuda_total_source)};
       return {tx(l, Str::fx_cap, n(e.gpu.total_bytes()), real(e.gpu.usable_fraction)) +
                   (w.runtime == Runtime::Vllm ? " × gpu_memory_utilization " + real(w.vllm_util()) : std::string()),
               e.gpu.cuda_total_bytes > 0 ? e.gpu.cuda_total_source : e.gpu.source};
     }},
    {"inference.max_context", "Max context that fits", Unit::Tokens, Inf, [](E e) -> V { return e.inference.max_context; }, Upper,
     [](C, W w, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       const std::string limit = m.max_context_is_model_limit ? tx(l, Str::fx_mc_model_limit) : std::string();
       if (e.sglang)
         return {tx(l, Str::fx_mc_sglang, n(e.sglang->max_total_tokens),
                    e.sglang->hybrid ? tx(l, Str::fx_mc_sglang_hybrid, n(e.sglang->swa_tokens)) : std::string(), n(m.max_context)),
                 std::string(e.sglang->version) + ", model_runner.py profile_max_num_token"};
       if (e.transformers && e.transformers->gpus == 1)
         return {tx(l, Str::fx_mc_tf, n(m.capacity_bytes), n(m.reserve_bytes), n(w.batch), n(w.max_new_tokens), n(m.max_context)) + limit,
                 std::string(kTransformersVersion) + ", generate()"};
       if (e.vllm)
         return {tx(l, Str::fx_mc_vllm, n(e.vllm->kv_available_bytes), n(m.max_context)) + limit,
                 std::string(e.vllm->version()) + ", v1/core/kv_cache_utils.py estimate_max_model_len"};
       return {tx(l, Str::fx_mc, n(w.batch), n(m.max_context)) + limit, tx(l, Str::fx_mc_ref)};
     }},
    {"inference.max_sequences", "Max concurrent sequences", Unit::Count, Inf, [](E e) -> V { return e.inference.max_sequences; },
     Upper,
     [](C, W w, E e, La l) -> D {
       if (e.sglang && e.sglang->hybrid)
         return {tx(l, Str::fx_ms_sglang_hybrid, n(e.sglang->max_total_tokens), n(e.sglang->context_len), n(e.sglang->swa_tokens),
                    n(e.sglang->context_len), n(e.sglang->window), n(e.inference.max_sequences)),
                 tx(l, Str::fx_ms_sglang_hybrid_ref, e.sglang->version)};
       if (e.sglang)
         return {tx(l, Str::fx_ms_sglang, n(e.sglang->max_total_tokens), n(e.sglang->context_len), n(e.inference.max_sequences)),
                 tx(l, Str::fx_ms_sglang_ref, e.sglang->version)};
       if (e.transformers && e.transformers->gpus == 1)
         return {tx(l, Str::fx_ms_tf, n(e.inference.capacity_bytes), n(e.inference.reserve_bytes), n(w.seq), n(e.inference.max_sequences)),
                 std::string(kTransformersVersion) + ", generate()"};
       if (e.vllm)
         return {tx(l, Str::fx_ms_vllm, n(e.vllm->num_blocks), n(e.vllm->blocks_per_request), n(e.inference.max_sequences)),
                 std::string(e.vllm->version()) + ", v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config"};
       return {tx(l, Str::fx_ms, n(e.inference.max_sequences)), tx(l, Str::fx_ms_ref)};
     }},
    {"inference.min_gpus", "Minimum GPUs", Unit::Count, Inf, [](E e) -> V { return e.inference.min_gpus; }, Lower,
     [](C, W, E e, La l) -> D {
       const InferenceMemory& m = e.inference;
       return {tx(l, Str::fx_min_gpus_inference, n(m.min_gpus)) + (m.min_gpus == 0 ? tx(l, Str::fx_never_fits) : std::string()),
               tx(l, Str::fx_min_gpus_inference_ref)};
     }},

    {"inference.host_bytes", "Host memory (llama.cpp)", Unit::Bytes, Inf,
     [](E e) -> V { return e.llamacpp_devices ? e.llamacpp_devices->host_bytes() : i64{0}; }, host_bound,
     [](C, W, E e, La l) -> D {
       if (!e.llamacpp_devices) return {tx(l, Str::fx_host_none), tx(l, Str::fx_host_none_ref)};
       const LlamaCppBuffers& d = *e.llamacpp_devices;
       std::string f = tx(l, Str::fx_host, n(d.cpu_mapped_bytes), n(d.cpu_cache_bytes), d.host_buffer, n(d.host_compute_bytes),
                          n(d.host_self_bytes()), d.output_buffer, n(d.output_buffer_bytes));
       if (d.cpu_span) f += tx(l, Str::fx_host_span);
       if (d.host_compute_bytes == 0) f += tx(l, Str::fx_host_compute, d.host_buffer);
       if (d.cpu_computes_layers()) f += tx(l, Str::fx_host_repack);
       return {f, tx(l, Str::fx_host_ref, kLlamaCppVersion)};
     }, true},
    {"inference.unified_bytes", "Unified memory (llama.cpp)", Unit::Bytes, Inf, [](E e) -> V { return e.unified_bytes; },
     always<Bound::Lower>,
     [](C, W, E e, La l) -> D {
       if (e.unified_bytes <= 0) return {tx(l, Str::fx_unified_none), tx(l, Str::fx_unified_ref, kLlamaCppVersion)};
       const i64 host = e.llamacpp_devices ? e.llamacpp_devices->host_bytes() : 0;
       return {tx(l, Str::fx_unified, n(e.inference.total_bytes), n(host), n(e.unified_bytes), e.gpu.name, n(e.inference.capacity_bytes)),
               tx(l, Str::fx_unified_ref, kLlamaCppVersion)};
     }, true},
    {"inference.host_capacity_bytes", "Usable host memory", Unit::Bytes, Inf, [](E e) -> V { return e.host_capacity_bytes; },
     always<Bound::Exact>,
     [](C, W w, E e, La l) -> D {
       if (e.host_capacity_bytes <= 0) return {tx(l, Str::fx_hostcap_none), tx(l, Str::fx_hostcap_ref)};
       return {tx(l, e.unified_bytes > 0 ? Str::fx_hostcap_unified : Str::fx_hostcap, real(w.host_mem_gib),
                  e.host_fits ? tx(l, Str::fx_hostcap_fits) : tx(l, Str::fx_hostcap_no_fit)),
               tx(l, Str::fx_hostcap_ref)};
     }, true},

    // ---- Training memory (most loaded GPU) -----------------------------------------------
    {"training.vision_weights_bytes", "Vision tower (frozen)", Unit::Bytes, Train,
     [](E e) -> V { return e.training.vision_weights_bytes; }, Lower,
     [](C c, W w, E e, La l) -> D {
       if (e.projector_bytes >= 0) return {tx(l, Str::fx_vis_projector, by(e.projector_bytes)), tx(l, Str::fx_vis_projector_ref)};
       if (!c.vision.enabled()) return {tx(l, Str::fx_vis_none), tx(l, Str::fx_vis_text_model)};
       const auto z = w.sharding;
       return {tx(l, Str::fx_vis_training, n(e.params.vision), n(dtype_bytes(w.dtype)), n(w.tp),
                  z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : ""),
               tx(l, Str::fx_vis_training_ref)};
     }, true},
    {"training.weights_bytes", "Weights", Unit::Bytes, Train, [](E e) -> V { return e.training.weights_bytes; }, lower_unless_recipe,
     [](C, W w, E e, La l) -> D {
       if (auto r = recipe_derivation(e, e.training.recipe && e.training.recipe->adapter_bytes ? Str::fx_recipe_weights
                                                                                               : Str::fx_recipe_weights_full, l))
         return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const bool lora = w.lora_rank > 0;
       const auto z = w.sharding;
       return {(lora ? (w.qlora ? tx(l, Str::fx_tw_qlora) : tx(l, Str::fx_tw_frozen, n(sb.weights))) +
                           tx(l, Str::fx_tw_adapters, n(m.trainable_params_gpu), n(sb.weights))
                     : "P_gpu · " + n(sb.weights) + " = " + n(m.params_gpu) + " · " + n(sb.weights)) +
                   (z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : "") + "; " + zero_where(w, e, l),
               tx(l, Str::fx_zero_ref)};
     }},
    {"training.gradients_bytes", "Gradients", Unit::Bytes, Train, [](E e) -> V { return e.training.gradients_bytes; }, lower_unless_recipe,
     [](C, W w, E e, La l) -> D {
       if (auto r = recipe_derivation(e, e.training.gradients_bytes ? Str::fx_recipe_gradients_live : Str::fx_recipe_gradients, l)) return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const auto z = w.sharding;
       return {tx(l, Str::fx_trainable_states, n(sb.grads), n(m.trainable_params_gpu), n(sb.grads)) +
                   (z == Sharding::Zero2 || z == Sharding::Zero3 || z == Sharding::Fsdp ? " / dp" : ""),
               tx(l, Str::fx_zero_ref)};
     }},
    {"training.master_weights_bytes", "fp32 master weights", Unit::Bytes, Train,
     [](E e) -> V { return e.training.master_weights_bytes; }, lower_unless_recipe,
     [](C, W w, E e, La l) -> D {
       if (auto r = recipe_derivation(e, e.training.master_weights_bytes ? Str::fx_recipe_master_kept : Str::fx_recipe_master, l)) return *r;
       const TrainingMemory& m = e.training;
       const StateBytes sb = state_bytes(w);
       const auto z = w.sharding;
       return {tx(l, Str::fx_trainable_states, n(sb.master), n(m.trainable_params_gpu), n(sb.master)) +
                   (z != Sharding::None ? " / dp" : "") + tx(l, Str::fx_precision, to_string(w.precision)),
               tx(l, Str::fx_master_ref)};
     }},
    {"training.optimizer_bytes", "Optimizer states", Unit::Bytes, Train, [](E e) -> V { return e.training.optimizer_bytes; }, lower_unless_recipe,
     [](C, W w, E e, La l) -> D {
       if (auto r = recipe_derivation(e, e.training.optimizer_bytes ? Str::fx_recipe_optimizer_live : Str::fx_recipe_optimizer, l)) return *r;
       const auto z = w.sharding;
       return {tx(l, Str::fx_optimizer, optimizer_rule(w, l)) + (z != Sharding::None ? ", / dp" : "") + (w.qlora ? tx(l, Str::fx_optimizer_paged) : std::string()),
               w.optimizer == Optimizer::AdamW8bit ? "Dettmers et al. 2022 (8-bit optimizers); bitsandbytes Optimizer2State blocksize 256, min_8bit_size 4096"
               : w.optimizer == Optimizer::Adafactor ? "Shazeer & Stern 2018 (Adafactor) §3"
                                                     : tx(l, Str::fx_optimizer_adam_ref)};
     }},
    {"training.activation_bytes", "Activations", Unit::Bytes, Train, [](E e) -> V { return e.training.activation_bytes; }, lower_unless_recipe,
     [](C c, W w, E e, La l) -> D {
       if (auto r = recipe_derivation(e, Str::fx_recipe_activations, l)) return *r;
       const TrainingMemory& m = e.training;
       const LayerActivations& a = m.layer;
       std::string parts = tx(l, Str::fx_act_dense, n(a.total), n(a.norm_inputs), n(a.attn_input), n(a.qk), n(a.v), n(a.scores),
                              n(a.attn_dropout), n(a.softmax_stats), n(a.attn_out_input), n(a.ffn_input), n(a.ffn_hidden), n(a.dropout_masks));
       if (a.mla_latent) parts += tx(l, Str::fx_act_mla, n(a.mla_latent));
       if (a.qk_norm) parts += tx(l, Str::fx_act_qk_norm, n(a.qk_norm));
       if (a.sandwich_norms) parts += tx(l, Str::fx_act_sandwich, n(a.sandwich_norms));
       if (a.lora) parts += " + LoRA x·A " + n(a.lora);
       if (a.layer_input) parts = tx(l, Str::fx_act_full_recompute, n(a.layer_input));
       if (m.layer_moe.total) parts += tx(l, Str::fx_act_moe, n(m.layer_moe.total), n(m.layer_moe.moe_routing));
       return {parts + tx(l, Str::fx_act_layers, n(m.stage_layers), n(m.inflight)) +
                   (m.logits_bytes ? tx(l, Str::fx_act_logits, n(m.logits_bytes)) : std::string()) +
                   (m.recompute_bytes ? tx(l, Str::fx_act_recomputed, n(m.recompute_bytes)) : std::string()) + "; s = " + n(w.seq) +
                   ", b = " + n(w.batch) + ", h = " + n(c.d_model) + ", a = " + n(c.n_heads) + ", t = " + n(w.tp),
               tx(l, Str::fx_act_ref)};
     }},
    {"training.overhead_bytes", "Reserve and buffers", Unit::Bytes, Train, [](E e) -> V { return e.training.overhead_bytes; },
     reserve_bound,
     [](C, W, E e, La l) -> D {
       const TrainingMemory& m = e.training;
       if (m.recipe)
         return {tx(l, Str::fx_train_reserve_recipe, n(m.reserve_bytes), n(m.recipe->fixed_bytes)) +
                     (m.recipe->gathered_bytes > 0 ? tx(l, Str::fx_train_reserve_gathered, n(m.recipe->gathered_bytes)) : std::string()),
                 tx(l, Str::fx_train_reserve_recipe_ref, m.recipe->version)};
       return {tx(l, Str::fx_train_reserve, n(m.reserve_bytes), n(m.comm_bytes), n(m.gathered_bytes), n(m.dequant_bytes)),
               tx(l, Str::fx_train_reserve_ref)};
     }},
    {"training.total_bytes", "Training total per GPU", Unit::Bytes, Train, [](E e) -> V { return e.training.total_bytes; },
     reserve_bound,
     [](C, W, E e, La l) -> D {
       // With pipeline stages, each stage's GPU beside the most loaded one (the formula recipe).
       std::string stages;
       if (e.training.stages.size() > 1)
         for (const TrainingStage& st : e.training.stages)
           stages += tx(l, Str::fx_training_stage, n(st.stage), n(st.first_layer), n(st.last_layer()), n(st.inflight),
                        n(st.total_bytes));
       return {tx(l, Str::fx_training_total), tx(l, Str::fx_most_loaded_gpu) + stages};
     }},
    {"training.peak_allocated_bytes", "Peak allocated (max_memory_allocated)", Unit::Bytes, Train,
     [](E e) -> V { return e.training.peak_allocated_bytes; },
     [](W w, E e) { return e.training.recipe ? Bound::Estimate : reserve_bound(w, e); },
     [](C, W, E e, La l) -> D {
       const TrainingMemory& m = e.training;
       if (m.recipe) return {recipe_parts_text(*m.recipe, l), tx(l, Str::fx_peak_recipe_ref, m.recipe->version)};
       return {tx(l, Str::fx_peak_allocated, n(m.total_bytes), n(m.reserve_bytes), n(m.peak_allocated_bytes)), tx(l, Str::fx_peak_allocated_ref)};
     }},
    {"training.trainable_params", "Trainable parameters", Unit::Count, Train, [](E e) -> V { return e.training.trainable_params; },
     Exact,
     [](C, W w, E e, La l) -> D {
       const TrainingMemory& m = e.training;
       const bool lora = w.lora_rank > 0;
       return {lora ? tx(l, Str::fx_trainable_lora, n(w.lora_rank), n(m.lora_params)) : tx(l, Str::fx_trainable_all, n(m.trainable_params)),
               lora ? "Hu et al. 2021 (LoRA): A r×d_in, B d_out×r" : tx(l, Str::fx_tensor_inventory)};
     }},
    {"training.min_gpus", "Minimum GPUs", Unit::Count, Train, [](E e) -> V { return e.training.min_gpus; }, Lower,
     [](C, W w, E e, La l) -> D {
       if (e.training.recipe && e.training.recipe->recipe != Recipe::Megatron)  // a recipe of one layout
         return {tx(l, Str::fx_min_gpus_recipe, n(w.gpus), n(e.training.min_gpus)) +
                     (e.training.min_gpus == 0 ? tx(l, Str::fx_never_fits) : std::string()),
                 tx(l, Str::fx_min_gpus_recipe_ref)};
       return {tx(l, Str::fx_min_gpus_training, n(e.training.min_gpus)), tx(l, Str::fx_min_gpus_training_ref)};
     }},

    // ---- Throughput ------------------------------------------------------------------------
    {"throughput.decode_bytes_per_step", "Bytes read per decode step", Unit::Bytes, Inf,
     [](E e) -> V { return e.throughput.decode_bytes_per_step; }, Lower,
     [](C, W, E e, La l) -> D {
       const Throughput& t = e.throughput;
       return {tx(l, Str::fx_decode_bytes, n(t.decode_weight_bytes), real(t.experts_touched), n(t.decode_kv_bytes)), tx(l, Str::fx_decode_bytes_ref)};
     }},
    {"throughput.decode_tokens_per_s", "Decode tokens/s", Unit::TokensPerSecond, Inf,
     [](E e) -> V { return e.throughput.decode_tokens_per_s; }, Upper,
     [](C, W w, E e, La l) -> D {
       const Throughput& t = e.throughput;
       if (t.host_only && t.decode_tokens_per_s <= 0)
         return {tx(l, Str::fx_decode_no_host_bw, n(t.decode_bytes_per_step)), tx(l, Str::fx_decode_host_ref, kLlamaCppVersion)};
       if (t.decode_host_bytes > 0 && t.host_bandwidth_gbs > 0)
         return {tx(l, Str::fx_decode_rate_host, n(e.dp), n(w.batch), n(t.decode_bytes_per_step - t.decode_host_bytes), n(w.tp),
                    real(t.bandwidth_gbs), n(t.decode_host_bytes), real(t.host_bandwidth_gbs), real(t.decode_tokens_per_s),
                    real(t.decode_tokens_per_s_per_seq)),
                 tx(l, Str::fx_decode_host_ref, t.host_only ? std::string(kLlamaCppVersion) : e.gpu.source)};
       return {tx(l, Str::fx_decode_rate, n(e.dp), n(w.batch), n(w.tp), real(t.bandwidth_gbs), n(t.decode_bytes_per_step), real(t.decode_tokens_per_s),
                  real(t.decode_tokens_per_s_per_seq)) +
                   (t.host_at_device_rate ? tx(l, Str::fx_decode_host_at_device, n(t.decode_host_bytes)) : std::string()),
               tx(l, Str::fx_decode_rate_ref, e.gpu.source)};
     }},
    {"throughput.prefill_seconds", "Prefill time", Unit::Seconds, Inf, [](E e) -> V { return e.throughput.prefill_seconds; },
     Estimated,
     [](C, W w, E e, La l) -> D {
       const Throughput& t = e.throughput;
       return {tx(l, Str::fx_prefill_time, real(t.prefill_flops), n(w.tp), peak_text(w, t, l), format_duration(t.prefill_seconds, l)),
               tx(l, Str::fx_prefill_time_ref)};
     }},
    {"throughput.train_flops_per_token", "Training FLOPs per token", Unit::Flops, Train,
     [](E e) -> V { return e.throughput.train_flops_per_token; }, Estimated,
     [](C, W w, E e, La l) -> D {
       const Throughput& t = e.throughput;
       return {std::string(w.lora_rank > 0 ? "4·P_active + 6·P_adapters" : "6·P_active") + tx(l, Str::fx_flops_attention) +
                   (w.recompute == Recompute::Full ? tx(l, Str::fx_flops_recompute_full)
                    : w.recompute == Recompute::Selective ? tx(l, Str::fx_flops_recompute_selective) : std::string()) +
                   " = " + real(t.train_flops_per_token),
               tx(l, Str::fx_flops_ref)};
     }},
    {"throughput.step_seconds", "Time per optimizer step", Unit::Seconds, Train, [](E e) -> V { return e.throughput.step_seconds; },
     Estimated,
     [](C, W w, E e, La l) -> D {
       const Throughput& t = e.throughput;
       return {tx(l, Str::fx_step_time, real(t.train_flops_per_token), n(t.tokens_per_step), n(w.gpus), peak_text(w, t, l),
                  format_duration(t.step_seconds, l)),
               tx(l, Str::fx_step_time_ref)};
     }},
    {"throughput.train_seconds", "Training time", Unit::Seconds, Train, [](E e) -> V { return e.throughput.train_seconds; },
     Estimated,
     [](C, W w, E e, La l) -> D {
       const Throughput& t = e.throughput;
       return {tx(l, Str::fx_train_time, n(t.train_tokens), w.train_tokens == 0 ? tx(l, Str::fx_chinchilla_optimal) : std::string(),
                  format_duration(t.train_seconds, l)),
               tx(l, Str::fx_train_time_ref)};
     }},
    {"throughput.chinchilla_tokens", "Chinchilla-optimal tokens", Unit::Tokens, Train,
     [](E e) -> V { return e.throughput.chinchilla_tokens; }, Estimated,
     [](C, W, E e, La l) -> D {
       return {"≈ 20 · P = 20 · " + n(e.params.total) + " = " + n(e.throughput.chinchilla_tokens), tx(l, Str::fx_chinchilla_ref)};
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

bool listed(const Figure& f, double value) { return !f.model_part || value != 0; }

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

std::vector<Explanation> explain(const ModelConfig& cfg, const Workload& w, const Estimate& e, Lang lang) {
  std::vector<Explanation> out;
  out.reserve(std::size(kFigures));
  for (const Figure& f : kFigures) {
    const FigureValue v = f.value(e);
    Derivation d = f.derive(cfg, w, e, lang);
    if (f.unit == Unit::Bytes) d.formula += " = " + by(v.whole);
    out.push_back({std::string(f.key), std::string(f.label), f.unit, v.as_double(), f.bound(w, e), std::move(d.formula),
                   std::move(d.reference)});
  }
  return out;
}

}  // namespace llmsize::core
