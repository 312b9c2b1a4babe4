// The string tables (core/lang.hpp, src/core/lang/*.inc): every key in both languages, once,
// with the same printf placeholders in the same order; the language codes of links, flags and
// locales.
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/engine_log.hpp"
#include "core/engine_sglang.hpp"
#include "core/engine_vllm.hpp"
#include "core/gpus.hpp"
#include "core/estimate.hpp"
#include "core/issue.hpp"
#include "core/launch.hpp"
#include "core/lang.hpp"
#include "core/model_fields.hpp"
#include "core/params.hpp"
#include "core/presets.hpp"
#include "core/report.hpp"
#include "core/workload.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {

// The printf conversions of `s` in order ("%s", "%lld", "%.2f"; "%%" is text).
std::vector<std::string> placeholders(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 1 < s.size() && s[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && std::string("-+ #0123456789.*").find(s[j]) != std::string::npos) ++j;
    while (j < s.size() && std::string("hlLqjzt").find(s[j]) != std::string::npos) ++j;
    // A '%' that starts no conversion would print garbage where the text is a format: "%%".
    const bool conversion = j < s.size() && std::string("diouxXeEfgGcsp").find(s[j]) != std::string::npos;
    out.push_back(conversion ? s.substr(i, j + 1 - i) : "bad '%' at " + std::to_string(i));
    i = j;
  }
  return out;
}

}  // namespace

TEST_CASE("lang: every key has a row in each language, once", "[lang]") {
  REQUIRE(kStrCount > 0);
  for (Lang l : kLangs) {
    INFO(lang_code(l));
    CHECK(row_count(l) == kStrCount);  // a repeated row would leave another key without one
    for (int i = 0; i < kStrCount; ++i) {
      const Str k = static_cast<Str>(i);
      INFO(key_name(k));
      REQUIRE(tr_row(k, l) != nullptr);
      CHECK(std::string(tr_row(k, l)).size() > 0);
    }
  }
  std::set<std::string_view> names;
  for (int i = 0; i < kStrCount; ++i) CHECK(names.insert(key_name(static_cast<Str>(i))).second);
}

TEST_CASE("lang: both languages take the same placeholders in the same order", "[lang]") {
  CHECK(placeholders("%s of %lld at %.2f%% (%5d)") == std::vector<std::string>{"%s", "%lld", "%.2f", "%5d"});
  CHECK(placeholders("(±%)") == std::vector<std::string>{"bad '%' at 3"});
  for (int i = 0; i < kStrCount; ++i) {
    const Str k = static_cast<Str>(i);
    INFO(key_name(k) << ": \"" << tr(k, Lang::En) << "\" / \"" << tr(k, Lang::Zh) << "\"");
    const auto en = placeholders(tr(k, Lang::En));
    CHECK(en == placeholders(tr(k, Lang::Zh)));
    for (const auto& p : en) CHECK(p.rfind("bad", 0) != 0);
  }
}

TEST_CASE("lang: the Chinese table is Chinese", "[lang]") {
  // A row copied from English and left untranslated would pass the tests above: each Chinese
  // row holds a CJK character, or no English word (a name, a unit: "GPU", "GiB", "%s").
  for (int i = 0; i < kStrCount; ++i) {
    const Str k = static_cast<Str>(i);
    const std::string zh = tr(k, Lang::Zh);
    bool cjk = false, word = false;
    int lower_run = 0;
    for (size_t j = 0; j < zh.size(); ++j) {
      const auto c = static_cast<unsigned char>(zh[j]);
      cjk = cjk || (c >= 0xE2 && c <= 0xEF);  // the lead byte of U+2000–U+FFFF: CJK and its punctuation
      lower_run = (c >= 'a' && c <= 'z') ? lower_run + 1 : 0;
      word = word || lower_run >= 3;
    }
    INFO(key_name(k) << ": \"" << zh << "\"");
    if (k == Str::top_lang_other_en) continue;  // the switch back names English in English
    CHECK((cjk || !word));
  }
}

TEST_CASE("lang: codes and locales", "[lang]") {
  CHECK(lang_of_code("zh") == Lang::Zh);
  CHECK(lang_of_code("en") == Lang::En);
  CHECK_FALSE(lang_of_code("zh-CN"));
  CHECK_FALSE(lang_of_code(""));
  CHECK_FALSE(lang_of_code("ZH"));
  CHECK(lang_code(Lang::Zh) == "zh");
  CHECK(lang_of_locale("zh-CN") == Lang::Zh);
  CHECK(lang_of_locale("zh_CN.UTF-8") == Lang::Zh);
  CHECK(lang_of_locale("zh-Hans-SG") == Lang::Zh);
  CHECK(lang_of_locale("zh") == Lang::Zh);
  CHECK(lang_of_locale("en-US") == Lang::En);
  CHECK(lang_of_locale("C.UTF-8") == Lang::En);
  CHECK(lang_of_locale("zu") == Lang::En);
  CHECK(lang_of_locale("zhx") == Lang::En);
  CHECK_FALSE(lang_of_locale(""));
  CHECK(tr(Str::tab_memory, Lang::En) == std::string("Memory"));
  CHECK(tr(Str::tab_memory, Lang::Zh) == std::string("内存"));
}

TEST_CASE("lang: the architecture summary in each language", "[lang]") {
  const ModelConfig c = llmsize::test::preset("llama-3-8b").config;
  CHECK(architecture_summary(c) ==
        "llama · 32 layers · d 4,096 · 32 heads (8 KV) · head_dim 128 · gated FFN 14,336 · vocab 128,256 (untied)");
  CHECK(architecture_summary(c, Lang::Zh) ==
        "llama · 32 层 · d 4,096 · 32 个头（8 个 KV 头） · head_dim 128 · 门控 FFN 14,336 · 词表 128,256（独立输出头）");
}

namespace {
bool has_cjk(const std::string& s) {  // a UTF-8 lead byte of U+3000…U+9FFF or the full-width forms
  for (unsigned char c : s)
    if (c >= 0xE3 && c <= 0xEF) return true;
  return false;
}
}  // namespace

TEST_CASE("lang: input errors read in each language, the English one is the message", "[lang]") {
  // Every workload field given a value it refuses, every model field too: the message names the
  // allowed values in Chinese, and its English is the Issue's message (CLI, JSON, links).
  int checked = 0;
  for (const auto& f : workload_fields()) {
    Workload w;
    const auto is = f.set(w, "\x01" "bad");
    REQUIRE(is.has_value());
    INFO(f.key << ": " << is->message << " / " << message_in(*is, Lang::Zh));
    CHECK(message_in(*is, Lang::En) == is->message);
    CHECK(has_cjk(message_in(*is, Lang::Zh)));
    CHECK(has_cjk(allowed_text(f, Lang::Zh)));
    CHECK(allowed_text(f, Lang::En) == allowed_text(f));
    ++checked;
  }
  for (const auto& f : model_fields()) {
    ModelConfig c;
    if (auto is = f.set(c, "\x01" "bad")) {
      INFO(f.key << ": " << is->message);
      CHECK(has_cjk(message_in(*is, Lang::Zh)));
      CHECK(message_in(*is, Lang::En) == is->message);
      ++checked;
    }
  }
  CHECK(checked > 150);
  // The cross-field checks of a workload.
  const std::vector<std::vector<std::pair<const char*, const char*>>> bad = {
      {{"gpus", "3"}, {"tp", "2"}},
      {{"gpus", "4"}, {"exp", "3"}},
      {{"qlora", "1"}},
      {{"gpu", "custom"}},
      {{"rt", "llamacpp"}, {"pp", "2"}, {"gpus", "2"}, {"devs", "h100-sxm"}},
      {{"rt", "vllm"}, {"devs", "h100-sxm"}},
      {{"rt", "llamacpp"}, {"pp", "2"}, {"gpus", "2"}, {"ts", "1,2,3"}},
  };
  for (const auto& kv : bad) {
    Workload w;
    for (const auto& [k, v] : kv) REQUIRE_FALSE(find_field(k)->set(w, v));
    const auto issues = validate(w);
    REQUIRE_FALSE(issues.empty());
    for (const auto& is : issues) {
      INFO(to_string(is) << " / " << to_string(is, Lang::Zh));
      CHECK(has_cjk(to_string(is, Lang::Zh)));
      CHECK(to_string(is, Lang::En) == to_string(is));
    }
  }
  CHECK(has_cjk(message_in(memory_overflow(), Lang::Zh)));
  CHECK(join({memory_overflow("seq"), memory_overflow("batch")}, " | ", Lang::Zh).find(" | batch：") != std::string::npos);
}

TEST_CASE("lang: the gap to 12·L·d² + v·d is explained in each language", "[lang]") {
  const auto all = load_presets();
  REQUIRE(all.ok());
  int items = 0;
  for (const auto& p : all.value()) {
    const auto r = count_params(p.config);
    REQUIRE(r.ok());
    for (const auto& g : r.value().gap) {
      INFO(p.id << ": " << g.cause << " — " << g.why);
      const GapItem zh = gap_words(p.config, r.value(), g, Lang::Zh);
      CHECK((has_cjk(zh.cause) || zh.cause == "MoE FFN"));
      CHECK((g.why.empty() || has_cjk(zh.why)));
      CHECK(zh.delta == g.delta);
      ++items;
    }
  }
  CHECK(items > 200);
}

TEST_CASE("lang: the estimate's notes read in each language", "[lang]") {
  for (const auto& [id, seq, english] :
       {std::tuple{"llama-3-8b", "16384", "exceeds the trained context of 8192 tokens (max_position_embeddings)"},
        std::tuple{"gpt2", "2048", "is longer than the 1024 rows of this model's learned position table"}}) {
    Workload w;
    REQUIRE_FALSE(find_field("seq")->set(w, seq));
    const auto e = estimate(llmsize::test::preset(id).config, w);
    REQUIRE(e.ok());
    REQUIRE_FALSE(e.value().notes.empty());
    const Issue& note = e.value().notes.back();
    CHECK(note.field == "seq");
    CHECK(note.message.find(english) == 0);
    CHECK(has_cjk(message_in(note, Lang::Zh)));
  }
}

TEST_CASE("lang: the engines' refusals read in each language", "[lang]") {
  // What vLLM, SGLang or llama.cpp would refuse, or what is not modelled, is a note of the
  // estimate: each one in Chinese, its English the message the CLI and JSON carry.
  struct Case {
    const char* preset;
    std::vector<std::pair<const char*, const char*>> set;
    const char* field;
    const char* english;
  };
  const std::vector<Case> cases = {
      {"llama-3-8b", {{"rt", "llamacpp"}, {"kvt", "fp8"}}, "kvt", "fp8 is not a llama.cpp cache type"},
      {"llama-3-8b", {{"rt", "llamacpp"}, {"gpus", "2"}, {"tp", "2"}}, "tp", "llama.cpp splits rows over devices only with"},
      {"llama-3-8b", {{"rt", "sglang"}, {"gpus", "2"}, {"pp", "2"}}, "pp", "SGLang's accounting per pipeline stage"},
      {"llama-3-8b", {{"rt", "sglang"}, {"seq", "16384"}}, "seq", "SGLang refuses a --context-length (16,384) above the model's 8,192 positions"},
      {"llama-3-8b", {{"rt", "vllm"}, {"seq", "16384"}}, "seq", "vLLM refuses a max_model_len (16,384) above the model's 8,192 positions"},
      {"jamba-1.5-mini", {{"rt", "sglang"}, {"gpus", "2"}, {"tp", "2"}}, "rt", "SGLang's state pool for Mamba-1 layers (Jamba) is not modelled yet"},
      {"deepseek-v3.2", {{"rt", "vllm"}, {"gpus", "16"}, {"tp", "8"}, {"pp", "2"}}, "pp", "vLLM's placement of the embedding and head over pipeline stages"},
  };
  for (const Case& k : cases) {
    Workload w;
    for (const auto& [key, value] : k.set) REQUIRE_FALSE(find_field(key)->set(w, value));
    const auto e = estimate(llmsize::test::preset(k.preset).config, w);
    REQUIRE(e.ok());
    const Issue* note = nullptr;
    for (const Issue& n : e.value().notes)
      if (n.message.find(k.english) == 0) note = &n;
    INFO(k.preset << ": " << join(e.value().notes));
    REQUIRE(note);
    CHECK(note->field == k.field);
    INFO(message_in(*note, Lang::Zh));
    CHECK(has_cjk(message_in(*note, Lang::Zh)));
    CHECK(message_in(*note, Lang::Zh).find("%") == std::string::npos);
  }
  // A log that is not one: named in each language.
  const auto none = parse_engine_log("hello");
  REQUIRE_FALSE(none.ok());
  CHECK(none.issues().front().message.find("holds no start-up line of vLLM") == 0);
  CHECK(has_cjk(message_in(none.issues().front(), Lang::Zh)));
  // A row's placeholder filled by another row follows the language (issue_row with a Str).
  const Issue both = issue_row("tp", Str::eng_vllm_divide, Str::eng_what_m2_heads, "3");
  CHECK(both.message == "vLLM divides the Mamba-2 heads (3) by the tensor parallel size, which must divide it");
  CHECK(message_in(both, Lang::Zh).find("Mamba-2 头数（3）") != std::string::npos);
}

TEST_CASE("lang: the engines' accounting terms read in each language; the engines' own log words stay as printed", "[lang]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  std::set<Str> seen;
  for (const auto& p : all.value())
    for (const auto& set : std::vector<std::vector<std::pair<const char*, const char*>>>{
             {{"rt", "vllm"}}, {{"rt", "sglang"}}, {{"rt", "vllm"}, {"gpus", "2"}, {"pp", "2"}},
             {{"rt", "vllm"}, {"w", "mxfp4"}, {"kattn", "yes"}}}) {
      Workload w;
      for (const auto& [key, value] : set) REQUIRE_FALSE(find_field(key)->set(w, value));
      const auto e = estimate(p.config, w);
      if (!e.ok()) continue;
      const auto gpu = gpu_of(w);
      REQUIRE(gpu);
      std::vector<EngineTerm> terms;
      if (e.value().vllm) terms = vllm_terms(*e.value().vllm, w, *gpu);
      if (e.value().sglang) terms = sglang_terms(*e.value().sglang, w, *gpu);
      for (const EngineTerm& t : terms) {
        INFO(p.id << " " << t.key << ": " << t.label << " / " << term_label(t, Lang::Zh));
        CHECK(!t.label.empty());
        CHECK(term_label(t, Lang::En) == t.label);
        if (t.row) {
          seen.insert(*t.row);
          CHECK(has_cjk(term_label(t, Lang::Zh)));
          CHECK(term_label(t, Lang::Zh).find('%') == std::string::npos);
        } else {
          CHECK(term_label(t, Lang::Zh) == t.label);  // "Model loading took", "#tokens": the log's words
        }
      }
    }
  CHECK(seen.size() == 17);  // every described term's row appears somewhere
  const EngineTerm stage{"stage_1_kv_available_bytes", "", 0, true, "estimate", "", "", Str::term_stage, {"1", "16–31"}};
  CHECK(term_label(stage, Lang::En) == "Stage 1 (layers 16–31)");
  CHECK(term_label(stage, Lang::Zh) == "第 1 级（第 16–31 层）");
}

TEST_CASE("lang: layer kinds, durations and export refusals read in each language", "[lang]") {
  const auto all = load_presets();
  REQUIRE(all.ok());
  int kinds = 0;
  for (const auto& p : all.value()) {
    const auto r = count_params(p.config);
    REQUIRE(r.ok());
    for (const auto& k : r.value().kinds) {
      INFO(p.id << ": " << k.label << " / " << kind_text(k, Lang::Zh));
      REQUIRE(k.words);
      CHECK(k.words(Lang::En) == k.label);  // the English label is the words' (JSON, the kinds' ids)
      CHECK(kind_text(k, Lang::En) == k.label);
      CHECK(kind_text(k, Lang::Zh) != k.label);
      ++kinds;
    }
  }
  CHECK(kinds >= 100);
  CHECK(format_duration(3 * 86400.0) == "3.0 days");
  CHECK(format_duration(3 * 86400.0, Lang::Zh) == "3.0 天");
  CHECK(format_duration(3 * 365.25 * 86400, Lang::Zh) == "3.0 年");
  CHECK(format_duration(90.0, Lang::Zh) == "90.0 s");
  // What an engine's command line cannot say.
  Workload w;
  REQUIRE_FALSE(find_field("rt")->set(w, "llamacpp"));
  REQUIRE_FALSE(find_field("kvt")->set(w, "fp8"));
  const auto c = launch_command(llmsize::test::preset("llama-3-8b").config, w, "m");
  REQUIRE_FALSE(c.ok());
  CHECK(c.issues().front().message == "fp8 is not a llama.cpp cache type (f32, f16, bf16, q8_0, q4_0)");
  CHECK(join(c.issues(), "; ", Lang::Zh) == "kvt：fp8 不是 llama.cpp 的缓存类型（f32、f16、bf16、q8_0、q4_0）");
  // And the notes beside a command it can say: the flags it has not, and what MODEL stands for.
  for (const char* rt : {"vllm", "sglang", "llamacpp"}) {
    Workload v;
    REQUIRE_FALSE(find_field("rt")->set(v, rt));
    const auto ok = launch_command(llmsize::test::preset("llama-3-8b").config, v, "");
    REQUIRE(ok.ok());
    REQUIRE(ok.value().notes.size() >= 2);
    for (const Issue& n : ok.value().notes) {
      INFO(rt << ": " << n.message << " / " << message_in(n, Lang::Zh));
      CHECK(has_cjk(message_in(n, Lang::Zh)));
      CHECK(message_in(n, Lang::En) == n.message);
    }
  }
}
