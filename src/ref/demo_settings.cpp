// The demo's settings as a field table, and their range checks (see demo.hpp). Each range
// is written once, in its row; plan_demo, `llmsize demo` and the app's Demo tab read it.
#include "demo.hpp"

namespace llmsize::ref {

namespace {

using core::FieldSpec;
using core::i64;
using core::Issue;

constexpr i64 kMiB = i64{1} << 20;
constexpr i64 kPromptMax = 8192;  // also the largest prefill chunk

FieldSpec spec(std::string_view key, std::string_view flag, std::string_view label, std::string_view help, i64 lo,
               i64 hi) {
  FieldSpec s;
  s.key = key;
  s.flag = flag;
  s.label = label;
  s.help = help;
  s.min_int = lo;
  s.max_int = hi;
  return s;
}

// The budget is kept in bytes and set in whole MiB.
DemoField budget_row() {
  DemoField row{spec("budget", "--budget-mib", "memory budget (MiB)",
                     "memory for the block; wider blocks are scaled down", 16, 65536)};
  row.get_text = [](const FieldSpec&, const DemoSettings& s) { return std::to_string(s.budget_bytes / kMiB); };
  row.set_text = [](const FieldSpec& f, DemoSettings& s, std::string_view t) -> std::optional<Issue> {
    i64 mib = 0;
    if (auto issue = core::read_int(f, t, mib)) return issue;
    s.budget_bytes = mib * kMiB;
    return std::nullopt;
  };
  return row;
}

std::vector<DemoField> build_fields() {
  return {
      core::int_field<DemoSettings>(spec("prompt", "--prompt", "prompt tokens",
                                         "prompt tokens prefilled through the block", 1, kPromptMax),
                                    [](auto& s) -> auto& { return s.prompt; }),
      core::int_field<DemoSettings>(spec("tokens", "--tokens", "decoded tokens", "tokens decoded after the prompt", 1,
                                         4096),
                                    [](auto& s) -> auto& { return s.tokens; }),
      budget_row(),
      core::int_field<DemoSettings>(spec("prefill_chunk", "", "prefill chunk",
                                         "prompt tokens per forward call (chunked prefill)", 1, kPromptMax),
                                    [](auto& s) -> auto& { return s.prefill_chunk; }),
  };
}

}  // namespace

const std::vector<DemoField>& demo_fields() {
  static const std::vector<DemoField> fields = build_fields();
  return fields;
}

const DemoField* find_demo_field(std::string_view key) { return core::find_by_key(demo_fields(), key); }
const DemoField* find_demo_flag(std::string_view flag) { return core::find_by_flag(demo_fields(), flag); }

std::vector<Issue> validate(const DemoSettings& s) {
  std::vector<Issue> bad;
  auto in_range = [&](std::string_view key, i64 v) {
    const DemoField& f = *find_demo_field(key);
    if (auto issue = core::check_range(key, f.min_int, f.max_int, v)) bad.push_back(*issue);
  };
  in_range("prompt", s.prompt);
  in_range("tokens", s.tokens);
  in_range("prefill_chunk", s.prefill_chunk);
  // The budget to the byte, against its row's MiB range.
  const DemoField& b = *find_demo_field("budget");
  if (s.budget_bytes < b.min_int * kMiB || s.budget_bytes > b.max_int * kMiB)
    bad.push_back({"budget", "must be in [" + std::to_string(b.min_int) + ", " + std::to_string(b.max_int) +
                                 "] MiB, got " + std::to_string(s.budget_bytes / kMiB) + " MiB"});
  return bad;
}

}  // namespace llmsize::ref
