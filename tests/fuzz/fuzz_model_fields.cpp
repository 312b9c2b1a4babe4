// Fuzz target: model field edits as typed in the UI or carried by a share link
// ("key=value" pairs separated by '&'), applied to a preset. Every edit is either refused
// with a named issue or stored; a stored config either validates and counts consistently,
// or validate()/count_params() name the problem. get -> set round-trips every field.
#include <cstdint>
#include <string_view>

#include "core/model_fields.hpp"
#include "core/params.hpp"
#include "core/presets.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Preset> presets = load_presets().value();
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  ModelConfig c = presets[data[0] % presets.size()].config;
  while (!text.empty()) {
    const size_t amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos) {
      if (const ModelField* f = find_model_field(pair.substr(0, eq))) {
        const ModelConfig before = c;
        auto issue = f->set(c, pair.substr(eq + 1));
        if (issue) {
          FUZZ_CHECK(issue->field == f->key && !issue->message.empty());
          FUZZ_CHECK(c == before);  // a refused edit changes nothing
        }
      }
    }
    if (amp == std::string_view::npos) break;
    text.remove_prefix(amp + 1);
  }
  for (const auto& f : model_fields()) {
    ModelConfig copy = c;
    FUZZ_CHECK(!f.set(copy, f.get(c)).has_value());
    FUZZ_CHECK(copy == c);
  }
  if (validate(c).empty()) {
    auto p = count_params(c);
    if (p) FUZZ_CHECK(p->active <= p->total);
    else FUZZ_CHECK(!p.issues().empty());
  }
  return 0;
}
