// The counting allocator, and the decoder allocating exactly the core's tensor inventory:
// for a tiny version of every preset (allocated and filled) and for every real preset
// (planned without allocating, and one real layer allocated where it is small).
#include <set>
#include <catch2/catch.hpp>

#include "core/params.hpp"
#include "ref/decoder.hpp"
#include "test_util.hpp"
#include "tiny.hpp"

using namespace llmsize;

TEST_CASE("the counter records live bytes per category and the peak of their sum", "[ref][alloc]") {
  ref::MemCounter c;
  {
    auto w = ref::Buffer::make(c, ref::Mem::Weights, 1000);
    REQUIRE(w.ok());
    CHECK(reinterpret_cast<std::uintptr_t>(w.data()) % 64 == 0);
    {
      auto a = ref::Buffer::make(c, ref::Mem::Activations, 500);
      CHECK(c.stats()[ref::Mem::Activations] == 2000);
      CHECK(c.stats().live_total == 6000);
      ref::Buffer moved = std::move(a);
      CHECK(c.stats().live_total == 6000);
    }
    CHECK(c.stats().live_total == 4000);
    auto k = ref::Buffer::make(c, ref::Mem::KvCache, 250);
    CHECK(c.stats().live_total == 5000);
    CHECK(c.stats().peak_total == 6000);  // the peak of the sum, not the sum of the peaks
    CHECK(c.stats().peak[static_cast<int>(ref::Mem::Activations)] == 2000);
    c.reset_peaks();
    CHECK(c.stats().peak_total == 5000);
  }
  CHECK(c.stats().live_total == 0);
  CHECK(c.stats().allocations == 3);
}

TEST_CASE("a refused allocation is reported, not fatal", "[ref][alloc]") {
  ref::MemCounter c;
  auto huge = ref::Buffer::make(c, ref::Mem::Weights, std::int64_t{1} << 60);
  CHECK_FALSE(huge.ok());
  CHECK(c.stats().live_total == 0);
  CHECK(ref::Buffer::make(c, ref::Mem::Weights, 0).ok());
}

TEST_CASE("the reference runs every preset's layer kinds; a combination it does not run is refused by name", "[ref][inventory]") {
  auto all = core::load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    INFO(p.id);
    const auto why = ref::unsupported(p.config);
    CHECK_FALSE(why.has_value());
  }
  // Per-layer shapes (DeciLM's block_configs) in parallel blocks: no family has them, and the
  // reference does not run them; it says so instead of running something else.
  core::ModelConfig c = test::tiny(test::preset("llama-3.3-nemotron-super-49b").config);
  c.parallel_block = true;
  const auto why = ref::unsupported(c);
  REQUIRE(why.has_value());
  CHECK(why->message.find("per-layer shapes") != std::string::npos);
  auto dec = ref::build_decoder(c, {.batch = 1, .context = 4});
  REQUIRE_FALSE(dec.ok());
  CHECK(dec.issues()[0].message.find("does not run") != std::string::npos);
  CHECK_FALSE(ref::plan_decoder(c, {.batch = 1, .context = 16}).ok());
}

TEST_CASE("tiny versions of every preset allocate exactly the core's parameter count", "[ref][inventory]") {
  auto all = core::load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    if (ref::unsupported(p.config)) continue;  // refused by name (alloc_test: "refuses, by name")
    INFO(p.id);
    const core::ModelConfig c = test::tiny(p.config);
    auto counts = core::count_params(c);
    REQUIRE(counts.ok());
    auto dec = ref::build_decoder(c, {.batch = 1, .context = 4});
    INFO(core::join(dec.issues()));
    REQUIRE(dec.ok());
    CHECK(ref::allocated_params(**dec) == counts->total);
    for (int g = 0; g < core::kGroupCount; ++g)
      if (static_cast<core::Group>(g) != core::Group::Mtp)
        CHECK(ref::allocated_params(**dec, static_cast<core::Group>(g)) == counts->by_group[g]);
    CHECK((*dec)->mem.stats()[ref::Mem::Weights] == 4 * counts->total);
    // Every inventory tensor of every layer, by its checkpoint name, with its shape.
    for (const auto& kind : (*dec)->inv.kinds)
      for (core::i64 layer : kind.layers)
        for (const auto& t : kind.tensors) {
          const ref::WeightTensor* w = ref::find_weight(**dec, core::tensor_name(t.name, layer));
          REQUIRE(w != nullptr);
          CHECK(w->buf.size() == t.numel());
        }
  }
}

TEST_CASE("every real preset plans exactly its parameter count without allocating", "[ref][inventory]") {
  auto all = core::load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    if (ref::unsupported(p.config)) continue;  // refused by name (alloc_test: "refuses, by name")
    INFO(p.id);
    auto counts = core::count_params(p.config);
    REQUIRE(counts.ok());
    auto plan = ref::plan_decoder(p.config, {.batch = 1, .context = 16});
    INFO(core::join(plan.issues()));
    REQUIRE(plan.ok());
    CHECK(plan->weight_params == counts->total);
    CHECK(plan->bytes[static_cast<int>(ref::Mem::Weights)] == 4 * counts->total);
    // One layer of each kind: the per-layer count of the core's report.
    for (const auto& kind : counts->kinds) {
      auto inv = core::build_inventory(p.config);
      REQUIRE(inv.ok());
      for (const auto& k : inv->kinds)
        if (k.label == kind.label) {
          auto one = ref::plan_decoder(p.config, {.batch = 1, .context = 16, .globals = false,
                                                  .first_layer = k.layers[0], .n_layers = 1});
          REQUIRE(one.ok());
          CHECK(one->weight_params == kind.params_per_layer);
        }
    }
  }
}

TEST_CASE("real-size layers of small presets allocate their exact per-layer count", "[ref][inventory]") {
  for (const char* id : {"gpt2", "pythia-160m", "opt-125m", "qwen2.5-0.5b", "bloom-560m"}) {
    INFO(id);
    const auto p = test::preset(id);
    auto counts = core::count_params(p.config);
    REQUIRE(counts.ok());
    auto dec = ref::build_decoder(p.config, {.batch = 1, .context = 8, .globals = false, .n_layers = 1,
                                             .defer_init = true});
    REQUIRE(dec.ok());
    CHECK(ref::allocated_params(**dec) == counts->kinds[0].params_per_layer);
  }
}

TEST_CASE("weights are a pure function of seed, name and element", "[ref][inventory]") {
  const auto c = test::tiny(test::preset("mixtral-8x7b").config);
  auto a = ref::build_decoder(c, {.batch = 1, .context = 4, .seed = 9});
  auto b = ref::build_decoder(c, {.batch = 1, .context = 4, .seed = 9, .defer_init = true});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  int chunks = 0;
  while (!ref::init_weights(**b, 777)) ++chunks;  // sliced fill, as the demo does it
  CHECK(chunks > 10);
  CHECK(ref::init_fraction(**b) == 1.0);
  for (size_t i = 0; i < (*a)->weights.size(); ++i) {
    const auto& wa = (*a)->weights[i].buf;
    const auto& wb = (*b)->weights[i].buf;
    REQUIRE(std::equal(wa.data(), wa.data() + wa.size(), wb.data()));
  }
  auto other = ref::build_decoder(c, {.batch = 1, .context = 4, .seed = 10});
  REQUIRE(other.ok());
  CHECK((*other)->weights[0].buf[0] != (*a)->weights[0].buf[0]);
}
