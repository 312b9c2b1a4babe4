// inference_memory(): the most loaded GPU's weights, KV cache, temporaries and reserve, the
// three phases, fit, max context, max concurrent sequences and minimum GPU count (see
// inference_memory.hpp; the per-part formulas live in weights.cpp, layer_plan.cpp and
// temporaries.cpp).
#include "inference_memory.hpp"

#include "engine_llamacpp.hpp"

#include <algorithm>
#include <cmath>

namespace llmsize::core {

namespace {
constexpr i64 kMiB = i64{1} << 20;


// One evaluation at (context s, batch b): the most loaded pipeline stage.
struct At {
  i64 total = 0;   // prefill peak
  i64 decode = 0;
  i64 stage = 0, first = 0, layers = 0;
  i64 capacity = 0;  // of this stage's GPU
  i64 weights = 0, vision = 0, kv = 0, kv_token = 0, state = 0, indexer = 0;
  i64 chunk = 0, chunk_batch = 0, chunk_keys = 0;  // one prefill step: its prompt tokens, sequences, keys
  Temporaries prefill, decode_temps;
  i64 compute_buffer = 0;  // llama.cpp: the device's modelled compute buffer, which stands for both phases' temporaries
};

struct Model {
  const ModelConfig& cfg;
  const LayerPlan& plan;
  const Workload& w;
  placement::Table weights;
  i64 overhead = 0;
  i64 vision = 0;  // per GPU, on the first pipeline stage
  mutable std::vector<Temporaries> attn_pre, attn_dec;  // scratch of at(): per cache shape
  const Inventory* inv = nullptr;  // for llama.cpp's device split
  const Gpu* gpu = nullptr;
  std::vector<i64> capacity;  // usable bytes of each stage's GPU
  const FileWeights* file = nullptr;  // a model file's bytes as the weights

  // Temporaries of the layers of `r`: attention of the largest cache shape the stage holds,
  // the FFN part of the FFN kinds it holds, the logits only on the last stage.
  Temporaries of_stage(const std::vector<Temporaries>& attn, const Temporaries& dense, const Temporaries& moe,
                       StageRange r, bool last) const {
    Temporaries t;
    for (size_t k = 0; k < attn.size(); ++k)
      if (plan.layers_in(k, r) > 0) t.attention = std::max(t.attention, attn[k].attention);
    const i64 moe_n = plan.moe_in(r), dense_n = plan.dense_in(r);
    t.ffn = std::max(dense_n > 0 ? dense.ffn : 0, moe_n > 0 ? moe.ffn : 0);
    t.logits = last ? dense.logits : 0;
    t.peak = std::max({t.attention, t.ffn, t.logits});
    return t;
  }

  // Prompt tokens in one prefill step: --prefill-chunk, else the whole prompt; under llama.cpp at
  // most its n_ubatch (min(n_ctx, n_ubatch), the reserved graph's tokens).
  i64 prefill_step(i64 s, const LlamaCppMemory* lm) const {
    i64 c = w.prefill_chunk > 0 ? std::min(w.prefill_chunk, s) : s;
    if (lm) c = std::min({w.prefill_chunk > 0 ? w.prefill_chunk : lm->n_ubatch, lm->n_ubatch, lm->n_ctx});
    return c;
  }

  // Temporaries of a dense layer per cache shape, and of an MoE layer (FFN part), for one step.
  bool temporaries(const TempParams& p, std::vector<Temporaries>& attn, Temporaries& moe) const {
    attn.clear();
    for (size_t k = 0; k < plan.caches.size(); ++k) {
      const CacheShape& c = plan.caches[k];
      // Shapes that differ only in kind or window (full, sliding) hold the same chunk's q, k, v: once.
      size_t same = 0;
      auto mixer = [](const CacheShape& x) { return keeps_tokens(x.kind) ? AttnKind::Full : x.kind; };
      while (same < k && !(mixer(plan.caches[same]) == mixer(c) && plan.caches[same].heads == c.heads &&
                           plan.caches[same].k_dim == c.k_dim && plan.caches[same].v_dim == c.v_dim))
        ++same;
      if (same < k) {
        attn.push_back(attn[same]);
        continue;
      }
      auto t = layer_temporaries(cfg, c, p, false);
      if (!t) return false;
      attn.push_back(*t);
    }
    if (cfg.is_moe() && !plan.caches.empty()) {
      auto t = layer_temporaries(cfg, plan.caches.front(), p, true);
      if (!t) return false;
      moe = *t;
    }
    return !attn.empty();
  }

  std::optional<At> at(i64 s, i64 b) const {
    const i64 e = dtype_bytes(w.dtype);
    // Under llama.cpp the cache is what llama-server allocates for -c s·b (engine_llamacpp.hpp:
    // n_ctx padding, slots and streams, the SWA cache's cells, f32 recurrent cells, DeepSeek-V3.2's
    // indexer keys in type_k within its DSA cache); a model it does not keep (refused) keeps the
    // plan's figures. Each pipeline stage is one of
    // its devices (--split-mode layer): the layers --tensor-split gives it, its model buffer (not
    // the token embedding, mapped on the CPU) and its layers' cache.
    std::optional<LlamaCppMemory> lm;
    std::optional<LlamaCppBuffers> dev;
    if (w.runtime == Runtime::LlamaCpp && w.tp == 1 && (Checked(s) * b).ok()) {
      Workload x = w;
      x.seq = s * b;
      if (auto m = llamacpp_memory(cfg, plan, x)) {
        lm = std::move(m).value();
        if (inv && gpu)
          if (auto d = llamacpp_buffers(cfg, *inv, *lm, x, *gpu, file)) dev = std::move(d).value();
      }
    }
    const i64 chunk = prefill_step(s, lm ? &*lm : nullptr);
    // llama.cpp decodes a prompt in physical batches of n_ubatch tokens (llama_context::decode's
    // ubatches), each attending over the whole cache (its worst-case graph, graph_reserve: n_kv =
    // the cells of a stream), so one step holds one ubatch, not the prompt of every slot.
    const TempParams pre = lm ? TempParams{1, chunk, lm->unified ? lm->n_ctx : lm->n_ctx_seq, e, w.flash_attention, w.tp, w.ep,
                                           w.logits == LogitsMode::All ? chunk : 1}
                              : TempParams{b, chunk, s, e, w.flash_attention, w.tp, w.ep, w.logits == LogitsMode::All ? chunk : 1};
    const TempParams dec{b, 1, s, e, w.flash_attention, w.tp, w.ep, 1};
    Temporaries moe_pre, moe_dec;
    if (!temporaries(pre, attn_pre, moe_pre) || !temporaries(dec, attn_dec, moe_dec)) return std::nullopt;
    std::optional<At> best;
    for (i64 st = 0; st < w.pp; ++st) {
      StageRange r = stage_range(cfg.n_layers, w.pp, st);
      bool last = st == w.pp - 1;
      const LlamaCppDevice* device = dev ? &dev->devices[static_cast<size_t>(st)] : nullptr;
      if (device) {  // the trunk layers of the device (the nextn layers follow them)
        r = {std::min(device->first, cfg.n_layers), std::max<i64>(0, std::min(device->first + device->count, cfg.n_layers) -
                                                                       std::min(device->first, cfg.n_layers))};
        last = device->output;
      }
      At a;
      a.chunk = chunk;
      a.chunk_batch = pre.batch;
      a.chunk_keys = pre.context;
      a.stage = st;
      a.capacity = capacity[static_cast<size_t>(st)];
      a.first = r.first;
      a.layers = r.count;
      a.weights = device ? device->model_bytes : weights.stage(cfg, w.pp, st);
      a.vision = st == 0 ? vision : 0;
      a.kv_token = plan.kv_bytes_per_token_gpu(r);
      Checked kv = plan.kv_cache_bytes_gpu(r, s, b);
      Checked state = Checked(plan.state_bytes_gpu(r)) * b;
      if (device) {
        kv = Checked(device->cache_bytes);  // KV and recurrent state
        state = Checked(0);
      } else if (lm && w.pp == 1) {
        kv = Checked(lm->kv_bytes());
        state = Checked(lm->r_bytes + lm->s_bytes);
      }
      // llama.cpp's DSA cache holds the indexer's keys (in kv above).
      const Checked indexer = lm && lm->dsa && (device || w.pp == 1) ? Checked(0) : plan.indexer_cache_bytes_gpu(r, s, b);
      a.prefill = of_stage(attn_pre, attn_pre.front(), moe_pre, r, last);
      a.decode_temps = of_stage(attn_dec, attn_dec.front(), moe_dec, r, last);
      // llama.cpp reserves the device's compute buffer at start for its worst-case graph and keeps
      // it: where that buffer is modelled, it is the temporaries of every phase.
      if (device && dev->compute_on(*device)) {
        a.compute_buffer = dev->compute_of(*device);
        a.prefill = a.decode_temps = Temporaries{};
        a.prefill.peak = a.decode_temps.peak = a.compute_buffer;
      }
      // llama.cpp without a GPU: the host is its one device, and its buffers are the run's: the
      // mapped weights, the cache and state, and as temporaries the CPU's compute buffer with the
      // output buffer beside it (LlamaCppBuffers::host_bytes, part by part).
      if (dev && dev->no_gpu) {
        a.weights = dev->cpu_mapped_bytes;
        kv = Checked(dev->cpu_cache_bytes);
        state = Checked(0);
        a.compute_buffer = dev->host_compute_bytes;
        a.prefill = a.decode_temps = Temporaries{};
        a.prefill.peak = a.decode_temps.peak = dev->host_compute_bytes + dev->output_buffer_bytes;
      }
      const Checked base = Checked(a.weights) + a.vision + overhead + kv + state + indexer;
      const Checked total = base + a.prefill.peak, decode = base + a.decode_temps.peak;
      if (!total.ok() || !decode.ok()) return std::nullopt;
      a.kv = kv.value();
      a.state = state.value();
      a.indexer = indexer.value();
      a.total = total.value();
      a.decode = decode.value();
      // The stage with the least room left (the most loaded one on identical cards): where it
      // fits, every stage does.
      auto short_of = [](const At& x) { return std::max(x.total, x.decode) - x.capacity; };
      if (!best || short_of(a) > short_of(*best)) best = a;
    }
    return best;
  }
};

}  // namespace

Result<InferenceMemory> inference_memory(const ModelConfig& cfg, const Inventory& inv, const LayerPlan& plan,
                                         const Workload& w, const Gpu& gpu, FileInputs files) {
  const FileWeights* file = files.weights;
  if (auto issues = placement::check_parallel(cfg, w); !issues.empty()) return issues;
  InferenceMemory m;
  auto report = weights_report(cfg, inv, w, file);
  if (!report) return report.issues();
  m.weights = std::move(report).value();
  auto table = placement::build(cfg, inv, {w.tp, w.ep}, w.pp, [&](const Tensor& t, i64 layer) {
    return tensor_stored_bytes(cfg, w, inv, t, layer, file);
  }, file || is_gguf(w.weights));  // a file's and llama.cpp's mixes vary with the layer index
  if (!table) return memory_overflow();
  if (m.weights.other_bytes > 0) {  // a file's tensors no inventory tensor claims: with layer 0, on the first stage
    table->first = sat_add(table->first, m.weights.other_bytes);
    table->replica = sat_add(table->replica, m.weights.other_bytes);
  }

  // llama.cpp without a GPU (--llamacpp-no-gpu) opens no CUDA context: the GPU holds nothing.
  const bool no_gpu = w.llamacpp_on_host();
  m.reserve_bytes = w.reserve_mib >= 0 ? w.reserve_mib * (i64{1} << 20) : no_gpu ? 0 : runtime_reserve_default(w.runtime);
  m.comm_bytes = comm_workspace_bytes(w.tp * w.pp);
  m.overhead_bytes = m.reserve_bytes + m.comm_bytes;  // ≤ 2^44 + 2^28
  auto vision_r = vision_weights(cfg, inv, w);
  if (!vision_r) return vision_r.issues();
  VisionWeights vision_w = std::move(vision_r).value();
  if (files.projector_bytes >= 0) {  // an mmproj file: its bytes, whole, on the first GPU (mtmd's clip context)
    vision_w.bytes = files.projector_bytes;
    vision_w.bytes_gpu = files.projector_bytes;
  }
  const VisionWeights* vision = &vision_w;
  // Fit. vLLM may use gpu_memory_utilization of each GPU; unified memory its usable fraction;
  // llama.cpp's devices each their own card's (--devices).
  auto usable = [&](const Gpu& g) {
    double cap = static_cast<double>(g.usable_bytes());
    if (w.runtime == Runtime::Vllm) cap *= w.vllm_util();
    return static_cast<i64>(cap);
  };
  std::vector<i64> caps(static_cast<size_t>(w.pp), usable(gpu));
  for (size_t st = 0; st < w.devices.size() && st < caps.size(); ++st) {
    auto card = stage_gpu(w, static_cast<i64>(st));
    if (!card) return card.issues();
    caps[st] = usable(*card);
  }
  // Without a GPU the memory is the host's: --host-mem-gib where given (else the chosen device's
  // stands for it: a custom device with the machine's RAM, or a unified one).
  if (no_gpu && w.host_mem_gib > 0) caps.assign(caps.size(), w.host_mem_bytes());
  m.layer_weights_gpu.resize(static_cast<size_t>(cfg.n_layers));
  for (size_t l = 0; l < m.layer_weights_gpu.size(); ++l) m.layer_weights_gpu[l] = table->prefix[l + 1] - table->prefix[l];
  m.first_weights_gpu = table->first;
  m.last_weights_gpu = table->last;
  const Model model{cfg, plan, w, std::move(*table), m.overhead_bytes, vision->bytes_gpu, {}, {}, &inv, &gpu, std::move(caps), file};

  auto a = model.at(w.seq, w.batch);
  if (!a) return memory_overflow();
  m.chunk = a->chunk;
  m.chunk_batch = a->chunk_batch;
  m.chunk_keys = a->chunk_keys;
  m.stage = a->stage;
  m.stage_first = a->first;
  m.stage_layers = a->layers;
  m.weights_bytes = a->weights;
  m.vision_weights_bytes = a->vision;
  if (cfg.k_eq_v) {
    // The K projections of this stage's layers without v_proj, on one GPU (their K heads' share).
    auto kv = placement::build(cfg, inv, {w.tp, w.ep}, w.pp, [&](const Tensor& t, i64 layer) -> std::optional<i64> {
      if (t.role != Role::AttnK || layer < 0 || cfg.v_proj_at(layer) || cfg.kv_shared_at(layer)) return i64{0};
      return tensor_stored_bytes(cfg, w, inv, t, layer, file);
    }, true);
    if (!kv) return memory_overflow();
    m.k_as_v_bytes = kv->prefix[static_cast<size_t>(a->first + a->layers)] - kv->prefix[static_cast<size_t>(a->first)];
  }
  m.kv_bytes_per_token = plan.kv_bytes_per_token();
  m.kv_bytes_per_token_gpu = a->kv_token;
  m.kv_cache_bytes = a->kv;
  m.state_bytes_per_sequence = plan.state_bytes_per_sequence();
  m.state_bytes = a->state;
  m.indexer_bytes_per_token = plan.indexer_bytes_per_token();
  m.indexer_cache_bytes = a->indexer;
  m.prefill = a->prefill;
  m.decode = a->decode_temps;
  m.compute_buffer_bytes = a->compute_buffer;
  m.activation_bytes = a->prefill.peak;
  m.after_load_bytes = a->weights + a->vision + m.overhead_bytes;
  m.prefill_peak_bytes = a->total;
  m.decode_bytes = a->decode;
  m.total_bytes = std::max(a->total, a->decode);

  m.capacity_bytes = a->capacity;
  m.fits = m.total_bytes <= m.capacity_bytes;
  auto fits_at = [&](i64 s) {
    auto r = model.at(s, w.batch);
    return r && std::max(r->total, r->decode) <= r->capacity;
  };
  const i64 hi_limit = cfg.max_positions;
  if (fits_at(hi_limit)) {
    m.max_context = hi_limit;
    m.max_context_is_model_limit = true;
  } else if (fits_at(1)) {
    i64 lo = 1, hi = hi_limit;  // fits(lo), !fits(hi)
    while (hi - lo > 1) {
      const i64 mid = lo + (hi - lo) / 2;
      (fits_at(mid) ? lo : hi) = mid;
    }
    m.max_context = lo;
  }
  // Concurrent sequences at this context: one sequence's prefill temporaries at a time
  // (chunked prefill, as vLLM schedules), every sequence's KV and recurrent state resident.
  if (auto one = model.at(w.seq, 1); one && one->kv + one->state + one->indexer > 0) {
    const i64 per_seq = one->kv + one->state + one->indexer;
    const i64 avail = one->capacity - (one->total - per_seq);
    m.max_sequences = avail > 0 ? avail / per_seq : 0;
  }
  // Minimum GPUs: an ideal split of weights, KV, state and temporaries; reserve on every GPU.
  if (const Checked kv_all = plan.kv_cache_bytes(w.seq, w.batch) + Checked(plan.state_bytes_per_sequence()) * w.batch +
                             plan.indexer_cache_bytes_gpu(plan.all(), w.seq, w.batch);
      kv_all.ok()) {
    const Checked need = Checked(m.weights.total_bytes) + vision->bytes + kv_all + a->prefill.peak;
    if (need.ok()) {
      if (need.value() + m.reserve_bytes <= m.capacity_bytes) {
        m.min_gpus = 1;
      } else {
        const i64 room = m.capacity_bytes - m.reserve_bytes - comm_workspace_bytes(2);
        m.min_gpus = room > 0 ? need.value() / room + (need.value() % room != 0 ? 1 : 0) : 0;
      }
    }
  }
  return m;
}

// ---- Reserve -------------------------------------------------------------------------------

i64 runtime_reserve_default(Runtime r) {
  switch (r) {
    case Runtime::PyTorch: return 1024 * kMiB;  // CUDA context + cuBLAS workspace + allocator slack
    case Runtime::Vllm: return 1536 * kMiB;     // + CUDA graphs, counted inside gpu_memory_utilization
    case Runtime::LlamaCpp: return 512 * kMiB;  // CUDA context; its compute buffer is the temporaries
    case Runtime::Sglang: return 1536 * kMiB;   // CUDA context, CUDA graphs, request pool (engine_sglang.hpp models it)
    case Runtime::Transformers: return 1024 * kMiB;  // as PyTorch: the CUDA context and cache beside what the profile counts
    case Runtime::None: return 0;
  }
  return 0;
}

i64 comm_workspace_bytes(i64 gpus_in_group) {
  return gpus_in_group > 1 ? 256 * kMiB : 0;  // NCCL: up to 32 channels × 2 × 4 MiB buffers
}

}  // namespace llmsize::core
