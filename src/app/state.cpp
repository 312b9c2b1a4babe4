// State operations (see state.hpp).
#include "app/state.hpp"

#include "app/widgets.hpp"

#include <algorithm>
#include <cstdio>

#include "core/chart.hpp"
#include "core/file_weights.hpp"
#include "core/hf_config.hpp"
#include "core/model_source.hpp"
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

Banner make_banner(std::function<std::string(core::Lang)> text_in, bool error, bool progress) {
  Banner b;
  b.text_lang = ui_lang();
  b.text = text_in(b.text_lang);
  b.error = error;
  b.progress = progress;
  b.text_in = std::move(text_in);
  return b;
}

std::string banner_text(const Banner& b, core::Lang lang) {
  return b.text_in && lang != b.text_lang ? b.text_in(lang) : b.text;  // made once, in the language it is shown in
}

AppState default_state() {
  AppState s;
  if (!load_preset(s, "llama-3-8b") && !presets().empty()) load_preset(s, presets().front().id);
  return s;
}

namespace {
// Another model chosen: the model files read for the last one (its file, shards, projector) go.
void drop_model_files(AppState& s) {
  if (s.model_file || !s.model_file_summary.empty() || s.projector_bytes >= 0 || !s.model_safetensors.empty()) ++s.model_file_serial;
  s.model_file.reset();
  s.model_safetensors.clear();
  s.safetensors_shards.clear();
  s.model_file_summary.clear();
  s.model_file_shards.clear();
  s.projector_bytes = -1;
  s.projector_name.clear();
}
}  // namespace

bool load_preset(AppState& s, std::string_view id) {
  const core::Preset* p = find_preset(id);
  if (!p) return false;
  s.cfg = p->config;
  s.preset_id = p->id;
  s.model_name = p->name;
  s.import_notes.clear();
  s.edits.clear();
  drop_model_files(s);
  return true;
}

bool import_config(AppState& s, std::string_view json_text, std::string_view name, bool generic) {
  auto r = core::load_model(core::ModelSource::config(json_text, generic));
  if (!r) {
    Banner b = make_banner(
        [n = std::string(name), is = r.issues()](core::Lang l) {
          return printf_text(core::tr(Str::banner_import_failed, l), n.empty() ? core::tr(Str::name_the_config, l) : n.c_str(),
                             core::join(is, "; ", l).c_str());
        },
        true);
    for (const auto& is : r.issues())
      if (std::string_view(is.field).ends_with("model_type") && !generic && json_text.size() <= core::kMaxConfigBytes) {
        b.retry_text = std::string(json_text);
        b.retry_name = std::string(name);
      }
    s.banners.push_back(std::move(b));
    return false;
  }
  s.cfg = r->config;
  s.preset_id.clear();
  s.model_name = name.empty() ? std::string(T(Str::name_imported_config)) : std::string(name);
  s.cfg.name = s.model_name;
  s.import_notes = r->notes;
  s.edits.clear();
  drop_model_files(s);
  return true;
}

namespace {
// A model file's header from its first bytes, read by `read` (the GGUF or safetensors reader):
// the header; or nothing, with `more` the bytes to read where the header continues past them,
// else a banner naming what is wrong (`more` 0).
template <class Header, class Read>
std::optional<Header> header_of(AppState& s, std::string_view head, core::i64 file_bytes, const std::string& who, core::i64& more,
                                Read read) {
  more = 0;
  core::i64 need = 0;
  auto h = read(head, file_bytes, &need);
  if (h) return std::move(h).value();
  if (need > static_cast<core::i64>(head.size()) && static_cast<core::i64>(head.size()) < file_bytes) more = need;
  else s.banners.push_back(make_banner([who = std::string(who), is = h.issues()](core::Lang l) {
    return printf_text(core::tr(Str::banner_read_failed, l), who.c_str(), core::join(is, "; ", l).c_str());
  }, true));
  return std::nullopt;
}
}  // namespace

core::i64 import_safetensors_file(AppState& s, std::string_view head, core::i64 file_bytes, std::string_view name) {
  const std::string who = name.empty() ? std::string(T(Str::name_the_checkpoint)) : std::string(name);
  core::i64 more = 0;
  auto h = header_of<core::SafetensorsHeader>(s, head, file_bytes, who, more, [](std::string_view b, core::i64 n, core::i64* m) {
    return core::read_safetensors_header(b, n, m);
  });
  if (!h) return more;
  // model-00002-of-00004.safetensors (transformers' shard names): wait for all four.
  core::i64 no = 0, count = 0;
  if (const size_t at = who.rfind("-of-"); at != std::string::npos && at >= 5) {
    const std::string k = who.substr(at - 5, 5), n = who.substr(at + 4, 5);
    const auto digits = [](const std::string& x) { return x.size() == 5 && x.find_first_not_of("0123456789") == std::string::npos; };
    if (digits(k) && digits(n) && who.compare(at + 9, std::string::npos, ".safetensors") == 0) no = std::stoll(k), count = std::stoll(n);
  }
  ++s.model_file_serial;
  core::i64 read = static_cast<core::i64>(head.size());
  if (count > 1 && no >= 1 && no <= count && count <= core::kSafetensorsMaxShards) {
    auto& shards = s.safetensors_shards;
    if (shards.empty()) s.safetensors_shards_read = 0;
    std::erase_if(shards, [&](const auto& x) { return x.first == no; });
    shards.emplace_back(no, std::move(h).value());
    s.safetensors_shards_read += read;
    std::erase_if(s.banners, [](const Banner& b) { return b.progress; });
    if (static_cast<core::i64>(shards.size()) < count) {
      s.banners.push_back(make_banner(
          [n = static_cast<long long>(shards.size()), of = static_cast<long long>(count), who = std::string(who)](core::Lang l) {
            return printf_text(core::tr(Str::banner_shards_read, l), n, of, who.c_str());
          },
          false, true));
      return 0;
    }
    std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    s.model_safetensors.clear();
    for (auto& [k, x] : shards) s.model_safetensors.push_back(std::move(x));
    shards.clear();
    read = s.safetensors_shards_read;
  } else {
    s.model_safetensors = {std::move(h).value()};
  }
  s.model_file.reset();  // one file beside the estimate: the checkpoint replaces a GGUF read before
  s.model_file_summary.clear();
  if (auto m = core::prepare(s.cfg))  // what a share link carries of it (bytes and dtype per tensor)
    if (auto f = core::safetensors_file_weights(core::pointers_to(s.model_safetensors), *m->inventory))
      s.model_file_summary = core::file_summary(*f, *m->inventory).value_or("");
  s.model_file_name = who;
  s.model_file_read = read;  // the bytes read for the headers (the first megabytes of each file)
  std::erase_if(s.banners, [](const Banner& b) { return b.progress; });
  return 0;
}

core::i64 import_model_file(AppState& s, std::string_view head, core::i64 file_bytes, std::string_view name) {
  if (name.size() > 12 && name.substr(name.size() - 12) == ".safetensors") return import_safetensors_file(s, head, file_bytes, name);
  const std::string who = name.empty() ? std::string(T(Str::name_the_model_file)) : std::string(name);
  core::i64 more = 0;
  auto h = header_of<core::GgufHeader>(s, head, file_bytes, who, more, [](std::string_view b, core::i64 n, core::i64* m) {
    return core::read_gguf_header(b, n, m);
  });
  if (!h) return more;
  core::i64 read = static_cast<core::i64>(head.size());
  if (const auto split = core::gguf_split(*h)) {  // one file of a split model: wait for all of them
    auto& shards = s.model_file_shards;
    std::erase_if(shards, [&](const core::GgufHeader& x) {
      const auto o = core::gguf_split(x);
      return !o || o->count != split->count || o->no == split->no;
    });
    if (shards.empty()) s.model_file_shards_read = 0;
    shards.push_back(std::move(h).value());
    s.model_file_shards_read += read;
    if (static_cast<core::i64>(shards.size()) < split->count) {
      std::erase_if(s.banners, [](const Banner& b) { return b.progress; });
      s.banners.push_back(make_banner(
          [n = static_cast<long long>(shards.size()), of = static_cast<long long>(split->count), who = std::string(who)](core::Lang l) {
            return printf_text(core::tr(Str::banner_split_read, l), n, of, who.c_str());
          },
          false, true));
      return 0;
    }
    auto merged = core::merge_gguf_shards(std::move(shards));
    shards.clear();
    read = s.model_file_shards_read;
    if (!merged) {
      s.banners.push_back(make_banner([who = std::string(who), is = merged.issues()](core::Lang l) {
        return printf_text(core::tr(Str::banner_split_failed, l), who.c_str(), core::join(is, "; ", l).c_str());
      }, true));
      return 0;
    }
    h = std::move(merged).value();
  }
  if (core::gguf_is_projector(*h)) {  // an mmproj file: the vision encoder beside the model, which stays
    s.projector_bytes = h->tensor_bytes();
    s.projector_name = who;
    ++s.model_file_serial;
    std::erase_if(s.banners, [](const Banner& b) { return b.progress; });
    return 0;
  }
  auto c = core::gguf_config(*h);
  if (!c) {
    s.banners.push_back(make_banner([who = std::string(who), is = c.issues()](core::Lang l) {
      return printf_text(core::tr(Str::banner_not_a_model, l), who.c_str(), core::join(is, "; ", l).c_str());
    }, true));
    return 0;
  }
  s.cfg = c->config;
  s.preset_id.clear();
  s.model_name = who;
  s.cfg.name = who;
  s.import_notes = c->notes;
  s.edits.clear();
  if (auto f = core::gguf_weight_format(*h)) s.work.weights = *f;
  s.model_file = std::move(h).value();
  s.model_safetensors.clear();
  ++s.model_file_serial;
  s.model_file_summary.clear();
  if (auto m = core::prepare(s.cfg))
    if (auto f = core::gguf_file_weights(*s.model_file, s.cfg, *m->inventory))
      s.model_file_summary = core::file_summary(*f, *m->inventory).value_or("");
  s.model_file_name = who;
  s.model_file_read = read;
  s.banners.clear();
  return 0;
}

const char* tab_id(ResultTab t) {
  static const char* ids[kResultTabCount] = {"params", "memory", "scaling", "gpus", "throughput", "demo", "share", "compare"};
  const int i = static_cast<int>(t);
  return i >= 0 && i < kResultTabCount ? ids[i] : "params";
}

ResultTab default_tab(const AppState& s) { return s.compare.empty() ? ResultTab::Params : ResultTab::Compare; }

core::ShareState share_state(const AppState& s) {
  core::ShareState st;
  st.preset = model_edited(s) ? std::string() : s.preset_id;
  st.model = s.cfg;
  st.workload = s.work;
  st.file = s.model_file_summary;
  st.projector_bytes = s.projector_bytes;
  if (s.unit == core::ByteUnit::GiB) st.ui.emplace_back("ui.unit", "gib");
  if (s.tab != default_tab(s)) st.ui.emplace_back("ui.tab", tab_id(s.tab));
  if (s.workload_panel) st.ui.emplace_back("ui.panel", "workload");
  if (s.lang != core::Lang::En) st.ui.emplace_back("lang", std::string(core::lang_code(s.lang)));
  return st;
}

std::vector<core::ShareState> compare_cases(const AppState& s) {
  std::vector<core::ShareState> cases{share_state(s)};
  cases.front().ui.clear();
  cases.insert(cases.end(), s.compare.begin(), s.compare.end());
  return cases;
}

bool add_compare_case(AppState& s) {
  if (s.compare.size() + 1 >= static_cast<size_t>(core::kMaxCompareCases)) return false;
  s.compare.push_back(compare_cases(s).front());
  return true;
}

bool remove_compare_case(AppState& s, size_t number) {
  if (number < 2 || number - 2 >= s.compare.size()) return false;
  s.compare.erase(s.compare.begin() + static_cast<std::ptrdiff_t>(number - 2));
  return true;
}

std::string link_of(const AppState& s) {
  if (s.compare.empty()) return "#" + core::encode_link(share_state(s));
  std::vector<core::ShareState> cases = compare_cases(s);
  cases.front() = share_state(s);  // case 1 keeps the view settings: the link opens this view
  return "#" + core::encode_compare_link(cases);
}

std::string cli_of(const AppState& s) {
  // Links hold only [A-Za-z0-9] and "-._~,=&%" (core::encode_link escapes the rest): safe in single quotes.
  if (!s.compare.empty()) return "llmsize compare '#" + core::encode_compare_link(compare_cases(s)) + "'";
  return core::cli_command(share_state(s));
}

core::Result<core::LaunchCommand> launch_of(const AppState& s) {
  std::string id;
  if (s.work.runtime == core::Runtime::LlamaCpp && s.model_file) id = s.model_file_name;
  else if (!model_edited(s)) id = core::preset_model_id(s.preset_id, s.work.runtime);
  return core::launch_command(s.cfg, s.work, id);
}

namespace {
// A link's model, workload and files into the state (its view settings are the caller's).
void apply_share_state(AppState& s, const core::ShareState& st) {
  drop_model_files(s);  // a link carries the file's types or bytes per tensor, not the file
  s.model_file_summary = st.file;
  s.projector_bytes = st.projector_bytes;
  s.projector_name = st.projector_bytes >= 0 ? T(Str::name_link_projector) : "";
  ++s.model_file_serial;
  s.cfg = st.model;
  s.work = st.workload;
  s.preset_id = st.preset;
  s.import_notes.clear();
  s.edits.clear();
  const core::Preset* p = find_preset(st.preset);
  s.model_name = p ? p->name : (st.model.name.empty() ? std::string(T(Str::name_custom_model)) : st.model.name);
}
}  // namespace

bool edit_compare_case(AppState& s, size_t number) {
  if (number < 2 || number - 2 >= s.compare.size()) return false;
  core::ShareState next = std::move(s.compare[number - 2]);
  s.compare[number - 2] = compare_cases(s).front();
  apply_share_state(s, next);
  return true;
}

bool open_link(AppState& s, std::string_view fragment) {
  // A comparison's link or a plain one (a comparison of one case).
  auto r = core::decode_compare_link(fragment);
  if (!r) {
    AppState fresh = default_state();
    fresh.dark = s.dark;
    fresh.embed = s.embed;
    fresh.lang = s.lang;
    fresh.banners.push_back(make_banner([is = r.issues()](core::Lang l) {
      return printf_text(core::tr(Str::banner_bad_link, l), core::join(is, "; ", l).c_str());
    }, true));
    s = std::move(fresh);
    return false;
  }
  const core::ShareState& st = r->front();
  apply_share_state(s, st);
  s.compare.assign(r->begin() + 1, r->end());
  s.unit = core::ByteUnit::GB;
  s.tab = default_tab(s);
  s.workload_panel = false;
  s.banners.clear();
  // View settings: the codec passes "ui.*" through; unknown ones are named, not ignored. They
  // belong to case 1 (the view); a further case's are named too.
  std::string unknown;
  for (const auto& [k, v] : st.ui) {
    bool known = true;
    if (k == "ui.panel" && (v == "workload" || v == "model")) s.workload_panel = v == "workload";
    else if (k == "lang" && core::lang_of_code(v)) s.lang = *core::lang_of_code(v);
    else if (k == "ui.unit" && (v == "gib" || v == "gb")) s.unit = v == "gib" ? core::ByteUnit::GiB : core::ByteUnit::GB;
    else if (k == "ui.tab") {
      known = false;
      for (int i = 0; i < kResultTabCount; ++i)
        if (v == tab_id(static_cast<ResultTab>(i))) {
          s.tab = static_cast<ResultTab>(i);
          known = true;
        }
    } else known = false;
    if (!known) unknown += (unknown.empty() ? "" : ", ") + k + "=\"" + v + "\"";
  }
  for (size_t c = 0; c < s.compare.size(); ++c) {
    for (const auto& [k, v] : s.compare[c].ui)
      unknown += (unknown.empty() ? "" : ", ") + ("c" + std::to_string(c + 2) + ".") + k + "=\"" + v + "\"";
    s.compare[c].ui.clear();
  }
  if (!unknown.empty())
    s.banners.push_back(make_banner([unknown](core::Lang l) { return printf_text(core::tr(Str::banner_unknown_view, l), unknown.c_str()); },
                                    false));
  s.tab_from_link = true;
  return true;
}

bool model_edited(const AppState& s) {
  const core::Preset* p = find_preset(s.preset_id);
  if (!p) return true;
  core::ModelConfig a = s.cfg, b = p->config;
  a.name = b.name;  // the display name is not a dimension
  return !(a == b);
}

core::Result<core::PreparedModel> prepared_of(const AppState& s) {
  auto m = core::prepare(s.cfg);
  if (!m) return m.issues();
  core::PreparedModel pm = std::move(m).value();
  if (s.model_file) core::attach_file(pm, *s.model_file);
  else if (!s.model_safetensors.empty()) core::attach_file(pm, s.model_safetensors);
  else if (!s.model_file_summary.empty()) core::attach_file_summary(pm, s.model_file_summary);
  pm.projector_bytes = s.projector_bytes;
  return pm;
}

std::string figures_csv(const AppState& s) {
  auto pm = prepared_of(s);
  auto e = pm ? core::estimate(*pm, s.work) : core::Result<core::Estimate>(pm.issues());
  if (!e) {
    std::string text;
    for (char ch : core::join(e.issues())) text += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return "issue\r\n\"" + text + "\"\r\n";
  }
  return core::estimate_csv(s.cfg, s.work, *e);
}

std::string chart_svg(const AppState& s) {
  auto pm = prepared_of(s);
  auto e = pm ? core::estimate(*pm, s.work) : core::Result<core::Estimate>(pm.issues());
  if (!e) return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"40\"><text x=\"10\" y=\"25\">no estimate</text></svg>\n";
  return core::memory_chart_svg(s.cfg, s.work, *e, s.unit);
}

std::string figures_json(const AppState& s, bool with_explain) {
  if (s.model_file || !s.model_file_summary.empty() || s.projector_bytes >= 0 || !s.model_safetensors.empty())  // the files' bytes, as the UI shows them
    if (auto pm = prepared_of(s)) return core::estimate_report(*pm, s.work, with_explain);
  return core::estimate_report(s.cfg, s.work, with_explain);
}

}  // namespace llmsize::app
