// Fuzz target: GGUF headers (llmsize gguf, the page's file drop). Any bytes give a header or a
// named issue, never a crash, a hang or an allocation sized by a count the bytes do not hold.
// The file size is taken as the input's own (a whole file) and as unknown (a prefix).
#include <cstdint>
#include <string_view>

#include "core/gguf.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const i64 file : {static_cast<i64>(size), i64{0}}) {
    i64 more = 0;
    auto h = read_gguf_header(bytes, file, &more);
    if (!h) {
      FUZZ_CHECK(!h.issues().empty());
      for (const auto& i : h.issues()) FUZZ_CHECK(i.field == "gguf" && !i.message.empty());
      FUZZ_CHECK(more == 0 || more > static_cast<i64>(size));
      continue;
    }
    FUZZ_CHECK(h->data_offset >= 24 && h->data_offset % h->alignment == 0);
    FUZZ_CHECK(h->tensors.size() <= size);
    for (const auto& t : h->tensors) {
      FUZZ_CHECK(t.type != nullptr && t.bytes >= 0 && t.offset % h->alignment == 0);
      if (file > 0) FUZZ_CHECK(t.offset + t.bytes <= file - h->data_offset);
    }
    FUZZ_CHECK(!gguf_json(*h).empty());
    FUZZ_CHECK(!gguf_text(*h, "f").empty());
  }
  return 0;
}
