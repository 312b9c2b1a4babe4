// Measured versus estimated bytes (see measure.hpp).
#include "measure.hpp"

#include <algorithm>

#include "core/format.hpp"
#include "core/issue.hpp"
#include "core/temporaries.hpp"
#include "core/weights.hpp"

namespace llmsize::ref {

namespace {

// "2,097,152 B (2.00 MiB)": binary units, as the counter measures.
std::string bytes_text(i64 b) {
  const double v = static_cast<double>(b);
  std::string unit = v >= 1073741824.0 ? core::fixed(v / 1073741824.0, 2) + " GiB"
                     : v >= 1048576.0  ? core::fixed(v / 1048576.0, 2) + " MiB"
                                       : core::fixed(v / 1024.0, 1) + " KiB";
  return core::with_commas(b) + " B (" + unit + ")";
}

}  // namespace

double MemoryComparison::activation_ratio() const {
  return activations_estimated > 0 ? static_cast<double>(activations_measured) / static_cast<double>(activations_estimated) : 0.0;
}
double MemoryComparison::peak_ratio() const {
  return peak_estimated > 0 ? static_cast<double>(peak_measured) / static_cast<double>(peak_estimated) : 0.0;
}

core::Result<MemoryComparison> compare_memory(const Decoder& dec) {
  const core::ModelConfig& c = dec.cfg;
  if (static_cast<i64>(dec.layers.size()) != c.n_layers)
    return core::issue_row("n_layers", core::Str::ref_measure_all_layers);
  MemoryComparison m;
  m.batch = dec.opt.batch;
  m.context = dec.opt.context;
  m.chunk = dec.opt.max_tokens;
  const MemStats& st = dec.mem.stats();

  // Weights: fp32 bytes of the inventory (layers only when the decoder has no globals).
  m.weights_measured = st[Mem::Weights];
  if (dec.opt.globals) {
    auto w = core::weights_bytes_fp32(dec.inv);
    if (!w) return w.issues();
    m.weights_estimated = *w;
  } else {
    core::Workload work;
    work.weights = core::WeightFormat::F32;
    work.dtype = core::ComputeDtype::F32;
    auto rep = core::weights_report(c, dec.inv, work);
    if (!rep) return rep.issues();
    for (const auto& row : rep->rows)
      if (row.kind >= 0) m.weights_estimated += row.bytes;
  }

  // KV cache: fp32 rows, every layer of the plan, batch × context (windows capped).
  m.kv_measured = st[Mem::KvCache];
  const core::Checked kv = dec.plan.kv_cache_bytes(dec.opt.context, dec.opt.batch);
  if (!kv.ok()) return core::memory_overflow("context");
  m.kv_estimated = kv.value();
  // Recurrent state: the plan's bytes per sequence (built at 4-byte activations) × batch.
  m.state_measured = st[Mem::State];
  const core::Checked state = core::Checked(dec.plan.state_bytes_per_sequence()) * dec.opt.batch;
  if (!state.ok()) return core::memory_overflow("batch");
  m.state_estimated = state.value();
  // Indexer keys: the plan's bytes per token (fp8 row + scales) × layers × context × batch.
  m.indexer_measured = st[Mem::Indexer];
  const core::Checked idx = dec.plan.indexer_cache_bytes_gpu(dec.plan.all(), dec.opt.context, dec.opt.batch);
  if (!idx.ok()) return core::memory_overflow("context");
  m.indexer_estimated = idx.value();

  // Per attention kind: the buffers of its layers beside the plan's bytes per token × tokens kept
  // (the window cap) × batch, and its state per sequence × batch.
  for (size_t ci = 0; ci < dec.plan.caches.size(); ++ci) {
    const core::CacheShape& cs = dec.plan.caches[ci];
    KindMemory k;
    k.kind = std::string(core::to_string(cs.kind));
    if (cs.kind == core::AttnKind::Sliding) k.kind += " " + std::to_string(cs.window);
    if (cs.kind == core::AttnKind::Shared) k.kind += cs.window > 0 ? " sliding " + std::to_string(cs.window) : " full";
    for (size_t l = 0; l < dec.kv.size(); ++l) {
      if (dec.plan.layers[l].cache != static_cast<int>(ci)) continue;
      const KvCache& cache = dec.kv[l];
      k.layers.push_back(static_cast<i64>(l));
      k.kv_measured += cache.k.bytes() + cache.v.bytes();
      k.state_measured += cache.conv.bytes() + cache.ssm.bytes();
      k.index_measured += cache.idx.bytes();
    }
    const core::Checked n = core::Checked(static_cast<i64>(k.layers.size())) * dec.opt.batch;
    const i64 kept = cs.tokens_kept(dec.opt.context);
    const core::Checked kve = n * cs.bytes_per_token * kept, ste = n * cs.state_bytes, ixe = n * cs.index_bytes_per_token * kept;
    if (!kve.ok() || !ste.ok() || !ixe.ok()) return core::memory_overflow("context");
    k.kv_estimated = kve.value();
    k.state_estimated = ste.value();
    k.index_estimated = ixe.value();
    m.by_kind.push_back(std::move(k));
  }

  // Activations of one layer, per phase.
  core::TempParams tp;
  tp.batch = dec.opt.batch;
  tp.chunk = dec.opt.max_tokens;
  tp.context = dec.opt.context;
  tp.dtype_bytes = 4;
  tp.flash = true;  // the decoder attends one query row at a time: no b·H·c·T score matrix
  tp.logits_positions = 1;
  bool any_dense = false, any_moe = false, any_linear = false, any_mamba = false, any_conv = false;
  bool any_beside = false;  // Falcon-H1: attention and Mamba-2 in one layer, measured and estimated as its attention phase
  for (const auto& L : dec.layers) {
    (L.moe ? any_moe : any_dense) = true;
    any_linear = any_linear || L.linear;
    any_mamba = any_mamba || (L.mamba && !L.attn_mamba) || L.mamba1;
    any_beside = any_beside || L.attn_mamba;
    any_conv = any_conv || L.short_conv;
  }
  for (int moe = 0; moe < 2; ++moe) {
    if (!(moe ? any_moe : any_dense)) continue;
    for (const core::CacheShape& cache : dec.plan.caches) {  // every cache shape of the plan
      auto t = core::layer_temporaries(c, cache, tp, moe == 1);
      if (!t) return t.issues();
      i64& mixer = cache.kind == core::AttnKind::Linear                                          ? m.linear_estimated
                   : cache.kind == core::AttnKind::Mamba || cache.kind == core::AttnKind::Mamba1 ? m.mamba_estimated
                   : cache.kind == core::AttnKind::Conv  ? m.conv_estimated
                                                         : m.attention_estimated;
      mixer = std::max(mixer, t->attention);
      m.ffn_estimated = std::max(m.ffn_estimated, t->ffn);
      if (dec.opt.globals) m.logits_estimated = t->logits;
    }
  }
  m.activations_estimated = std::max({m.attention_estimated, m.ffn_estimated, m.logits_estimated, m.linear_estimated,
                                      m.mamba_estimated, m.conv_estimated});
  m.activations_measured = st[Mem::Activations];
  const i64 persistent = m.activations_measured - dec.ws.arena.bytes();
  // A Falcon-H1 layer runs its Mamba-2 phase, then its attention phase: its mixer's peak is the larger.
  m.attention_measured = persistent + (any_beside ? std::max(dec.ws.phase_bytes[0], dec.ws.phase_bytes[4]) : dec.ws.phase_bytes[0]);
  m.ffn_measured = persistent + dec.ws.phase_bytes[1];
  if (dec.opt.globals) m.logits_measured = persistent + dec.ws.phase_bytes[2];
  if (any_linear) m.linear_measured = persistent + dec.ws.phase_bytes[3];
  if (any_mamba) m.mamba_measured = persistent + dec.ws.phase_bytes[4];
  if (any_conv) m.conv_measured = persistent + dec.ws.phase_bytes[5];
  m.scratch_measured = st[Mem::Scratch];
  m.peak_measured = st.peak_total;
  m.peak_estimated = m.weights_estimated + m.kv_estimated + m.state_estimated + m.indexer_estimated + m.activations_estimated;

  // Why the figures differ: what this decoder holds that the estimate does not, and back.
  const i64 M = dec.opt.batch * dec.opt.max_tokens, d = c.d_model, H = c.n_heads;
  auto& n = m.notes;
  using core::issue_row;
  using core::Str;
  const std::string bt_act = bytes_text(m.activations_measured);
  n.push_back(issue_row("demo", m.weights_measured == m.weights_estimated && m.kv_measured == m.kv_estimated &&
                                        m.state_measured == m.state_estimated && m.indexer_measured == m.indexer_estimated
                                    ? Str::demo_note_tables_equal
                                    : Str::demo_note_tables_differ));
  n.push_back(issue_row("demo", Str::demo_note_activations, bt_act));
  if (m.attention_estimated > 0)
    n.push_back(issue_row("demo", Str::demo_note_attention, bytes_text(4 * M * d), bytes_text(4 * H * dec.opt.context),
                          c.mla.enabled ? core::RowArg(Str::demo_note_mla_absorbed) : core::RowArg("")));
  if (c.mla.has_indexer()) {
    const auto& a = c.mla;
    n.push_back(issue_row("demo", Str::demo_note_indexer_keys, std::to_string(a.index_dim), std::to_string((a.index_dim + 127) / 128),
                          bytes_text(m.indexer_measured)));
    n.push_back(issue_row("demo", Str::demo_note_indexer_phase, std::to_string(a.index_topk)));
  }
  n.push_back(issue_row("demo", Str::demo_note_ffn, any_moe ? core::RowArg(Str::demo_note_ffn_moe) : core::RowArg("")));
  if (any_linear) {
    const auto& a = c.linear;
    n.push_back(issue_row("demo", Str::demo_note_linear_state, std::to_string(a.conv_kernel), std::to_string(a.conv_dim()),
                          std::to_string(a.k_dim), std::to_string(a.v_dim), std::to_string(a.v_heads), bytes_text(m.state_measured)));
    n.push_back(issue_row("demo", Str::demo_note_linear_phase, bytes_text(m.linear_measured), bytes_text(m.linear_estimated)));
  }
  if (any_mamba && c.mamba1.enabled()) {
    const auto& a = c.mamba1;
    n.push_back(issue_row("demo", Str::demo_note_mamba1_state, std::to_string(a.conv_kernel), std::to_string(a.state),
                          std::to_string(c.mamba1_inner())));
    n.push_back(issue_row("demo", Str::demo_note_mamba1_phase, bytes_text(m.mamba_measured), bytes_text(m.mamba_estimated)));
  }
  if ((any_mamba || any_beside) && c.mamba.enabled()) {
    const auto& a = c.mamba;
    n.push_back(issue_row("demo", Str::demo_note_mamba2_state, std::to_string(a.conv_kernel), std::to_string(a.conv_dim()),
                          std::to_string(a.head_dim), std::to_string(a.state), std::to_string(a.heads)));
  }
  if (any_beside)
    n.push_back(issue_row("demo", Str::demo_note_beside, bytes_text(m.attention_measured), bytes_text(m.attention_estimated)));
  if (any_mamba && c.mamba.enabled())
    n.push_back(issue_row("demo", Str::demo_note_mamba2_phase, bytes_text(m.mamba_measured), bytes_text(m.mamba_estimated)));
  if (any_conv)
    n.push_back(issue_row("demo", Str::demo_note_conv, std::to_string(c.short_conv), std::to_string(c.d_model),
                          bytes_text(m.conv_measured), bytes_text(m.conv_estimated)));
  if (const i64 w = dec.ws.shared_win.bytes(); w > 0) n.push_back(issue_row("demo", Str::demo_note_kv_shared, bytes_text(w)));
  if (const i64 u = dec.ws.ple_in.bytes() + dec.ws.ple_ctx.bytes(); u > 0)
    n.push_back(issue_row("demo", Str::demo_note_ple,
                          dec.ws.ple_ctx.bytes() > 0 ? core::RowArg(Str::demo_note_ple_ctx) : core::RowArg(""), bytes_text(u)));
  n.push_back(issue_row("demo", Str::demo_note_scratch, c.mla.enabled ? core::RowArg(Str::demo_note_scratch_mla) : core::RowArg(""),
                        bytes_text(m.scratch_measured)));
  n.push_back(issue_row("demo", Str::demo_note_uncounted));
  return m;
}

}  // namespace llmsize::ref
