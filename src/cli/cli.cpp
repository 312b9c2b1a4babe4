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

const char* kUsage =
    "llmsize — parameters and memory of decoder-only Transformers\n"
    "\n"
    "Usage:\n"
    "  llmsize estimate (--preset NAME | --config PATH | --gguf FILE) [--safetensors PATH] [--mmproj FILE] [--json | --csv | --svg] [--explain]\n"
    "  llmsize presets [--json]\n"
    "  llmsize limits                 (the bounds of every input, as Markdown)\n"
    "  llmsize check-log FILE (--preset NAME | --config PATH) [workload flags] [--json]\n"
    "                                 (a vLLM or llama.cpp start-up log beside llmsize's profile of that run)\n"
    "  llmsize gguf FILE [--json]     (a GGUF model file's header: metadata, tensors, bytes per type)\n"
    "  llmsize safetensors PATH [--json]  (a checkpoint's headers: a .safetensors file, an index or its folder)\n"
    "  llmsize demo (--preset NAME | --config PATH) [--prompt N] [--tokens N] [--budget-mib N] [--train-seq N …] [--json]\n"
    "  llmsize compare [LINK] [--case LINK]... [--json] [--gib]\n"
    "                 (2 to 4 configurations side by side: a comparison link, or one share link per --case)\n"
    "  llmsize export (--preset NAME | --config PATH | --gguf FILE) --runtime vllm|sglang|llamacpp [--model-id ID]\n"
    "                 [workload flags] [--json]  (the engine's launch command with the flags the estimate assumed;\n"
    "                 with --mode training, DeepSpeed's or Accelerate FSDP's configuration file)\n"
    "  llmsize --help | --version\n"
    "\n"
    "Options:\n"
    "  --preset NAME   a built-in model (see `llmsize presets`)\n"
    "  --config PATH   a Hugging Face config.json ('-' reads standard input)\n"
    "  --gguf FILE     a GGUF model file: the model from its metadata, the weight format from its file type\n"
    "                  (unless --weights is given), and its real bytes beside the estimate\n"
    "  --safetensors PATH  a checkpoint (file, index or folder) whose bytes stand beside the estimate;\n"
    "                  a folder's config.json is the model when no --preset or --config is given\n"
    "  --mmproj FILE   a multimodal projector (llama.cpp's mmproj-*.gguf): its bytes are the vision encoder\n"
    "  --generic       read an unsupported model_type as a LLaMA-like decoder\n"
    "  --model-id ID   export: the model as the command names it (a Hugging Face id or path; default: the\n"
    "                  preset's repository, the --gguf path, else MODEL)\n"
    "  --json          print one JSON object instead of tables\n"
    "  --csv           estimate: every figure of the mode as CSV (key, label, unit, bound, value, formula, reference)\n"
    "  --svg           estimate: the memory chart (where the memory of the most loaded GPU goes) as SVG\n"
    "  --explain       also print every tensor and the derivation of the estimate\n"
    "  --lang en|zh    estimate's tables in English or Simplified Chinese (default: the locale's, LC_ALL,\n"
    "                  LC_MESSAGES or LANG, else English); JSON, CSV and the engines' own lines stay as they are\n";
// After the demo's flags (demo_flags_usage(), from ref::demo_fields()).
const char* kUsageEnd =
    "\n"
    "Counting convention: the learnable parameters of the Hugging Face *ForCausalLM model\n"
    "(a tied head counted once; buffers and quantization scales excluded; multi-token-\n"
    "prediction layers reported separately).\n";

Output fail(std::string msg, std::string hint = "see `llmsize --help`") {
  return {"", "llmsize: " + msg + " (" + hint + ")\n", 2};
}
Output fail_issues(const std::vector<Issue>& issues) {
  Output o{"", "", 2};
  for (const auto& i : issues) o.err += "llmsize: " + to_string(i) + "\n";
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
  bool lang_given = false;
  std::map<std::string, std::string> demo_settings;  // demo flags, parsed by demo_cmd
};

// The workload flags, generated from core::workload_fields().
std::string workload_usage() {
  std::string o = "\nWorkload flags of `estimate` (memory, fit and throughput):\n";
  for (const auto& f : workload_fields()) {
    std::string head = "  " + std::string(f.flag) + " " + std::string(f.key == "gpu" ? "ID" : "V");
    head.resize(std::max<size_t>(head.size() + 1, 24), ' ');
    o += head + std::string(f.help) + "; " + allowed_text(f) + ", default " + f.get(Workload{}) + "\n";
  }
  o += "  --gib                 print sizes in GiB (2^30) instead of GB (10^9)\n";
  return o;
}

// Issues of the estimate name workload keys; the CLI user typed flags.
std::vector<Issue> with_flags(std::vector<Issue> issues) {
  for (auto& i : issues)
    if (const WorkloadField* f = find_field(i.field)) i.field = std::string(f->flag);
  return issues;
}

std::optional<std::string> take_value(const std::vector<std::string>& a, size_t& i, Output& err) {
  const std::string& flag = a[i];
  if (i + 1 >= a.size() || (a[i + 1].size() > 1 && a[i + 1].rfind("--", 0) == 0)) {
    err = fail(flag + " needs a value");
    return std::nullopt;
  }
  return a[++i];
}

Output presets_cmd(const Args& args) {
  auto all = load_presets();
  if (!all) return fail_issues(all.issues());
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
                 Parse parse) -> std::optional<std::remove_cvref_t<decltype(*parse(std::string_view(), i64{}, nullptr))>> {
  i64 want = std::min<i64>(i64{4} << 20, cap);
  for (;;) {
    i64 size = 0;
    std::string error;
    const auto head = read_prefix(path, want, size, error);
    if (!head) {
      err = fail(what + ": " + error);
      return std::nullopt;
    }
    if (size == 0) {
      err = fail(what + ": \"" + path + "\" is empty");
      return std::nullopt;
    }
    i64 more = 0;
    auto h = parse(*head, size, &more);
    if (h) return std::move(h).value();
    const i64 read = static_cast<i64>(head->size());
    if (more <= read || read >= size || want >= cap) {
      err = fail_issues(h.issues());
      return std::nullopt;
    }
    want = std::min(std::max(more, 2 * want), cap);
  }
}

std::optional<GgufHeader> load_gguf_file(const std::string& path, const PrefixReader& read_prefix, Output& err) {
  return read_header(path, read_prefix, err, "gguf", kGgufMaxHeaderBytes,
                     [](std::string_view head, i64 size, i64* more) { return read_gguf_header(head, size, more); });
}

// A GGUF file, or every shard of the split model it is one of (the files beside it named as
// gguf-split names them), merged.
std::optional<GgufHeader> load_gguf(const std::string& path, const PrefixReader& read_prefix, Output& err) {
  auto first = load_gguf_file(path, read_prefix, err);
  if (!first) return std::nullopt;
  const auto split = gguf_split(*first);
  if (!split) return first;
  const auto paths = gguf_shard_paths(path, split->count);
  if (paths.empty()) {
    err = fail("gguf: \"" + path + "\" is one of " + std::to_string(split->count) + " files of a split model (split.count) but is not "
               "named <prefix>-0000k-of-" + std::string(5 - std::min<size_t>(5, std::to_string(split->count).size()), '0') +
               std::to_string(split->count) + ".gguf, so the others cannot be found");
    return std::nullopt;
  }
  std::vector<GgufHeader> shards;
  for (const auto& p : paths) {
    if (p == path) {
      shards.push_back(std::move(*first));
      continue;
    }
    auto h = load_gguf_file(p, read_prefix, err);
    if (!h) return std::nullopt;
    shards.push_back(std::move(*h));
  }
  auto merged = merge_gguf_shards(std::move(shards));
  if (!merged) {
    err = fail_issues(merged.issues());
    return std::nullopt;
  }
  return std::move(merged).value();
}

std::optional<SafetensorsHeader> load_safetensors_file(const std::string& path, const PrefixReader& read_prefix, Output& err) {
  return read_header(path, read_prefix, err, "safetensors", 8 + kSafetensorsMaxHeader,
                     [](std::string_view head, i64 size, i64* more) { return read_safetensors_header(head, size, more); });
}

// A checkpoint: PATH/model.safetensors.index.json and its shards, PATH/model.safetensors, an
// index file and the shards beside it, or one .safetensors file.
std::optional<std::vector<SafetensorsHeader>> load_checkpoint(const std::string& path, const PrefixReader& read_prefix, Output& err,
                                                              bool& folder) {
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
      err = fail("safetensors: cannot read the index \"" + index_path + "\" (at most 64 MiB)");
      return std::nullopt;
    }
    auto index = read_safetensors_index(*text);
    if (!index) {
      err = fail_issues(index.issues());
      return std::nullopt;
    }
    for (const auto& shard : index->shards) {
      auto h = load_safetensors_file(dir + "/" + shard, read_prefix, err);
      if (!h) return std::nullopt;
      files.push_back(std::move(*h));
    }
    return files;
  }
  i64 size = 0;
  std::string error;
  if (read_prefix(path + "/model.safetensors", 0, size, error)) {
    folder = true;
    auto h = load_safetensors_file(path + "/model.safetensors", read_prefix, err);
    if (!h) return std::nullopt;
    files.push_back(std::move(*h));
    return files;
  }
  auto h = load_safetensors_file(path, read_prefix, err);
  if (!h) return std::nullopt;
  files.push_back(std::move(*h));
  return files;
}

Output estimate_cmd(const Args& args, const FileReader& read_file, const PrefixReader& read_prefix) {
  if (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() > 1 ||
      (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() == 0 && !args.safetensors))
    return fail("estimate needs exactly one of --preset NAME, --config PATH or --gguf FILE");
  if (args.gguf && args.safetensors)  // one file beside the estimate: file{} in the JSON is one of them
    return fail("--gguf and --safetensors each set a model file beside the estimate; give one of them");
  Output err;
  std::optional<LoadedModel> model;
  std::optional<GgufHeader> file;
  Workload w = args.workload;
  std::vector<Issue> file_notes;
  if (args.gguf) {  // the model from the file's metadata, its weight format from its file type
    if (!(file = load_gguf(*args.gguf, read_prefix, err))) return err;
    auto c = gguf_config(*file);
    if (!c) return fail_issues(c.issues());
    model = LoadedModel{c->config, "", c->notes};
    const bool weights_given = std::find(args.given.begin(), args.given.end(), "w") != args.given.end();
    if (auto f = gguf_weight_format(*file); f && !weights_given) w.weights = *f;
    else if (!weights_given)
      file_notes.push_back(Issue{"gguf", "the file's type (" + gguf_file_type_name(*file) + ") has no estimated mix here; the estimate "
                                         "takes --weights " + std::string(to_string(w.weights)) + ", the file's bytes stand beside it"});
  } else if (args.preset || args.config) {
    model = load_model_flag(args.preset, args.config, args.generic, read_file, err);
    if (!model) return err;
  }
  std::optional<std::vector<SafetensorsHeader>> checkpoint;
  if (args.safetensors) {  // the checkpoint's bytes beside the estimate; a folder's config.json the model
    bool folder = false;
    if (!(checkpoint = load_checkpoint(*args.safetensors, read_prefix, err, folder))) return err;
    if (!model) {
      if (!folder) return fail("estimate --safetensors FILE needs --preset or --config (only a folder holds its config.json)");
      std::string error;
      const auto text = read_file(*args.safetensors + "/config.json", error);
      if (!text) return fail("--safetensors: " + error, "give --preset or --config, or a folder with its config.json");
      auto loaded = load_model(ModelSource::config(*text, args.generic));
      if (!loaded) return fail_issues(loaded.issues());
      model = std::move(loaded).value();
    }
  }
  if (!model) return fail("estimate needs exactly one of --preset NAME, --config PATH or --gguf FILE");
  const ModelConfig& cfg = model->config;
  std::vector<Issue> notes = model->notes;
  notes.insert(notes.end(), file_notes.begin(), file_notes.end());
  auto inv = build_inventory(cfg);
  if (!inv) return fail_issues(inv.issues());
  auto params = count_params(cfg, *inv);
  if (!params) return fail_issues(params.issues());
  // A multimodal projector file: the vision encoder's bytes.
  std::optional<GgufHeader> projector;
  if (args.mmproj) {
    if (!(projector = load_gguf(*args.mmproj, read_prefix, err))) return err;
    if (!gguf_is_projector(*projector))
      return fail("--mmproj: \"" + *args.mmproj + "\" is not a multimodal projector (general.architecture \"" +
                  gguf_printable(projector->string_of("general.architecture")) + "\", not clip)");
  }
  // A model file's bytes are the weights where its tensors match the model (else a note says why).
  Result<Estimate> est = std::vector<Issue>{};
  if (file || checkpoint || projector) {
    auto prepared = prepare(cfg);
    if (!prepared) return fail_issues(prepared.issues());
    PreparedModel pm = std::move(prepared).value();
    if (file) attach_file(pm, *file);
    else if (checkpoint) attach_file(pm, *checkpoint);
    if (projector) pm.projector_bytes = projector->tensor_bytes();
    est = estimate(pm, w);
  } else {
    est = estimate(cfg, w);
  }
  if (!est) return fail_issues(with_flags(est.issues()));
  const ByteUnit unit = args.gib ? ByteUnit::GiB : ByteUnit::GB;
  Output o;
  for (const auto& n : notes) o.err += "llmsize: note: " + n.message + "\n";
  for (const auto& n : est->notes) o.err += "llmsize: note: " + with_flags({n})[0].field + ": " + n.message + "\n";
  if (args.csv || args.svg) {
    if (args.json || args.explain || (args.csv && args.svg))
      return fail(std::string(args.csv ? "--csv" : "--svg") + " prints the figures or the chart alone: one of --json, --csv, --svg, without --explain");
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
    if (file) o.out += "\n" + gguf_estimate_text(*file, *args.gguf, w, *est, unit);
    if (checkpoint) o.out += "\n" + safetensors_estimate_text(*checkpoint, *inv, w, *est, unit);
    if (projector) o.out += "\n" + projector_text(*projector, *args.mmproj, unit);
    if (args.explain)
      o.out += "\n" + inventory_text(cfg, *inv, *params, args.lang) + estimate_explain_text(cfg, w, *est, unit, args.lang);
  }
  return o;
}
// check-log FILE: the engine's start-up figures beside llmsize's for the same settings.
Output check_log_cmd(const Args& args, const FileReader& read_file) {
  if (!args.file) return fail("check-log needs the log's path", "llmsize check-log vllm.log --preset llama-3.1-8b");
  std::string error;
  const auto text = read_file(*args.file, error);
  if (!text) return fail("check-log: " + error);
  auto log = parse_engine_log(*text);
  if (!log) return fail_issues(log.issues());
  if (args.preset.has_value() == args.config.has_value())
    return fail("check-log needs exactly one of --preset NAME or --config PATH",
                log->model.empty() ? "the model the log ran" : "the log ran " + log->model);
  Output err;
  auto model = load_model_flag(args.preset, args.config, args.generic, read_file, err);
  if (!model) return err;
  auto check = check_log(*log, model->config, args.workload);
  if (!check) return fail_issues(with_flags(check.issues()));
  const LogCheck& c = *check;
  Output o;
  if (args.json) {
    o.out = check_log_json(c) + "\n";
    return o;
  }
  // The text view in --lang (the rows' labels and notes are rows of the string table; the
  // engines' own words and lines stay as they print them).
  const Lang l = args.lang;
  const std::string engine = std::string(to_string(c.log.engine)) + (c.log.version.empty() ? "" : " " + c.log.version);
  const std::string ours_name = model->config.name.empty() ? std::string(tr(Str::clog_given_config, l)) : model->config.name;
  o.out = (c.log.model.empty() ? printf_text(tr(Str::clog_header, l), engine.c_str(), ours_name.c_str())
                               : printf_text(tr(Str::clog_header_model, l), engine.c_str(), c.log.model.c_str(), ours_name.c_str())) +
          "\n";
  std::string settings;
  for (const auto& [k, v] : c.log.settings) settings += (settings.empty() ? "" : ", ") + k + " " + v;
  if (!settings.empty()) o.out += "  " + printf_text(tr(Str::clog_settings, l), settings.c_str()) + "\n";
  for (const auto& n : c.notes) o.out += "  " + printf_text(tr(Str::clog_note, l), message_in(n, l).c_str()) + "\n";
  o.out += "\n";
  auto cell = [](const std::string& s, size_t width) { return pad_right(s, std::max(width, display_width(s) + 1)); };
  if (c.log.engine != LogEngine::LlamaCpp) {
    o.out += "  " + cell(tr(Str::col_figure, l), 32) + cell(tr(Str::log_col_log, l), 17) + cell("llmsize", 17) +
             tr(Str::log_col_difference, l) + "\n";
    for (const auto& r : c.rows)
      o.out += "  " + cell(r.label_in(l), 32) + cell(r.logged, 17) + cell(r.ours, 17) +
               (r.same_text ? std::string(tr(Str::log_same, l)) : (r.rel_diff >= 0 ? "+" : "") + fixed(r.rel_diff * 100, 2) + "%") + "\n";
  } else {
    for (const auto& r : c.rows)
      o.out += "  " + r.label_in(l) + ": " + tr(r.same_text ? Str::log_same : Str::clog_differs, l) + "\n    " +
               cell(tr(Str::clog_log_label, l), 9) + r.logged + "\n    " + cell("llmsize:", 9) + r.ours + "\n";
  }
  o.out += "\n" + std::string(tr(Str::clog_prints, l)) + "\n";
  for (const auto& l : c.lines) o.out += "  " + l + "\n";
  return o;
}
// safetensors PATH: a checkpoint's headers.
Output safetensors_cmd(const Args& args, const PrefixReader& read_prefix) {
  if (!args.file) return fail("safetensors needs a file, an index or a folder", "llmsize safetensors ./Qwen2.5-7B-Instruct");
  Output o;
  bool folder = false;
  auto files = load_checkpoint(*args.file, read_prefix, o, folder);
  if (!files) return o;
  o.out = args.json ? safetensors_json(*files) + "\n" : safetensors_text(*files, *args.file);
  return o;
}

// gguf FILE: the header of a GGUF file.
Output gguf_cmd(const Args& args, const PrefixReader& read_prefix) {
  if (!args.file) return fail("gguf needs the file's path", "llmsize gguf model.gguf");
  Output o;
  auto h = load_gguf(*args.file, read_prefix, o);
  if (!h) return o;
  o.out = args.json ? gguf_json(*h, true) + "\n" : gguf_text(*h, *args.file);
  return o;
}
// compare: 2 to 4 states side by side, from a comparison link and/or one link per --case.
Output compare_cmd(const Args& args) {
  if (!args.given.empty() || args.preset || args.config || args.gguf)
    return fail("compare takes its cases from links (the model and workload of each in its link)",
                "llmsize compare --case '#v=1&preset=llama-3-8b' --case '#v=1&preset=llama-3-8b&w=q4_k_m'");
  std::vector<ShareState> cases;
  if (args.file) {
    auto r = decode_compare_link(*args.file);
    if (!r) return fail_issues(r.issues());
    cases = std::move(r).value();
  }
  for (size_t k = 0; k < args.cases.size(); ++k) {
    auto r = decode_link(args.cases[k]);
    if (!r) {
      std::vector<Issue> named = r.issues();
      for (Issue& i : named) i.field = "--case " + std::to_string(k + 1) + ": " + i.field;
      return fail_issues(named);
    }
    cases.push_back(std::move(r).value());
  }
  if (cases.size() < 2 || cases.size() > static_cast<size_t>(kMaxCompareCases))
    return fail("compare needs 2 to " + std::to_string(kMaxCompareCases) + " cases, got " + std::to_string(cases.size()));
  const Comparison c = compare(cases);
  Output o;
  o.out = args.json ? compare_json(c) + "\n" : compare_text(c, args.gib ? ByteUnit::GiB : ByteUnit::GB);
  return o;
}

// export: the engine's launch command for the model and the workload flags.
Output export_cmd(const Args& args, const FileReader& read_file, const PrefixReader& read_prefix) {
  if (args.preset.has_value() + args.config.has_value() + args.gguf.has_value() != 1)
    return fail("export needs exactly one of --preset NAME, --config PATH or --gguf FILE",
                "llmsize export --preset llama-3.1-8b --runtime vllm --seq 8192");
  Output err;
  Workload w = args.workload;
  std::optional<LoadedModel> model;
  std::string model_id = args.model_id.value_or("");
  if (args.gguf) {  // the model from the file's metadata, its weight format from its file type; the file is -m
    auto file = load_gguf(*args.gguf, read_prefix, err);
    if (!file) return err;
    auto c = gguf_config(*file);
    if (!c) return fail_issues(c.issues());
    model = LoadedModel{c->config, "", c->notes};
    const bool weights_given = std::find(args.given.begin(), args.given.end(), "w") != args.given.end();
    if (auto f = gguf_weight_format(*file); f && !weights_given) w.weights = *f;
    if (!args.model_id) model_id = *args.gguf;
  } else {
    model = load_model_flag(args.preset, args.config, args.generic, read_file, err);
    if (!model) return err;
    if (!args.model_id && args.preset) model_id = preset_model_id(*args.preset, w.runtime);
  }
  auto c = launch_command(model->config, w, model_id);
  if (!c) return fail_issues(with_flags(c.issues()));
  Output o;
  if (args.json) {
    o.out = launch_json(*c) + "\n";
    return o;
  }
  o.out = c->text() + "\n";
  if (!c->config_name.empty()) o.out += "# " + c->config_name + ":\n" + c->config_text;
  std::string notes = "# " + c->version + "\n";
  for (const Issue& n : c->notes) notes += "# " + n.message + "\n";
  o.out += notes;
  return o;
}
}  // namespace

Output run(const std::vector<std::string>& a, const FileReader& read_file, const PrefixReader& read_prefix, core::Lang lang) {
  if (a.empty()) return fail("no command given", "try `llmsize estimate --preset llama-3-8b`");
  Args args;
  args.lang = lang;
  Output err;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& s = a[i];
    if (s == "--help" || s == "-h") return {kUsage + demo_flags_usage() + kUsageEnd + workload_usage(), "", 0};
    if (s == "--version") return {"llmsize 0.1.0\n", "", 0};
    if (s == "--json") args.json = true;
    else if (s == "--gib") args.gib = true;
    else if (const WorkloadField* f = find_field_by_flag(s.substr(0, s.find('=')))) {
      std::optional<std::string> v;  // "--flag value" or "--flag=value"
      if (s.find('=') != std::string::npos) v = s.substr(s.find('=') + 1);
      else if (!(v = take_value(a, i, err))) return err;
      if (auto issue = f->set(args.workload, *v)) return fail(std::string(f->flag) + ": " + issue->message);
      args.given.emplace_back(f->key);
    }
    else if (s == "--explain") args.explain = true;
    else if (s == "--lang" || s.rfind("--lang=", 0) == 0) {
      std::optional<std::string> v;
      if (s.size() > 6) v = s.substr(7);
      else if (!(v = take_value(a, i, err))) return err;
      const auto l = lang_of_code(*v);
      if (!l) return fail("--lang must be en or zh, got \"" + *v + "\"");
      args.lang = *l;
      args.lang_given = true;
    }
    else if (s == "--csv") args.csv = true;
    else if (s == "--svg") args.svg = true;
    else if (s == "--generic") args.generic = true;
    else if (s == "--preset") { auto v = take_value(a, i, err); if (!v) return err; args.preset = v; }
    else if (s == "--config") { auto v = take_value(a, i, err); if (!v) return err; args.config = v; }
    else if (s == "--gguf") { auto v = take_value(a, i, err); if (!v) return err; args.gguf = v; }
    else if (s == "--safetensors") { auto v = take_value(a, i, err); if (!v) return err; args.safetensors = v; }
    else if (s == "--mmproj") { auto v = take_value(a, i, err); if (!v) return err; args.mmproj = v; }
    else if (s == "--model-id") { auto v = take_value(a, i, err); if (!v) return err; args.model_id = v; }
    else if (s == "--case") { auto v = take_value(a, i, err); if (!v) return err; args.cases.push_back(*v); }
    else if (is_demo_flag(s)) {
      auto v = take_value(a, i, err);
      if (!v) return err;
      args.demo_settings[s] = *v;
    }
    else if (s.rfind("--", 0) == 0) return fail("unknown option " + s);
    else if (args.command.empty()) args.command = s;
    else if ((args.command == "check-log" || args.command == "gguf" || args.command == "safetensors" || args.command == "compare") &&
             !args.file)
      args.file = s;
    else return fail("unexpected argument \"" + s + "\"");
  }
  if (args.command == "demo") {  // workload flags describe an estimate, not the demo block
    for (const auto& s : a)
      if (s == "--explain" || s == "--gib" || s == "--csv" || s == "--svg" || (s.rfind("--", 0) == 0 && find_field_by_flag(s.substr(0, s.find('=')))))
        return fail(s.substr(0, s.find('=')) + " is not a demo option", "demo takes " + demo_flag_list(", ") + ", --json");
    return demo_cmd({args.preset, args.config, args.generic, args.json, args.demo_settings, args.lang}, read_file);
  }
  if (!args.demo_settings.empty()) return fail(demo_flag_list(" and ") + " are options of `llmsize demo`");
  if (args.model_id && args.command != "export") return fail("--model-id is an option of `llmsize export`");
  if (!args.cases.empty() && args.command != "compare") return fail("--case is an option of `llmsize compare`");
  if ((args.csv || args.svg) && args.command != "estimate") return fail(std::string(args.csv ? "--csv" : "--svg") + " is an option of `llmsize estimate`");
  if (args.lang_given && args.command != "estimate" && args.command != "check-log")
    return fail("--lang is an option of `llmsize estimate` and `llmsize check-log` (their text views; the other commands print English)");
  if (args.command == "estimate") return estimate_cmd(args, read_file, read_prefix);
  if (args.command == "presets") return presets_cmd(args);
  if (args.command == "limits") return {limits_markdown(), "", 0};
  if (args.command == "check-log") return check_log_cmd(args, read_file);
  if (args.command == "gguf") return gguf_cmd(args, read_prefix);
  if (args.command == "safetensors") return safetensors_cmd(args, read_prefix);
  if (args.command == "export") return export_cmd(args, read_file, read_prefix);
  if (args.command == "compare") return compare_cmd(args);
  if (args.command.empty()) return fail("no command given", "try `llmsize estimate --preset llama-3-8b`");
  return fail("unknown command \"" + args.command + "\"", "commands: estimate, presets, demo, limits, check-log, gguf, safetensors, export, compare");
}

std::optional<core::LoadedModel> load_model_flag(const std::optional<std::string>& preset,
                                                 const std::optional<std::string>& config, bool generic,
                                                 const FileReader& read_file, Output& err) {
  std::optional<std::string> text;  // the config's text, kept alive for the source
  if (config) {
    std::string error;
    text = read_file(*config, error);
    if (!text) {
      err = fail("--config: " + error, "give the path of a config.json");
      return std::nullopt;
    }
  }
  auto model = core::load_model(preset ? ModelSource::preset(*preset) : ModelSource::config(*text, generic));
  if (!model) {
    std::vector<Issue> issues = model.issues();
    for (auto& i : issues)
      if (preset && i.field == "preset") i.field = "--preset";  // the user typed the flag
    err = fail_issues(issues);
    return std::nullopt;
  }
  return std::move(model).value();
}

std::optional<std::string> read_file_limited(const std::string& path, std::string& error) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open \"" + path + "\"";
    return std::nullopt;
  }
  std::string data;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    data.append(buf, n);
    if (data.size() > kMaxConfigBytes) {
      if (f != stdin) std::fclose(f);
      error = "\"" + path + "\" is larger than " + std::to_string(kMaxConfigBytes) + " bytes";
      return std::nullopt;
    }
  }
  const bool bad = std::ferror(f);
  if (f != stdin) std::fclose(f);
  if (bad) {
    error = "cannot read \"" + path + "\"";
    return std::nullopt;
  }
  return data;
}

std::optional<std::string> read_file_prefix(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                            std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open \"" + path + "\"";
    return std::nullopt;
  }
  // The whole size from the end; then only the first max_bytes are read.
  if (fseeko(f, 0, SEEK_END) != 0) {
    std::fclose(f);
    error = "cannot tell the size of \"" + path + "\"";
    return std::nullopt;
  }
  const auto end = static_cast<std::int64_t>(ftello(f));  // off_t: 64 bits natively
  std::rewind(f);
  if (end < 0) {
    std::fclose(f);
    error = "cannot tell the size of \"" + path + "\"";
    return std::nullopt;
  }
  file_bytes = end;
  std::string data(static_cast<size_t>(std::min<std::int64_t>(std::max<std::int64_t>(max_bytes, 0), file_bytes)), '\0');
  const size_t n = data.empty() ? 0 : std::fread(data.data(), 1, data.size(), f);
  const bool bad = std::ferror(f);
  std::fclose(f);
  if (bad || n != data.size()) {
    error = "cannot read \"" + path + "\"";
    return std::nullopt;
  }
  return data;
}

}  // namespace llmsize::cli
