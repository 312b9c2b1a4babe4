// Model presets: Hugging Face configs with a display name and the source of their numbers,
// stored as JSON in presets/models/ and compiled into the binary.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hf_config.hpp"

namespace llmsize::core {

struct Preset {
  std::string id;      // "llama-3-8b"
  std::string name;    // "Meta Llama 3 8B"
  std::string source;  // where the config comes from
  ModelConfig config;
  // Published parameter counts, where a primary source states them exactly (0 = none).
  i64 published_total = 0;
  i64 published_active = 0;
  std::string published_source;
};

// Every preset, sorted as in presets/models/ (file names start with an order prefix).
// Presets are checked by the tests; a broken preset file would be reported as an Issue.
Result<std::vector<Preset>> load_presets();
Result<Preset> find_preset(std::string_view id);

}  // namespace llmsize::core
