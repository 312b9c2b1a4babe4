// Measured versus estimated bytes (see measure.hpp).
#include "measure.hpp"

#include <algorithm>

#include "core/format.hpp"
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
    return core::Issue{"n_layers", "compare_memory needs every layer of the config built"};
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
  n.push_back(m.weights_measured == m.weights_estimated && m.kv_measured == m.kv_estimated &&
                      m.state_measured == m.state_estimated && m.indexer_measured == m.indexer_estimated
                  ? "weights, KV cache, recurrent state and indexer keys: allocated tensor by tensor from the core's inventory, "
                    "KV rows and state shapes; equal to the byte"
                  : "weights, KV cache, recurrent state or indexer keys differ from the estimate: a bug (they are built from the "
                    "same lists)");
  n.push_back("activations: one arena holds the attention, FFN and head phases in turn (they are never alive together), "
              "beside the buffers alive for a whole call (hidden states x, normed x, score rows); measured = " +
              bytes_text(m.activations_measured));
  if (m.attention_estimated > 0)
    n.push_back("attention phase: + the o-projection output, its own (b·n × d) buffer before the residual add (" +
              bytes_text(4 * M * d) + "); + one score row per head for the query being attended (H × context, " +
              bytes_text(4 * H * dec.opt.context) + ") instead of a flash kernel's output tile" +
              (c.mla.enabled ? "; MLA runs absorbed: queries and outputs live in the latent space (2 × b·n × H × kv_lora), "
                               "keys and values are never expanded per head"
                             : ""));
  if (c.mla.has_indexer()) {
    const auto& a = c.mla;
    n.push_back("indexer keys (DeepSeek Sparse Attention): per token and layer " + std::to_string(a.index_dim) +
                " fp8 e4m3 codes and one fp32 scale per 128 of them (" + std::to_string((a.index_dim + 127) / 128) +
                "), written by the indexer and read back for every query's scores; measured = " +
                bytes_text(m.indexer_measured));
    n.push_back("indexer phase: its queries (b·n × index_n_heads × index_head_dim), the fp32 score of every visible key and "
                "the int32 top-" + std::to_string(a.index_topk) + " selection per query, as the estimate counts them, + the "
                "key being quantized and the per-head weights (b·n × (index_head_dim + index_n_heads)), which it does not");
  }
  n.push_back(std::string("FFN phase: act(gate)·up is written over gate (the estimate counts a third b·n × f buffer); "
                          "+ the FFN output (b·n × d) before the residual add") +
              (any_moe ? "; MoE: experts run one at a time over their gathered rows (at most b·n rows, fp32 router "
                         "scores and int32 routing tables), where the estimate follows vLLM's fused kernel with "
                         "b·n·top_k expanded rows"
                       : ""));
  if (any_linear) {
    const auto& a = c.linear;
    n.push_back("recurrent state (Gated DeltaNet layers): per sequence the convolution's last " + std::to_string(a.conv_kernel) +
                " inputs of q‖k‖v (" + std::to_string(a.conv_dim()) + " channels) and one " + std::to_string(a.k_dim) +
                " × " + std::to_string(a.v_dim) + " state per value head (" + std::to_string(a.v_heads) +
                "), fp32 here; measured = " + bytes_text(m.state_measured));
    n.push_back("linear-attention phase: the projections q‖k‖v‖z and b‖a, the convolution's output and the recurrence's "
                "output (b·n rows each), the out_proj output (b·n × d) and, for a prefill, a chunk's new values v' and "
                "64-wide triangular matrix; the reference runs 64-token chunks and updates the state in place after each, "
                "where the estimate follows fla's chunked kernel, which keeps every chunk's state "
                "(b·⌈n/64⌉·Hv·k_dim·v_dim): measured = " +
                bytes_text(m.linear_measured) + ", estimated = " + bytes_text(m.linear_estimated));
  }
  if (any_mamba && c.mamba1.enabled()) {
    const auto& a = c.mamba1;
    n.push_back("recurrent state (Mamba-1 layers): per sequence the convolution's last " + std::to_string(a.conv_kernel) +
                " inputs and one " + std::to_string(a.state) + "-value state per channel (" +
                std::to_string(c.mamba1_inner()) + " channels), fp32 here");
    n.push_back("Mamba-1 phase: in_proj's x‖gate, the convolution's output, x_proj's dt‖B‖C, the time steps and the "
                "scan's output (b·n rows each) + the out_proj output (b·n × d); the scan updates the state in place token "
                "by token: measured = " + bytes_text(m.mamba_measured) + ", estimated = " + bytes_text(m.mamba_estimated));
  }
  if ((any_mamba || any_beside) && c.mamba.enabled()) {
    const auto& a = c.mamba;
    n.push_back("recurrent state (Mamba-2 layers): per sequence the convolution's last " + std::to_string(a.conv_kernel) +
                " inputs of x‖B‖C (" + std::to_string(a.conv_dim()) + " channels) and one " + std::to_string(a.head_dim) +
                " × " + std::to_string(a.state) + " state per head (" + std::to_string(a.heads) + "), fp32 here");
  }
  if (any_beside)
    n.push_back("attention beside Mamba-2 (Falcon-H1): the mixer runs first, then attention; the mixer's output (b·n × d) "
                "waits in the first buffer of both phases, the attention writes its own, and the measured phase is the larger "
                "of the two: measured = " + bytes_text(m.attention_measured) + ". The estimate follows vLLM's "
                "FalconH1ParallelHybrid, attention first: the larger branch, each with its own multiplied copy of the input "
                "(b·n × d), which the reference scales in place (attention) or folds into in_proj's multipliers (Mamba-2), and "
                "mamba_chunk_scan_combined's state per chunk, where the reference updates the state in place: estimated = " + bytes_text(m.attention_estimated));
  if (any_mamba && c.mamba.enabled()) {
    n.push_back("Mamba-2 phase: in_proj's z‖xBC‖dt, the convolution's output, the scan's output and its cumulative decays "
                "(b·n rows each) + the out_proj output (b·n × d); the reference updates the state in place after each "
                "chunk, where the estimate follows mamba_chunk_scan_combined, which keeps every chunk's state: measured = " +
                bytes_text(m.mamba_measured) + ", estimated = " + bytes_text(m.mamba_estimated));
  }
  if (any_conv)
    n.push_back("short convolutions (LFM2): the state is the last " + std::to_string(c.short_conv) + " values of B·x (" +
                std::to_string(c.d_model) + " channels) per sequence; the phase holds in_proj's B‖C‖x and C·conv (b·n rows) + "
                "the out_proj output, where the estimate also counts B·x and the convolution's output as their own "
                "buffers: measured = " + bytes_text(m.conv_measured) + ", estimated = " + bytes_text(m.conv_estimated));
  if (const i64 w = dec.ws.shared_win.bytes(); w > 0)
    n.push_back("KV-shared layers (Gemma 4): no keys or values of their own; a shared sliding layer reads those of its source "
                "layer for the call's window (HF's shared_kv_states: the forward pass's full-length states), kept for the "
                "whole call, b × min(context, window − 1 + n) × 2·K·hd = " + bytes_text(w) + ", which the estimate does not count");
  if (const i64 u = dec.ws.ple_in.bytes() + dec.ws.ple_ctx.bytes(); u > 0)
    n.push_back("per-layer inputs (Gemma 4): b·n × layers built × hidden_size_per_layer_input, kept for the whole call" +
                std::string(dec.ws.ple_ctx.bytes() > 0 ? ", and with the embeddings their projection for every layer of the model "
                                                         "(b·n × num_hidden_layers × hidden_size_per_layer_input)"
                                                       : "") +
                " = " + bytes_text(u) + ", which the estimate does not count; each layer's gate output (b·n × "
                "hidden_size_per_layer_input) lives in its FFN phase");
  n.push_back("scratch, not in the estimate: the heat map's copy of the last attention probabilities" +
              std::string(c.mla.enabled ? " and one head's transposed key up-projection (MLA)" : "") + " = " +
              bytes_text(m.scratch_measured));
  n.push_back("not counted on either side: the GEMM library's per-thread packing buffers (a few MiB, reused) "
              "and the C++ heap's own bookkeeping");
  return m;
}

}  // namespace llmsize::ref
