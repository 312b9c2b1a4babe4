// Share links: only differences are carried, random valid states round-trip exactly,
// golden links of every released version still open, and hostile links are refused with
// an Issue naming the key.
#include <random>
#include <set>

#include "core/model_fields.hpp"
#include "core/params.hpp"
#include "core/share_link.hpp"
#include "core/text_value.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {
ShareState preset_state(const std::string& id) {
  ShareState s;
  s.preset = id;
  s.model = llmsize::test::preset(id).config;
  return s;
}
std::vector<Issue> decode_issues(std::string_view link) {
  auto r = decode_link(link);
  REQUIRE_FALSE(r.ok());
  REQUIRE_FALSE(r.issues().empty());
  return r.issues();
}
}  // namespace

TEST_CASE("model and workload keys share one namespace without collisions", "[core][link]") {
  std::set<std::string_view> keys = {"v", "preset", "name"};
  for (const auto& f : model_fields()) CHECK(keys.insert(f.key).second);
  for (const auto& f : workload_fields()) {
    INFO(f.key);
    CHECK(keys.insert(f.key).second);
    CHECK(f.key.rfind("ui.", 0) != 0);
  }
}

TEST_CASE("a link carries only what differs from the preset and the defaults", "[core][link]") {
  auto s = preset_state("llama-3-8b");
  CHECK(encode_link(s) == "v=1&preset=llama-3-8b");
  REQUIRE_FALSE(find_field("seq")->set(s.workload, "8192"));
  REQUIRE_FALSE(find_field("batch")->set(s.workload, "4"));
  CHECK(encode_link(s) == "v=1&preset=llama-3-8b&seq=8192&batch=4");
  s.model.n_layers = 40;
  CHECK(encode_link(s) == "v=1&preset=llama-3-8b&L=40&seq=8192&batch=4");
  s.ui = {{"ui.tab", "memory"}};
  CHECK(encode_link(s) == "v=1&preset=llama-3-8b&L=40&seq=8192&batch=4&ui.tab=memory");
  auto back = decode_link("#" + encode_link(s));
  REQUIRE(back.ok());
  CHECK(back.value() == s);
}

TEST_CASE("every preset round-trips, and decode then encode is stable", "[core][link]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    INFO(p.id);
    auto s = preset_state(p.id);
    const std::string link = encode_link(s);
    auto back = decode_link(link);
    REQUIRE(back.ok());
    CHECK(back.value() == s);
    CHECK(encode_link(back.value()) == link);

    ShareState custom = s;  // the same model as a custom one carries every dimension
    custom.preset.clear();
    auto back2 = decode_link(encode_link(custom));
    INFO(encode_link(custom));
    REQUIRE(back2.ok());
    CHECK(back2.value() == custom);
    CHECK(count_params(back2->model)->total == count_params(p.config)->total);
  }
}

TEST_CASE("random valid states round-trip exactly", "[core][link][property]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  std::mt19937_64 rng(20261129);
  int round_trips = 0;
  // Presets whose layers are listed one by one (block patterns, per-layer shapes) turn invalid when
  // the layer count is drawn anew: enough iterations to keep over 100 valid states.
  for (int iter = 0; iter < 800; ++iter) {
    const auto& p = all.value()[rng() % all->size()];
    ShareState s = preset_state(p.id);
    if (rng() % 4 == 0) s.preset.clear();
    for (const auto& f : workload_fields()) {
      if (rng() % 3) continue;
      std::string v;
      switch (f.kind) {
        case FieldKind::Int: {
          const i64 span = std::min<i64>(f.max_int - f.min_int, 1 << 20);
          v = std::to_string(f.min_int + static_cast<i64>(rng() % static_cast<uint64_t>(span + 1)));
          break;
        }
        case FieldKind::Real:
          v = format_real(f.min_real + (f.max_real - f.min_real) * (0.01 + 0.99 * static_cast<double>(rng() % 1000) / 1000.0));
          break;
        case FieldKind::Bool: v = rng() % 2 ? "1" : "0"; break;
        case FieldKind::RealList:  // as many shares as pipeline stages, or none
          for (i64 i = 0; i < s.workload.pp && rng() % 2; ++i)
            v += (i ? "," : "") + format_real(static_cast<double>(rng() % 100000) / 8.0);
          break;
        default: v = std::string(f.choices[rng() % f.choices.size()]); break;
      }
      INFO(f.key << "=" << v);
      CHECK_FALSE(f.set(s.workload, v).has_value());
    }
    if (rng() % 2) s.model.n_layers = 1 + static_cast<i64>(rng() % 200);
    if (!validate(s.workload).empty() || !validate(s.model).empty()) continue;
    const std::string link = encode_link(s);
    INFO(link);
    auto back = decode_link(link);
    REQUIRE(back.ok());
    CHECK(back.value() == s);
    CHECK(encode_link(back.value()) == link);
    ++round_trips;
  }
  CHECK(round_trips > 100);
}

TEST_CASE("links of every released version still open with the same numbers", "[core][link][compat]") {
  // tests/core/links_v1.txt: "<link>\t<total params>\t<active>" written when v1 shipped.
  const std::string text = llmsize::test::read_text("core/links_v1.txt");
  size_t pos = 0;
  int n = 0;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    const std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? text.size() : eol + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    INFO(line);
    auto s = decode_link(line.substr(0, t1));
    REQUIRE(s.ok());
    const auto p = count_params(s->model);
    CHECK(std::to_string(p->total) == line.substr(t1 + 1, t2 - t1 - 1));
    CHECK(std::to_string(p->active) == line.substr(t2 + 1));
    ++n;
  }
  CHECK(n >= 5);
}

TEST_CASE("hostile links are refused with the key and the reason", "[core][link][hostile]") {
  struct Case {
    std::string link, field, says;
  };
  const std::vector<Case> cases = {
      {"v=1&preset=nope", "preset", "unknown preset"},
      {"v=1&preset=gpt2&zzz=1", "zzz", "not a known key"},
      {"v=1&preset=gpt2&seq=1&seq=2", "seq", "more than once"},
      {"v=1&preset=gpt2&seq=12x", "seq", "integer"},
      {"v=1&preset=gpt2&seq=-5", "seq", "integer"},
      {"v=1&preset=gpt2&L=99999999", "L", "[1, 10000]"},
      {"v=1&preset=gpt2&d=1048576&H=1&hd=65537", "hd", "65536"},
      {"v=1&preset=gpt2&norm=%3Cscript%3Ealert(1)%3C/script%3E", "norm", "must be one of"},
      {"v=1&preset=gpt2&name=%ZZ", "name", "percent-encoded"},
      {"v=1&preset=gpt2&name=%FF%FE", "name", "UTF-8"},
      {"v=1&preset=gpt2&seq", "seq", "no value"},
      {"v=1&preset=gpt2&=0", "link", "empty key"},
      {"v=1&preset=gpt2&=%00", "link", "UTF-8"},
      {"v=99&preset=gpt2", "v", "newer"},
      {"v=abc", "v", "version"},
      {"v=1&preset=gpt2&KV=5", "KV", "divide"},
      {"v=1&preset=gpt2&ui.x=%C3%A9", "ui.x", "printable"},
      {"v=1&preset=gpt2&ui.x=%0A", "ui.x", "UTF-8"},
      {"v=1&fam=llama&L=10000&d=1048576&H=16&KV=16&hd=65536&ff=16777216&V=16777216&P=1&E=65536&topk=1&fe=16777216",
       "L", "overflow"},
  };
  for (const auto& c : cases) {
    INFO(c.link);
    const auto issues = decode_issues(c.link);
    bool found = false;
    for (const auto& i : issues) found |= i.field == c.field && i.message.find(c.says) != std::string::npos;
    if (!found) FAIL_CHECK(join(issues));
  }
  CHECK_THAT(decode_issues(std::string(kMaxShareLinkBytes + 1, 'a'))[0].message, Catch::Contains("limit"));
}
