// Fuzz target: config.json import. Any input must give either a config whose parameter
// report is consistent, or a non-empty list of named issues — never a crash or a hang.
#include <cstdint>
#include <string_view>

#include "core/hf_config.hpp"
#include "core/params.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool generic : {false, true}) {
    ImportOptions opt;
    opt.generic_fallback = generic;
    auto r = import_hf_config(text, opt);
    if (!r) {
      FUZZ_CHECK(!r.issues().empty());
      for (const auto& i : r.issues()) FUZZ_CHECK(!i.field.empty() && !i.message.empty());
      continue;
    }
    FUZZ_CHECK(validate(r->config).empty());
    auto p = count_params(r->config);
    FUZZ_CHECK(p.ok());  // import already refused overflowing configs
    i64 groups = 0, gap = 0;
    for (int g = 0; g < kGroupCount; ++g)
      if (static_cast<Group>(g) != Group::Mtp) groups += p->by_group[g];
    for (const auto& item : p->gap) gap += item.delta;
    FUZZ_CHECK(groups == p->total);
    FUZZ_CHECK(p->active <= p->total && p->active > 0);
    FUZZ_CHECK(p->approx_12nd2_vd + gap == p->total);
  }
  return 0;
}
