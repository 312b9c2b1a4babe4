// The demo's step function (see demo.hpp): fill the weights, prefill the prompt, decode the
// tokens, each sliced into units run until the step's time is up (std::chrono::steady_clock).
// Timings count only the time spent inside the block's ops; program set-up and the seeded
// inputs are outside them.
#include "demo.hpp"

#include <algorithm>
#include <chrono>

#include "core/params.hpp"
#include "core/throughput.hpp"
#include "forward.hpp"
#include "ref/kernels/gemm.hpp"

namespace llmsize::ref {

using Clock = std::chrono::steady_clock;

struct Demo {
  DemoPlan plan;
  DemoSettings settings;
  std::unique_ptr<Decoder> dec;
  DemoPhase phase = DemoPhase::Init;
  Program prog;
  DemoResults res;
  i64 prefilled = 0, decoded = 0;         // tokens through the block so far
  i64 call_tokens = 0;                    // tokens of the call in flight
  double flops0 = 0, bytes0 = 0;          // decoder stats when the phase began
  double block_flops_prefill = 0, block_flops_decode = 0;  // core FLOPs per token, one block
  double model_flops_prefill = 0, model_flops_decode = 0;  // core FLOPs per token, whole model
  double work_init = 0, work_prefill = 0, work_decode = 0;  // progress weights (expected ms)
  std::unique_ptr<TrainStep> train;       // the Train phase's step, made when the phase starts
  int train_stages = 0;                   // advance() calls done
};

void DemoDeleter::operator()(Demo* d) const { delete d; }

namespace {

constexpr i64 kInitChunk = i64{1} << 18;  // weights filled between clock checks (~0.3 ms)

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void start_call(Demo& d, i64 n) {
  demo_inputs(d.dec->opt.seed, d.dec->pos, n, d.dec->cfg.d_model, d.dec->ws.x.data());
  if (const i64 ple = static_cast<i64>(d.dec->layers.size()) * d.dec->cfg.ple_dim; ple > 0)  // Gemma 4's per-layer inputs
    demo_inputs(d.dec->opt.seed + 1, d.dec->pos, n, ple, d.dec->ws.ple_in.data());
  auto p = hidden_program(*d.dec, n);  // sizes were checked when the block was planned
  d.prog = p.ok() ? std::move(p.value()) : Program{};
  d.call_tokens = n;
}

void start_phase(Demo& d, DemoPhase phase) {
  d.phase = phase;
  d.flops0 = d.dec->stats.flops;
  d.bytes0 = d.dec->stats.weight_bytes_read + d.dec->stats.kv_bytes_read;
  start_call(d, phase == DemoPhase::Prefill ? d.settings.chunk() : 1);
}

// FLOPs per token from the core (2·active matmul parameters + attention) for a prefill of
// `prompt` tokens and for a decode step at `past` cached tokens.
struct Flops {
  double prefill = 0, decode = 0;
};
Flops model_flops(const core::ModelConfig& c, i64 prompt, i64 past) {
  auto inv = core::build_inventory(c);
  auto plan = core::layer_plan(c, core::KvDtype::BF16);
  if (!inv || !plan) return {};
  const double p = static_cast<double>(core::matmul_params_active(c, *inv));
  return {2.0 * p + core::attention_flops(c, *plan, 0, prompt) / static_cast<double>(prompt),
          2.0 * p + core::attention_flops(c, *plan, past, 1)};
}
// The block's layers only (the decoder has no embeddings or head): each layer kind's active
// parameters per layer × its layers, norms included (< 0.1%).
Flops block_flops(const core::ModelConfig& block, i64 prompt, i64 past) {
  auto counts = core::count_params(block);
  auto plan = core::layer_plan(block, core::KvDtype::F32);
  if (!counts || counts->kinds.empty() || !plan) return {};
  double p = 0;
  for (const auto& k : counts->kinds) p += static_cast<double>(k.active_per_layer) * static_cast<double>(k.layers);
  return {2.0 * p + core::attention_flops(block, *plan, 0, prompt) / static_cast<double>(prompt),
          2.0 * p + core::attention_flops(block, *plan, past, 1)};
}

void finish_prefill(Demo& d) {
  DemoResults& r = d.res;
  r.prefill_done = true;
  r.prefill_flops = d.dec->stats.flops - d.flops0;
  r.prefill_ms_per_token = r.prefill_ms / static_cast<double>(d.settings.prompt);
  r.prefill_gflops = r.prefill_ms > 0 ? r.prefill_flops / r.prefill_ms * 1e-6 : 0;
  r.model_flops_ratio_prefill = d.block_flops_prefill > 0 ? d.model_flops_prefill / d.block_flops_prefill : 0;
  r.model_prefill_ms_per_token = r.prefill_ms_per_token * r.model_flops_ratio_prefill;
}

void finish_decode(Demo& d) {
  DemoResults& r = d.res;
  r.decode_done = true;
  r.decode_flops = d.dec->stats.flops - d.flops0;
  const double bytes = d.dec->stats.weight_bytes_read + d.dec->stats.kv_bytes_read - d.bytes0;
  r.decode_ms_per_token = r.decode_ms / static_cast<double>(d.settings.tokens);
  r.decode_gflops = r.decode_ms > 0 ? r.decode_flops / r.decode_ms * 1e-6 : 0;
  r.decode_gbps = r.decode_ms > 0 ? bytes / r.decode_ms * 1e-6 : 0;
  r.model_flops_ratio_decode = d.block_flops_decode > 0 ? d.model_flops_decode / d.block_flops_decode : 0;
  r.model_decode_ms_per_token = r.decode_ms_per_token * r.model_flops_ratio_decode;
}

}  // namespace

core::Str phase_row(DemoPhase p) {
  switch (p) {
    case DemoPhase::Init: return core::Str::demo_phase_init;
    case DemoPhase::Prefill: return core::Str::demo_phase_prefill;
    case DemoPhase::Decode: return core::Str::demo_phase_decode;
    case DemoPhase::Train: return core::Str::demo_phase_train;
    case DemoPhase::Done: return core::Str::demo_phase_done;
  }
  return core::Str::demo_phase_done;
}

std::string_view to_string(DemoPhase p) { return core::tr(phase_row(p), core::Lang::En); }

std::string progress_op(const DemoProgress& p, core::Lang lang) {
  if (p.phase == DemoPhase::Train) return core::printf_text(core::tr(core::Str::demo_phase_train_stage, lang), p.train_stage);
  if (p.phase == DemoPhase::Init || p.phase == DemoPhase::Done) return core::tr(phase_row(p.phase), lang);
  return p.op;
}

core::Result<DemoPtr> create_demo(const core::ModelConfig& model, const DemoSettings& s) {
  auto plan = plan_demo(model, s);
  if (!plan) return plan.issues();
  DemoPtr d(new Demo);
  d->plan = std::move(plan.value());
  d->settings = s;
  const i64 ctx = s.prompt + s.tokens;
  auto dec = build_decoder(d->plan.block, {.batch = 1, .context = ctx, .max_tokens = s.chunk(), .globals = false,
                                           .seed = s.seed, .defer_init = true});
  if (!dec) return dec.issues();
  d->dec = std::move(dec.value());
  auto mem = compare_memory(*d->dec);  // everything is allocated up front: final already
  if (!mem) return mem.issues();
  d->res.memory = std::move(mem.value());
  const KernelInfo k = active_kernel();
  d->res.kernel = k.name;
  d->res.isa = k.isa;
  const i64 past = s.prompt + s.tokens / 2;  // the middle decode step stands for all
  const Flops bf = block_flops(d->plan.block, s.prompt, past), mf = model_flops(model, s.prompt, past);
  d->block_flops_prefill = bf.prefill, d->block_flops_decode = bf.decode;
  d->model_flops_prefill = mf.prefill, d->model_flops_decode = mf.decode;
  // Progress weights, in rough expected milliseconds: ~1 ns per weight filled, prefill at
  // ~20 GFLOP/s, decode streaming every weight once per token at ~10 GB/s.
  const double params = static_cast<double>(allocated_params(*d->dec));
  d->work_init = params * 1e-6;
  d->work_prefill = bf.prefill * static_cast<double>(s.prompt) / 2e7;
  d->work_decode = params * 4.0 * static_cast<double>(s.tokens) / 1e7;
  return d;
}

DemoProgress demo_step(Demo& d, double budget_ms) {
  const Clock::time_point start = Clock::now();
  auto out_of_time = [&] { return ms_since(start) >= budget_ms; };
  while (d.phase != DemoPhase::Done) {
    const Clock::time_point t0 = Clock::now();
    if (d.phase == DemoPhase::Train) {
      // One stage per pass (the first forward, backward, AdamW, the second forward): each runs
      // whole, so a frame holding one lasts as long as that stage of the block.
      if (!d.train) {
        auto made = TrainStep::create(d.plan.block, d.plan.train_layer, d.settings.train());
        if (!made) {
          d.res.train_issues = made.issues();
          d.phase = DemoPhase::Done;
          continue;
        }
        d.train = std::move(made.value());
        d.res.train_layer = d.plan.layers[static_cast<size_t>(d.plan.train_layer)];
      } else {
        ++d.train_stages;
        if (d.train->advance()) {
          d.res.train = d.train->result();
          d.train.reset();  // its memory goes back now
          d.phase = DemoPhase::Done;
        }
      }
      if (out_of_time()) break;
      continue;
    }
    if (d.phase == DemoPhase::Init) {
      bool filled = false;
      do filled = init_weights(*d.dec, kInitChunk);
      while (!filled && !out_of_time());
      d.res.init_ms += ms_since(t0);
      if (!filled) break;
      start_phase(d, DemoPhase::Prefill);
    } else {
      const bool ended = run_until(d.prog, out_of_time);
      (d.phase == DemoPhase::Prefill ? d.res.prefill_ms : d.res.decode_ms) += ms_since(t0);
      if (!ended) break;
      if (d.phase == DemoPhase::Prefill) {
        d.prefilled += d.call_tokens;
        if (d.prefilled < d.settings.prompt) {
          start_call(d, std::min(d.settings.chunk(), d.settings.prompt - d.prefilled));
        } else {
          finish_prefill(d);
          start_phase(d, DemoPhase::Decode);
        }
      } else if (++d.decoded == d.settings.tokens) {
        finish_decode(d);
        d.phase = d.settings.train_seq > 0 ? DemoPhase::Train : DemoPhase::Done;
      } else {
        start_call(d, 1);
      }
    }
    if (out_of_time()) break;
  }
  return demo_progress(d);
}

DemoProgress demo_progress(const Demo& d) {
  DemoProgress p;
  p.phase = d.phase;
  p.decoded = d.decoded;
  p.prefilled = d.prefilled;
  const double init = init_fraction(*d.dec);
  double pre = d.res.prefill_done ? 1.0 : 0.0, dec = 0.0;
  switch (d.phase) {
    case DemoPhase::Init: p.phase_fraction = init; break;
    case DemoPhase::Prefill:
      p.phase_fraction = pre = (static_cast<double>(d.prefilled) + d.prog.fraction() * static_cast<double>(d.call_tokens)) /
                               static_cast<double>(d.settings.prompt);
      break;
    case DemoPhase::Decode:
      p.phase_fraction = dec = (static_cast<double>(d.decoded) + d.prog.fraction()) / static_cast<double>(d.settings.tokens);
      break;
    case DemoPhase::Train: p.phase_fraction = static_cast<double>(d.train_stages) / 4.0, dec = 1.0; break;
    case DemoPhase::Done: p.phase_fraction = dec = 1.0; break;
  }
  const double total = d.work_init + d.work_prefill + d.work_decode;
  p.fraction = total > 0 ? (init * d.work_init + pre * d.work_prefill + dec * d.work_decode) / total : 0;
  if (d.phase == DemoPhase::Done) p.fraction = 1.0;
  p.train_stage = d.phase == DemoPhase::Train ? static_cast<int>(d.train_stages) + 1 : 0;
  p.op = d.phase == DemoPhase::Prefill || d.phase == DemoPhase::Decode ? d.prog.current() : std::string();
  p.op = progress_op(p, core::Lang::En);
  return p;
}

const DemoResults& demo_results(const Demo& d) { return d.res; }
const DemoPlan& demo_plan(const Demo& d) { return d.plan; }
HeatMap demo_heat_map(const Demo& d) {
  HeatMap h = d.dec->heat;
  if (h.layer >= 0 && h.layer < static_cast<i64>(d.plan.layers.size()))
    h.layer = d.plan.layers[static_cast<size_t>(h.layer)];  // the model layer that block layer stands for
  return h;
}
StateTrace demo_state_trace(const Demo& d) {
  StateTrace t = state_trace(*d.dec);
  if (t.layer >= 0 && t.layer < static_cast<i64>(d.plan.layers.size())) t.layer = d.plan.layers[static_cast<size_t>(t.layer)];
  return t;
}
const Decoder& demo_decoder(const Demo& d) { return *d.dec; }

TrainSettings DemoSettings::train() const {
  TrainSettings t;
  t.seq = train_seq;
  t.micro_batch = train_batch;
  t.lora_rank = train_lora_rank;
  t.lora_targets = train_lora_targets;
  t.recompute = train_recompute;
  t.seed = seed;
  return t;
}

void demo_inputs(std::uint64_t seed, i64 pos, i64 n, i64 d, float* x) {
  for (i64 t = 0; t < n; ++t) {
    std::uint64_t s = (seed + 0x51ed27) * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(pos + t);
    for (i64 j = 0; j < d; ++j) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;  // ref: Knuth MMIX LCG
      x[t * d + j] = static_cast<float>(static_cast<std::int64_t>(s >> 40) - (1 << 23)) * 0x1p-23f;
    }
  }
}

}  // namespace llmsize::ref
