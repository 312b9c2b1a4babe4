// Preset loading from the embedded presets/models/*.json (see presets.hpp).
#include "presets.hpp"

#include "embedded.hpp"
#include "hf_reader.hpp"
#include "json_util.hpp"

namespace llmsize::core {

namespace {
bool same_hub_id(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// A preset file's id from its name, "models/<order>-<id>.json"; empty for files outside models/.
std::string_view file_id(const EmbeddedFile& f) {
  if (f.path.rfind("models/", 0) != 0) return {};
  const std::string_view base = f.path.substr(f.path.find('-') + 1);
  return base.substr(0, base.size() - 5);  // drop ".json"
}

// The preset file of `id`.
const EmbeddedFile* preset_file(std::string_view id) {
  for (const auto& f : embedded_files())
    if (!id.empty() && file_id(f) == id) return &f;
  return nullptr;
}

}  // namespace

Result<Preset> parse_preset(const EmbeddedFile& f) {
  using json_util::json;
  const std::string what = "presets/" + std::string(f.path);
  auto doc = json_util::parse(f.content, what, kMaxConfigBytes, kMaxConfigDepth);
  if (!doc) return doc.issues();
  const json& j = *doc;
  Preset p;
  auto text = [&](const json& o, const char* k) -> std::string {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  p.id = text(j, "id");
  p.name = text(j, "name");
  p.source = text(j, "source");
  p.hub_differs = text(j, "hub_differs");
  p.config_of = text(j, "config_of");
  auto cfg = j.find("config");
  const bool has_config = cfg != j.end() && cfg->is_object();
  if (p.id.empty() || p.name.empty() || has_config == !p.config_of.empty())
    return Issue{what, "needs \"id\", \"name\" and either a \"config\" object or \"config_of\" (the id of a preset whose config it shares)"};
  // "config_of": another checkpoint with the same config.json shapes (a later release of the same
  // model): that preset's "config", read from its own file. One step only: the other preset holds
  // its config itself, so a chain or a loop cannot form.
  std::optional<json> shared;
  if (!p.config_of.empty()) {
    const EmbeddedFile* other = preset_file(p.config_of);
    if (!other || other == &f || p.config_of == p.id) return Issue{what + ": config_of", "names no other preset: \"" + p.config_of.substr(0, 60) + "\""};
    auto other_doc = json_util::parse(other->content, "presets/" + std::string(other->path), kMaxConfigBytes, kMaxConfigDepth);
    if (!other_doc) return other_doc.issues();
    auto oc = other_doc->find("config");
    if (oc == other_doc->end() || !oc->is_object())
      return Issue{what + ": config_of", "\"" + p.config_of + "\" holds no \"config\" object of its own"};
    shared = *oc;
  }
  auto imported = hf::import_object(shared ? *shared : *cfg);  // read where it lies in the preset's document
  if (!imported) {
    std::vector<Issue> issues = imported.issues();
    for (auto& i : issues) i.field = what + ": " + i.field;
    return issues;
  }
  p.config = imported->config;
  p.config.name = p.name;
  if (auto pub = j.find("published"); pub != j.end() && pub->is_object()) {
    std::vector<Issue> issues;
    if (auto t = pub->find("total"); t != pub->end()) p.published_total = json_util::to_int(*t, what, issues).value_or(0);
    if (auto a = pub->find("active"); a != pub->end()) p.published_active = json_util::to_int(*a, what, issues).value_or(0);
    if (auto v = pub->find("total_with_vision"); v != pub->end()) p.published_with_vision = json_util::to_int(*v, what, issues).value_or(0);
    if (auto c = pub->find("checkpoint_total"); c != pub->end()) p.published_checkpoint = json_util::to_int(*c, what, issues).value_or(0);
    p.published_source = text(*pub, "source");
    p.checkpoint_source = text(*pub, "checkpoint_source");
    if (p.published_checkpoint > 0 && p.checkpoint_source.empty())
      issues.push_back(Issue{what + ": published.checkpoint_source", "a checkpoint_total needs its own source"});
    if (!issues.empty()) return issues;
  }
  return p;
}

Result<std::vector<Preset>> load_presets() {
  std::vector<Preset> out;
  std::vector<Issue> issues;
  for (const auto& f : embedded_files()) {
    if (f.path.rfind("models/", 0) != 0) continue;
    auto p = parse_preset(f);
    if (!p) issues.insert(issues.end(), p.issues().begin(), p.issues().end());
    else out.push_back(std::move(p).value());
  }
  if (!issues.empty()) return issues;
  return out;
}

Result<Preset> find_preset(std::string_view id) {
  // Parse only the matching file (share links and the JS API look presets up often), and list
  // the ids from the file names otherwise.
  if (const EmbeddedFile* f = preset_file(id)) {
    auto p = parse_preset(*f);
    if (!p) return p.issues();
    if (p->id == id) return p;
  }
  std::string ids;
  for (const auto& f : embedded_files())
    if (const std::string_view fid = file_id(f); !fid.empty()) ids += (ids.empty() ? "" : ", ") + std::string(fid);
  return issue_row("--preset", Str::cli_unknown_preset, std::string(id.substr(0, 60)), ids);
}

std::string hub_repo_of(std::string_view source) {
  constexpr std::string_view kHub = "Hugging Face Hub: ";
  if (source.substr(0, kHub.size()) != kHub) return {};
  source.remove_prefix(kHub.size());
  const std::string_view repo = source.substr(0, source.find_first_of(", "));
  // owner/name: one slash between two non-empty parts of letters, digits, '-', '_' and '.'.
  const size_t slash = repo.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == repo.size() || repo.find('/', slash + 1) != std::string_view::npos)
    return {};
  for (char c : repo)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '/'))
      return {};
  return std::string(repo);
}

std::optional<Preset> find_preset_by_hub(std::string_view model_id) {
  if (model_id.empty() || model_id.size() > 200) return std::nullopt;
  auto all = load_presets();
  if (!all) return std::nullopt;  // a broken preset file: the tests report it
  for (const Preset& p : *all)
    if (p.hub_differs.empty() && same_hub_id(hub_repo_of(p.source), model_id)) return p;
  return std::nullopt;
}

std::vector<Preset> presets_sharing_name(std::string_view model_id) {
  std::vector<Preset> out;
  if (model_id.empty() || model_id.size() > 200) return out;
  auto all = load_presets();
  if (!all) return out;
  for (const Preset& p : *all) {
    const std::string repo = hub_repo_of(p.source);
    if (repo.empty()) continue;
    if (same_hub_id(model_id, repo)) {
      if (!p.hub_differs.empty()) out.push_back(p);
      continue;
    }
    if (model_id.size() > repo.size() + 1 && model_id[repo.size()] == '-' && same_hub_id(model_id.substr(0, repo.size()), repo))
      out.push_back(p);
  }
  return out;
}

}  // namespace llmsize::core
