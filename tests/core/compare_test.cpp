// Configurations side by side (issue 14, Compare): the comparison link (the first case's own
// link plus c2…c4), and the rows of figures with their differences.
#include <string>

#include "core/compare.hpp"
#include "core/share_link.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {
ShareState state_of(const std::string& link) {
  auto r = decode_link(link);
  INFO(join(r.issues()));
  REQUIRE(r.ok());
  return std::move(r).value();
}
const CompareRow& row(const Comparison& c, std::string_view key) {
  for (const auto& r : c.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return c.rows.front();
}
}  // namespace

TEST_CASE("compare: a comparison link is the first case's link with the others under c2, c3, c4", "[core][compare][link]") {
  const std::vector<ShareState> cases{state_of("v=1&preset=llama-3.1-70b&gpus=2&tp=2"),
                                      state_of("v=1&preset=llama-3.1-70b&gpus=4&tp=4&gpu=l40s"),
                                      state_of("v=1&preset=llama-3.1-70b&w=q4_k_m&gpu=h200")};
  const std::string link = encode_compare_link(cases);
  CHECK(link.rfind(encode_link(cases[0]) + "&c2=v%3D1%26preset%3Dllama-3.1-70b%26", 0) == 0);
  auto back = decode_compare_link("#" + link);
  INFO(join(back.issues()));
  REQUIRE(back.ok());
  REQUIRE(back->size() == 3);
  for (size_t k = 0; k < 3; ++k) CHECK((*back)[k] == cases[k]);
  // The first case alone still opens as an ordinary link; a single-state link is a comparison of one.
  CHECK(decode_link(encode_link(cases[0])).ok());
  CHECK(decode_compare_link(encode_link(cases[0]))->size() == 1);
  // Refusals name the case and its key.
  auto refused = [](const std::string& l) {
    auto r = decode_compare_link(l);
    REQUIRE_FALSE(r.ok());
    return r.issues().front();
  };
  CHECK(refused("v=1&preset=gpt2&c3=v%3D1").field == "c2");                       // numbered without gaps
  CHECK(refused("v=1&preset=gpt2&c2=v%3D1%26seq%3D0").field == "c2.seq");         // the case's own issue
  CHECK(refused("v=1&preset=gpt2&c2=v%3D1%26c2%3Dv%253D1").field == "c2.c2");      // no comparison inside a case
  CHECK(refused("v=1&preset=gpt2&c2=%ZZ").field == "c2");                           // broken encoding
  CHECK(refused("v=1&preset=gpt2&c5=v%3D1").field == "c5");                         // four cases at most
  CHECK(refused("v=1&preset=gpt2&c2=v%3D1&c2=v%3D1").field == "c2");               // once each
}

TEST_CASE("compare: each case's figures in a column, rows marked where the cases differ", "[core][compare]") {
  const std::vector<ShareState> cases{state_of("v=1&preset=llama-3.1-70b&gpus=2&tp=2"),
                                      state_of("v=1&preset=llama-3.1-70b&gpus=4&tp=4&gpu=l40s"),
                                      state_of("v=1&preset=llama-3.1-70b&mode=training&gpus=8&zero=3")};
  const Comparison c = compare(cases);
  REQUIRE(c.titles.size() == 3);
  CHECK(c.titles[1] == "Llama 3.1 70B (gpu l40s, gpus 4, tp 4)");
  // The values are the estimates' own.
  for (size_t k = 0; k < 2; ++k) {
    const auto e = estimate(cases[k].model, cases[k].workload);
    REQUIRE(e.ok());
    CHECK(*row(c, "inference.weights_bytes").values[k] == static_cast<double>(e->inference.weights_bytes));
    CHECK(*row(c, "inference.total_bytes").values[k] == static_cast<double>(e->inference.total_bytes));
  }
  CHECK_FALSE(row(c, "params.total").differs);
  CHECK(row(c, "inference.weights_bytes").differs);
  // A figure of another mode has no value in that column; the training case has its own rows.
  CHECK_FALSE(row(c, "inference.weights_bytes").values[2]);
  CHECK(row(c, "training.total_bytes").values[2]);
  CHECK_FALSE(row(c, "training.total_bytes").values[0]);
  CHECK(*row(c, "fit.fits").values[0] == 1);
  // Text and JSON: the difference from the first case beside each value.
  const std::string text = compare_text(c, ByteUnit::GB);
  CHECK(text.find("* Weights ") != std::string::npos);
  CHECK(text.find("(-50.0%)") != std::string::npos);  // the weights over 4 GPUs instead of 2
  const std::string json = compare_json(c);
  CHECK(json.find("\"vs_first\"") != std::string::npos);
  // A case whose estimate fails keeps its column with the reason, and no values.
  ShareState bad = cases[0];
  bad.workload.tp = 3;  // 64 heads are not split 3 ways
  bad.workload.gpus = 3;
  const Comparison with_bad = compare({cases[0], bad});
  CHECK_FALSE(with_bad.issues[1].empty());
  CHECK_FALSE(row(with_bad, "inference.total_bytes").values[1]);
}
