// Where a model comes from: a compiled-in preset or the text of a Hugging Face config.json.
// load_model() is the one loader of the CLI (estimate, demo) and the JS API, so all of them
// report a bad preset or config with the same messages. Reading files is the caller's job.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace llmsize::core {

struct ModelSource {
  enum class Kind : std::uint8_t { Preset, Config };
  Kind kind = Kind::Preset;
  std::string_view text;  // the preset id, or the config.json text
  bool generic = false;   // Config: read an unsupported model_type as a LLaMA-like decoder

  static ModelSource preset(std::string_view id) { return {Kind::Preset, id, false}; }
  static ModelSource config(std::string_view json_text, bool generic = false) { return {Kind::Config, json_text, generic}; }
};

struct LoadedModel {
  ModelConfig config;
  std::string preset;               // the preset id; "" for a config
  std::vector<Issue> notes;         // assumptions the importer made (absent keys, generic reading)
};

// Issues: an unknown preset names the field "preset" ("unknown preset \"x\"; available: a, b, …");
// a config's issues name its config.json keys (import_hf_config).
Result<LoadedModel> load_model(const ModelSource& src);

}  // namespace llmsize::core
