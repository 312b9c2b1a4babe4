// safetensors headers (issue 12): a checkpoint's tensors read from its header and matched to
// the model's inventory by name, scales grouped with their weights, shard indexes, and hostile
// headers refused by name. The files are written here as the format lays them out.
#include <string>

#include "core/file_weights.hpp"
#include "core/inventory.hpp"
#include "core/params.hpp"
#include "core/safetensors.hpp"
#include "core/share_link.hpp"
#include "file_weights_check.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {

// 8-byte little-endian length, then the JSON.
std::string file_of(const std::string& json) {
  std::string out;
  const std::uint64_t n = json.size();
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>(n >> (8 * k)));
  return out + json;
}

struct Entry {
  std::string name, dtype;
  std::vector<i64> shape;
  i64 bytes;
};
// A header over consecutive tensors; returns the file with its data length in `data`.
std::string header_of(const std::vector<Entry>& entries, i64& data, const std::string& extra = "") {
  std::string j = "{" + extra;
  data = 0;
  for (const auto& e : entries) {
    if (j.size() > 1) j += ",";
    j += "\"" + e.name + "\":{\"dtype\":\"" + e.dtype + "\",\"shape\":[";
    for (size_t k = 0; k < e.shape.size(); ++k) j += (k ? "," : "") + std::to_string(e.shape[k]);
    j += "],\"data_offsets\":[" + std::to_string(data) + "," + std::to_string(data + e.bytes) + "]}";
    data += e.bytes;
  }
  return file_of(j + "}");
}

std::string expand(std::string name, i64 layer, i64 expert) {
  if (auto at = name.find("{i}"); at != std::string::npos) name.replace(at, 3, std::to_string(layer));
  if (auto at = name.find("{e}"); at != std::string::npos) name.replace(at, 3, std::to_string(expert));
  return name;
}

// Every tensor of the model, as a bf16 checkpoint names and shapes them ([out, in]).
std::vector<Entry> checkpoint_of(const Inventory& inv) {
  std::vector<Entry> out;
  auto add = [&](const Tensor& t, i64 layer) {
    for (i64 e = 0; e < t.copies; ++e) {
      std::vector<i64> shape = t.is_matrix() ? std::vector<i64>{t.cols, t.rows} : std::vector<i64>{t.cols};
      out.push_back({expand(t.name, layer, e), "BF16", shape, t.numel_one() * 2});
    }
  };
  for (const Tensor& t : inv.global) add(t, -1);
  for (const LayerKind& k : inv.kinds)
    for (i64 l : k.layers)
      for (const Tensor& t : k.tensors) add(t, l);
  return out;
}

}  // namespace

TEST_CASE("safetensors: a checkpoint's tensors by the model's groups", "[core][safetensors]") {
  for (const char* id : {"qwen2.5-0.5b", "qwen1.5-moe-a2.7b"}) {
    INFO(id);
    const ModelConfig c = llmsize::test::preset(id).config;
    const auto inv = build_inventory(c);
    REQUIRE(inv.ok());
    i64 data = 0;
    const std::string file = header_of(checkpoint_of(*inv), data, "\"__metadata__\":{\"format\":\"pt\"}");
    auto h = read_safetensors_header(file, static_cast<i64>(file.size()) + data);
    INFO(join(h.issues()));
    REQUIRE(h.ok());
    CHECK(h->metadata == std::vector<std::pair<std::string, std::string>>{{"format", "pt"}});
    const auto p = count_params(c);
    REQUIRE(p.ok());
    CHECK(h->tensor_bytes() == 2 * p->total);
    const auto g = safetensors_groups({&*h}, *inv);
    CHECK(g.unmatched_count == 0);
    CHECK(g.differ.empty());
    for (int k = 0; k < kGroupCount; ++k) {
      INFO(to_string(static_cast<Group>(k)));
      CHECK(g.bytes[static_cast<size_t>(k)] == 2 * p->by_group[static_cast<size_t>(k)]);
    }
  }
}

TEST_CASE("safetensors: scales count with their weight; other names are listed, shapes that differ named", "[core][safetensors]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  // An FP8 block checkpoint's q_proj (DeepSeek-V3 style): e4m3 values and fp32 128×128 block scales.
  i64 data = 0;
  const std::string file = header_of({{"model.layers.3.self_attn.q_proj.weight", "F8_E4M3", {896, 896}, 896 * 896},
                                      {"model.layers.3.self_attn.q_proj.weight_scale_inv", "F32", {7, 7}, 49 * 4},
                                      {"model.layers.3.self_attn.k_proj.weight", "BF16", {64, 896}, 64 * 896 * 2},
                                      {"model.visual.patch_embed.weight", "BF16", {4}, 8}},
                                     data);
  auto h = read_safetensors_header(file, 0);
  REQUIRE(h.ok());
  const auto g = safetensors_groups({&*h}, *inv);
  CHECK(g.bytes[static_cast<size_t>(Group::Attention)] == 896 * 896 + 49 * 4 + 64 * 896 * 2);
  CHECK(g.unmatched == std::vector<std::string>{"model.visual.patch_embed.weight"});
  // Qwen2.5-0.5B's k_proj is 896 → 128 (2 KV heads of 64): a 64-row tensor differs, by name.
  REQUIRE(g.differ.size() == 1);
  CHECK(g.differ[0] == "model.layers.3.self_attn.k_proj.weight: 57,344 elements, the model's 114,688");
}

TEST_CASE("safetensors: a header longer than the bytes read asks for more", "[core][safetensors]") {
  i64 data = 0;
  const std::string file = header_of({{"a", "F32", {4}, 16}}, data);
  for (size_t n = 0; n < file.size(); ++n) {
    i64 more = 0;
    auto h = read_safetensors_header(std::string_view(file).substr(0, n), 0, &more);
    REQUIRE_FALSE(h.ok());
    CHECK(more > static_cast<i64>(n));
  }
  CHECK(read_safetensors_header(file, static_cast<i64>(file.size()) + 16).ok());
}

TEST_CASE("safetensors: hostile headers and indexes are refused by name", "[core][safetensors][validation]") {
  auto refused = [](const std::string& file, std::string_view says, i64 size = 0) {
    INFO(says);
    auto h = read_safetensors_header(file, size);
    REQUIRE_FALSE(h.ok());
    CHECK(h.issues().front().field == "safetensors");
    CHECK(h.issues().front().message.find(says) != std::string::npos);
    llmsize::test::check_in_both(h.issues().front());  // the message in each language
  };
  std::string huge(8, '\xff');
  refused(huge, "safetensors allows");
  refused(file_of("{}"), "runs past the end", 9);
  refused(file_of("[1]"), "must be a JSON object");
  refused(file_of("{\"a\":{\"dtype\":\"F12\",\"shape\":[1],\"data_offsets\":[0,1]}}"), "not a safetensors dtype");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,16]}}"), "shape must be an array");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[-4],\"data_offsets\":[0,16]}}"), "non-negative");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0]}}"), "data_offsets");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,0]}}"), "begin ≤ end");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,15]}}"), "do not take");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,16]}}"), "int64");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,32]}}"), "gaps or overlaps");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}"),
          "gaps or overlaps");
  refused(file_of("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}"), "the file holds", 100);
  refused(file_of("{\"__metadata__\":{\"x\":1}}"), "must be a string");
  refused(file_of("{\"a\":1,\"a\":2}"), "a");  // a repeated key: the JSON reader refuses it
  // Indexes: shards beside the index only, names as strings.
  for (const char* bad : {"{\"weight_map\":{\"a\":\"../x.safetensors\"}}", "{\"weight_map\":{\"a\":3}}", "[]", "{\"weight_map\":1}"}) {
    const auto is = read_safetensors_index(bad).issues();
    REQUIRE(is.size() == 1);
    CHECK(is.front().field == "weight_map");
    llmsize::test::check_in_both(is.front());
  }
  const auto idx = read_safetensors_index(
      "{\"metadata\":{\"total_size\":1234},\"weight_map\":{\"a\":\"m-1.safetensors\",\"b\":\"m-2.safetensors\",\"c\":\"m-1.safetensors\"}}");
  REQUIRE(idx.ok());
  CHECK(idx->shards == std::vector<std::string>{"m-1.safetensors", "m-2.safetensors"});
  CHECK(idx->total_size == 1234);
}

TEST_CASE("safetensors: a checkpoint's bytes are the weights where its tensors match the model", "[core][safetensors][file]") {
  for (const char* id : {"qwen2.5-0.5b", "qwen1.5-moe-a2.7b"}) {
    INFO(id);
    const ModelConfig c = llmsize::test::preset(id).config;
    auto m = prepare(c);
    REQUIRE(m.ok());
    PreparedModel pm = std::move(m).value();
    i64 data = 0;
    // FP8 block checkpoint (DeepSeek-V3 style): matrices in e4m3 with fp32 128×128 block scales
    // beside them, vectors in bf16.
    std::vector<Entry> entries;
    i64 scales = 0;
    for (const Entry& e : checkpoint_of(*pm.inventory)) {
      if (e.shape.size() != 2) {
        entries.push_back(e);
        continue;
      }
      const i64 n = e.shape[0] * e.shape[1];
      entries.push_back({e.name, "F8_E4M3", e.shape, n});
      const i64 s = ceil_div(e.shape[0], 128) * ceil_div(e.shape[1], 128) * 4;
      entries.push_back({e.name + "_scale_inv", "F32", {ceil_div(e.shape[0], 128), ceil_div(e.shape[1], 128)}, s});
      scales += s;
    }
    const std::string file = header_of(entries, data);
    auto h = read_safetensors_header(file, 0);
    REQUIRE(h.ok());
    const std::vector<SafetensorsHeader> files{*h};
    attach_file(pm, files);
    INFO((pm.file_refused ? pm.file_refused->message : ""));
    REQUIRE(pm.file);
    const auto e = estimate(pm, llmsize::test::with({{"w", "fp8"}}));
    REQUIRE(e.ok());
    CHECK(e->inference.weights.from_file);
    CHECK(e->inference.weights.total_bytes == h->tensor_bytes());  // the scales included
    CHECK(scales > 0);
    REQUIRE(e->format_weights);
  }
  // A tensor missing, or of another shape, is named; the estimate keeps its own weights.
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  auto m = prepare(c);
  REQUIRE(m.ok());
  PreparedModel pm = std::move(m).value();
  auto entries = checkpoint_of(*pm.inventory);
  std::erase_if(entries, [](const Entry& e) { return e.name == "model.layers.4.mlp.up_proj.weight"; });
  i64 data = 0;
  std::string file = header_of(entries, data);
  auto h = read_safetensors_header(file, 0);
  REQUIRE(h.ok());
  attach_file(pm, std::vector<SafetensorsHeader>{*h});
  REQUIRE(pm.file_refused);
  CHECK(pm.file_refused->message ==
        "the file's bytes stand beside the estimate, not in it: the checkpoint has no model.layers.4.mlp.up_proj.weight");
  entries = checkpoint_of(*pm.inventory);
  for (Entry& e : entries)
    if (e.name == "model.layers.2.self_attn.k_proj.weight") e.shape = {64, 896}, e.bytes = 64 * 896 * 2;
  file = header_of(entries, data);
  h = read_safetensors_header(file, 0);
  REQUIRE(h.ok());
  attach_file(pm, std::vector<SafetensorsHeader>{*h});
  REQUIRE(pm.file_refused);
  CHECK(pm.file_refused->message == "the file's bytes stand beside the estimate, not in it: model.layers.2.self_attn.k_proj.weight "
                                    "holds 57,344 elements where the model's tensor has 114,688");
  const auto e = estimate(pm, Workload{});
  REQUIRE(e.ok());
  CHECK_FALSE(e->inference.weights.from_file);
}

TEST_CASE("safetensors: gpt-oss's MXFP4 blocks and scales stand for their weights", "[core][safetensors][file]") {
  // openai/gpt-oss-20b's checkpoint: experts as *_blocks (u8, 16 bytes per 32 values) and
  // *_scales (u8, one per 32 values), everything else bf16.
  const ModelConfig c = llmsize::test::preset("gpt-oss-20b").config;
  auto m = prepare(c);
  REQUIRE(m.ok());
  PreparedModel pm = std::move(m).value();
  std::vector<Entry> entries;
  i64 packed = 0;
  // gpt-oss keeps all experts of a layer in one tensor ([E, …]): one entry per name.
  std::vector<Entry> whole;
  for (const Entry& e : checkpoint_of(*pm.inventory)) {
    if (!whole.empty() && whole.back().name == e.name) {
      whole.back().bytes += e.bytes;
      whole.back().shape = {whole.back().bytes / 2};  // bf16 elements of all experts
    } else {
      whole.push_back(e);
    }
  }
  for (const Entry& e : whole) {
    const bool expert = e.name.find("mlp.experts.") != std::string::npos && e.name.find("_bias") == std::string::npos;
    if (!expert) {
      entries.push_back(e);
      continue;
    }
    const i64 n = e.bytes / 2, blocks = n / 32;
    entries.push_back({e.name + "_blocks", "U8", {blocks, 16}, blocks * 16});
    entries.push_back({e.name + "_scales", "U8", {blocks}, blocks});
    packed += blocks * 17;
  }
  i64 data = 0;
  const std::string file = header_of(entries, data);
  auto h = read_safetensors_header(file, 0);
  INFO(join(h.issues()));
  REQUIRE(h.ok());
  attach_file(pm, std::vector<SafetensorsHeader>{*h});
  INFO((pm.file_refused ? pm.file_refused->message : ""));
  REQUIRE(pm.file);
  CHECK(pm.file->other_tensors == 0);
  CHECK(pm.file->total_bytes == h->tensor_bytes());
  CHECK(packed > 0);
}

TEST_CASE("safetensors: a share link carries a checkpoint's bytes and dtype per tensor, and they come back exact",
          "[core][safetensors][file][link]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  auto m = prepare(c);
  REQUIRE(m.ok());
  PreparedModel pm = std::move(m).value();
  // FP8 matrices with fp32 block scales, one layer's q_proj left in bf16, a tensor the model has no
  // name for (its bytes are the "other" bytes).
  std::vector<Entry> entries;
  for (const Entry& e : checkpoint_of(*pm.inventory)) {
    if (e.shape.size() != 2 || e.name == "model.layers.3.self_attn.q_proj.weight") {
      entries.push_back(e);
      continue;
    }
    entries.push_back({e.name, "F8_E4M3", e.shape, e.shape[0] * e.shape[1]});
    entries.push_back({e.name + "_scale_inv", "F32", {ceil_div(e.shape[0], 128), ceil_div(e.shape[1], 128)},
                       ceil_div(e.shape[0], 128) * ceil_div(e.shape[1], 128) * 4});
  }
  entries.push_back({"model.rotary_emb.inv_freq", "F32", {32}, 128});
  i64 data = 0;
  auto h = read_safetensors_header(header_of(entries, data), 0);
  REQUIRE(h.ok());
  const std::vector<SafetensorsHeader> files{*h};
  auto fw = safetensors_file_weights(pointers_to(files), *pm.inventory);
  INFO(join(fw.issues()));
  REQUIRE(fw.ok());
  const auto summary = file_summary(*fw, *pm.inventory);
  REQUIRE(summary);
  CHECK(summary->rfind("st~128~" + std::to_string(h->tensor_bytes()) + "~", 0) == 0);  // the total with the other bytes
  // q_proj (896 × 896): 802,816 e4m3 bytes + 7 × 7 fp32 scales = 803,012 in 3 layers, bf16 in the
  // fourth (1,605,632), then 20 more of fp8.
  CHECK(summary->find(",803012-F8_E4M3x3.1605632-BF16x1.803012-F8_E4M3x20,") != std::string::npos);
  auto back = file_weights_from_summary(*summary, *pm.inventory);
  INFO(join(back.issues()));
  REQUIRE(back.ok());
  CHECK(back->format == "safetensors");
  CHECK(back->total_bytes == h->tensor_bytes());
  CHECK(back->other_bytes == 128);
  check_same_layers(*back, *fw);
  // Through the link: the estimate's weights are the checkpoint's bytes.
  ShareState s;
  s.preset = "qwen2.5-0.5b";
  s.model = c;
  s.file = *summary;
  auto opened = decode_link(encode_link(s));
  INFO(join(opened.issues()));
  REQUIRE(opened.ok());
  CHECK(*opened == s);
  auto from = prepare(opened->model);
  REQUIRE(from.ok());
  PreparedModel from_link = std::move(from).value();
  attach_file_summary(from_link, opened->file);
  REQUIRE(from_link.file);
  const auto e = estimate(from_link, Workload{});
  REQUIRE(e.ok());
  CHECK(e->inference.weights_bytes == h->tensor_bytes());

  // Summaries that cannot describe this model are refused under "file", naming what is wrong.
  auto refused = [&](std::string f) {
    auto r = decode_link("v=1&preset=qwen2.5-0.5b&file=" + f);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues().front().field == "file");
    return r.issues().front().message;
  };
  const std::string q = ",803012-F8_E4M3x3.1605632-BF16x1.803012-F8_E4M3x20,";
  auto with = [&](const std::string& runs) {
    std::string x = *summary;
    x.replace(x.find(q), q.size(), runs);
    return x;
  };
  CHECK_THAT(refused(with(",803012-F9x3.1605632-BF16x1.803012-F8_E4M3x20,")), Catch::Contains("names no safetensors dtype"));
  CHECK_THAT(refused(with(",803012-F8_E4M3x3.1000-BF16x1.803012-F8_E4M3x20,")),
             Catch::Contains("1,000 bytes cannot hold 802,816 values of BF16"));
  CHECK_THAT(refused(with(",803012F8_E4M3x3.1605632-BF16x1.803012-F8_E4M3x20,")), Catch::Contains("must be <bytes>-<dtype>"));
  CHECK_THAT(refused(with(",803012-F8_E4M3x3.1605632-BF16x1.803012-F8_E4M3x21,")), Catch::Contains("cover its 24 layers exactly"));
  // Bytes that change the total are caught by the total.
  CHECK_THAT(refused(with(",803016-F8_E4M3x3.1605632-BF16x1.803012-F8_E4M3x20,")), Catch::Contains("whose shapes are not the file's"));
  CHECK_THAT(refused("st~0~0~1"), Catch::Contains("lists 1 tensors; the model has"));
  CHECK_THAT(refused("sf~0~0~1"), Catch::Contains("\"st~\""));
  // A tensor whose parts differ in dtype is written "M".
  FileWeights mixed = *fw;
  mixed.kinds[0][0][0].type = "mixed";
  const auto m2 = file_summary(mixed, *pm.inventory);
  REQUIRE(m2);
  auto mb = file_weights_from_summary(*m2, *pm.inventory);
  REQUIRE(mb.ok());
  CHECK(mb->kinds[0][0][0].type == "mixed");
}
