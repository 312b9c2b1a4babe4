// Fuzz target: share-link decoding. Any fragment gives either a state that re-encodes to a
// link decoding to the same state (and estimates without failing on the model), or named
// issues — never a crash, a hang or an unbounded allocation.
#include <cstdint>
#include <string_view>

#include "core/share_link.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The same text as a comparison link: its cases re-encode to a link decoding to the same cases.
  if (auto cmp = decode_compare_link(text); cmp) {
    FUZZ_CHECK(!cmp->empty() && cmp->size() <= static_cast<size_t>(kMaxCompareCases));
    auto again = decode_compare_link(encode_compare_link(*cmp));
    FUZZ_CHECK(again.ok() && again.value() == cmp.value());
  } else {
    for (const auto& i : cmp.issues()) FUZZ_CHECK(!i.field.empty() && !i.message.empty());
  }
  auto r = decode_link(text);
  if (!r) {
    FUZZ_CHECK(!r.issues().empty());
    for (const auto& i : r.issues()) FUZZ_CHECK(!i.field.empty() && !i.message.empty());
    return 0;
  }
  const std::string link = encode_link(*r);
  auto again = decode_link(link);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again.value() == r.value());
  FUZZ_CHECK(encode_link(*again) == link);
  return 0;
}
