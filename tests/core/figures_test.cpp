// The figure table is the one home of every figure: each key of --explain names a value at
// that path of the same JSON report (with its bound in "bounds"), on every preset, in both
// modes; and each mode's headline figures are rows of the table.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "core/chart.hpp"
#include "core/engine_sglang.hpp"
#include "core/engine_vllm.hpp"
#include "core/figures.hpp"
#include "core/gpus.hpp"
#include "core/lang.hpp"
#include "core/report.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using nlohmann::json;

TEST_CASE("every key of --explain names a value at that path of the same JSON report", "[core][figures]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  const Mode mode = GENERATE(Mode::Inference, Mode::Training);
  for (const auto& p : all.value()) {
    INFO(p.id << (mode == Mode::Training ? " (training)" : " (inference)"));
    Workload w;
    w.mode = mode;
    const json j = json::parse(estimate_report(p.config, w, true));
    REQUIRE(j.contains("explain"));
    CHECK(j["explain"].size() == figures().size());
    CHECK(j["bounds"].size() == figures().size());
    for (const auto& x : j["explain"]) {
      const std::string key = x["key"].get<std::string>();
      INFO(key);
      const size_t dot = key.find('.');
      REQUIRE(dot != std::string::npos);
      const std::string section = key.substr(0, dot), name = key.substr(dot + 1);
      REQUIRE(j.contains(section));
      REQUIRE(j[section].contains(name));
      REQUIRE(j[section][name].is_number());
      CHECK(j[section][name].get<double>() == Approx(x["value"].get<double>()).epsilon(1e-12));
      CHECK(j["bounds"][key] == x["bound"]);
    }
  }
}

TEST_CASE("each mode's headline figures are rows of the table and of that mode", "[core][figures]") {
  const Mode mode = GENERATE(Mode::Inference, Mode::Training);
  const ModeFigures& mf = mode_figures(mode);
  CHECK(mf.mode == mode);
  for (const Figure* f : {mf.total, mf.min_gpus, mf.growth, mf.rate}) {
    REQUIRE(f != nullptr);
    CHECK(find_figure(f->key) == f);
    CHECK(f->mode == mode);
  }
  CHECK((mf.max_context != nullptr) == (mode == Mode::Inference));
  REQUIRE(mf.capacity);
  REQUIRE(mf.fits);
  // The stacked bar's parts are the mode's section and add up to the total's components.
  bool growth_shown = false;
  for (const auto& part : mf.parts) {
    REQUIRE(part.figure != nullptr);
    CHECK(part.figure->key.substr(0, mf.section.size() + 1) == std::string(mf.section) + ".");
    growth_shown = growth_shown || part.figure == mf.growth;
  }
  CHECK(growth_shown);
  // On a real estimate the headline values are the estimate's own fields.
  Workload w;
  w.mode = mode;
  auto e = estimate(llmsize::test::preset("llama-3-8b").config, w);
  REQUIRE(e.ok());
  const i64 total = mode == Mode::Training ? e->training.total_bytes : e->inference.total_bytes;
  const i64 cap = mode == Mode::Training ? e->training.capacity_bytes : e->inference.capacity_bytes;
  CHECK(mf.total->value(e.value()).whole == total);
  CHECK(mf.capacity(e.value()) == cap);
  CHECK(mf.fits(e.value()) == (total <= cap));
}

TEST_CASE("figure keys are unique and whole-number units hold integers", "[core][figures]") {
  Workload w;
  auto e = estimate(llmsize::test::preset("mixtral-8x7b").config, w);
  REQUIRE(e.ok());
  for (size_t i = 0; i < figures().size(); ++i) {
    const Figure& f = figures()[i];
    INFO(f.key);
    CHECK(find_figure(f.key) == &f);
    const bool whole = f.unit == Unit::Bytes || f.unit == Unit::Count || f.unit == Unit::Tokens;
    CHECK(f.value(e.value()).integral == whole);
  }
}

TEST_CASE("an invalid workload reports the parameters and the issues", "[core][figures]") {
  Workload w;
  w.tp = 3;  // does not divide 32 heads
  w.gpus = 3;
  const json j = json::parse(estimate_report(llmsize::test::preset("llama-3-8b").config, w));
  CHECK(j["params"]["total"] == 8030261248);
  CHECK_THAT(j["issues"].get<std::string>(), Catch::Contains("tp"));
  CHECK_FALSE(j.contains("inference"));
}

TEST_CASE("The figures as CSV: one row per figure of the mode, whole numbers exact, fields quoted per RFC 4180", "[core][figures][export]") {
  // A small RFC 4180 reader: rows of fields, quotes doubled inside quoted fields.
  auto parse = [](const std::string& text) {
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char ch = text[i];
      if (quoted) {
        if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
        else if (ch == '"') quoted = false;
        else rows.back().back() += ch;
      } else if (ch == '"') quoted = true;
      else if (ch == ',') rows.back().emplace_back();
      else if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') rows.emplace_back(1), ++i;
      else rows.back().back() += ch;
    }
    rows.pop_back();  // after the last CRLF
    return rows;
  };
  for (const char* mode : {"inference", "training"}) {
    INFO(mode);
    const ModelConfig c = llmsize::test::preset("kimi-k2").config;
    const Workload w = llmsize::test::with({{"mode", mode}, {"gpus", "64"}, {"tp", "8"}, {"zero", mode == std::string("training") ? "3" : "0"}});
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    const auto rows = parse(estimate_csv(c, w, *e));
    REQUIRE(rows.size() > 10);
    CHECK(rows.front() == std::vector<std::string>{"key", "label", "unit", "bound", "value", "formula", "reference"});
    size_t expected = 0;
    for (const Figure& f : figures()) expected += !f.mode || *f.mode == w.mode;
    CHECK(rows.size() == expected + 1);
    for (const auto& r : rows) CHECK(r.size() == 7);
    // Whole numbers are the integers of the JSON report, not doubles: Kimi K2's 1,026,408,232,448 parameters.
    const auto total = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r[0] == "params.total"; });
    REQUIRE(total != rows.end());
    CHECK((*total)[4] == std::to_string(e->params.total));
    CHECK((*total)[2] == "count");
    CHECK((*total)[3] == "exact");
    // Formulas hold commas; they come back whole.
    CHECK(std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r[5].find(',') != std::string::npos; }));
  }
}

TEST_CASE("The memory chart as SVG: the mode's parts in order, the usable memory marked, the model's name escaped", "[core][figures][export]") {
  ModelConfig c = llmsize::test::preset("llama-3-8b").config;
  c.name = "a <b> & \"c\"";
  const Workload w = llmsize::test::with({{"seq", "8192"}, {"batch", "4"}});
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  const std::string svg = memory_chart_svg(c, w, *e, ByteUnit::GB);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" ", 0) == 0);
  CHECK(svg.find("</svg>\n") == svg.size() - 7);
  CHECK(svg.find("a &lt;b&gt; &amp; &quot;c&quot; · inference") != std::string::npos);
  CHECK(svg.find("<b>") == std::string::npos);
  // Every part this estimate has in the legend, bottom to top; the empty ones (no vision tower here) left out.
  const ModeFigures& mf = mode_figures(Mode::Inference);
  size_t at = 0, shown = 0;
  for (size_t i = 0; i < mf.parts.size(); ++i) {
    const std::string legend = ">" + std::string(mf.parts[i].legend) + "</text>";
    INFO(legend);
    if (mf.parts[i].figure->value(*e).whole == 0) {
      CHECK(svg.find(legend) == std::string::npos);
      continue;
    }
    const size_t found = svg.find(legend, at);
    REQUIRE(found != std::string::npos);
    at = found;
    ++shown;
  }
  CHECK(shown >= 4);  // weights, KV cache, activations, reserve
  CHECK(svg.find("<title>KV cache: " + format_bytes(e->inference.kv_cache_bytes, ByteUnit::GB) + "</title>") != std::string::npos);
  CHECK(svg.find("fill=\"#0072b2\"") != std::string::npos);  // the palette's first colour, as the UI's
  CHECK(svg.find("usable " + format_bytes(mf.capacity(*e), ByteUnit::GB)) != std::string::npos);
}

namespace {

// The code points of a UTF-8 text (the program's own strings: valid UTF-8).
std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? b : b & (0xFF >> (n + 1));
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += static_cast<size_t>(n);
  }
  return out;
}


using KeyValues = std::vector<std::pair<std::string, std::string>>;
// The workloads the formula tests walk: each mode's defaults, every weight format, each engine.
const std::vector<KeyValues> kFormulaWorkloads = {
      {},
      {{"mode", "training"}},
      {{"mode", "training"}, {"lora", "16"}, {"qlora", "1"}, {"zero", "3"}, {"gpus", "8"}, {"rc", "selective"}},
      {{"w", "q4_k_m"}, {"kvt", "q8_0"}, {"rt", "llamacpp"}},
      {{"w", "gptq-int4"}, {"rt", "vllm"}},
      {{"w", "fp8-block"}, {"rt", "sglang"}},
      {{"w", "awq-int4"}},
      {{"w", "nf4-dq"}},
      {{"w", "mxfp4"}},
};

// Every preset under each workload (link keys): fn(preset, workload, its estimate); a workload a
// model refuses is skipped (its issues are tested elsewhere).
template <class F>
void for_each_estimate(const std::vector<KeyValues>& workloads, F fn) {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value())
    for (const auto& kv : workloads) {
      Workload w;
      bool set_ok = true;
      for (const auto& [key, value] : kv) set_ok = set_ok && !find_field(key)->set(w, value);
      REQUIRE(set_ok);
      const auto e = estimate(p.config, w);
      if (e.ok()) fn(p, w, e.value());
    }
}
}  // namespace

TEST_CASE("every formula and reference draws in the UI's Latin font: Latin-1, the English table's characters or kFormulaSymbols", "[core][figures][lang]") {
  std::set<char32_t> atlas;
  for (char32_t c : code_points(all_text(Lang::En) + kFormulaSymbols)) atlas.insert(c);
  CHECK(code_points("Σ−≈√").size() == 4);  // the decoder itself
  std::set<std::string> bad;
  auto check = [&](const std::string& text, const std::string& where) {
    for (char32_t c : code_points(text))
      if (c >= 0x100 && !atlas.count(c)) bad.insert(where + ": U+" + std::to_string(static_cast<unsigned>(c)) + " in \"" + text + "\"");
  };
  // Each mode's defaults, every weight format's figures and the engines' terms; a recipe's parts below.
  for_each_estimate(kFormulaWorkloads, [&](const Preset& p, const Workload& w, const Estimate& e) {
    for (const Explanation& x : explain(p.config, w, e)) {
      check(x.formula, p.id + " " + x.key + " formula");
      check(x.reference, p.id + " " + x.key + " reference");
    }
    const auto gpu = gpu_of(w);  // by value
    REQUIRE(gpu);
    if (e.vllm)
      for (const EngineTerm& t : vllm_terms(*e.vllm, w, *gpu)) check(t.formula + t.source, p.id + " vllm " + t.key);
    if (e.sglang)
      for (const EngineTerm& t : sglang_terms(*e.sglang, w, *gpu)) check(t.formula + t.source, p.id + " sglang " + t.key);
  });
  for (const char* adapter : {"none", "llama-adapter-v2"})
    for (const char* weights : {"bf16", "nf4-dq"}) {
      Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "litgpt"}, {"gpu", "a100-40gb"}, {"prec", "pure"},
                                        {"dtype", "bf16"}, {"lora", "8"}, {"lt", "q,v"}, {"w", weights}});
      if (std::string(adapter) != "none") {
        w.lora_rank = 0;
        REQUIRE_FALSE(find_field("adapter")->set(w, adapter));
      }
      for (i64 batch : {1, 2}) {
        w.batch = batch;
        const auto e = estimate(llmsize::test::preset("llama-2-7b").config, w);
        REQUIRE(e.ok());
        REQUIRE(e.value().training.recipe);
        for (const RecipePart& part : e.value().training.recipe->parts) check(part.formula + part.source, std::string("litgpt ") + adapter);
      }
    }
  for (const KeyValues& kv : std::vector<KeyValues>{{{"prec", "pure"}, {"ostate", "bf16"}},
                                                    {{"prec", "pure"}, {"lora", "16"}},
                                                    {{"prec", "mixed"}, {"lora", "16"}, {"w", "nf4-dq"}, {"dropout", "1"}}}) {
    Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"}, {"rc", "full"}});
    for (const auto& [key, value] : kv) REQUIRE_FALSE(find_field(key)->set(w, value));
    const auto e = estimate(llmsize::test::preset("mistral-7b").config, w);
    REQUIRE(e.ok());
    for (const RecipePart& part : e.value().training.recipe->parts) check(part.formula + part.source, "hf-peft");
  }
  INFO(llmsize::test::lines_of(bad));
  CHECK(bad.empty());
}


TEST_CASE("every derivation in each language: English is the default call's, Chinese has Chinese words and the same numbers", "[core][figures][lang]") {
  using llmsize::test::has_cjk;                   // CJK ideographs or full-width punctuation
  const auto numbers = llmsize::test::digit_runs;  // the runs of digits, sorted (word order may differ)
  // A reference may stay English where it is only a citation, code or file names, or the GPU's source.
  auto citation_only = [](const std::string& key, const std::string& ref) {
    for (const char* mark : {"et al.", "Stern 2018", ".py", ".hpp", "llama_kv_cache", "IEEE", "bitsandbytes", "OCP "})
      if (ref.find(mark) != std::string::npos) return true;
    return key == "inference.capacity_bytes";  // the GPU's datasheet
  };
  std::vector<KeyValues> workloads = kFormulaWorkloads;
  workloads.push_back({{"mode", "training"}, {"lora", "8"}, {"opt", "adafactor"}, {"zero", "fsdp"}, {"gpus", "4"}, {"rc", "full"}});
  workloads.push_back({{"w", "q4_k_m"}, {"rt", "llamacpp"}, {"pp", "2"}, {"gpus", "2"}});
  std::set<std::string> english;  // Chinese derivations left without a Chinese word
  size_t checked = 0;
  for_each_estimate(workloads, [&](const Preset& p, const Workload& w, const Estimate& e) {
    const auto def = explain(p.config, w, e);
    const auto en = explain(p.config, w, e, Lang::En);
    const auto zh = explain(p.config, w, e, Lang::Zh);
    REQUIRE(en.size() == def.size());
    REQUIRE(zh.size() == def.size());
    for (size_t i = 0; i < def.size(); ++i) {
      INFO(p.id << " " << def[i].key << "\n  " << def[i].formula << "\n  " << zh[i].formula << "\n  " << def[i].reference << "\n  "
                << zh[i].reference);
      CHECK(en[i].formula == def[i].formula);
      CHECK(en[i].reference == def[i].reference);
      CHECK(zh[i].key == def[i].key);
      CHECK(numbers(zh[i].formula) == numbers(def[i].formula));
      if (!has_cjk(zh[i].formula) && zh[i].formula != def[i].formula) english.insert(def[i].key + " formula: " + zh[i].formula);
      if (!has_cjk(zh[i].formula) && zh[i].formula == def[i].formula && def[i].key != "throughput.chinchilla_tokens")
        english.insert(def[i].key + " formula: " + zh[i].formula);  // only the Chinchilla formula has no word
      if (!has_cjk(zh[i].reference) && (zh[i].reference != def[i].reference || !citation_only(def[i].key, def[i].reference)))
        english.insert(def[i].key + " reference: " + zh[i].reference);
      ++checked;
    }
  });
  CHECK(checked > 10000);
  INFO(llmsize::test::lines_of(english));
  CHECK(english.empty());
}

TEST_CASE("the engines' terms in each language: English is the default call's, Chinese has Chinese words and the same numbers", "[core][figures][lang]") {
  using llmsize::test::has_cjk;                   // CJK ideographs or full-width punctuation
  const auto numbers = llmsize::test::digit_runs;  // the runs of digits, sorted (word order may differ)
  // Whether English text has a word: a run of three or more lowercase letters standing alone (not
  // part of a code name, a file, a flag or a version: those hold _ . / - or digits, or capitals).
  // The engines' versions ("SGLang 0.5 (late 2025)") and the module name "utils" are not words.
  auto has_words = [](std::string s) {
    for (std::string_view v : {kVllmVersion, sglang_version(SglangBuild::Late2025), sglang_version(SglangBuild::Mar2026),
                               std::string_view("vLLM 0.19")})
      for (size_t at; (at = s.find(v)) != std::string::npos;) s.erase(at, v.size());
    std::string token;
    for (char c : s + " ") {
      const bool part = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                        c == '/' || c == '-' || c == '#' || c == '^';
      if (part) {
        token += c;
        continue;
      }
      while (!token.empty() && (token.back() == '.' || token.back() == '-')) token.pop_back();
      const bool word = token.size() >= 3 && token != "utils" &&
                        std::all_of(token.begin(), token.end(), [](char x) { return x >= 'a' && x <= 'z'; });
      if (word) return true;
      token.clear();
    }
    return false;
  };
  CHECK(has_words("floor(blocks / groups) × block_size"));
  CHECK_FALSE(has_words("SGLang 0.5 (late 2025), model_runner.py init_torch_distributed; utils get_available_gpu_memory"));
  CHECK_FALSE(has_words("--kv-cache-memory = 8,000,000,000"));
  const std::vector<KeyValues> workloads = {
      {{"rt", "vllm"}},
      {{"rt", "sglang"}},
      {{"rt", "vllm"}, {"gpus", "4"}, {"tp", "4"}, {"kvt", "fp8"}},
      {{"rt", "vllm"}, {"gpus", "2"}, {"pp", "2"}},
      {{"rt", "vllm"}, {"gpus", "2"}, {"pp", "2"}, {"kvmem", "8000000000"}},
      {{"rt", "sglang"}, {"gpus", "2"}, {"tp", "2"}, {"mfs", "0.85"}},
      {{"rt", "sglang"}, {"swar", "0.5"}, {"gpu", "rtx-4090"}, {"seq", "8192"}},
  };
  std::set<std::string> english, keys;
  size_t checked = 0;
  for_each_estimate(workloads, [&](const Preset& p, const Workload& w, const Estimate& e) {
    const auto gpu = gpu_of(w);
    REQUIRE(gpu);
    std::vector<std::vector<EngineTerm>> def(1), en(1), zh(1);
    if (e.vllm) {
      def[0] = vllm_terms(*e.vllm, w, *gpu);
      en[0] = vllm_terms(*e.vllm, w, *gpu, Lang::En);
      zh[0] = vllm_terms(*e.vllm, w, *gpu, Lang::Zh);
    }
    if (e.sglang) {
      def[0] = sglang_terms(*e.sglang, w, *gpu);
      en[0] = sglang_terms(*e.sglang, w, *gpu, Lang::En);
      zh[0] = sglang_terms(*e.sglang, w, *gpu, Lang::Zh);
      // The free memory read from a start-up log (its own formula).
      const auto m = sglang_memory(p.config, e.plan, e.inference, w, e.gpu, std::make_pair(70.5, 40.25));
      if (m.ok()) {
        def.push_back(sglang_terms(m.value(), w, *gpu));
        en.push_back(sglang_terms(m.value(), w, *gpu, Lang::En));
        zh.push_back(sglang_terms(m.value(), w, *gpu, Lang::Zh));
      }
    }
    for (size_t s = 0; s < def.size(); ++s) {
      REQUIRE(en[s].size() == def[s].size());
      REQUIRE(zh[s].size() == def[s].size());
      for (size_t i = 0; i < def[s].size(); ++i) {
        const EngineTerm &d = def[s][i], &z = zh[s][i];
        INFO(p.id << " " << d.key << "\n  " << d.formula << "\n  " << z.formula << "\n  " << d.source << "\n  " << z.source);
        CHECK(en[s][i].formula == d.formula);
        CHECK(en[s][i].source == d.source);
        CHECK(z.key == d.key);
        CHECK(z.value == d.value);
        CHECK(numbers(z.formula) == numbers(d.formula));
        CHECK(numbers(z.source) == numbers(d.source));
        if (has_words(d.formula) && !has_cjk(z.formula)) english.insert(d.key + " formula: " + z.formula);
        // The GPU's total comes from the catalog's source, an English citation.
        if (has_words(d.source) && !has_cjk(z.source) && d.source != gpu->cuda_total_source)
          english.insert(d.key + " source: " + z.source);
        if (!has_words(d.formula)) CHECK(z.formula == d.formula);  // "--kv-cache-memory = …": nothing to translate
        keys.insert(d.key.rfind("stage_", 0) == 0 ? "stage" : d.key);
        ++checked;
      }
    }
  });
  CHECK(checked > 2000);
  CHECK(keys.size() == 27);  // every term of both engines appears
  INFO(llmsize::test::lines_of(english));
  CHECK(english.empty());
}
