// Model presets: Hugging Face configs with a display name and the source of their numbers,
// stored as JSON in presets/models/ and compiled into the binary.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "embedded.hpp"
#include "hf_config.hpp"

namespace llmsize::core {

struct Preset {
  std::string id;      // "llama-3-8b"
  std::string name;    // "Meta Llama 3 8B"
  std::string source;  // where the config comes from
  // Where the preset's config is its Hub repository's (hub_repo_of(source)) but not that checkpoint
  // as an engine loads it (a text model cut out of a multimodal checkpoint, quantization left out):
  // why. Empty otherwise.
  std::string hub_differs;
  // The id of the preset whose config this one shares (another release of the same shapes), or
  // empty where the preset holds its own.
  std::string config_of;
  ModelConfig config;
  // Published parameter counts, where a primary source states them exactly (0 = none).
  i64 published_total = 0;
  i64 published_active = 0;
  i64 published_with_vision = 0;  // the language model and its vision tower together (KerasHub counts them so)
  std::string published_source;
  // Every tensor the checkpoint stores (language model, MTP block, vision tower), as the Hub's
  // safetensors count or its index's total_size gives it, with its own source.
  i64 published_checkpoint = 0;
  std::string checkpoint_source;
};

// One preset file ("models/<order>-<id>.json" under presets/): its fields, and its config read
// from its "config" object or, with "config_of", from the named preset's.
Result<Preset> parse_preset(const EmbeddedFile& f);
// Every preset, sorted as in presets/models/ (file names start with an order prefix).
// Presets are checked by the tests; a broken preset file would be reported as an Issue.
Result<std::vector<Preset>> load_presets();
Result<Preset> find_preset(std::string_view id);
// The Hugging Face repository a preset's config comes from ("Hugging Face Hub: owner/name, …"),
// or empty.
std::string hub_repo_of(std::string_view preset_source);
// The preset that is the checkpoint `model_id` names (a Hub repository, as an engine's log names
// its model; the Hub's names compare case aside): its hub_repo_of(source) is model_id and its
// hub_differs is empty. None where no preset is that checkpoint.
std::optional<Preset> find_preset_by_hub(std::string_view model_id);
// Presets of another checkpoint of the same name: same owner, and model_id's name is the preset
// repository's name and a '-' suffix ("meta-llama/Llama-3.1-8B-Instruct" → preset llama-3.1-8b,
// meta-llama/Llama-3.1-8B); and a preset of model_id itself whose hub_differs says how it differs.
// A hint to name, never picked: the configs may differ.
std::vector<Preset> presets_sharing_name(std::string_view model_id);

}  // namespace llmsize::core
