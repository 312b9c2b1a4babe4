// Embind bindings of the JS API (see js_api.hpp). Calls into the core only (the API module
// links llmsize_core alone, no UI); JSON text from the core's report functions is handed to
// JSON.parse so that callers get plain objects.
#include "js_api.hpp"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "core/compare.hpp"
#include "core/engine_log.hpp"
#include "core/launch.hpp"
#include "core/model_fields.hpp"
#include "core/model_source.hpp"
#include "core/presets.hpp"
#include "core/report.hpp"
#include "core/share_link.hpp"
#include "core/workload.hpp"

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

bool is_nothing(const val& v) { return v.isUndefined() || v.isNull(); }

// A model given as {preset: id}, a config.json object, or its JSON text, through the core's
// one loader (core::load_model). `preset` receives the preset id when one was named.
core::Result<core::ModelConfig> model_from(const val& model, std::string* preset = nullptr) {
  if (is_nothing(model)) return core::Issue{"model", "missing: give {preset: id} or a config.json object"};
  std::string text;  // the preset id or the config's text
  core::ModelSource src;
  if (model.isString()) {
    text = model.as<std::string>();
    src = core::ModelSource::config(text);
  } else if (model.hasOwnProperty("preset")) {
    text = model["preset"].as<std::string>();
    src = core::ModelSource::preset(text);
  } else {
    text = val::global("JSON").call<std::string>("stringify", model);
    src = core::ModelSource::config(text);
  }
  auto r = core::load_model(src);
  if (!r) return r.issues();
  if (preset) *preset = r->preset;
  return r->config;
}

// A workload given as {key: value} with the share-link keys of workload_fields() ({} = defaults).
core::Result<core::Workload> workload_from(const val& work) {
  core::Workload w;
  if (is_nothing(work)) return w;
  std::vector<core::Issue> issues;
  const val keys = val::global("Object").call<val>("keys", work);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string k = keys[i].as<std::string>();
    const val v = work[k];
    const std::string text = v.isTrue() ? "1" : v.isFalse() ? "0" : val::global("String")(v).as<std::string>();
    const core::WorkloadField* f = core::find_field(k);
    if (!f) {
      issues.push_back({k, "unknown workload key"});
      continue;
    }
    if (auto is = f->set(w, text)) issues.push_back(*is);
  }
  if (!issues.empty()) return issues;
  return w;
}

val js_presets() {
  static const std::string text = [] {
    auto all = core::load_presets();
    return core::presets_json(all ? all.value() : std::vector<core::Preset>{});
  }();
  return parse_json(text);
}

val js_estimate(val model, val workload) {
  auto cfg = model_from(model);
  if (!cfg) return issues_val(cfg.issues());
  auto w = workload_from(workload);
  if (!w) return issues_val(w.issues());
  return parse_json(core::estimate_report(cfg.value(), w.value()));
}

// A start-up log (text) checked against a model under a workload: the comparison, or {issues}.
// No model (undefined or null): the preset that is the checkpoint the log names, as the CLI.
val js_check_log(std::string text, val model, val workload) {
  auto log = core::parse_engine_log(text);
  if (!log) return issues_val(log.issues());
  std::optional<core::Preset> picked;
  if (is_nothing(model)) picked = core::find_preset_by_hub(log->model);
  auto cfg = picked ? core::Result<core::ModelConfig>(picked->config) : model_from(model);
  if (!cfg) return issues_val(cfg.issues());
  auto w = workload_from(workload);
  if (!w) return issues_val(w.issues());
  auto c = core::check_log(log.value(), cfg.value(), w.value());
  if (!c) return issues_val(c.issues());
  return parse_json(core::check_log_json(c.value(), picked ? std::string_view(picked->id) : std::string_view()));
}

core::Result<core::ShareState> state_from(const val& model, const val& workload) {
  core::ShareState st;
  auto cfg = model_from(model, &st.preset);
  if (!cfg) return cfg.issues();
  auto w = workload_from(workload);
  if (!w) return w.issues();
  st.model = cfg.value();
  st.workload = w.value();
  return st;
}

val js_encode_link(val model, val workload) {
  auto st = state_from(model, workload);
  if (!st) return issues_val(st.issues());
  return val("#" + core::encode_link(st.value()));
}

val js_cli_command(val model, val workload) {
  auto st = state_from(model, workload);
  if (!st) return issues_val(st.issues());
  return val(core::cli_command(st.value()));
}

// The engine's launch command for a model and workload (rt: vllm, sglang or llamacpp): its JSON
// (core::launch_json), or {issues}. `model_id` names the model in the command; empty or absent:
// the preset's repository for vLLM and SGLang, else MODEL.
val js_launch_command(val model, val workload, val model_id) {
  auto st = state_from(model, workload);
  if (!st) return issues_val(st.issues());
  const std::string id = is_nothing(model_id) ? core::preset_model_id(st->preset, st->workload.runtime)
                                              : val::global("String")(model_id).as<std::string>();
  auto c = core::launch_command(st->model, st->workload, id);
  if (!c) return issues_val(c.issues());
  return parse_json(core::launch_json(c.value()));
}

val js_decode_link(std::string fragment) {
  auto r = core::decode_link(fragment);
  if (!r) return issues_val(r.issues());
  const core::ShareState& st = r.value();
  val out = val::object();
  val model = val::object();
  if (!st.preset.empty()) model.set("preset", st.preset);
  else
    for (const auto& f : core::model_fields()) model.set(std::string(f.key), f.get(st.model));
  val work = val::object();
  const core::Workload defaults;
  for (const auto& f : core::workload_fields())
    if (f.get(st.workload) != f.get(defaults)) work.set(std::string(f.key), f.get(st.workload));
  val ui = val::object();
  for (const auto& [k, v] : st.ui) ui.set(k, v);
  out.set("model", model);
  out.set("workload", work);
  out.set("ui", ui);
  return out;
}

// Configurations side by side (core::compare): `cases` is a comparison link ("#v=1&…&c2=…") or an
// array of 2 to 4 {model, workload} objects. Returns `llmsize compare --json`'s object with the
// comparison's link added, or {issues}.
val js_compare(val cases) {
  std::vector<core::ShareState> states;
  if (cases.isString()) {
    auto r = core::decode_compare_link(cases.as<std::string>());
    if (!r) return issues_val(r.issues());
    states = std::move(r).value();
  } else if (cases.isArray()) {
    const size_t n = cases["length"].as<size_t>();
    if (n > static_cast<size_t>(core::kMaxCompareCases)) return issues_val({{"cases", "has " + std::to_string(n) + " entries; at most " + std::to_string(core::kMaxCompareCases)}});
    std::vector<core::Issue> issues;
    for (size_t k = 0; k < n; ++k) {
      const val c = cases[k];
      auto st = is_nothing(c) ? core::Result<core::ShareState>(core::Issue{"model", "missing"}) : state_from(c["model"], c["workload"]);
      if (!st) {
        for (core::Issue i : st.issues()) {
          i.field = "cases[" + std::to_string(k) + "]." + i.field;
          issues.push_back(std::move(i));
        }
      } else {
        states.push_back(std::move(st).value());
      }
    }
    if (!issues.empty()) return issues_val(issues);
  } else {
    return issues_val({{"cases", "must be a comparison link or an array of {model, workload}"}});
  }
  for (auto& st : states) st.ui.clear();
  if (states.size() < 2) return issues_val({{"cases", "a comparison needs 2 to " + std::to_string(core::kMaxCompareCases) + " cases, got " + std::to_string(states.size())}});
  val out = parse_json(core::compare_json(core::compare(states)));
  out.set("link", "#" + core::encode_compare_link(states));
  return out;
}

std::string js_version() { return LLMSIZE_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(llmsize_api) {
  emscripten::function("presets", &js_presets);
  emscripten::function("estimate", &js_estimate);
  emscripten::function("checkLog", &js_check_log);
  emscripten::function("encodeLink", &js_encode_link);
  emscripten::function("decodeLink", &js_decode_link);
  emscripten::function("cliCommand", &js_cli_command);
  emscripten::function("launchCommand", &js_launch_command);
  emscripten::function("compare", &js_compare);
  emscripten::function("version", &js_version);
}
