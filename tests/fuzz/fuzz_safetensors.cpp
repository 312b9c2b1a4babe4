// Fuzz target: safetensors headers and shard indexes (llmsize safetensors, estimate
// --safetensors). Any bytes give a header or a named issue, never a crash, a hang or an
// allocation sized by a length the bytes do not hold; a header's tensors tile its data.
#include <cstdint>
#include <string_view>

#include "core/file_weights.hpp"
#include "core/presets.hpp"
#include "core/safetensors.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  i64 more = 0;
  auto h = read_safetensors_header(bytes, 0, &more);
  if (!h) {
    for (const auto& i : h.issues()) FUZZ_CHECK(i.field == "safetensors" && !i.message.empty());
    FUZZ_CHECK(more == 0 || more > static_cast<i64>(size));
  } else {
    i64 at = 0;
    for (const auto& t : h->tensors) {
      FUZZ_CHECK(t.begin >= 0 && t.end >= t.begin);
      at += t.bytes();
    }
    FUZZ_CHECK(at == h->tensor_bytes());
    static const Inventory inv = build_inventory(find_preset("qwen2.5-0.5b").value().config).value();
    const auto g = safetensors_groups({&*h}, inv);
    FUZZ_CHECK(g.matched + g.unmatched_count == static_cast<i64>(h->tensors.size()));
    const auto f = safetensors_file_weights({&*h}, inv);
    if (f) FUZZ_CHECK(f->total_bytes >= 0 && f->other_tensors == g.unmatched_count);
    else FUZZ_CHECK(f.issues().front().field == "safetensors");
  }
  auto idx = read_safetensors_index(bytes);
  if (idx) FUZZ_CHECK(idx->shards.size() <= static_cast<size_t>(kSafetensorsMaxShards));
  return 0;
}
