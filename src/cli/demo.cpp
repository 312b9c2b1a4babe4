// `llmsize demo` (see demo.hpp): strict flag parsing, the run (and the training step when
// --train-seq is given), and its report. The model
// comes from load_model_flag (cli.hpp), the loader `estimate` uses too.
#include "demo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/format.hpp"
#include "core/report.hpp"
#include "ref/demo.hpp"

namespace llmsize::cli {

namespace {

using core::i64;
using ref::DemoResults;

Output usage_error(const std::string& msg) {
  return {"", "llmsize: " + msg + " (see `llmsize --help`)\n", 2};
}

std::string esc(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else o += static_cast<char>(c);
  }
  return o + "\"";
}
std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string gib(i64 b) { return core::format_bytes(b, core::ByteUnit::GiB, 3); }

std::string block_summary(const core::ModelConfig& b, bool moe) {
  std::string s = "d " + std::to_string(b.d_model) + " · " + std::to_string(b.n_heads) + (b.n_heads == 1 ? " head" : " heads");
  if (!b.mla.enabled && b.n_kv_heads != b.n_heads) s += " (" + std::to_string(b.n_kv_heads) + " KV)";
  s += " · hd " + std::to_string(b.mla.enabled ? b.q_head_dim() : b.head_dim);
  if (b.mla.enabled) s += " · MLA kv_lora " + std::to_string(b.mla.kv_lora_rank);
  if (b.window_chunked && b.sliding_window > 0)
    s += " · chunked layers attend within chunks of " + std::to_string(b.sliding_window) +
         " positions (one chunk holds every key of a shorter context), full layers without RoPE";
  if (b.mla.has_indexer())
    s += " · indexer " + std::to_string(b.mla.index_heads) + " × " + std::to_string(b.mla.index_dim) + ", top-" +
         std::to_string(b.mla.index_topk) + " keys (all of them up to " + std::to_string(b.mla.index_topk) + " positions)";
  if (moe) s += " · " + std::to_string(b.moe.num_experts) + " experts (top-" + std::to_string(b.moe.top_k) + ") × FFN " +
                std::to_string(b.moe.expert_ffn);
  else s += " · FFN " + std::to_string(b.d_ff) + " " + std::string(to_string(b.ffn_kind));
  return s;
}

// The heat map as text: up to 16 heads (rows) × 64 position buckets (max within a bucket).
std::string heat_text(const ref::HeatMap& h) {
  if (h.probs == nullptr || h.heads == 0) return "";
  const char* shades = " .:-=+*#%@";
  const i64 cols = std::min<i64>(64, h.positions), rows = std::min<i64>(16, h.heads);
  std::string out = "attention of the last decoded token (layer " + std::to_string(h.layer) + ", position " +
                    std::to_string(h.query_pos) + "): " + std::to_string(h.heads) + " heads × " +
                    std::to_string(h.positions) + " positions" + (rows < h.heads ? ", first 16 heads" : "") +
                    ", darker = more weight (relative to the head's largest)\n";
  std::vector<double> row_max(static_cast<size_t>(rows), 1e-30);  // shades relative to each head's largest weight
  for (i64 r = 0; r < rows; ++r)
    for (i64 p = 0; p < h.positions; ++p) row_max[r] = std::max(row_max[r], static_cast<double>(h.probs[r * h.positions + p]));
  for (i64 r = 0; r < rows; ++r) {
    out += "  h" + core::pad_left(std::to_string(r), 3) + " |";
    for (i64 c = 0; c < cols; ++c) {
      const i64 p0 = c * h.positions / cols, p1 = std::max(p0 + 1, (c + 1) * h.positions / cols);
      float m = 0;
      for (i64 p = p0; p < p1; ++p) m = std::max(m, h.probs[r * h.positions + p]);
      const int level = std::clamp(static_cast<int>(static_cast<double>(m) / row_max[r] * 9.99), 0, 9);
      out += shades[level];
    }
    out += "|\n";
  }
  return out;
}

// "layer 3", or "layers 0, 3 (one per attention kind)".
std::string layers_text(const ref::DemoPlan& p) {
  if (p.layers.size() < 2) return "layer " + std::to_string(p.layer);
  std::string s = "layers";
  for (size_t i = 0; i < p.layers.size(); ++i) s += (i ? ", " : " ") + std::to_string(p.layers[i]);
  return s + " (one per attention kind)";
}

// The state trace's recorded positions: (position, mean over heads, largest head).
struct TracePoint {
  i64 pos;
  double mean, max;
};
std::vector<TracePoint> trace_points(const ref::StateTrace& t) {
  std::vector<TracePoint> out;
  for (i64 p = 0; t.norms && p < t.positions; ++p) {
    if (!std::isfinite(t.norms[p * t.heads])) continue;
    TracePoint q{p, 0.0, 0.0};
    for (i64 h = 0; h < t.heads; ++h) {
      q.mean += t.norms[p * t.heads + h] / static_cast<double>(t.heads);
      q.max = std::max(q.max, static_cast<double>(t.norms[p * t.heads + h]));
    }
    out.push_back(q);
  }
  return out;
}

std::string trace_text(const ref::StateTrace& t) {
  const auto pts = trace_points(t);
  if (t.layer < 0 || pts.empty()) return "";
  std::string o = "recurrent state of layer " + std::to_string(t.layer) + " (" + (t.mamba ? "Mamba-2" : "Gated DeltaNet") +
                  ", sequence 0): ||S|| (Frobenius) of each of " + std::to_string(t.heads) +
                  " heads where the state exists (each prefill chunk's end, then every decoded token)\n";
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts.size() > 12 && i == 4) o += "  …\n";
    if (pts.size() > 12 && i >= 4 && i + 8 < pts.size()) continue;
    o += "  position " + core::pad_left(std::to_string(pts[i].pos), 6) + ": mean " + core::fixed(pts[i].mean, 4) + ", largest head " +
         core::fixed(pts[i].max, 4) + "\n";
  }
  return o;
}

// The training step beside the core's figures (ref/train.hpp), or nothing when none ran.
std::string train_text(const DemoResults& r, const ref::DemoSettings& s) {
  if (!r.train) return "";
  const ref::TrainMemory& m = r.train->memory;
  const ref::TrainSettings t = s.train();
  std::string o = "\n  training step of model layer " + std::to_string(r.train_layer) + " (fp32, " +
                  std::to_string(t.micro_batch) + " × " + std::to_string(t.seq) + " tokens, " +
                  (t.lora_rank > 0 ? "LoRA r " + std::to_string(t.lora_rank) + " on " +
                                         core::flags_text(*ref::find_demo_field("lora_targets"), t.lora_targets)
                                   : std::string("every tensor trained")) +
                  ", AdamW, recompute " + std::string(core::to_string(t.recompute)) + "): " +
                  core::fixed(r.train->ms, 1) + " ms for forward, backward and step\n";
  o += "  " + core::pad_right("", 36) + core::pad_left("measured", 14) + core::pad_left("estimated", 15) + "\n";
  auto row = [&](const char* what, i64 a, i64 e) {
    o += "  " + core::pad_right(what, 36) + core::pad_left(core::with_commas(a), 14) +
         core::pad_left(e >= 0 ? core::with_commas(e) : "-", 15) + "\n";
  };
  row("weights (the layer)", m.weights_measured, m.weights_estimated);
  if (m.adapters_estimated > 0 || m.adapters_measured > 0) row("LoRA adapters", m.adapters_measured, m.adapters_estimated);
  row("saved for backward (end of forward)", m.saved_measured, m.saved_estimated);
  if (m.recompute_estimated > 0 || m.recompute_measured > 0)
    row("  rebuilt in backward (recompute)", m.recompute_measured, m.recompute_estimated);
  row("gradients", m.gradients_measured, m.gradients_estimated);
  row("optimizer states (AdamW m, v)", m.optimizer_measured, m.optimizer_estimated);
  row("backward's working buffers", m.working_measured, -1);
  row("peak / the formula's total", m.peak_measured, m.formula_total);
  o += "  loss " + num(r.train->loss_before) + " → " + num(r.train->loss_after) + " after one AdamW step\n";
  for (const auto& n : r.train->notes) o += "  - " + n.message + "\n";
  return o;
}

std::string text_report(const ref::DemoPlan& p, const DemoResults& r, const ref::DemoSettings& s,
                        const ref::HeatMap& heat, const ref::StateTrace& trace) {
  std::string o;
  o += "demo block of " + (p.model.name.empty() ? std::string(family_id(p.model.family)) : p.model.name) +
       ": " + layers_text(p) + (p.moe ? ", MoE" : "") + ", " + p.scaling + "\n";
  o += "  block: " + block_summary(p.block, p.moe) + "\n";
  o += "  fp32, batch 1, prompt " + std::to_string(s.prompt) + " tokens, then " + std::to_string(s.tokens) +
       " decoded; GEMM kernel " + r.kernel + " (" + r.isa + "), one thread\n\n";
  o += "  phase     time (ms)   ms/token   GFLOP/s\n";
  o += "  weights " + core::pad_left(core::fixed(r.init_ms, 1), 11) + "  (seeded fill)\n";
  o += "  prefill " + core::pad_left(core::fixed(r.prefill_ms, 1), 11) + core::pad_left(core::fixed(r.prefill_ms_per_token, 3), 11) +
       core::pad_left(core::fixed(r.prefill_gflops, 1), 10) + "\n";
  o += "  decode  " + core::pad_left(core::fixed(r.decode_ms, 1), 11) + core::pad_left(core::fixed(r.decode_ms_per_token, 3), 11) +
       core::pad_left(core::fixed(r.decode_gflops, 1), 10) + "   (" + core::fixed(r.decode_gbps, 1) + " GB/s of weights + KV)\n\n";
  o += "  whole model on this CPU, per token (block time × model/block FLOPs per token, ×" +
       core::fixed(r.model_flops_ratio_decode, 1) + "): prefill " + core::fixed(r.model_prefill_ms_per_token, 1) +
       " ms, decode " + core::fixed(r.model_decode_ms_per_token, 1) + " ms (" +
       core::fixed(r.model_decode_ms_per_token > 0 ? 1000.0 / r.model_decode_ms_per_token : 0.0, 2) + " tokens/s)\n\n";
  const ref::MemoryComparison& m = r.memory;
  o += "  memory (fp32, batch " + std::to_string(m.batch) + ", context " + std::to_string(m.context) + ", chunk " +
       std::to_string(m.chunk) + ")   measured      estimated\n";
  auto row = [&](const char* what, i64 a, i64 e) {
    o += "  " + core::pad_right(what, 36) + core::pad_left(core::with_commas(a), 14) + core::pad_left(e >= 0 ? core::with_commas(e) : "-", 15) + "\n";
  };
  row("weights", m.weights_measured, m.weights_estimated);
  row("KV cache", m.kv_measured, m.kv_estimated);
  if (m.state_measured > 0 || m.state_estimated > 0) row("recurrent state", m.state_measured, m.state_estimated);
  if (m.indexer_measured > 0 || m.indexer_estimated > 0) row("indexer keys", m.indexer_measured, m.indexer_estimated);
  row("activations (peak of the phases)", m.activations_measured, m.activations_estimated);
  if (m.attention_estimated > 0) row("  attention phase live set", m.attention_measured, m.attention_estimated);
  if (m.linear_estimated > 0) row("  linear-attention phase live set", m.linear_measured, m.linear_estimated);
  if (m.mamba_estimated > 0) row("  Mamba phase live set", m.mamba_measured, m.mamba_estimated);
  if (m.conv_estimated > 0) row("  short-convolution phase live set", m.conv_measured, m.conv_estimated);
  row("  FFN phase live set", m.ffn_measured, m.ffn_estimated);
  row("scratch (heat map copy, …)", m.scratch_measured, -1);
  row("peak", m.peak_measured, m.peak_estimated);
  if (m.by_kind.size() > 1 || (!m.by_kind.empty() && m.by_kind[0].state_estimated > 0)) {
    o += "  by attention kind                     measured      estimated\n";
    for (const auto& k : m.by_kind) {
      std::string what = k.kind + " (model layer";
      for (size_t i = 0; i < k.layers.size(); ++i) {
        const auto l = static_cast<size_t>(k.layers[i]);
        what += std::string(i ? ", " : " ") + std::to_string(l < p.layers.size() ? p.layers[l] : k.layers[i]);
      }
      what += ")";
      o += "  " + what + "\n";
      if (k.kv_estimated > 0 || k.kv_measured > 0) row("  KV cache", k.kv_measured, k.kv_estimated);
      if (k.state_estimated > 0 || k.state_measured > 0) row("  recurrent state", k.state_measured, k.state_estimated);
      if (k.index_estimated > 0 || k.index_measured > 0) row("  indexer keys", k.index_measured, k.index_estimated);
      if (k.kv_estimated + k.kv_measured + k.state_estimated + k.state_measured == 0)
        o += k.kind.rfind("shared", 0) == 0 ? "    (attends over an earlier layer's cache: none of its own)\n"
                                            : "    (a feed-forward block, MLP or MoE: no cache)\n";
    }
  }
  o += "  peak " + gib(m.peak_measured) + " measured vs " + gib(m.peak_estimated) + " estimated (×" +
       core::fixed(m.peak_ratio(), 3) + "); activations ×" + core::fixed(m.activation_ratio(), 3) + "\n";
  for (const auto& n : m.notes) o += "  - " + n.message + "\n";
  o += train_text(r, s);
  o += "\n" + heat_text(heat);
  if (const std::string tr = trace_text(trace); !tr.empty()) o += "\n" + tr;
  return o;
}

std::string json_report(const ref::DemoPlan& p, const DemoResults& r, const ref::DemoSettings& s,
                        const ref::HeatMap& heat, const ref::StateTrace& trace) {
  const ref::MemoryComparison& m = r.memory;
  std::string o = "{";
  o += "\"model\": " + esc(p.model.name) + ", \"family\": " + esc(std::string(family_id(p.model.family)));
  o += ", \"settings\": {\"prompt\": " + std::to_string(s.prompt) + ", \"tokens\": " + std::to_string(s.tokens) +
       ", \"budget_bytes\": " + std::to_string(s.budget_bytes) + ", \"batch\": 1, \"dtype\": \"fp32\"}";
  std::string model_layers;
  for (size_t i = 0; i < p.layers.size(); ++i) model_layers += (i ? ", " : "") + std::to_string(p.layers[i]);
  o += ", \"block\": {\"layer\": " + std::to_string(p.layer) + ", \"layers\": " + std::to_string(p.block.n_layers) +
       ", \"model_layers\": [" + model_layers + "], \"moe\": " + (p.moe ? "true" : "false") +
       ", \"scaled\": " + (p.scaled ? "true" : "false") + ", \"scaling\": " + esc(p.scaling) +
       ", \"width_divisor\": " + std::to_string(p.width_divisor) + ", \"experts_model\": " +
       std::to_string(p.experts_model) + ", \"experts_block\": " + std::to_string(p.experts_block) +
       ", \"d_model\": " + std::to_string(p.block.d_model) + ", \"heads\": " + std::to_string(p.block.n_heads) +
       ", \"kv_heads\": " + std::to_string(p.block.n_kv_heads) + ", \"bytes\": " + std::to_string(p.bytes) + "}";
  o += ", \"kernel\": " + esc(r.kernel) + ", \"isa\": " + esc(r.isa);
  o += ", \"timing\": {\"init_ms\": " + num(r.init_ms) + ", \"prefill_ms\": " + num(r.prefill_ms) +
       ", \"decode_ms\": " + num(r.decode_ms) + ", \"prefill_ms_per_token\": " + num(r.prefill_ms_per_token) +
       ", \"decode_ms_per_token\": " + num(r.decode_ms_per_token) + ", \"prefill_gflops\": " + num(r.prefill_gflops) +
       ", \"decode_gflops\": " + num(r.decode_gflops) + ", \"decode_gbps\": " + num(r.decode_gbps) +
       ", \"prefill_flops\": " + num(r.prefill_flops) + ", \"decode_flops\": " + num(r.decode_flops) + "}";
  o += ", \"model_estimate\": {\"prefill_ms_per_token\": " + num(r.model_prefill_ms_per_token) +
       ", \"decode_ms_per_token\": " + num(r.model_decode_ms_per_token) + ", \"flops_ratio_prefill\": " +
       num(r.model_flops_ratio_prefill) + ", \"flops_ratio_decode\": " + num(r.model_flops_ratio_decode) + "}";
  auto pair = [](i64 a, i64 e) {
    return "{\"measured\": " + std::to_string(a) + ", \"estimated\": " + std::to_string(e) + "}";
  };
  o += ", \"memory\": {\"batch\": " + std::to_string(m.batch) + ", \"context\": " + std::to_string(m.context) +
       ", \"chunk\": " + std::to_string(m.chunk) + ", \"weights\": " + pair(m.weights_measured, m.weights_estimated) +
       ", \"kv_cache\": " + pair(m.kv_measured, m.kv_estimated) +
       ", \"recurrent_state\": " + pair(m.state_measured, m.state_estimated) +
       ", \"indexer_cache\": " + pair(m.indexer_measured, m.indexer_estimated) + ", \"activations\": " +
       pair(m.activations_measured, m.activations_estimated) + ", \"attention_phase\": " +
       pair(m.attention_measured, m.attention_estimated) + ", \"ffn_phase\": " + pair(m.ffn_measured, m.ffn_estimated) +
       ", \"linear_attention_phase\": " + pair(m.linear_measured, m.linear_estimated) +
       ", \"mamba_phase\": " + pair(m.mamba_measured, m.mamba_estimated) +
       ", \"short_conv_phase\": " + pair(m.conv_measured, m.conv_estimated) +
       ", \"scratch_measured\": " + std::to_string(m.scratch_measured) + ", \"peak\": " +
       pair(m.peak_measured, m.peak_estimated) + ", \"by_kind\": [";
  for (size_t i = 0; i < m.by_kind.size(); ++i) {
    const auto& k = m.by_kind[i];
    std::string layers, mls;
    for (size_t j = 0; j < k.layers.size(); ++j) {
      const auto l = static_cast<size_t>(k.layers[j]);
      layers += (j ? ", " : "") + std::to_string(k.layers[j]);
      mls += (j ? ", " : "") + std::to_string(l < p.layers.size() ? p.layers[l] : k.layers[j]);
    }
    o += std::string(i ? ", " : "") + "{\"kind\": " + esc(k.kind) + ", \"block_layers\": [" + layers +
         "], \"model_layers\": [" + mls + "], \"kv_measured\": " + std::to_string(k.kv_measured) +
         ", \"kv_estimated\": " + std::to_string(k.kv_estimated) + ", \"state_measured\": " +
         std::to_string(k.state_measured) + ", \"state_estimated\": " + std::to_string(k.state_estimated) +
         ", \"index_measured\": " + std::to_string(k.index_measured) + ", \"index_estimated\": " +
         std::to_string(k.index_estimated) + "}";
  }
  o += "], \"notes\": [";
  for (size_t i = 0; i < m.notes.size(); ++i) o += (i ? ", " : "") + esc(m.notes[i].message);
  o += "]}";
  o += ", \"train\": ";
  if (!r.train) {
    o += "null";
  } else {
    const ref::TrainMemory& t = r.train->memory;
    const ref::TrainSettings ts = s.train();
    o += "{\"layer\": " + std::to_string(r.train_layer) + ", \"seq\": " + std::to_string(ts.seq) +
         ", \"micro_batch\": " + std::to_string(ts.micro_batch) + ", \"lora_rank\": " + std::to_string(ts.lora_rank) +
         ", \"lora_targets\": " + esc(core::flags_text(*ref::find_demo_field("lora_targets"), ts.lora_targets)) +
         ", \"recompute\": " + esc(std::string(core::to_string(ts.recompute))) + ", \"ms\": " + num(r.train->ms) +
         ", \"loss_before\": " + num(r.train->loss_before) + ", \"loss_after\": " + num(r.train->loss_after) +
         ", \"trainable_params\": " + std::to_string(t.trainable_params) +
         ", \"weights\": " + pair(t.weights_measured, t.weights_estimated) +
         ", \"adapters\": " + pair(t.adapters_measured, t.adapters_estimated) +
         ", \"saved\": " + pair(t.saved_measured, t.saved_estimated) +
         ", \"recompute_rebuilt\": " + pair(t.recompute_measured, t.recompute_estimated) +
         ", \"gradients\": " + pair(t.gradients_measured, t.gradients_estimated) +
         ", \"optimizer\": " + pair(t.optimizer_measured, t.optimizer_estimated) +
         ", \"working_measured\": " + std::to_string(t.working_measured) +
         ", \"peak_measured\": " + std::to_string(t.peak_measured) + ", \"formula_total\": " +
         std::to_string(t.formula_total) + ", \"notes\": [";
    for (size_t i = 0; i < r.train->notes.size(); ++i) o += (i ? ", " : "") + esc(r.train->notes[i].message);
    o += "]}";
  }
  o += ", \"heat_map\": {\"layer\": " + std::to_string(heat.layer) + ", \"query_pos\": " +
       std::to_string(heat.query_pos) + ", \"heads\": " + std::to_string(heat.heads) + ", \"positions\": " +
       std::to_string(heat.positions) + "}";
  o += ", \"state_trace\": ";
  if (trace.layer < 0) {
    o += "null";
  } else {
    o += "{\"layer\": " + std::to_string(trace.layer) + ", \"kind\": " + esc(trace.mamba ? "mamba" : "linear") +
         ", \"heads\": " + std::to_string(trace.heads) + ", \"positions\": " + std::to_string(trace.positions) +
         ", \"points\": [";
    const auto pts = trace_points(trace);
    for (size_t i = 0; i < pts.size(); ++i)
      o += std::string(i ? ", " : "") + "{\"position\": " + std::to_string(pts[i].pos) + ", \"mean\": " + num(pts[i].mean) +
           ", \"max\": " + num(pts[i].max) + "}";
    o += "]}";
  }
  return o + "}\n";
}

}  // namespace

Output demo_cmd(const DemoFlags& f, const FileReader& read_file) {
  if (f.preset.has_value() == f.config.has_value())
    return usage_error("demo needs exactly one of --preset NAME or --config PATH");
  ref::DemoSettings s;  // the defaults, then each flag given, in the table's order
  for (const auto& field : ref::demo_fields()) {
    auto given = field.flag.empty() ? f.settings.end() : f.settings.find(std::string(field.flag));
    if (given == f.settings.end()) continue;
    if (field.set(s, given->second))
      return usage_error(std::string(field.flag) + " must be " + core::allowed_text(field) + ", got \"" +
                         given->second + "\"");
  }

  Output err;
  auto model = load_model_flag(f.preset, f.config, f.generic, read_file, err);
  if (!model) return err;
  const core::ModelConfig& cfg = model->config;
  Output o;
  for (const auto& n : model->notes) o.err += "llmsize: note: " + n.message + "\n";
  auto demo = ref::create_demo(cfg, s);
  if (!demo) {
    Output bad{"", o.err, 2};
    for (const auto& i : demo.issues()) {
      const ref::DemoField* df = ref::find_demo_field(i.field);
      const std::string flag = df && !df->flag.empty() ? std::string(df->flag) : i.field;
      bad.err += "llmsize: " + flag + ": " + i.message + "\n";
    }
    return bad;
  }
  while (ref::demo_step(**demo, 250.0).phase != ref::DemoPhase::Done) {
  }
  const auto& r = ref::demo_results(**demo);
  const auto& p = ref::demo_plan(**demo);
  if (!r.train_issues.empty()) {  // the step could not start (the system refused its memory)
    Output bad{"", o.err, 2};
    for (const auto& i : r.train_issues) bad.err += "llmsize: training step: " + i.field + ": " + i.message + "\n";
    return bad;
  }
  const ref::StateTrace trace = ref::demo_state_trace(**demo);
  o.out = f.json ? json_report(p, r, s, ref::demo_heat_map(**demo), trace)
                 : text_report(p, r, s, ref::demo_heat_map(**demo), trace);
  return o;
}

bool is_demo_flag(std::string_view arg) { return ref::find_demo_flag(arg) != nullptr; }

std::string demo_flag_list(std::string_view last_sep) {
  std::vector<std::string_view> flags;
  for (const auto& f : ref::demo_fields())
    if (!f.flag.empty()) flags.push_back(f.flag);
  std::string o;
  for (size_t i = 0; i < flags.size(); ++i)
    o += std::string(i == 0 ? "" : i + 1 == flags.size() ? last_sep : ", ") + std::string(flags[i]);
  return o;
}

std::string demo_flags_usage() {
  std::string o;
  const ref::DemoSettings defaults;
  for (const auto& f : ref::demo_fields()) {
    if (f.flag.empty()) continue;
    const bool is_int = f.kind == core::FieldKind::Int;
    std::string head = "  " + std::string(f.flag) + (is_int ? " N" : f.kind == core::FieldKind::Flags ? " LIST" : " NAME");
    head.resize(std::max<size_t>(head.size() + 1, 18), ' ');
    o += head + "demo: " + std::string(f.help) + " (" +
         (is_int ? std::to_string(f.min_int) + "-" + std::to_string(f.max_int) : core::allowed_text(f)) + ", default " +
         f.get(defaults) + ")\n";
  }
  return o;
}

}  // namespace llmsize::cli
