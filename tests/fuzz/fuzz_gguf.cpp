// Fuzz target: GGUF headers (llmsize gguf, the page's file drop). Any bytes give a header or a
// named issue, never a crash, a hang or an allocation sized by a count the bytes do not hold.
// The file size is taken as the input's own (a whole file) and as unknown (a prefix). A header
// whose metadata is a model has its tensors matched to that model's (file_weights.hpp).
#include <cstdint>
#include <string_view>

#include "core/file_weights.hpp"
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
    // A shard of a split model: merged with copies of itself it is refused by name, never a crash.
    if (const auto split = gguf_split(*h)) {
      auto m = merge_gguf_shards({*h, *h});
      FUZZ_CHECK(m || m.issues().front().field == "gguf");
      FUZZ_CHECK(gguf_shard_paths("m-00001-of-00002.gguf", split->count).size() <= 2);
    }
    // The model its metadata describes, and its tensors as that model's weights (or why not).
    if (auto c = gguf_config(*h); c && c->config.n_layers <= 512) {
      if (auto m = prepare(c->config)) {
        PreparedModel pm = std::move(m).value();
        attach_file(pm, *h);
        FUZZ_CHECK(pm.file ? pm.file->total_bytes >= 0 && !pm.file_refused : pm.file_refused && pm.file_refused->field == "gguf");
      }
    }
  }
  return 0;
}
