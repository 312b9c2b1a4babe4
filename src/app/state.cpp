// State operations (see state.hpp).
#include "app/state.hpp"

#include "core/hf_config.hpp"
#include "core/params.hpp"
#include "core/report.hpp"

namespace llmsize::app {

const std::vector<core::Preset>& presets() {
  static const std::vector<core::Preset> all = [] {
    auto r = core::load_presets();
    return r ? r.value() : std::vector<core::Preset>{};
  }();
  return all;
}

const core::Preset* find_preset(std::string_view id) {
  for (const auto& p : presets())
    if (p.id == id) return &p;
  return nullptr;
}

AppState default_state() {
  AppState s;
  if (!load_preset(s, "llama-3-8b") && !presets().empty()) load_preset(s, presets().front().id);
  return s;
}

bool load_preset(AppState& s, std::string_view id) {
  const core::Preset* p = find_preset(id);
  if (!p) return false;
  s.cfg = p->config;
  s.preset_id = p->id;
  s.model_name = p->name;
  s.import_notes.clear();
  s.edits.clear();
  return true;
}

bool import_config(AppState& s, std::string_view json_text, std::string_view name) {
  auto r = core::import_hf_config(json_text);
  if (!r) {
    s.banners.push_back({"Could not import " + std::string(name.empty() ? "the config" : name) + ": " +
                             core::join(r.issues()),
                         true});
    return false;
  }
  s.cfg = r->config;
  s.preset_id.clear();
  s.model_name = name.empty() ? std::string("imported config") : std::string(name);
  s.cfg.name = s.model_name;
  s.import_notes = r->notes;
  s.edits.clear();
  return true;
}

bool model_edited(const AppState& s) {
  const core::Preset* p = find_preset(s.preset_id);
  if (!p) return true;
  core::ModelConfig a = s.cfg, b = p->config;
  a.name = b.name;  // the display name is not a dimension
  return !(a == b);
}

std::string figures_json(const AppState& s) {
  auto params = core::count_params(s.cfg);
  if (!params) {
    std::string msg;
    for (char c : core::join(params.issues())) {
      if (c == '"' || c == '\\') msg += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) msg += c;
    }
    return "{\"issues\": \"" + msg + "\"}";
  }
  return core::params_json(s.cfg, params.value());
}

}  // namespace llmsize::app
