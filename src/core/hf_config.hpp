// Import of a Hugging Face config.json into a ModelConfig. Reads every spelling of a field
// seen in the wild (n_embd / hidden_size / d_model …), follows a nested text_config, and
// applies each family's class defaults for absent keys. Untrusted input: any problem is an
// Issue naming the JSON key and the allowed range; nothing throws.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace llmsize::core {

struct ImportOptions {
  bool generic_fallback = false;  // treat an unknown model_type as a LLaMA-like decoder
};

struct ImportedConfig {
  ModelConfig config;
  std::vector<Issue> notes;  // assumptions made (absent keys given defaults, fallback used), named by key
};

// Maximum accepted config size and nesting depth (documented limits for untrusted input).
inline constexpr size_t kMaxConfigBytes = 4u << 20;
inline constexpr int kMaxConfigDepth = 64;

Result<ImportedConfig> import_hf_config(std::string_view json_text, const ImportOptions& opt = {});

// The model_type values read natively (aliases such as RefinedWebModel included).
const std::vector<std::string_view>& supported_model_types();

}  // namespace llmsize::core
