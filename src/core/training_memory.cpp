// training_memory(): model states sharded by ZeRO/FSDP, activations of the in-flight
// micro-batches of each pipeline stage, logits, reserve — on the most loaded GPU (declared in
// training_memory.hpp).
#include <algorithm>
#include <array>

#include "placement.hpp"
#include "training_memory.hpp"

namespace llmsize::core {

namespace {

Issue overflow() {
  return issue_row("seq", Str::issue_training_overflow);
}

// Per-stage sums of one quantity, split into non-expert (sharded by ZeRO over dp) and
// routed-expert parts (sharded over the expert-data-parallel replicas).
struct Split2 {
  placement::Table dense, expert;
};
template <class F>
std::optional<Split2> tables(const ModelConfig& c, const Inventory& inv, const Workload& w, F value) {
  auto d = placement::build(c, inv, {w.tp, w.ep}, w.pp, [&](const Tensor& t, i64 l) -> std::optional<i64> {
    return t.routed ? std::optional<i64>(0) : value(t, l);
  });
  auto x = placement::build(c, inv, {w.tp, w.ep}, w.pp, [&](const Tensor& t, i64 l) -> std::optional<i64> {
    return t.routed ? value(t, l) : std::optional<i64>(0);
  });
  if (!d || !x) return std::nullopt;
  return Split2{std::move(*d), std::move(*x)};
}

}  // namespace

Result<TrainingMemory> training_memory(const ModelConfig& cfg, const Inventory& inv, const LayerPlan& plan,
                                       const Workload& w, const Gpu& gpu) {
  if (auto issues = placement::check_parallel(cfg, w); !issues.empty()) return issues;
  if (w.mode == Mode::Training && w.adapter != Adapter::None && w.recipe == Recipe::Formula)
    return std::vector<Issue>{issue_row("adapter", Str::recipe_formula_adapter)};
  if (w.mode == Mode::Training && w.offload_activations && w.recipe == Recipe::Formula)
    return std::vector<Issue>{issue_row("aoff", Str::recipe_offload_torchtune)};
  if (w.mode == Mode::Training && w.optimizer_in_bwd && w.recipe == Recipe::Formula)
    return std::vector<Issue>{issue_row("oib", Str::recipe_oib_torchtune)};
  TrainingMemory m;
  const i64 dp = std::max<i64>(1, w.dp());
  const i64 edp = w.ep > 1 ? std::max<i64>(1, dp * w.tp / w.ep) : dp;  // replicas of each expert shard
  const StateBytes sb = state_bytes(w);
  const bool lora = w.lora_rank > 0;
  const i64 r = w.lora_rank;
  Workload base_w = w;  // QLoRA: the frozen base in NF4 with double quantization
  base_w.weights = WeightFormat::Nf4Dq;

  auto params = tables(cfg, inv, w, [](const Tensor& t, i64) -> std::optional<i64> { return t.numel(); });
  auto trainable = tables(cfg, inv, w, [&](const Tensor& t, i64) -> std::optional<i64> {
    if (!lora) return t.numel();
    if (!(t.rows > 1 && t.cols > 1 && lora_targets_role(w.lora_targets, t.role))) return 0;
    return (Checked(r) * (t.rows + t.cols) * t.copies).ok() ? std::optional<i64>(r * (t.rows + t.cols) * t.copies)
                                                            : std::nullopt;
  });
  auto optimizer = tables(cfg, inv, w, [&](const Tensor& t, i64) -> std::optional<i64> {
    std::optional<i64> one;
    if (!lora) {
      one = optimizer_bytes_for(w, t.numel_one(), t.rows, t.cols);
    } else {
      if (!(t.rows > 1 && t.cols > 1 && lora_targets_role(w.lora_targets, t.role))) return 0;
      auto a = optimizer_bytes_for(w, r * t.rows, r, t.rows), b = optimizer_bytes_for(w, r * t.cols, t.cols, r);
      if (a && b) one = add(*a, *b);
    }
    return one ? mul(*one, t.copies) : std::nullopt;
  });
  auto base = tables(cfg, inv, w, [&](const Tensor& t, i64 l) -> std::optional<i64> {
    if (!lora || !w.qlora) return mul(t.numel(), sb.weights);
    auto one = storage_bytes(storage_for(cfg, base_w, t, l), stored_dims(t));
    return one ? mul(*one, t.copies) : std::nullopt;
  });
  if (!params || !trainable || !optimizer || !base) return overflow();
  auto adapters = lora_params(inv, r, w.lora_targets);
  if (!adapters) return adapters.issues();
  m.lora_params = lora ? *adapters : 0;
  m.trainable_params = lora ? *adapters : params->dense.replica + params->expert.replica;

  // Per-layer activations of one micro-batch.
  const ActParams ap{w.seq, w.batch, dtype_bytes(w.dtype), w.tp, w.ep, w.seq_parallel, w.flash_attention, w.dropout,
                     w.recompute, r, w.lora_targets};
  ActParams full = ap;
  full.recompute = Recompute::None;
  auto dense_act = layer_activations(cfg, ap, false), dense_full = layer_activations(cfg, full, false);
  if (!dense_act) return dense_act.issues();
  if (!dense_full) return dense_full.issues();
  LayerActivations moe_act, moe_full;
  if (cfg.is_moe()) {
    auto a = layer_activations(cfg, ap, true), f = layer_activations(cfg, full, true);
    if (!a) return a.issues();
    if (!f) return f.issues();
    moe_act = *a;
    moe_full = *f;
  }
  // Layers of other kinds keep other tensors: one row of activations per (mixer, FFN) combination
  // present, counted layer by layer (linear attention, Mamba-2 and MLP blocks of hybrid models).
  struct Kind {
    Mixer mixer;
    bool ffn, moe;
    i64 kv, width, hd;  // this layer's K, FFN width and head size (NAS models, Gemma 4; else the model's)
    LayerActivations act, full;
  };
  std::vector<Kind> kinds;
  std::vector<int> kind_of(static_cast<size_t>(cfg.n_layers));
  for (i64 l = 0; l < cfg.n_layers; ++l) {
    const Mixer mx = cfg.layer_mixer(l);
    const bool f = cfg.layer_has_ffn(l), mo = plan.is_moe(l);
    const i64 kv = cfg.kv_heads_at(l), width = cfg.ffn_at(l), hd = cfg.head_dim_at(l);
    size_t k = 0;
    while (k < kinds.size() && !(kinds[k].mixer == mx && kinds[k].ffn == f && kinds[k].moe == mo && kinds[k].kv == kv &&
                                 kinds[k].width == width && kinds[k].hd == hd))
      ++k;
    if (k == kinds.size()) {
      LayerActivations act = mo ? moe_act : *dense_act, fl = mo ? moe_full : *dense_full;
      if (mx != Mixer::Attention || (!cfg.block_pattern.empty() && !cfg.block_ffn) || cfg.varies_by_layer()) {
        // This layer's shape. A KV-shared layer (Gemma 4) is counted with the k and v a layer of its
        // shape would keep: an upper bound, as it reads them from an earlier layer.
        ModelConfig lc = cfg;
        if (kv > 0) lc.n_kv_heads = kv;
        if (width > 0) lc.d_ff = width;
        lc.head_dim = hd;
        auto a = layer_activations(lc, ap, mx, f, mo), b = layer_activations(lc, full, mx, f, mo);
        if (!a) return a.issues();
        if (!b) return b.issues();
        act = *a;
        fl = *b;
      }
      kinds.push_back({mx, f, mo, kv, width, hd, act, fl});
    }
    kind_of[static_cast<size_t>(l)] = static_cast<int>(k);
  }
  auto counts = [&](StageRange span) {
    std::vector<i64> n(kinds.size(), 0);
    for (i64 l = span.first; l < span.first + span.count; ++l) ++n[static_cast<size_t>(kind_of[static_cast<size_t>(l)])];
    return n;
  };
  auto acts_of = [&](const std::vector<i64>& n) {
    Checked sum;
    for (size_t k = 0; k < kinds.size(); ++k) sum += Checked(kinds[k].act.total) * n[k];
    return sum;
  };
  // A vision tower is held frozen in the compute dtype (the usual recipe trains the language model
  // and the projector on its features): on the first stage, sharded like the weights under ZeRO-3/FSDP.
  auto vision = vision_weights(cfg, inv, w);
  if (!vision) return vision.issues();
  const i64 t = w.tp, e = dtype_bytes(w.dtype);
  auto rep = [&](Checked v) { return !w.seq_parallel || !v.ok() ? v : Checked(ceil_div(v.value(), t)); };
  const Checked sbh = Checked(w.seq) * w.batch * cfg.d_model;
  // ref: Korthikanti §4.3: the loss needs the fp32 logits, 4sbv/t with a vocab-parallel head.
  const Checked logits = Checked(w.seq) * w.batch * ceil_div(cfg.vocab, t) * 4;
  const Checked last_extra = rep(sbh * e * 2) + logits;  // final-norm input, head input, logits
  const Checked first_extra = w.dropout ? rep(sbh) : Checked();  // embedding dropout mask

  m.reserve_bytes = w.reserve_mib >= 0 ? w.reserve_mib * (i64{1} << 20)
                                       : (w.runtime == Runtime::None ? 0 : runtime_reserve_default(Runtime::PyTorch));
  m.comm_bytes = comm_workspace_bytes(w.gpus);
  const auto z = w.sharding;
  const bool shard_opt = z != Sharding::None, shard_weights = z == Sharding::Zero3 || z == Sharding::Fsdp;
  auto div = [](Checked v, i64 d, bool on) { return on && v.ok() ? Checked(ceil_div(v.value(), d)) : v; };

  std::optional<TrainingMemory> best;
  std::vector<TrainingStage> stages;
  for (i64 st = 0; st < w.pp; ++st) {
    TrainingMemory s = m;
    const StageRange range = stage_range(cfg.n_layers, w.pp, st);
    const i64 pd = params->dense.stage(cfg, w.pp, st), px = params->expert.stage(cfg, w.pp, st);
    const i64 td = trainable->dense.stage(cfg, w.pp, st), tx = trainable->expert.stage(cfg, w.pp, st);
    const i64 od = optimizer->dense.stage(cfg, w.pp, st), ox = optimizer->expert.stage(cfg, w.pp, st);
    const i64 bd = base->dense.stage(cfg, w.pp, st), bx = base->expert.stage(cfg, w.pp, st);
    s.params_gpu = pd + px;
    s.trainable_params_gpu = td + tx;
    // Trainable parameters' states (all parameters, or the adapters under LoRA), sharded by
    // ZeRO over dp (experts: over their expert-data-parallel replicas).
    auto sd = model_states(td, w, dp), sx = model_states(tx, w, edp);
    if (!sd) return sd.issues();
    if (!sx) return sx.issues();
    // LoRA adds the frozen base (16-bit, or NF4 with QLoRA), sharded only by ZeRO-3/FSDP.
    const Checked frozen = lora ? div(Checked(bd), dp, shard_weights) + div(Checked(bx), edp, shard_weights) : Checked();
    const Checked weights = frozen + sd->weights + sx->weights;
    const Checked grads = Checked(sd->grads) + sx->grads;
    const Checked master = Checked(sd->master) + sx->master;
    const Checked opt = div(Checked(od), dp, shard_opt) + div(Checked(ox), edp, shard_opt);
    // 1F1B: stage s holds pp − s micro-batches in flight (ref: Narayanan et al. 2021 §2.2).
    const i64 inflight = std::min(w.pp - st, w.grad_accum);
    const auto n = counts(range);
    const Checked per_mb = acts_of(n);
    Checked act = per_mb * inflight;
    if (st == 0) act += first_extra * inflight;
    if (st == w.pp - 1) act += last_extra;
    i64 recompute = 0;
    if (w.recompute == Recompute::Full)
      for (size_t k = 0; k < kinds.size(); ++k)
        if (n[k] > 0) recompute = std::max(recompute, recompute_rebuilt_bytes(kinds[k].full, kinds[k].act));
    act += recompute;
    // ZeRO-3/FSDP all-gather a layer's weights before use and prefetch the next one.
    i64 gathered = 0, dequant = 0;
    if (shard_weights && range.count > 0) {
      i64 biggest = 0;
      for (i64 l = range.first; l < range.first + range.count; ++l)
        biggest = std::max(biggest, params->dense.prefix[l + 1] - params->dense.prefix[l] +
                                        params->expert.prefix[l + 1] - params->expert.prefix[l]);
      const Checked g = Checked(biggest) * sb.weights * 2;
      if (!g.ok()) return overflow();
      gathered = g.value();
    }
    if (lora && w.qlora) {  // one bf16 compute copy of the largest dequantized matrix at a time
      i64 biggest = 0;
      for (const LayerKind& k : inv.kinds)
        for (const Tensor& tt : k.tensors)
          if (tt.rows > 1 && tt.cols > 1) biggest = std::max(biggest, ceil_div(tt.numel_one(), t));
      dequant = biggest * 2;
    }
    const Checked overhead = Checked(m.reserve_bytes) + m.comm_bytes + gathered + dequant;
    const Checked vis = st == 0 ? div(Checked(vision->bytes_gpu), dp, shard_weights) : Checked();
    const Checked total = weights + vis + grads + master + opt + act + overhead;
    if (!total.ok()) return overflow();
    s.weights_bytes = weights.value();
    s.vision_weights_bytes = vis.value();
    s.gradients_bytes = grads.value();
    s.master_weights_bytes = master.value();
    s.optimizer_bytes = opt.value();
    s.activation_bytes = act.value();
    s.logits_bytes = st == w.pp - 1 ? logits.value() : 0;
    s.recompute_bytes = recompute;
    s.gathered_bytes = gathered;
    s.dequant_bytes = dequant;
    s.overhead_bytes = overhead.value();
    s.total_bytes = total.value();
    s.inflight = inflight;
    s.stage = st;
    s.stage_layers = range.count;
    stages.push_back({st, range.first, range.count, s.params_gpu, inflight, s.activation_bytes,
                      s.total_bytes - m.reserve_bytes, s.total_bytes});
    if (!best || s.total_bytes > best->total_bytes) best = s;
  }
  m = *best;
  m.stages = std::move(stages);
  m.layer = *dense_act;
  m.layer_moe = moe_act;
  m.capacity_bytes = gpu.usable_bytes();
  m.peak_allocated_bytes = m.total_bytes - m.reserve_bytes;
  if (w.mode == Mode::Training && w.recipe != Recipe::Formula) {
    // The recipe's own allocations replace the papers' breakdown: what is live at its peak (the
    // base, the adapters, the gradients and optimizer states where they exist then, the saved
    // activations and the loss region, and the fixed buffers), with the reserve on top.
    auto rp = recipe_peak(cfg, w, gpu);
    if (!rp) return rp.issues();
    const Checked total = Checked(rp->peak_allocated_bytes) + m.reserve_bytes;
    if (!total.ok()) return overflow();
    m.weights_bytes = rp->weights_bytes + rp->adapter_bytes;
    m.vision_weights_bytes = 0;
    m.master_weights_bytes = rp->master_bytes;
    m.gradients_bytes = rp->gradient_bytes;
    m.optimizer_bytes = rp->optimizer_bytes;
    m.activation_bytes = rp->saved_bytes + rp->head_bytes;
    m.logits_bytes = rp->head_bytes;
    m.recompute_bytes = m.dequant_bytes = m.comm_bytes = 0;
    m.gathered_bytes = rp->gathered_bytes;
    m.overhead_bytes = m.reserve_bytes + rp->fixed_bytes + rp->gathered_bytes;
    m.total_bytes = total.value();
    m.peak_allocated_bytes = rp->peak_allocated_bytes;
    m.trainable_params = rp->trainable_params;
    m.stages.clear();  // a one-GPU recipe's peak is its GPU's
    if (const TrainingStage* peak = rp->peak_stage()) {  // megatron: the most loaded stage's rank is described
      m.stage = peak->stage;
      m.stage_layers = peak->layers;
      m.inflight = peak->inflight;
      m.params_gpu = m.trainable_params_gpu = peak->params_gpu;
    }
    for (TrainingStage st : rp->stages) {  // and every stage's beside it
      st.total_bytes = st.peak_allocated_bytes + m.reserve_bytes;
      m.stages.push_back(st);
    }
    if (m.stages.size() == 1) m.stages.clear();  // one stage: the breakdown is its
    m.recipe = std::move(rp).value();
  }
  m.fits = m.total_bytes <= m.capacity_bytes;
  // Minimum GPUs: an ideal split of the model states and one micro-batch's activations over
  // n GPUs, the reserve and communication workspace on each.
  const Checked states = Checked(params->dense.replica + params->expert.replica) * (lora ? 0 : sb.weights) +
                         Checked(base->dense.replica + base->expert.replica) * (lora ? 1 : 0) +
                         Checked(trainable->dense.replica + trainable->expert.replica) *
                             (sb.grads + sb.master + (lora ? sb.weights : 0)) +
                         optimizer->dense.replica + optimizer->expert.replica;
  const Checked acts = acts_of(counts(plan.all())) + last_extra;
  const Checked need = states + acts + vision->bytes;
  if (need.ok()) {
    if (need.value() + m.reserve_bytes <= m.capacity_bytes) {
      m.min_gpus = 1;
    } else {
      const i64 room = m.capacity_bytes - m.reserve_bytes - comm_workspace_bytes(2);
      m.min_gpus = room > 0 ? ceil_div(need.value(), room) : 0;
    }
  }
  // The other recipes model only the layout given (one GPU, or hf-peft's FSDP over --gpus): it,
  // or none fits. The megatron recipe models the layout given too, but any tp · pp · dp; the ideal
  // split above stays its lower bound.
  if (m.recipe && m.recipe->recipe != Recipe::Megatron) m.min_gpus = m.fits ? w.gpus : 0;
  return m;
}

}  // namespace llmsize::core
