// Command parsing and dispatch for the llmsize CLI (see cli.hpp). Every flag value is
// parsed strictly: a bad value is an error naming the flag and its allowed range.
#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <type_traits>

#include "core/chart.hpp"
#include "core/compare.hpp"
#include "core/engine_log.hpp"
#include "core/estimate.hpp"
#include "core/file_report.hpp"
#include "core/file_weights.hpp"
#include "core/gguf.hpp"
#include "core/format.hpp"
#include "core/hf_config.hpp"
#include "core/launch.hpp"
#include "core/model_source.hpp"
#include "core/limits.hpp"
#include "core/params.hpp"
#include "core/report.hpp"
#include "demo.hpp"

namespace llmsize::cli {

namespace {
using namespace llmsize::core;

// An error line in `l`: a row with its values, then a hint (a row, or an example command).
Output fail(Lang l, Str row, std::vector<RowArg> values = {}, RowArg hint = Str::cli_hint_help) {
  return {"", "llmsize: " + printf_text(tr(Str::cli_error, l), row_text(row, values, l).c_str(), hint.in(l).c_str()) + "\n", 2};
}
Output fail_issues(const std::vector<Issue>& issues, Lang l) {
  Output o{"", "", 2};
  for (const auto& i : issues) o.err += "llmsize: " + to_string(i, l) + "\n";
  return o;
}

struct Args {
  core::Workload workload;  // every flag of core::workload_fields()
  bool gib = false;          // sizes in GiB instead of GB
  std::string command;
  std::optional<std::string> file;  // check-log FILE, gguf FILE
  std::optional<std::string> preset, config, gguf, safetensors, mmproj, model_id;
  std::vector<std::string> cases;  // compare: --case LINK, in order
  std::vector<std::string> given;  // workload keys set by a flag
  bool json = false, explain = false, generic = false, csv = false, svg = false;
  core::Lang lang = core::Lang::En;  // the text views' language (--lang, else the locale's)
  std::map<std::string, std::string> demo_settings;  // demo flags, parsed by demo_cmd
};

// The workload flags, generated from core::workload_fields(), their help in `l`.
std::string workload_usage(Lang l) {
  std::string o = "\n" + std::string(tr(Str::cli_usage_workload, l)) + "\n";
  for (const auto& f : workload_fields()) {
    std::string head = "  " + std::string(f.flag) + " " + std::string(f.key == "gpu" ? "ID" : "V");
    head.resize(std::max<size_t>(head.size() + 1, 24), ' ');
    const FieldText* zh = field_text("workload", f.key, l);
    o += head + printf_text(tr(Str::cli_usage_field, l), zh ? std::string(zh->help).c_str() : std::string(f.help).c_str(),
                            allowed_text(f, l).c_str(), f.get(Workload{}).c_str()) + "\n";
  }
  o += "  --gib                 " + std::string(tr(Str::cli_usage_gib, l)) + "\n";
  return o;
}

// Issues of the estimate name workload keys; the CLI user typed flags.
std::vector<Issue> with_flags(std::vector<Issue> issues) {
  for (auto& i : issues)
    if (const WorkloadField* f = find_field(i.field)) i.field = std::string(f->flag);
  return issues;
}

std::optional<std::string> take_value(const std::vector<std::string>& a, size_t& i, Output& err, Lang l) {
  const std::string& flag = a[i];
  if (i + 1 >= a.size() || (a[i + 1].size() > 1 && a[i + 1].rfind("--", 0) == 0)) {
    err = fail(l, Str::cli_needs_value, {flag});
    return std::nullopt;
  }
  return a[++i];
}

Output presets_cmd(const Args& args) {
  auto all = load_presets();
  if (!all) return fail_issues(all.issues(), args.lang);
  Output o;
  if (args.json) {
    o.out = presets_json(*all) + "\n";
    return o;
  }
  for (const auto& p : *all) {
    auto counts = count_params(p.config);
    std::string id = p.id;
    id.resize(std::max<size_t>(id.size(), 20), ' ');
    std::string total = counts ? short_count(counts->total) : "?";
    total.insert(0, total.size() < 8 ? 8 - total.size() : 0, ' ');
    o.out += id + total + "  " + p.name + "\n";
  }
  return o;
}

// A file's header read from its first bytes: `parse(head, size, &more)` asks for more while the
// header continues; read at least that, doubling, up to `cap` bytes. `what` names the format.
template <class Parse>
auto read_header(const std::string& path, const PrefixReader& read_prefix, Output& err, const std::string& what, i64 cap,
                 Lang l, Parse parse) -> std::optional<std::remove_cvref_t<decltype(*parse(std::string_view(), i64{}, nullptr))>> {
  i64 want = std::min<i64>(i64{4} << 20, cap);
  for (;;) {
    i64 size = 0;
    std::string error;
    const auto head = read_prefix(path, want, size, error);
    if (!head) {
      err = fail(l, Str::cli_what_error, {what, error});
      return std::nullopt;
    }
    if (size == 0) {
      err = fail(l, Str::cli_file_empty, {what, path});
      return std::nullopt;
    }
    i64 more = 0;
    auto h = parse(*head, size, &more);
    if (h) return std::move(h).value();
    const i64 read = static_cast<i64>(head->size());
    if (more <= read || read >= size || want >= cap) {
      err = fail_issues(h.issues(), l);
      return std::nullopt;
    }
    want = std::min(std::max(more, 2 * want), cap);
  }
}

std::optional<GgufHeader> load_gguf_file(const std::string& path, const PrefixReader& read_prefix, Output& err, Lang l) {
  return read_header(path, read_prefix, err, "gguf", kGgufMaxHeaderBytes, l,
                     [](std::string_view head, i64 size, i64* more) { return read_gguf_header(head, size, more); });
}

// A GGUF file, or every shard of the split model it is one of (the files beside it named as
// gguf-split names them), merged.
std::optional<GgufHeader> load_gguf(const std::string& path, const PrefixReader& read_prefix, Output& err, Lang l) {
  auto first = load_gguf_file(path, read_prefix, err, l);
  if (!first) return std::nullopt;
  const auto split = gguf_split(*first);
  if (!split) return first;
  const auto paths = gguf_shard_paths(path, split->count);
  if (paths.empty()) {
    err = fail(l, Str::cli_split_name,
               {path, std::to_string(split->count),
                std::string(5 - std::min<size_t>(5, std::to_string(split->count).size()), '0') + std::to_string(split->count)});
    return std::nullopt;
  }
  std::vector<GgufHeader> shards;
  for (const auto& p : paths) {
    if (p == path) {
      shards.push_back(std::move(*first));
      continue;
    }
    auto h = load_gguf_file(p, read_prefix, err, l);
    if (!h) return std::nullopt;
    shards.push_back(std::move(*h));
  }
  auto merged = merge_gguf_shards(std::move(shards));
  if (!merged) {
    err = fail_issues(merged.issues(), l);
    return std::nullopt;
  }
  return std::move(merged).value();
}

std::optional<SafetensorsHeader> load_safetensors_file(const std::string& path, const PrefixReader& read_prefix, Output& err, Lang l) {
  return read_header(path, read_prefix, err, "safetensors", 8 + kSafetensorsMaxHeader, l,
                     [](std::string_view head, i64 size, i64* more) { return read_safetensors_header(head, size, more); });
}

// A checkpoint: PATH/model.safetensors.index.json and its shards, PATH/model.safetensors, an
// index file and the shards beside it, or one .safetensors file.
std::optional<std::vector<SafetensorsHeader>> load_checkpoint(const std::string& path, const PrefixReader& read_prefix, Output& err,
                                                              bool& folder, Lang l) {
  auto whole = [&](const std::string& p) -> std::optional<std::string> {  // a small file, whole
    i64 size = 0;
    std::string error;
    auto text = read_prefix(p, i64{64} << 20, size, error);
    if (!text || static_cast<i64>(text->size()) != size) return std::nullopt;
    return text;
  };
  std::string dir, index_path;
  folder = false;
  if (auto t = whole(path + "/model.safetensors.index.json")) {
    dir = path, index_path = path + "/model.safetensors.index.json", folder = true;
  } else if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    const size_t slash = path.find_last_of('/');
    dir = slash == std::string::npos ? "." : path.substr(0, slash), index_path = path;
  }
  std::vector<SafetensorsHeader> files;
  if (!index_path.empty()) {
    const auto text = whole(index_path);
    if (!text) {
      err = fail(l, Str::cli_index_read, {index_path});
      return std::nullopt;
    }
    auto index = read_safetensors_index(*text);
    if (!index) {
      err = fail_issues(index.issues(), l);
      return std::nullopt;
    }
    for (const auto& shard : index->shards) {
      auto h = load_safetensors_file(dir + "/" + shard, read_prefix, err, l);
      if (!h) return std::nullopt;
      files.push_back(std::move(*h));
    }
    return files;
  }
  i64 size = 0;
  std::string error;
  if (read_prefix(path + "/model.safetensors", 0, size, error)) {
    folder = true;
    auto h = load_safetensors_file(path + "/model.safetensors", read_prefix, err, l);
    if (!h) return std::nullopt;
    files.push_back(std::move(*h));
    return files;
  }
  auto h = load_safetensors_file(path, read_prefix, err, l);
  if (!h) return std::nullopt;
  files.push_back(std::move(*h));
  return files;
}

Output estimate_cmd(const Args& args, const FileReader& read_file, const PrefixReader& read_prefix) {
  if (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() > 1 ||
      (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() == 0 && !args.safetensors))
    return fail(args.lang, Str::cli_estimate_one);
  if (args.gguf && args.safetensors)  // one file beside the estimate: file{} in the JSON is one of them
    return fail(args.lang, Str::cli_gguf_and_st);
  Output err;
  std::optional<LoadedModel> model;
  std::optional<GgufHeader> file;
  Workload w = args.workload;
  std::vector<Issue> file_notes;
  if (args.gguf) {  // the model from the file's metadata, its weight format from its file type
    if (!(file = load_gguf(*args.gguf, read_prefix, err, args.lang))) return err;
    auto c = gguf_config(*file);
    if (!c) return fail_issues(c.issues(), args.lang);
    model = LoadedModel{c->config, "", c->notes};
    const bool weights_given = std::find(args.given.begin(), args.given.end(), "w") != args.given.end();
    if (auto f = gguf_weight_format(*file); f && !weights_given) w.weights = *f;
    else if (!weights_given)
      file_notes.push_back(issue_row("gguf", Str::cli_note_file_type, gguf_file_type_name(*file), std::string(to_string(w.weights))));
  } else if (args.preset || args.config) {
    model = load_model_flag(args.preset, args.config, args.generic, read_file, err, args.lang);
    if (!model) return err;
  }
  std::optional<std::vector<SafetensorsHeader>> checkpoint;
  if (args.safetensors) {  // the checkpoint's bytes beside the estimate; a folder's config.json the model
    bool folder = false;
    if (!(checkpoint = load_checkpoint(*args.safetensors, read_prefix, err, folder, args.lang))) return err;
    if (!model) {
      if (!folder) return fail(args.lang, Str::cli_st_needs_model);
      std::string error;
      const auto text = read_file(*args.safetensors + "/config.json", error);
      if (!text) return fail(args.lang, Str::cli_what_error, {"--safetensors", error}, Str::cli_hint_st_model);
      auto loaded = load_model(ModelSource::config(*text, args.generic));
      if (!loaded) return fail_issues(loaded.issues(), args.lang);
      model = std::move(loaded).value();
    }
  }
  if (!model) return fail(args.lang, Str::cli_estimate_one);
  const ModelConfig& cfg = model->config;
  std::vector<Issue> notes = model->notes;
  notes.insert(notes.end(), file_notes.begin(), file_notes.end());
  auto inv = build_inventory(cfg);
  if (!inv) return fail_issues(inv.issues(), args.lang);
  auto params = count_params(cfg, *inv);
  if (!params) return fail_issues(params.issues(), args.lang);
  // A multimodal projector file: the vision encoder's bytes.
  std::optional<GgufHeader> projector;
  if (args.mmproj) {
    if (!(projector = load_gguf(*args.mmproj, read_prefix, err, args.lang))) return err;
    if (!gguf_is_projector(*projector))
      return fail(args.lang, Str::cli_mmproj_not, {*args.mmproj, gguf_printable(projector->string_of("general.architecture"))});
  }
  // A model file's bytes are the weights where its tensors match the model (else a note says why).
  Result<Estimate> est = std::vector<Issue>{};
  if (file || checkpoint || projector) {
    auto prepared = prepare(cfg);
    if (!prepared) return fail_issues(prepared.issues(), args.lang);
    PreparedModel pm = std::move(prepared).value();
    if (file) attach_file(pm, *file);
    else if (checkpoint) attach_file(pm, *checkpoint);
    if (projector) pm.projector_bytes = projector->tensor_bytes();
    est = estimate(pm, w);
  } else {
    est = estimate(cfg, w);
  }
  if (!est) return fail_issues(with_flags(est.issues()), args.lang);
  const ByteUnit unit = args.gib ? ByteUnit::GiB : ByteUnit::GB;
  Output o;
  const Lang l = args.lang;
  for (const auto& n : notes) o.err += "llmsize: " + printf_text(tr(Str::cli_note, l), message_in(n, l).c_str()) + "\n";
  for (const auto& n : est->notes)
    o.err += "llmsize: " + printf_text(tr(Str::cli_note, l), to_string(with_flags({n})[0], l).c_str()) + "\n";
  if (args.csv || args.svg) {
    if (args.json || args.explain || (args.csv && args.svg)) return fail(l, Str::cli_csv_svg_alone, {args.csv ? "--csv" : "--svg"});
    o.out = args.csv ? estimate_csv(cfg, w, *est) : memory_chart_svg(cfg, w, *est, unit);
    return o;
  }
  if (args.json) {
    o.out = estimate_json(cfg, w, *est, args.explain);
    if (file) o.out = with_gguf_json(o.out, *file, *est);
    if (checkpoint) o.out = with_safetensors_json(o.out, *checkpoint, *inv, *est);
    if (projector) o.out = with_projector_json(o.out, *projector, *args.mmproj);
    o.out += "\n";
  } else {
    o.out = params_text(cfg, *params, args.lang) + estimate_text(cfg, w, *est, unit, args.lang);
    if (file) o.out += "\n" + gguf_estimate_text(*file, *args.gguf, w, *est, unit, l);
    if (checkpoint) o.out += "\n" + safetensors_estimate_text(*checkpoint, *inv, w, *est, unit, l);
    if (projector) o.out += "\n" + projector_text(*projector, *args.mmproj, unit, l);
    if (args.explain)
      o.out += "\n" + inventory_text(cfg, *inv, *params, args.lang) + estimate_explain_text(cfg, w, *est, unit, args.lang);
  }
  return o;
}
// check-log FILE: the engine's start-up figures beside llmsize's for the same settings.
Output check_log_cmd(const Args& args, const FileReader& read_file) {
  if (!args.file) return fail(args.lang, Str::cli_checklog_path, {}, "llmsize check-log vllm.log --preset llama-3.1-8b");
  std::string error;
  const auto text = read_file(*args.file, error);
  if (!text) return fail(args.lang, Str::cli_what_error, {"check-log", error});
  auto log = parse_engine_log(*text);
  if (!log) return fail_issues(log.issues(), args.lang);
  // Neither flag: the preset that is the checkpoint the log names (its Hub repository), if one is.
  std::optional<std::string> preset = args.preset;
  std::optional<Preset> picked;
  if (!args.preset && !args.config && (picked = find_preset_by_hub(log->model))) preset = picked->id;
  if (preset.has_value() == args.config.has_value()) {
    if (log->model.empty()) return fail(args.lang, Str::cli_checklog_model, {}, RowArg(Str::cli_hint_log_model));
    // Presets of the same name (the log's model is their Instruct or other sibling): named, not picked.
    std::string near;
    if (!args.preset && !args.config)
      for (const Preset& p : presets_sharing_name(log->model))
        if (near.size() < 400)
          near += (near.empty() ? "" : ", ") + p.id + " (" + hub_repo_of(p.source) + (p.hub_differs.empty() ? "" : ": " + p.hub_differs) + ")";
    return fail(args.lang, Str::cli_checklog_model, {},
                near.empty() ? row_arg(Str::cli_hint_log_ran, log->model) : row_arg(Str::cli_hint_log_ran_near, log->model, near));
  }
  Output err;
  auto model = load_model_flag(preset, args.config, args.generic, read_file, err, args.lang);
  if (!model) return err;
  auto check = check_log(*log, model->config, args.workload);
  if (!check) return fail_issues(with_flags(check.issues()), args.lang);
  const LogCheck& c = *check;
  Output o;
  if (args.json) {
    o.out = check_log_json(c, picked ? std::string_view(picked->id) : std::string_view()) + "\n";
    return o;
  }
  // The text view in --lang (the rows' labels and notes are rows of the string table; the
  // engines' own words and lines stay as they print them).
  const Lang l = args.lang;
  const std::string engine = std::string(to_string(c.log.engine)) + (c.log.version.empty() ? "" : " " + c.log.version);
  const std::string ours_name = model->config.name.empty() ? std::string(tr(Str::clog_given_config, l)) : model->config.name;
  const bool training = c.log.engine == LogEngine::Megatron || c.log.engine == LogEngine::DeepSpeedChat || c.log.engine == LogEngine::LitGpt;
  const char* recipe = c.log.engine == LogEngine::Megatron ? "megatron" : c.log.engine == LogEngine::LitGpt ? "litgpt" : "deepspeed";
  o.out = (training ? printf_text(tr(Str::clog_header_training, l), engine.c_str(), recipe, ours_name.c_str())
           : c.log.model.empty()                ? printf_text(tr(Str::clog_header, l), engine.c_str(), ours_name.c_str())
                               : printf_text(tr(Str::clog_header_model, l), engine.c_str(), c.log.model.c_str(), ours_name.c_str())) +
          "\n";
  if (picked) o.out += "  " + printf_text(tr(Str::clog_picked, l), picked->id.c_str(), c.log.model.c_str()) + "\n";
  std::string settings;
  for (const auto& [k, v] : c.log.settings) settings += (settings.empty() ? "" : ", ") + k + " " + v;
  if (!settings.empty()) o.out += "  " + printf_text(tr(Str::clog_settings, l), settings.c_str()) + "\n";
  for (const auto& n : c.notes) o.out += "  " + printf_text(tr(Str::clog_note, l), message_in(n, l).c_str()) + "\n";
  o.out += "\n";
  auto cell = [](const std::string& s, size_t width) { return pad_right(s, std::max(width, display_width(s) + 1)); };
  if (c.log.engine != LogEngine::LlamaCpp) {
    size_t label_width = 32;  // the widest label sets the column (Megatron-LM's per-rank rows are long)
    for (const auto& r : c.rows) label_width = std::max(label_width, display_width(r.label_in(l)) + 1);
    o.out += "  " + cell(tr(Str::col_figure, l), label_width) + cell(tr(Str::log_col_log, l), 17) + cell("llmsize", 17) +
             tr(Str::log_col_difference, l) + "\n";
    for (const auto& r : c.rows)
      o.out += "  " + cell(r.label_in(l), label_width) + cell(r.logged, 17) + cell(r.ours, 17) +
               (r.same_text ? std::string(tr(Str::log_same, l)) : (r.rel_diff >= 0 ? "+" : "") + fixed(r.rel_diff * 100, 2) + "%") + "\n";
  } else {
    for (const auto& r : c.rows)
      o.out += "  " + r.label_in(l) + ": " + tr(r.same_text ? Str::log_same : Str::clog_differs, l) + "\n    " +
               cell(tr(Str::clog_log_label, l), 9) + r.logged + "\n    " + cell("llmsize:", 9) + r.ours + "\n";
  }
  o.out += "\n" + std::string(tr(Str::clog_prints, l)) + "\n";
  for (const auto& line : c.lines) o.out += "  " + line + "\n";
  return o;
}
// safetensors PATH: a checkpoint's headers.
Output safetensors_cmd(const Args& args, const PrefixReader& read_prefix) {
  if (!args.file) return fail(args.lang, Str::cli_st_path, {}, "llmsize safetensors ./Qwen2.5-7B-Instruct");
  Output o;
  bool folder = false;
  auto files = load_checkpoint(*args.file, read_prefix, o, folder, args.lang);
  if (!files) return o;
  o.out = args.json ? safetensors_json(*files) + "\n" : safetensors_text(*files, *args.file, args.lang);
  return o;
}

// gguf FILE: the header of a GGUF file.
Output gguf_cmd(const Args& args, const PrefixReader& read_prefix) {
  if (!args.file) return fail(args.lang, Str::cli_gguf_path, {}, "llmsize gguf model.gguf");
  Output o;
  auto h = load_gguf(*args.file, read_prefix, o, args.lang);
  if (!h) return o;
  o.out = args.json ? gguf_json(*h, true) + "\n" : gguf_text(*h, *args.file, args.lang);
  return o;
}
// compare: 2 to 4 states side by side, from a comparison link and/or one link per --case.
Output compare_cmd(const Args& args) {
  if (!args.given.empty() || args.preset || args.config || args.gguf)
    return fail(args.lang, Str::cli_compare_links, {},
                "llmsize compare --case '#v=1&preset=llama-3-8b' --case '#v=1&preset=llama-3-8b&w=q4_k_m'");
  std::vector<ShareState> cases;
  if (args.file) {
    auto r = decode_compare_link(*args.file);
    if (!r) return fail_issues(r.issues(), args.lang);
    cases = std::move(r).value();
  }
  for (size_t k = 0; k < args.cases.size(); ++k) {
    auto r = decode_link(args.cases[k]);
    if (!r) {
      std::vector<Issue> named = r.issues();
      for (Issue& i : named) i.field = "--case " + std::to_string(k + 1) + ": " + i.field;
      return fail_issues(named, args.lang);
    }
    cases.push_back(std::move(r).value());
  }
  if (cases.size() < 2 || cases.size() > static_cast<size_t>(kMaxCompareCases))
    return fail(args.lang, Str::cli_compare_count, {std::to_string(kMaxCompareCases), std::to_string(cases.size())});
  const Comparison c = compare(cases);
  Output o;
  o.out = args.json ? compare_json(c) + "\n" : compare_text(c, args.gib ? ByteUnit::GiB : ByteUnit::GB, args.lang);
  return o;
}

// export: the engine's launch command for the model and the workload flags.
Output export_cmd(const Args& args, const FileReader& read_file, const PrefixReader& read_prefix) {
  if (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() != 1)
    return fail(args.lang, Str::cli_export_one, {}, "llmsize export --preset llama-3.1-8b --runtime vllm --seq 8192");
  Output err;
  Workload w = args.workload;
  std::optional<LoadedModel> model;
  std::string model_id = args.model_id.value_or("");
  if (args.gguf) {  // the model from the file's metadata, its weight format from its file type; the file is -m
    auto file = load_gguf(*args.gguf, read_prefix, err, args.lang);
    if (!file) return err;
    auto c = gguf_config(*file);
    if (!c) return fail_issues(c.issues(), args.lang);
    model = LoadedModel{c->config, "", c->notes};
    const bool weights_given = std::find(args.given.begin(), args.given.end(), "w") != args.given.end();
    if (auto f = gguf_weight_format(*file); f && !weights_given) w.weights = *f;
    if (!args.model_id) model_id = *args.gguf;
  } else {
    model = load_model_flag(args.preset, args.config, args.generic, read_file, err, args.lang);
    if (!model) return err;
    if (!args.model_id && args.preset) model_id = preset_model_id(*args.preset, w.runtime);
  }
  auto c = launch_command(model->config, w, model_id);
  if (!c) return fail_issues(with_flags(c.issues()), args.lang);
  Output o;
  if (args.json) {
    o.out = launch_json(*c) + "\n";
    return o;
  }
  o.out = c->text() + "\n";
  if (!c->config_name.empty()) o.out += "# " + c->config_name + ":\n" + c->config_text;
  std::string notes = "# " + c->version + "\n";
  for (const Issue& n : c->notes) notes += "# " + message_in(n, args.lang) + "\n";
  o.out += notes;
  return o;
}
}  // namespace

std::optional<core::Lang> lang_of_args(const std::vector<std::string>& a) {
  std::optional<core::Lang> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rfind("--lang=", 0) == 0) out = lang_of_code(a[i].substr(7));
    else if (a[i] == "--lang" && i + 1 < a.size()) out = lang_of_code(a[i + 1]);
  }
  return out;
}

Output run(const std::vector<std::string>& a, const FileReader& read_file, const PrefixReader& read_prefix, core::Lang lang) {
  Args args;
  // Every message in the language the command line asks for, even one about a flag before --lang.
  args.lang = lang_of_args(a).value_or(lang);
  const Lang l = args.lang;
  if (a.empty()) return fail(l, Str::cli_no_command, {}, Str::cli_hint_try);
  Output err;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& s = a[i];
    if (s == "--help" || s == "-h")
      return {std::string(tr(Str::cli_usage, l)) + demo_flags_usage(l) + tr(Str::cli_usage_end, l) + workload_usage(l), "", 0};
    if (s == "--version") return {"llmsize 0.1.0\n", "", 0};
    if (s == "--json") args.json = true;
    else if (s == "--gib") args.gib = true;
    else if (const WorkloadField* f = find_field_by_flag(s.substr(0, s.find('=')))) {
      std::optional<std::string> v;  // "--flag value" or "--flag=value"
      if (s.find('=') != std::string::npos) v = s.substr(s.find('=') + 1);
      else if (!(v = take_value(a, i, err, l))) return err;
      if (auto issue = f->set(args.workload, *v))
        return fail(l, Str::cli_what_error, {std::string(f->flag), RowArg([is = *issue](Lang x) { return message_in(is, x); })});
      args.given.emplace_back(f->key);
    }
    else if (s == "--explain") args.explain = true;
    else if (s == "--lang" || s.rfind("--lang=", 0) == 0) {
      std::optional<std::string> v;
      if (s.size() > 6) v = s.substr(7);
      else if (!(v = take_value(a, i, err, l))) return err;
      if (!lang_of_code(*v)) return fail(l, Str::cli_lang_bad, {*v});
    }
    else if (s == "--csv") args.csv = true;
    else if (s == "--svg") args.svg = true;
    else if (s == "--generic") args.generic = true;
    else if (s == "--preset") { auto v = take_value(a, i, err, l); if (!v) return err; args.preset = v; }
    else if (s == "--config") { auto v = take_value(a, i, err, l); if (!v) return err; args.config = v; }
    else if (s == "--gguf") { auto v = take_value(a, i, err, l); if (!v) return err; args.gguf = v; }
    else if (s == "--safetensors") { auto v = take_value(a, i, err, l); if (!v) return err; args.safetensors = v; }
    else if (s == "--mmproj") { auto v = take_value(a, i, err, l); if (!v) return err; args.mmproj = v; }
    else if (s == "--model-id") { auto v = take_value(a, i, err, l); if (!v) return err; args.model_id = v; }
    else if (s == "--case") { auto v = take_value(a, i, err, l); if (!v) return err; args.cases.push_back(*v); }
    else if (is_demo_flag(s)) {
      auto v = take_value(a, i, err, l);
      if (!v) return err;
      args.demo_settings[s] = *v;
    }
    else if (s.rfind("--", 0) == 0) return fail(l, Str::cli_unknown_option, {s});
    else if (args.command.empty()) args.command = s;
    else if ((args.command == "check-log" || args.command == "gguf" || args.command == "safetensors" || args.command == "compare") &&
             !args.file)
      args.file = s;
    else return fail(l, Str::cli_unexpected, {s});
  }
  if (args.command == "demo") {  // workload flags describe an estimate, not the demo block
    for (const auto& s : a)
      if (s == "--explain" || s == "--gib" || s == "--csv" || s == "--svg" || (s.rfind("--", 0) == 0 && find_field_by_flag(s.substr(0, s.find('=')))))
        return fail(l, Str::cli_not_demo_option, {s.substr(0, s.find('='))}, row_arg(Str::cli_hint_demo_takes, demo_flag_list(", ")));
    return demo_cmd({args.preset, args.config, args.generic, args.json, args.demo_settings, args.lang}, read_file);
  }
  if (!args.demo_settings.empty()) return fail(l, Str::cli_demo_options, {demo_flag_list(tr(Str::cli_and, l))});
  if (args.model_id && args.command != "export") return fail(l, Str::cli_option_of, {"--model-id", "export"});
  if (!args.cases.empty() && args.command != "compare") return fail(l, Str::cli_option_of, {"--case", "compare"});
  if ((args.csv || args.svg) && args.command != "estimate") return fail(l, Str::cli_option_of, {args.csv ? "--csv" : "--svg", "estimate"});
  if (args.command == "estimate") return estimate_cmd(args, read_file, read_prefix);
  if (args.command == "presets") return presets_cmd(args);
  if (args.command == "limits") return {limits_markdown(l), "", 0};
  if (args.command == "check-log") return check_log_cmd(args, read_file);
  if (args.command == "gguf") return gguf_cmd(args, read_prefix);
  if (args.command == "safetensors") return safetensors_cmd(args, read_prefix);
  if (args.command == "export") return export_cmd(args, read_file, read_prefix);
  if (args.command == "compare") return compare_cmd(args);
  if (args.command.empty()) return fail(l, Str::cli_no_command, {}, Str::cli_hint_try);
  return fail(l, Str::cli_unknown_command, {args.command},
              row_arg(Str::cli_hint_commands, "estimate, presets, demo, limits, check-log, gguf, safetensors, export, compare"));
}

std::optional<core::LoadedModel> load_model_flag(const std::optional<std::string>& preset,
                                                 const std::optional<std::string>& config, bool generic,
                                                 const FileReader& read_file, Output& err, core::Lang lang) {
  std::optional<std::string> text;  // the config's text, kept alive for the source
  if (config) {
    std::string error;
    text = read_file(*config, error);
    if (!text) {
      err = fail(lang, Str::cli_what_error, {"--config", error}, Str::cli_hint_config);
      return std::nullopt;
    }
  }
  auto model = core::load_model(preset ? ModelSource::preset(*preset) : ModelSource::config(*text, generic));
  if (!model) {
    std::vector<Issue> issues = model.issues();
    for (auto& i : issues)
      if (preset && i.field == "preset") i.field = "--preset";  // the user typed the flag
    err = fail_issues(issues, lang);
    return std::nullopt;
  }
  return std::move(model).value();
}

std::optional<std::string> read_file_limited(const std::string& path, std::string& error) {
  return read_file_limited_in(path, error, Lang::En);
}

std::optional<std::string> read_file_limited_in(const std::string& path, std::string& error, core::Lang lang) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    error = printf_text(tr(Str::cli_cannot_open, lang), path.c_str());
    return std::nullopt;
  }
  std::string data;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    data.append(buf, n);
    if (data.size() > kMaxConfigBytes) {
      if (f != stdin) std::fclose(f);
      error = printf_text(tr(Str::cli_too_large, lang), path.c_str(), with_commas(static_cast<i64>(kMaxConfigBytes)).c_str());
      return std::nullopt;
    }
  }
  const bool bad = std::ferror(f);
  if (f != stdin) std::fclose(f);
  if (bad) {
    error = printf_text(tr(Str::cli_cannot_read, lang), path.c_str());
    return std::nullopt;
  }
  return data;
}

std::optional<std::string> read_file_prefix(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                            std::string& error) {
  return read_file_prefix_in(path, max_bytes, file_bytes, error, Lang::En);
}

std::optional<std::string> read_file_prefix_in(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                               std::string& error, core::Lang lang) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = printf_text(tr(Str::cli_cannot_open, lang), path.c_str());
    return std::nullopt;
  }
  // The whole size from the end; then only the first max_bytes are read.
  if (fseeko(f, 0, SEEK_END) != 0) {
    std::fclose(f);
    error = printf_text(tr(Str::cli_cannot_size, lang), path.c_str());
    return std::nullopt;
  }
  const auto end = static_cast<std::int64_t>(ftello(f));  // off_t: 64 bits natively
  std::rewind(f);
  if (end < 0) {
    std::fclose(f);
    error = printf_text(tr(Str::cli_cannot_size, lang), path.c_str());
    return std::nullopt;
  }
  file_bytes = end;
  std::string data(static_cast<size_t>(std::min<std::int64_t>(std::max<std::int64_t>(max_bytes, 0), file_bytes)), '\0');
  const size_t n = data.empty() ? 0 : std::fread(data.data(), 1, data.size(), f);
  const bool bad = std::ferror(f);
  std::fclose(f);
  if (bad || n != data.size()) {
    error = printf_text(tr(Str::cli_cannot_read, lang), path.c_str());
    return std::nullopt;
  }
  return data;
}

}  // namespace llmsize::cli
