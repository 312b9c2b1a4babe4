// Check a real run (issue 11): read the start-up log of vLLM or llama.cpp (llama-server), take
// the settings it prints (max_model_len, gpu_memory_utilization, tensor parallel size, KV cache
// dtype, n_ctx, slots, …) and the figures it reports, run llmsize's engine profile with those
// settings, and set each of the engine's figures beside llmsize's. A log is untrusted text: its
// size is bounded, lines are scanned once each without regular expressions, numbers are parsed
// by hand and range-checked, and anything unrecognised is skipped, not guessed.
// Megatron-LM's training log too (issue 15): its printed arguments give the layout and precision,
// its "number of parameters on (tensor, pipeline) model parallel rank" and report_memory lines the
// figures, set beside the megatron recipe's rank by rank.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "estimate.hpp"

namespace llmsize::core {

inline constexpr size_t kMaxLogBytes = size_t{8} << 20;  // 8 MiB of text
inline constexpr size_t kMaxLogLine = size_t{64} << 10;  // longer lines are skipped

enum class LogEngine : std::uint8_t { Vllm, LlamaCpp, SGLang, Megatron, DeepSpeedChat, LitGpt };
std::string_view to_string(LogEngine e);  // "vLLM", "llama.cpp", "SGLang", "Megatron-LM", "DeepSpeed-Chat"

// One figure the engine printed: its key (a key of engine.* in the JSON report), the value in
// bytes, tokens or a plain number, and the line it came from.
struct LogFigure {
  std::string key;
  double value = 0;
  std::string line;
};

struct EngineLog {
  LogEngine engine = LogEngine::Vllm;
  std::string version;  // as printed ("0.19.0", "b5274"); empty when the log does not say
  std::string model;    // the model the log names (vLLM's 'model' argument, llama.cpp's general.name)
  // Workload settings read from the log, as share-link keys and values ("seq" "8192", "util"
  // "0.95", "tp" "2", …); applied over the caller's workload.
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<LogFigure> figures;  // first occurrence of each (rank 0 of a tensor-parallel run)
  bool seq_is_model_max = false;  // SGLang's context_length=None: the model's max_position_embeddings
  std::vector<std::string> kv_lines;  // llama.cpp: its KV cache and recurrent state lines, verbatim (trimmed)
  bool experts_on_cpu = false;         // llama.cpp: --cpu-moe, or -ot "…exps…=CPU" for every layer, on its command line
  bool model_runner_v2 = false;        // vLLM: "Using V2 Model Runner" (gpu_worker.py, 0.27 and 0.28)
  bool model_runner_v1 = false;        // vLLM: a line of the first runner's file ("[gpu_model_runner.py:")
  bool compiled_cold = false;          // vLLM: torch.compile compiled on this start ("Compiling a graph for compile range …")
  std::vector<std::string> unread;     // llama.cpp: command-line flags that move tensors and are not modelled (-ot per layer)
  // Megatron-LM: its argument block ("  num_layers ........ 24"), name and value as printed.
  std::vector<std::pair<std::string, std::string>> arguments;
  const std::string* argument(std::string_view name) const;
  const LogFigure* find(std::string_view key) const;
};

// Parses a start-up log. Fails (Issue naming "log") when it is too large or holds no start-up
// line of a known engine.
Result<EngineLog> parse_engine_log(std::string_view text);

// One row of the comparison: the engine's figure, llmsize's, and their relative difference.
struct LogCheckRow {
  std::string key, label;    // label: English (the JSON's); the engine's own word where row is none
  std::optional<Str> row{};  // the label's row of the string table, with its values
  std::vector<RowArg> row_args{};
  std::string label_in(Lang lang) const { return row ? row_text(*row, row_args, lang) : label; }
  std::string logged, ours;  // as the engine formats the figure
  double logged_value = 0, ours_value = 0;
  double rel_diff = 0;       // ours / logged − 1 (0 when both are 0)
  bool same_text = false;    // llmsize prints the engine's text exactly
};

struct LogCheck {
  EngineLog log;
  Workload workload;               // the caller's, with the log's settings applied
  std::vector<LogCheckRow> rows;
  std::vector<std::string> lines;  // what llmsize prints for that workload
  std::vector<Issue> notes;        // field "log": e.g. the log's engine version differs from the profile's
};

// Runs the engine profile for `cfg` under `w` with the log's settings and compares. Fails
// (Issue naming the workload key) where a setting from the log is out of range, or where the
// profile refuses the model (the estimate's note).
Result<LogCheck> check_log(const EngineLog& log, const ModelConfig& cfg, Workload w);

// The comparison as JSON text: {engine, version, model, settings{}, rows[], lines[], notes[]} —
// what `llmsize check-log --json` prints and the JS API's checkLog returns. `preset`: the preset
// checked against when it was picked by the log's model (find_preset_by_hub), as "preset".
std::string check_log_json(const LogCheck& c, std::string_view preset = {});

}  // namespace llmsize::core
