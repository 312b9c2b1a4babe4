// The calculator's state and the operations a user performs on it (pick a preset, import a
// config.json, edit a field, open a link), as plain data and free functions so that tests
// drive them without a window. Every figure is computed by the core from this state; nothing
// here is a formula.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.hpp"
#include "core/model.hpp"
#include "core/presets.hpp"

namespace llmsize::app {

struct Banner {
  std::string text;
  bool error = true;
};

// Text being typed into one field, kept while it does not parse, with the reason.
struct FieldEdit {
  std::string text;
  std::string error;
};

struct AppState {
  core::ModelConfig cfg;
  std::string preset_id;     // preset the model started from; "" for an imported config
  std::string model_name;    // preset name or imported file name
  std::vector<std::string> import_notes;  // assumptions the importer made
  core::ByteUnit unit = core::ByteUnit::GB;
  bool dark = true;
  bool embed = false;
  std::vector<Banner> banners;  // problems with a link or an import, shown until dismissed
  std::map<std::string, FieldEdit, std::less<>> edits;  // by field key
};

// Compiled-in presets, parsed once.
const std::vector<core::Preset>& presets();
const core::Preset* find_preset(std::string_view id);

// The state a fresh page opens with (LLaMA-3-8B when present, else the first preset).
AppState default_state();

// Replaces the model by a preset; false (state unchanged) when the id is unknown.
bool load_preset(AppState& s, std::string_view id);

// Imports a Hugging Face config.json; on failure the state is unchanged and a banner names
// what was wrong. `name` is the file name shown in the header.
bool import_config(AppState& s, std::string_view json_text, std::string_view name);

// True when the model differs from the preset it started from (the link then carries dims).
bool model_edited(const AppState& s);

// The figures of the current state as JSON (the test hook and the JS API read this).
std::string figures_json(const AppState& s);

}  // namespace llmsize::app
