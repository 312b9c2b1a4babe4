// Fuzz target: engine start-up logs (check-log). Any input gives a parsed log or a named issue;
// a parsed log, checked against a small model, gives a comparison or named issues — never a
// crash, a hang or an allocation sized by the input beyond the text itself.
#include <cstdint>
#include <string_view>

#include "core/engine_log.hpp"
#include "core/presets.hpp"
#include "fuzz_check.hpp"

using namespace llmsize::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto log = parse_engine_log(text);
  if (!log) {
    FUZZ_CHECK(!log.issues().empty());
    for (const auto& i : log.issues()) FUZZ_CHECK(i.field == "log" && !i.message.empty());
    return 0;
  }
  FUZZ_CHECK(log->kv_lines.size() <= size);
  static const ModelConfig model = find_preset("qwen2.5-0.5b").value().config;
  auto check = check_log(*log, model, Workload{});
  if (!check) {
    for (const auto& i : check.issues()) FUZZ_CHECK(!i.field.empty() && !i.message.empty());
    return 0;
  }
  for (const auto& r : check->rows) FUZZ_CHECK(!r.label.empty());
  return 0;
}
