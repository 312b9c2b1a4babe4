// Embind bindings of the JS API (see js_api.hpp). Pure calls into the core; JSON text from
// the core's report functions is handed to JSON.parse so that callers get plain objects.
#include "js_api.hpp"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "app/state.hpp"
#include "core/hf_config.hpp"
#include "core/params.hpp"
#include "core/report.hpp"

namespace {

using emscripten::val;
using namespace llmsize;

val parse_json(const std::string& text) { return val::global("JSON").call<val>("parse", text); }

val issues_val(const std::vector<core::Issue>& issues) {
  val arr = val::array();
  for (const auto& is : issues) {
    val o = val::object();
    o.set("field", is.field);
    o.set("message", is.message);
    arr.call<void>("push", o);
  }
  val out = val::object();
  out.set("issues", arr);
  return out;
}

// A model given as {preset: id} or as a config.json object (or its JSON text).
core::Result<core::ModelConfig> model_from(const val& model) {
  if (model.isString()) {
    auto r = core::import_hf_config(model.as<std::string>());
    if (!r) return r.issues();
    return r->config;
  }
  if (!model.isUndefined() && !model.isNull() && model.hasOwnProperty("preset")) {
    const std::string id = model["preset"].as<std::string>();
    if (const core::Preset* p = app::find_preset(id)) return p->config;
    return core::Issue{"preset", "unknown preset \"" + id + "\""};
  }
  if (model.isUndefined() || model.isNull()) return core::Issue{"model", "missing: give {preset: id} or a config.json object"};
  const std::string text = val::global("JSON").call<std::string>("stringify", model);
  auto r = core::import_hf_config(text);
  if (!r) return r.issues();
  return r->config;
}

val js_presets() {
  return parse_json(core::presets_json(app::presets()));
}

val js_estimate(val model, val workload) {
  (void)workload;
  auto cfg = model_from(model);
  if (!cfg) return issues_val(cfg.issues());
  auto params = core::count_params(cfg.value());
  if (!params) return issues_val(params.issues());
  return parse_json(core::params_json(cfg.value(), params.value()));
}

std::string js_version() { return "0.1.0"; }

}  // namespace

EMSCRIPTEN_BINDINGS(llmsize_api) {
  emscripten::function("presets", &js_presets);
  emscripten::function("estimate", &js_estimate);
  emscripten::function("version", &js_version);
}
