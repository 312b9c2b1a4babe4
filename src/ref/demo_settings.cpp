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
      // The training step's ranges are train.cpp's (TrainStep::create checks them too).
      core::int_field<DemoSettings>(spec("train_seq", "--train-seq", "training step tokens",
                                         "tokens per sequence of one measured training step of a block layer "
                                         "(forward, backward, AdamW) after the decode; 0 = none",
                                         0, kPromptMax),
                                    [](auto& s) -> auto& { return s.train_seq; }),
      core::int_field<DemoSettings>(spec("train_batch", "--train-batch", "training micro-batch",
                                         "sequences in the training step", 1, 64),
                                    [](auto& s) -> auto& { return s.train_batch; }),
      core::int_field<DemoSettings>(spec("lora_rank", "--train-lora-rank", "training LoRA rank",
                                         "rank of the step's LoRA adapters; 0 = every tensor of the layer trained", 0, 4096),
                                    [](auto& s) -> auto& { return s.train_lora_rank; }),
      core::flags_field<DemoSettings>(spec("lora_targets", "--train-lora-targets", "training LoRA targets",
                                           "matrices the step adapts: all, or a subset of q,k,v,o,gate,up,down", 0, 0),
                                      core::kLoraTargetNames, [](auto& s) -> auto& { return s.train_lora_targets; }),
      core::enum_field<DemoSettings>(spec("recompute", "--train-recompute", "training recomputation",
                                          "none, selective (nothing more is dropped with flash attention) or "
                                          "full (only the layer input kept; the forward rebuilt in backward)",
                                          0, 0),
                                     core::kRecomputeNames, [](auto& s) -> auto& { return s.train_recompute; }),
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
  in_range("train_seq", s.train_seq);
  in_range("train_batch", s.train_batch);
  in_range("lora_rank", s.train_lora_rank);
  if (s.train_lora_targets == 0 || s.train_lora_targets > core::kLoraAll)
    bad.push_back(core::issue_row("lora_targets", core::Str::ref_lora_targets_empty));
  // The budget to the byte, against its row's MiB range.
  const DemoField& b = *find_demo_field("budget");
  if (s.budget_bytes < b.min_int * kMiB || s.budget_bytes > b.max_int * kMiB)
    bad.push_back(core::issue_row("budget", core::Str::ref_demo_budget_range, std::to_string(b.min_int),
                                  std::to_string(b.max_int), std::to_string(s.budget_bytes / kMiB)));
  return bad;
}

}  // namespace llmsize::ref
