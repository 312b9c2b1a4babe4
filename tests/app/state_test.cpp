// The calculator's state operations as a user performs them: presets, config import, edits,
// share links (round trip, bad links), the CLI command. No window: the UI draws this state.
#include <catch2/catch.hpp>

#include "app/app.hpp"
#include "app/state.hpp"
#include "core/compare.hpp"
#include "core/model_fields.hpp"
#include "core/workload.hpp"
#include "../test_util.hpp"  // the GGUF writer

using namespace llmsize;

namespace {
void set_work(app::AppState& s, const char* key, const char* value) {
  const core::WorkloadField* f = core::find_field(key);
  REQUIRE(f != nullptr);
  REQUIRE_FALSE(f->set(s.work, value).has_value());
}
}  // namespace

TEST_CASE("A fresh calculator opens on Llama 3 8B with no message", "[app][state]") {
  const app::AppState s = app::default_state();
  CHECK(s.preset_id == "llama-3-8b");
  CHECK(s.banners.empty());
  CHECK_FALSE(app::model_edited(s));
  CHECK(app::link_of(s).rfind("#v=1", 0) == 0);
}

TEST_CASE("Opening a share link restores exactly the state it was made from", "[app][link]") {
  auto [preset, seq, unit_gib] = GENERATE(table<const char*, const char*, bool>({
      {"mixtral-8x7b", "32768", true},
      {"deepseek-v3", "4096", false},
      {"gpt2", "1024", true},
  }));
  app::AppState a = app::default_state();
  REQUIRE(app::load_preset(a, preset));
  set_work(a, "seq", seq);
  set_work(a, "batch", "3");
  a.unit = unit_gib ? core::ByteUnit::GiB : core::ByteUnit::GB;
  a.tab = app::ResultTab::Scaling;
  const std::string link = app::link_of(a);

  app::AppState b = app::default_state();
  REQUIRE(app::open_link(b, link));
  CHECK(b.banners.empty());
  CHECK(b.preset_id == a.preset_id);
  CHECK(b.cfg == a.cfg);
  CHECK(b.unit == a.unit);
  CHECK(b.tab == app::ResultTab::Scaling);
  CHECK(app::link_of(b) == link);
  CHECK(app::figures_json(b) == app::figures_json(a));
}

TEST_CASE("An edited model travels in the link with all its dimensions", "[app][link]") {
  app::AppState a = app::default_state();
  const core::ModelField* layers = core::find_model_field("L");
  REQUIRE(layers != nullptr);
  REQUIRE_FALSE(layers->set(a.cfg, "40").has_value());
  CHECK(app::model_edited(a));
  app::AppState b = app::default_state();
  REQUIRE(app::open_link(b, app::link_of(a)));
  CHECK(b.cfg.n_layers == 40);
  CHECK(app::figures_json(b) == app::figures_json(a));
}

TEST_CASE("A bad link opens the default state with a message naming each problem", "[app][link]") {
  app::AppState s = app::default_state();
  REQUIRE(app::load_preset(s, "gpt2"));
  CHECK_FALSE(app::open_link(s, "#v=1&preset=no-such-model&seq=12x"));
  CHECK(s.preset_id == "llama-3-8b");
  REQUIRE(s.banners.size() == 1);
  CHECK(s.banners[0].error);
  CHECK_THAT(s.banners[0].text, Catch::Contains("preset") && Catch::Contains("seq"));
  CHECK(app::figures_json(s) == app::figures_json(app::default_state()));
}

TEST_CASE("Importing a config.json replaces the model; a broken one keeps it and says why", "[app][import]") {
  app::AppState s = app::default_state();
  const char* opt = R"({"model_type": "opt", "hidden_size": 768, "num_hidden_layers": 12, "ffn_dim": 3072,
    "num_attention_heads": 12, "vocab_size": 50272, "max_position_embeddings": 2048,
    "word_embed_proj_dim": 768, "do_layer_norm_before": true})";
  REQUIRE(app::import_config(s, opt, "opt-125m/config.json"));
  CHECK(s.preset_id.empty());
  CHECK(s.model_name == "opt-125m/config.json");
  CHECK(app::model_edited(s));
  const core::ModelConfig imported = s.cfg;
  CHECK_FALSE(app::import_config(s, R"({"model_type": "llama", "hidden_size": -1})", "bad.json"));
  CHECK(s.cfg == imported);
  REQUIRE(s.banners.size() == 1);
  CHECK_THAT(s.banners[0].text, Catch::Contains("bad.json"));
}

TEST_CASE("The CLI command names the preset and the workload flags that differ", "[app][cli]") {
  app::AppState s = app::default_state();
  REQUIRE(app::load_preset(s, "mixtral-8x7b"));
  set_work(s, "seq", "8192");
  const std::string cli = app::cli_of(s);
  CHECK_THAT(cli, Catch::Contains("--preset mixtral-8x7b") && Catch::Contains("--seq 8192"));
}

TEST_CASE("An unsupported model_type can be read again as a LLaMA-like decoder", "[app][import]") {
  app::AppState s = app::default_state();
  const char* cfg = R"({"model_type": "olmo", "hidden_size": 2048, "num_hidden_layers": 16, "intermediate_size": 8192,
    "num_attention_heads": 16, "vocab_size": 50304, "max_position_embeddings": 2048})";
  CHECK_FALSE(app::import_config(s, cfg, "olmo.json"));
  REQUIRE(s.banners.size() == 1);
  CHECK_THAT(s.banners[0].text, Catch::Contains("olmo"));
  REQUIRE(s.banners[0].retry_text == cfg);
  REQUIRE(app::import_config(s, s.banners[0].retry_text, s.banners[0].retry_name, true));
  CHECK(s.cfg.n_layers == 16);
  CHECK(s.model_name == "olmo.json");
}

TEST_CASE("A GGUF file opened or dropped: the model from its header, read as far as it goes", "[app][state][gguf]") {
  // Qwen2.5-0.5B's metadata, general.file_type 7 (Q8_0), one tensor; a 1 GiB file.
  llmsize::test::GgufWriter g;
  const std::pair<const char*, std::uint32_t> keys[] = {
      {"qwen2.block_count", 24},          {"qwen2.context_length", 32768},     {"qwen2.embedding_length", 896},
      {"qwen2.feed_forward_length", 4864}, {"qwen2.attention.head_count", 14}, {"qwen2.attention.head_count_kv", 2},
      {"qwen2.vocab_size", 151936},       {"general.file_type", 7}};
  g.header(3, 1, std::size(keys) + 1);
  g.key_str("general.architecture", "qwen2");
  for (const auto& [k, v] : keys) g.key_u32(k, v);
  g.tensor("output_norm.weight", {896}, 0, 0);
  const std::string b = g.b;
  const core::i64 file = core::i64{1} << 30;
  app::AppState s = app::default_state();
  // The first 40 bytes do not hold the header: the bytes to read next, nothing changed.
  const core::i64 more = app::import_model_file(s, std::string_view(b).substr(0, 40), file, "q.gguf");
  CHECK(more > 40);
  CHECK_FALSE(s.model_file.has_value());
  CHECK(s.preset_id == "llama-3-8b");
  CHECK(app::import_model_file(s, b, file, "q.gguf") == 0);
  REQUIRE(s.model_file.has_value());
  CHECK(s.model_name == "q.gguf");
  CHECK(s.cfg.n_layers == 24);
  CHECK(s.work.weights == core::WeightFormat::Q8_0);
  CHECK(s.banners.empty());
  // Another model drops the file.
  REQUIRE(app::load_preset(s, "gpt2"));
  CHECK_FALSE(s.model_file.has_value());
  // A file that is not GGUF: a banner, the model as it was.
  CHECK(app::import_model_file(s, "not a model", 11, "x.gguf") == 0);
  REQUIRE(s.banners.size() == 1);
  CHECK(s.banners[0].text.find("x.gguf") != std::string::npos);
  CHECK(s.preset_id == "gpt2");
}

TEST_CASE("A GGUF file whose tensors are the model's: its bytes are the app's weights", "[app][state][gguf]") {
  // Qwen2.5-0.5B with every tensor llama.cpp names for it (tied head), all f16 but one q8_0
  // layer; then the same model in another file: the app takes the second file's bytes.
  auto file_of = [](std::uint32_t type_of_layer_0_q) {
    const core::ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
    const std::uint64_t d = 896, kv = 128, f = 4864, v = 151936;
    std::vector<std::tuple<std::string, std::vector<std::uint64_t>, std::uint32_t>> t{{"token_embd.weight", {d, v}, 1},
                                                                                     {"output_norm.weight", {d}, 0}};
    for (core::i64 l = 0; l < c.n_layers; ++l) {
      const std::string b = "blk." + std::to_string(l) + ".";
      for (const auto& [n, shape] : std::vector<std::pair<std::string, std::vector<std::uint64_t>>>{
               {"attn_norm.weight", {d}}, {"attn_q.weight", {d, d}},   {"attn_q.bias", {d}},      {"attn_k.weight", {d, kv}},
               {"attn_k.bias", {kv}},     {"attn_v.weight", {d, kv}},  {"attn_v.bias", {kv}},     {"attn_output.weight", {d, d}},
               {"ffn_norm.weight", {d}},  {"ffn_gate.weight", {d, f}}, {"ffn_up.weight", {d, f}}, {"ffn_down.weight", {f, d}}})
        t.emplace_back(b + n, shape, shape.size() == 1 ? 0u : (l == 0 && n == "attn_q.weight" ? type_of_layer_0_q : 1u));
    }
    llmsize::test::GgufWriter g;
    const std::pair<const char*, std::uint32_t> keys[] = {
        {"qwen2.block_count", 24},          {"qwen2.context_length", 32768},     {"qwen2.embedding_length", 896},
        {"qwen2.feed_forward_length", 4864}, {"qwen2.attention.head_count", 14}, {"qwen2.attention.head_count_kv", 2},
        {"qwen2.vocab_size", 151936}};
    g.header(3, t.size(), std::size(keys) + 1);
    g.key_str("general.architecture", "qwen2");
    for (const auto& [k, x] : keys) g.key_u32(k, x);
    std::uint64_t offset = 0, bytes = 0;
    for (const auto& [n, shape, type] : t) {
      g.str(n), g.u32(static_cast<std::uint32_t>(shape.size()));
      std::uint64_t e = 1;
      for (auto x : shape) g.u64(x), e *= x;
      g.u32(type), g.u64(offset);
      const std::uint64_t b = type == 0 ? e * 4 : type == 1 ? e * 2 : e / 32 * 34;
      bytes += b;
      offset += (b + 31) / 32 * 32;
    }
    return std::pair{g.b, static_cast<core::i64>(bytes)};
  };
  app::App a;
  a.state = app::default_state();
  const auto [f16, f16_bytes] = file_of(1);
  REQUIRE(app::import_model_file(a.state, f16, core::i64{1} << 31, "q.gguf") == 0);
  auto e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK(e->inference.weights.from_file);
  CHECK(e->inference.weights.total_bytes == f16_bytes);
  // The same model from a file with one q8_0 tensor: the same config, new bytes.
  const auto [mixed, mixed_bytes] = file_of(8);
  REQUIRE(app::import_model_file(a.state, mixed, core::i64{1} << 31, "q2.gguf") == 0);
  e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK(e->inference.weights.total_bytes == mixed_bytes);
  CHECK(f16_bytes - mixed_bytes == 896 * 896 * 2 - 896 * 896 / 32 * 34);
  // The share link carries the file's types per tensor: opened elsewhere (without the file),
  // the same weights, in the UI and in the figures the page's API reports.
  const std::string link = app::link_of(a.state);
  CHECK(link.find("&file=gguf~0~" + std::to_string(mixed_bytes) + "~1,0,") != std::string::npos);
  app::App b;
  b.state = app::default_state();
  REQUIRE(app::open_link(b.state, link));
  CHECK_FALSE(b.state.model_file.has_value());
  auto eb = app::estimate(b, b.state.work);
  REQUIRE(eb.ok());
  CHECK(eb->inference.weights.from_file);
  CHECK(eb->inference.weights.total_bytes == mixed_bytes);
  CHECK(app::figures_json(b.state).find("\"weights_bytes\": " + std::to_string(mixed_bytes)) != std::string::npos);
  CHECK(app::link_of(b.state) == link);
  // Another model drops the file from the state and from the link.
  REQUIRE(app::load_preset(b.state, "gpt2"));
  CHECK(app::link_of(b.state).find("file=") == std::string::npos);
  // Editing the model away from the file's shapes: the format's weights, and a note saying why.
  a.state.cfg.d_ff = 4096;
  e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK_FALSE(e->inference.weights.from_file);
  bool noted = false;
  for (const auto& n : e->notes) noted |= n.field == "gguf";
  CHECK(noted);
}

TEST_CASE("The files of a split GGUF model, dropped together, are one model", "[app][state][gguf]") {
  auto shard = [](int no) {
    llmsize::test::GgufWriter g;
    const std::pair<const char*, std::uint32_t> keys[] = {
        {"qwen2.block_count", 24},          {"qwen2.context_length", 32768},     {"qwen2.embedding_length", 896},
        {"qwen2.feed_forward_length", 4864}, {"qwen2.attention.head_count", 14}, {"qwen2.attention.head_count_kv", 2},
        {"qwen2.vocab_size", 151936}};
    g.header(3, 1, 3 + (no == 0 ? std::size(keys) + 1 : 0));
    if (no == 0) {
      g.key_str("general.architecture", "qwen2");
      for (const auto& [k, v] : keys) g.key_u32(k, v);
    }
    g.str("split.no"), g.u32(2), g.u16(static_cast<std::uint16_t>(no));
    g.str("split.count"), g.u32(2), g.u16(2);
    g.str("split.tensors.count"), g.u32(5), g.u32(2);
    g.tensor(no == 0 ? "output_norm.weight" : "token_embd.weight", {896}, 0, 0);
    return g.b;
  };
  app::AppState s = app::default_state();
  const std::string second = shard(1), first = shard(0);
  // The second file first: nothing changes yet, a note says how many are read.
  CHECK(app::import_model_file(s, second, core::i64{1} << 30, "m-00002-of-00002.gguf") == 0);
  CHECK_FALSE(s.model_file.has_value());
  CHECK(s.preset_id == "llama-3-8b");
  REQUIRE(s.banners.size() == 1);
  CHECK_THAT(s.banners[0].text, Catch::Contains("Read file 1 of the 2 of a split model"));
  CHECK(app::import_model_file(s, first, core::i64{1} << 30, "m-00001-of-00002.gguf") == 0);
  REQUIRE(s.model_file.has_value());
  CHECK(s.model_file->shards == 2);
  CHECK(s.model_file->tensors.size() == 2);
  CHECK(s.cfg.n_layers == 24);
  CHECK(s.model_file_read == static_cast<core::i64>(first.size() + second.size()));
  CHECK(s.model_file_shards.empty());
  CHECK(s.banners.empty());
}

TEST_CASE("An mmproj file opened with the model is the vision encoder, in the figures and the link", "[app][state][gguf]") {
  llmsize::test::GgufWriter g;
  g.header(3, 1, 1);
  g.key_str("general.architecture", "clip");
  g.tensor("mm.0.weight", {1024, 896}, 1, 0);
  const std::string projector = g.b;
  app::App a;
  a.state = app::default_state();
  REQUIRE(app::load_preset(a.state, "qwen2.5-0.5b"));
  CHECK(app::import_model_file(a.state, projector, 4096 + 1024 * 896 * 2, "mmproj-f16.gguf") == 0);
  CHECK(a.state.preset_id == "qwen2.5-0.5b");  // the model stays
  CHECK(a.state.projector_bytes == 1024 * 896 * 2);
  auto e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK(e->inference.vision_weights_bytes == 1024 * 896 * 2);
  const std::string link = app::link_of(a.state);
  CHECK(link.find("&mmproj=1835008") != std::string::npos);
  app::AppState b = app::default_state();
  REQUIRE(app::open_link(b, link));
  CHECK(b.projector_bytes == 1024 * 896 * 2);
  CHECK(app::figures_json(b).find("\"vision_weights_bytes\": 1835008") != std::string::npos);
  // Another preset drops it.
  REQUIRE(app::load_preset(a.state, "gpt2"));
  CHECK(a.state.projector_bytes == -1);
  e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK(e->inference.vision_weights_bytes == 0);
}

TEST_CASE("A sharded safetensors checkpoint beside a config: its bytes are the app's weights", "[app][state][safetensors]") {
  // Qwen2.5-0.5B as transformers saves it in two shards (bf16, [out, in]); the config from the preset.
  const core::ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const auto inv = core::build_inventory(c);
  REQUIRE(inv.ok());
  std::vector<std::pair<std::string, std::string>> entries;  // name → its JSON entry without offsets
  std::vector<std::int64_t> sizes;
  auto add = [&](const core::Tensor& t, core::i64 layer) {
    std::string name = t.name;
    if (auto at = name.find("{i}"); at != std::string::npos) name.replace(at, 3, std::to_string(layer));
    const std::string shape = t.is_matrix() ? std::to_string(t.cols) + "," + std::to_string(t.rows) : std::to_string(t.cols);
    entries.emplace_back(name, "\"dtype\":\"BF16\",\"shape\":[" + shape + "]");
    sizes.push_back(t.numel_one() * 2);
  };
  for (const core::Tensor& t : inv->global) add(t, -1);
  for (const core::LayerKind& k : inv->kinds)
    for (core::i64 l : k.layers)
      for (const core::Tensor& t : k.tensors) add(t, l);
  auto shard = [&](size_t from, size_t to, core::i64& bytes) {
    std::string j = "{";
    core::i64 off = 0;
    for (size_t i = from; i < to; ++i) {
      j += (i > from ? "," : "") + ("\"" + entries[i].first + "\":{" + entries[i].second + ",\"data_offsets\":[" +
                                    std::to_string(off) + "," + std::to_string(off + sizes[i]) + "]}");
      off += sizes[i];
    }
    j += "}";
    std::string out;
    for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>(static_cast<std::uint64_t>(j.size()) >> (8 * k)));
    bytes = 8 + static_cast<core::i64>(j.size()) + off;
    return out + j;
  };
  core::i64 b1 = 0, b2 = 0;
  const std::string one = shard(0, entries.size() / 2, b1), two = shard(entries.size() / 2, entries.size(), b2);
  app::App a;
  a.state = app::default_state();
  REQUIRE(app::load_preset(a.state, "qwen2.5-0.5b"));
  // The first shard alone waits for the other, saying so.
  CHECK(app::import_model_file(a.state, one, b1, "model-00001-of-00002.safetensors") == 0);
  CHECK(a.state.model_safetensors.empty());
  REQUIRE(a.state.banners.size() == 1);
  CHECK(a.state.banners[0].text.rfind("Read file 1 of the 2", 0) == 0);
  // A header longer than the bytes given asks for more.
  CHECK(app::import_model_file(a.state, std::string_view(two).substr(0, 100), b2, "model-00002-of-00002.safetensors") > 100);
  CHECK(app::import_model_file(a.state, two, b2, "model-00002-of-00002.safetensors") == 0);
  REQUIRE(a.state.model_safetensors.size() == 2);
  CHECK(a.state.banners.empty());
  auto e = app::estimate(a, a.state.work);
  REQUIRE(e.ok());
  CHECK(e->inference.weights.from_file);
  CHECK(e->inference.weights.total_bytes == count_params(c)->total * 2);
  // The page's figures (Module.figures) take the same bytes.
  CHECK(app::figures_json(a.state).find("\"weights_bytes\": " + std::to_string(count_params(c)->total * 2)) != std::string::npos);
  // The link carries the checkpoint's bytes and dtype per tensor (not the file): opened, the
  // weights are the checkpoint's, in place of any files read before.
  const std::string link = app::link_of(a.state);
  CHECK(link.find("&file=st~0~" + std::to_string(count_params(c)->total * 2) + "~") != std::string::npos);
  app::App b;
  b.state = app::default_state();
  REQUIRE(app::load_preset(b.state, "qwen2.5-0.5b"));
  CHECK(app::import_model_file(b.state, one, b1, "model-00001-of-00002.safetensors") == 0);
  CHECK(app::import_model_file(b.state, two, b2, "model-00002-of-00002.safetensors") == 0);
  REQUIRE(app::open_link(b.state, link));
  CHECK(b.state.model_safetensors.empty());
  auto from_link = app::estimate(b, b.state.work);
  REQUIRE(from_link.ok());
  CHECK(from_link->inference.weights.from_file);
  CHECK(from_link->inference.weights.total_bytes == count_params(c)->total * 2);
  CHECK(app::link_of(b.state) == link);
  // Another model drops the checkpoint.
  REQUIRE(app::load_preset(a.state, "gpt2"));
  CHECK(a.state.model_safetensors.empty());
}

TEST_CASE("The Share panel's launch command: the preset's repository, MODEL once the model is edited", "[app][state][export]") {
  app::AppState s = app::default_state();
  REQUIRE(app::load_preset(s, "llama-3.1-8b"));
  s.work.runtime = core::Runtime::Vllm;
  s.work.seq = 8192;
  auto c = app::launch_of(s);
  REQUIRE(c.ok());
  CHECK(c->text() == "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --dtype bfloat16 --gpu-memory-utilization 0.9");
  // The same command the core gives for the link's state.
  const core::ShareState st = app::share_state(s);
  CHECK(core::launch_command(st.model, st.workload, core::preset_model_id(st.preset, st.workload.runtime))->text() == c->text());
  s.cfg.d_ff = 16384;  // no longer the preset's checkpoint
  CHECK(app::launch_of(s)->text().rfind("vllm serve MODEL ", 0) == 0);
  s.work.runtime = core::Runtime::PyTorch;  // no engine: refused, the reason shown
  CHECK_FALSE(app::launch_of(s).ok());
}

TEST_CASE("A comparison: cases added beside the edited one travel in the link and open as they were", "[app][compare][link]") {
  app::AppState a = app::default_state();
  CHECK(app::default_tab(a) == app::ResultTab::Params);
  REQUIRE(app::add_compare_case(a));  // case 2: Llama 3 8B, the default workload
  set_work(a, "w", "q4_k_m");         // case 1 follows the inputs
  REQUIRE(app::load_preset(a, "qwen2.5-7b"));
  REQUIRE(a.compare.size() == 1);     // another model keeps the comparison
  CHECK(a.compare[0].preset == "llama-3-8b");
  CHECK(a.compare[0].ui.empty());
  a.tab = app::ResultTab::Compare;
  const std::string link = app::link_of(a);
  CHECK_THAT(link, Catch::Contains("&c2=v%3D1%26preset%3Dllama-3-8b"));
  CHECK_THAT(link, !Catch::Contains("ui.tab"));  // a comparison opens on Compare

  // The link is the core's comparison link: the CLI reads the same cases.
  auto cases = core::decode_compare_link(link);
  REQUIRE(cases);
  REQUIRE(cases->size() == 2);
  CHECK(cases->at(1) == a.compare[0]);

  app::AppState b = app::default_state();
  REQUIRE(app::open_link(b, link));
  CHECK(b.banners.empty());
  CHECK(b.preset_id == "qwen2.5-7b");
  CHECK(b.work.weights == a.work.weights);
  CHECK(b.compare == a.compare);
  CHECK(b.tab == app::ResultTab::Compare);
  CHECK(app::link_of(b) == link);
  b.tab = app::ResultTab::Memory;  // another tab is named in the link, and read back
  const std::string memory_link = app::link_of(b);
  CHECK_THAT(memory_link, Catch::Contains("ui.tab=memory"));
  app::AppState c = app::default_state();
  REQUIRE(app::open_link(c, memory_link));
  CHECK(c.tab == app::ResultTab::Memory);

  // The Share panel's command is the CLI's comparison, quoted for a shell.
  const std::string cli = app::cli_of(b);
  REQUIRE(cli.rfind("llmsize compare '#v=1", 0) == 0);
  REQUIRE(cli.back() == '\'');
  auto from_cli = core::decode_compare_link(cli.substr(17, cli.size() - 18));
  REQUIRE(from_cli);
  CHECK(*from_cli == app::compare_cases(b));

  // A plain link ends the comparison: a link is the whole state.
  REQUIRE(app::open_link(b, "#v=1&preset=gpt2"));
  CHECK(b.compare.empty());
  CHECK(b.tab == app::ResultTab::Params);
}

TEST_CASE("A comparison holds at most four cases; one can be edited in turn or removed", "[app][compare]") {
  app::AppState s = app::default_state();
  set_work(s, "seq", "1024");
  REQUIRE(app::add_compare_case(s));
  set_work(s, "seq", "2048");
  REQUIRE(app::add_compare_case(s));
  set_work(s, "seq", "4096");
  REQUIRE(app::add_compare_case(s));
  set_work(s, "seq", "8192");
  CHECK_FALSE(app::add_compare_case(s));  // case 1 and three more: core::kMaxCompareCases
  REQUIRE(s.compare.size() == 3);
  CHECK(app::compare_cases(s).size() == static_cast<size_t>(core::kMaxCompareCases));

  // Editing case 3 (seq 2048): it comes into the inputs, the edited one (8192) takes its column.
  REQUIRE(app::edit_compare_case(s, 3));
  CHECK(s.work.seq == 2048);
  CHECK(s.compare[1].workload.seq == 8192);
  CHECK(s.compare[0].workload.seq == 1024);
  CHECK_FALSE(app::edit_compare_case(s, 1));
  CHECK_FALSE(app::edit_compare_case(s, 5));
  CHECK_FALSE(app::remove_compare_case(s, 5));
  REQUIRE(app::remove_compare_case(s, 2));
  REQUIRE(s.compare.size() == 2);
  CHECK(s.compare[0].workload.seq == 8192);

  // The app estimates each case as the core's comparison does.
  app::App app;
  app.state = s;
  const core::Comparison want = core::compare(app::compare_cases(s));
  std::vector<core::Result<core::Estimate>> est;
  for (size_t k = 1; k <= app.state.compare.size() + 1; ++k) est.push_back(app::estimate_case(app, k, app::compare_cases(s)[k - 1].workload));
  const core::Comparison got = core::compare(app::compare_cases(s), est);
  CHECK(core::compare_json(got) == core::compare_json(want));
  CHECK_FALSE(app::estimate_case(app, 4, s.work));  // no case 4
}

TEST_CASE("A comparison link with a bad case opens the default state and names the case's key", "[app][compare][link]") {
  app::AppState s = app::default_state();
  CHECK_FALSE(app::open_link(s, "#v=1&preset=gpt2&c2=v%3D1%26preset%3Dgpt2%26seq%3D0"));
  CHECK(s.compare.empty());
  REQUIRE(s.banners.size() == 1);
  CHECK_THAT(s.banners[0].text, Catch::Contains("c2.seq"));
  CHECK_FALSE(app::open_link(s, "#v=1&preset=gpt2&c3=v%3D1"));
  CHECK_THAT(s.banners[0].text, Catch::Contains("c2"));
  // A further case's view setting is named (it belongs to case 1's link).
  REQUIRE(app::open_link(s, "#v=1&preset=gpt2&c2=v%3D1%26preset%3Dgpt2%26ui.tab%3Dmemory"));
  REQUIRE(s.banners.size() == 1);
  CHECK_THAT(s.banners[0].text, Catch::Contains("c2.ui.tab"));
  CHECK(s.compare[0].ui.empty());
}
