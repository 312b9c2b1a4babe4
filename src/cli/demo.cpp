// `llmsize demo` (see demo.hpp): strict flag parsing, the run (and the training step when
// --train-seq is given), and its report. The model
// comes from load_model_flag (cli.hpp), the loader `estimate` uses too. The text view and the
// errors are rows of the string table (core/lang/en_cli_demo.inc and the page's demo_ rows) in
// DemoFlags::lang; the JSON is the same in every language.
#include "demo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/format.hpp"
#include "core/issue.hpp"
#include "core/lang.hpp"
#include "core/layer_plan.hpp"
#include "core/report.hpp"
#include "ref/demo.hpp"

namespace llmsize::cli {

namespace {

using core::i64;
using core::Lang;
using core::printf_text;
using core::Str;
using core::tr;
using ref::DemoResults;

// "llmsize: <msg> (see `llmsize --help`)", the message already in `l`.
Output usage_error(const std::string& msg, Lang l) {
  return {"", "llmsize: " + printf_text(tr(Str::cdemo_see_help, l), msg.c_str()) + "\n", 2};
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

// "0, 3" in English, "0、3" in Chinese: model layer numbers.
std::string layer_list(const std::vector<i64>& layers, Lang l) {
  std::string s;
  for (size_t i = 0; i < layers.size(); ++i) s += (i ? tr(Str::ref_list_sep, l) : "") + std::to_string(layers[i]);
  return s;
}

// An attention kind as the memory comparison names it ("sliding 512", "shared full", "mla + indexer"),
// each kind's name in `l` (the "attn" labels of the field table), its numbers as they are.
std::string kind_text(const std::string& kind, Lang l) {
  if (l == Lang::En) return kind;
  std::string out;
  std::string_view rest = kind;
  while (!rest.empty()) {
    std::string_view name;  // the longest kind name the rest starts with, as a whole word
    for (std::string_view n : core::kAttnKindNames)
      if (n.size() > name.size() && rest.substr(0, n.size()) == n && (rest.size() == n.size() || rest[n.size()] == ' ')) name = n;
    const size_t len = !name.empty() ? name.size() : std::min(rest.find(' '), rest.size());
    const core::FieldText* t = name.empty() ? nullptr : core::field_text("attn", name, l);
    out += (out.empty() ? "" : " ") + (t ? std::string(t->label) : std::string(rest.substr(0, len)));
    rest.remove_prefix(len);
    if (!rest.empty()) rest.remove_prefix(1);
  }
  return out;
}

std::string block_summary(const core::ModelConfig& b, bool moe, Lang l) {
  const std::string heads = std::to_string(b.n_heads), kv = std::to_string(b.n_kv_heads);
  std::string s = "d " + std::to_string(b.d_model) + " · ";
  if (!b.mla.enabled && b.n_kv_heads != b.n_heads) s += printf_text(tr(Str::arch_heads_kv, l), heads.c_str(), kv.c_str());
  else s += b.n_heads == 1 ? std::string(tr(Str::cdemo_one_head, l)) : printf_text(tr(Str::arch_heads, l), heads.c_str());
  s += " · hd " + std::to_string(b.mla.enabled ? b.q_head_dim() : b.head_dim);
  if (b.mla.enabled) s += " · MLA kv_lora " + std::to_string(b.mla.kv_lora_rank);
  if (b.window_chunked && b.sliding_window > 0)
    s += " · " + printf_text(tr(Str::cdemo_block_chunked, l), static_cast<long long>(b.sliding_window));
  if (b.mla.has_indexer())
    s += " · " + printf_text(tr(Str::cdemo_block_indexer, l), static_cast<long long>(b.mla.index_heads),
                             static_cast<long long>(b.mla.index_dim), static_cast<long long>(b.mla.index_topk),
                             static_cast<long long>(b.mla.index_topk));
  if (moe)
    s += " · " + printf_text(tr(Str::cdemo_block_experts, l), static_cast<long long>(b.moe.num_experts),
                             static_cast<long long>(b.moe.top_k), static_cast<long long>(b.moe.expert_ffn));
  else
    s += " · " + printf_text(tr(b.ffn_kind == core::FfnKind::Gated ? Str::cdemo_block_ffn_gated : Str::cdemo_block_ffn_classic, l),
                             static_cast<long long>(b.d_ff));
  return s;
}

// The heat map as text: up to 16 heads (rows) × 64 position buckets (max within a bucket).
std::string heat_text(const ref::HeatMap& h, Lang l) {
  if (h.probs == nullptr || h.heads == 0) return "";
  const char* shades = " .:-=+*#%@";
  const i64 cols = std::min<i64>(64, h.positions), rows = std::min<i64>(16, h.heads);
  std::string out = printf_text(tr(rows < h.heads ? Str::cdemo_heat_first16 : Str::cdemo_heat, l), static_cast<long long>(h.layer),
                                static_cast<long long>(h.query_pos), static_cast<long long>(h.heads),
                                static_cast<long long>(h.positions)) +
                    "\n";
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
std::string layers_text(const ref::DemoPlan& p, Lang l) {
  if (p.layers.size() < 2) return printf_text(tr(Str::cdemo_layer, l), static_cast<long long>(p.layer));
  return printf_text(tr(Str::cdemo_layers, l), layer_list(p.layers, l).c_str());
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

std::string trace_text(const ref::StateTrace& t, Lang l) {
  const auto pts = trace_points(t);
  if (t.layer < 0 || pts.empty()) return "";
  std::string o = printf_text(tr(Str::cdemo_trace, l), static_cast<long long>(t.layer), t.mamba ? "Mamba-2" : "Gated DeltaNet",
                              static_cast<long long>(t.heads)) +
                  "\n";
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts.size() > 12 && i == 4) o += "  …\n";
    if (pts.size() > 12 && i >= 4 && i + 8 < pts.size()) continue;
    o += "  " + printf_text(tr(Str::cdemo_trace_point, l), core::pad_left(std::to_string(pts[i].pos), 6).c_str(),
                            core::fixed(pts[i].mean, 4).c_str(), core::fixed(pts[i].max, 4).c_str()) +
         "\n";
  }
  return o;
}

// A row of a measured-versus-estimated table: the label in 36 columns, then the two counts
// right-aligned in 14 and 15 ("-" for no estimate). Widths are display columns.
std::string memory_row(const std::string& what, i64 a, i64 e) {
  return "  " + core::pad_right(what, 36) + core::pad_left(core::with_commas(a), 14) +
         core::pad_left(e >= 0 ? core::with_commas(e) : "-", 15) + "\n";
}

// The training step beside the core's figures (ref/train.hpp), or nothing when none ran.
std::string train_text(const DemoResults& r, const ref::DemoSettings& s, Lang l) {
  if (!r.train) return "";
  const ref::TrainMemory& m = r.train->memory;
  const ref::TrainSettings t = s.train();
  const std::string trained =
      t.lora_rank > 0 ? printf_text(tr(Str::demo_train_lora, l), static_cast<long long>(t.lora_rank),
                                    core::flags_text(*ref::find_demo_field("lora_targets"), t.lora_targets).c_str())
                      : std::string(tr(Str::cdemo_train_full, l));
  std::string o = "\n  " +
                  printf_text(tr(Str::cdemo_train_title, l), static_cast<long long>(r.train_layer),
                              static_cast<long long>(t.micro_batch), static_cast<long long>(t.seq), trained.c_str(),
                              std::string(core::to_string(t.recompute)).c_str(), core::fixed(r.train->ms, 1).c_str()) +
                  "\n";
  o += "  " + core::pad_right("", 36) + core::pad_left(tr(Str::demo_col_measured, l), 14) +
       core::pad_left(tr(Str::demo_col_estimated, l), 15) + "\n";
  auto row = [&](Str what, i64 a, i64 e, const char* indent = "") { o += memory_row(indent + std::string(tr(what, l)), a, e); };
  row(Str::cdemo_train_weights, m.weights_measured, m.weights_estimated);
  if (m.adapters_estimated > 0 || m.adapters_measured > 0) row(Str::demo_train_adapters, m.adapters_measured, m.adapters_estimated);
  row(Str::demo_train_saved, m.saved_measured, m.saved_estimated);
  if (m.recompute_estimated > 0 || m.recompute_measured > 0)
    row(Str::cdemo_train_rebuilt, m.recompute_measured, m.recompute_estimated, "  ");
  row(Str::demo_train_grads, m.gradients_measured, m.gradients_estimated);
  row(Str::demo_train_optimizer, m.optimizer_measured, m.optimizer_estimated);
  row(Str::demo_train_working, m.working_measured, -1);
  row(Str::demo_train_peak, m.peak_measured, m.formula_total);
  o += "  " + printf_text(tr(Str::cdemo_train_loss, l), num(r.train->loss_before).c_str(), num(r.train->loss_after).c_str()) + "\n";
  for (const auto& n : r.train->notes) o += "  - " + core::message_in(n, l) + "\n";
  return o;
}

std::string text_report(const ref::DemoPlan& p, const DemoResults& r, const ref::DemoSettings& s,
                        const ref::HeatMap& heat, const ref::StateTrace& trace, Lang l) {
  std::string o;
  const std::string name = p.model.name.empty() ? std::string(family_id(p.model.family)) : p.model.name;
  o += printf_text(tr(p.moe ? Str::cdemo_title_moe : Str::cdemo_title, l), name.c_str(), layers_text(p, l).c_str(),
                   ref::scaling_text(p, l).c_str()) +
       "\n";
  o += "  " + printf_text(tr(Str::cdemo_block, l), block_summary(p.block, p.moe, l).c_str()) + "\n";
  o += "  " + printf_text(tr(Str::cdemo_setup, l), static_cast<long long>(s.prompt), static_cast<long long>(s.tokens),
                          r.kernel.c_str(), r.isa.c_str()) +
       "\n\n";
  // The phases: the label in 8 columns, then time, time per token and GFLOP/s right-aligned in 11, 11 and 10.
  auto phase = [&](Str what) { return "  " + core::pad_right(tr(what, l), 8); };
  o += phase(Str::demo_col_phase) + core::pad_left(tr(Str::cdemo_col_time, l), 11) + core::pad_left("ms/token", 11) +
       core::pad_left("GFLOP/s", 10) + "\n";
  o += phase(Str::demo_weights) + core::pad_left(core::fixed(r.init_ms, 1), 11) + "  " + tr(Str::cdemo_seeded_fill, l) + "\n";
  o += phase(Str::demo_prefill) + core::pad_left(core::fixed(r.prefill_ms, 1), 11) +
       core::pad_left(core::fixed(r.prefill_ms_per_token, 3), 11) + core::pad_left(core::fixed(r.prefill_gflops, 1), 10) + "\n";
  o += phase(Str::demo_decode) + core::pad_left(core::fixed(r.decode_ms, 1), 11) +
       core::pad_left(core::fixed(r.decode_ms_per_token, 3), 11) + core::pad_left(core::fixed(r.decode_gflops, 1), 10) + "   " +
       printf_text(tr(Str::cdemo_decode_read, l), core::fixed(r.decode_gbps, 1).c_str()) + "\n\n";
  o += "  " +
       printf_text(tr(Str::cdemo_whole_model, l), core::fixed(r.model_flops_ratio_decode, 1).c_str(),
                   core::fixed(r.model_prefill_ms_per_token, 1).c_str(), core::fixed(r.model_decode_ms_per_token, 1).c_str(),
                   core::fixed(r.model_decode_ms_per_token > 0 ? 1000.0 / r.model_decode_ms_per_token : 0.0, 2).c_str()) +
       "\n\n";
  const ref::MemoryComparison& m = r.memory;
  // The column heads end where the counts end (column 52 and 67), at least 3 columns after the
  // title: English's title is always wider, so its heads follow it ("…, chunk 8)   measured      estimated").
  const std::string measured = tr(Str::demo_col_measured, l), estimated = tr(Str::demo_col_estimated, l);
  const std::string title = printf_text(tr(Str::cdemo_memory, l), static_cast<long long>(m.batch),
                                        static_cast<long long>(m.context), static_cast<long long>(m.chunk));
  const size_t title_w = core::display_width(title);
  o += "  " + title + core::pad_left(measured, std::max(3 + core::display_width(measured), title_w < 50 ? 50 - title_w : 0)) +
       core::pad_left(estimated, 15) + "\n";
  auto row = [&](Str what, i64 a, i64 e, const char* indent = "") { o += memory_row(indent + std::string(tr(what, l)), a, e); };
  row(Str::demo_weights, m.weights_measured, m.weights_estimated);
  row(Str::demo_kv, m.kv_measured, m.kv_estimated);
  if (m.state_measured > 0 || m.state_estimated > 0) row(Str::demo_state, m.state_measured, m.state_estimated);
  if (m.indexer_measured > 0 || m.indexer_estimated > 0) row(Str::demo_indexer, m.indexer_measured, m.indexer_estimated);
  row(Str::cdemo_activations, m.activations_measured, m.activations_estimated);
  if (m.attention_estimated > 0) row(Str::cdemo_attn_live, m.attention_measured, m.attention_estimated, "  ");
  if (m.linear_estimated > 0) row(Str::cdemo_linear_live, m.linear_measured, m.linear_estimated, "  ");
  if (m.mamba_estimated > 0) row(Str::cdemo_mamba_live, m.mamba_measured, m.mamba_estimated, "  ");
  if (m.conv_estimated > 0) row(Str::cdemo_conv_live, m.conv_measured, m.conv_estimated, "  ");
  row(Str::cdemo_ffn_live, m.ffn_measured, m.ffn_estimated, "  ");
  row(Str::cdemo_scratch, m.scratch_measured, -1);
  row(Str::demo_peak, m.peak_measured, m.peak_estimated);
  if (m.by_kind.size() > 1 || (!m.by_kind.empty() && m.by_kind[0].state_estimated > 0)) {
    o += "  " + core::pad_right(tr(Str::cdemo_by_kind, l), 38) + core::pad_left(measured, 8) + core::pad_left(estimated, 15) + "\n";
    for (const auto& k : m.by_kind) {
      std::vector<i64> model_layers;
      for (i64 bl : k.layers) {
        const auto i = static_cast<size_t>(bl);
        model_layers.push_back(i < p.layers.size() ? p.layers[i] : bl);
      }
      o += "  " + printf_text(tr(Str::cdemo_kind_layers, l), kind_text(k.kind, l).c_str(), layer_list(model_layers, l).c_str()) + "\n";
      if (k.kv_estimated > 0 || k.kv_measured > 0) row(Str::demo_kv, k.kv_measured, k.kv_estimated, "  ");
      if (k.state_estimated > 0 || k.state_measured > 0) row(Str::demo_state, k.state_measured, k.state_estimated, "  ");
      if (k.index_estimated > 0 || k.index_measured > 0) row(Str::demo_indexer, k.index_measured, k.index_estimated, "  ");
      if (k.kv_estimated + k.kv_measured + k.state_estimated + k.state_measured == 0)
        o += "    " + std::string(tr(k.kind.rfind("shared", 0) == 0 ? Str::cdemo_kind_shared : Str::cdemo_kind_no_cache, l)) + "\n";
    }
  }
  o += "  " +
       printf_text(tr(Str::cdemo_peak, l), gib(m.peak_measured).c_str(), gib(m.peak_estimated).c_str(),
                   core::fixed(m.peak_ratio(), 3).c_str(), core::fixed(m.activation_ratio(), 3).c_str()) +
       "\n";
  for (const auto& n : m.notes) o += "  - " + core::message_in(n, l) + "\n";
  o += train_text(r, s, l);
  o += "\n" + heat_text(heat, l);
  if (const std::string t = trace_text(trace, l); !t.empty()) o += "\n" + t;
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
  const Lang l = f.lang;
  if (f.preset.has_value() == f.config.has_value()) return usage_error(tr(Str::cdemo_need_model, l), l);
  ref::DemoSettings s;  // the defaults, then each flag given, in the table's order
  for (const auto& field : ref::demo_fields()) {
    auto given = field.flag.empty() ? f.settings.end() : f.settings.find(std::string(field.flag));
    if (given == f.settings.end()) continue;
    if (field.set(s, given->second))
      return usage_error(std::string(field.flag) + " " +
                             printf_text(tr(Str::issue_must_be_got, l), core::allowed_text(field, l).c_str(),
                                         ("\"" + given->second + "\"").c_str()),
                         l);
  }

  Output err;
  auto model = load_model_flag(f.preset, f.config, f.generic, read_file, err);
  if (!model) return err;
  const core::ModelConfig& cfg = model->config;
  Output o;
  for (const auto& n : model->notes) o.err += "llmsize: " + printf_text(tr(Str::clog_note, l), core::message_in(n, l).c_str()) + "\n";
  auto demo = ref::create_demo(cfg, s);
  if (!demo) {
    Output bad{"", o.err, 2};
    for (const auto& i : demo.issues()) {
      const ref::DemoField* df = ref::find_demo_field(i.field);
      const std::string flag = df && !df->flag.empty() ? std::string(df->flag) : i.field;
      bad.err += "llmsize: " + flag + ": " + core::message_in(i, l) + "\n";
    }
    return bad;
  }
  while (ref::demo_step(**demo, 250.0).phase != ref::DemoPhase::Done) {
  }
  const auto& r = ref::demo_results(**demo);
  const auto& p = ref::demo_plan(**demo);
  if (!r.train_issues.empty()) {  // the step could not start (the system refused its memory)
    Output bad{"", o.err, 2};
    for (const auto& i : r.train_issues)
      bad.err += "llmsize: " + printf_text(tr(Str::cdemo_train_issue, l), i.field.c_str(), core::message_in(i, l).c_str()) + "\n";
    return bad;
  }
  const ref::StateTrace trace = ref::demo_state_trace(**demo);
  o.out = f.json ? json_report(p, r, s, ref::demo_heat_map(**demo), trace)
                 : text_report(p, r, s, ref::demo_heat_map(**demo), trace, l);
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

std::string demo_flags_usage(Lang l) {
  std::string o;
  const ref::DemoSettings defaults;
  for (const auto& f : ref::demo_fields()) {
    if (f.flag.empty()) continue;
    const bool is_int = f.kind == core::FieldKind::Int;
    std::string head = "  " + std::string(f.flag) + (is_int ? " N" : f.kind == core::FieldKind::Flags ? " LIST" : " NAME");
    head.resize(std::max<size_t>(head.size() + 1, 18), ' ');
    const core::FieldText* t = core::field_text("demo", f.key, l);  // the help in the language (lang/zh_fields.inc)
    const std::string range = is_int ? std::to_string(f.min_int) + "-" + std::to_string(f.max_int) : core::allowed_text(f, l);
    o += head + printf_text(tr(Str::cdemo_usage_flag, l), std::string(t ? t->help : f.help).c_str(), range.c_str(),
                            f.get(defaults).c_str()) +
         "\n";
  }
  return o;
}

}  // namespace llmsize::cli
