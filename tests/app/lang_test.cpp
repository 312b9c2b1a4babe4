// The interface in Chinese without a window: the link's "lang" round trip, and the font atlas
// the UI builds holding a glyph for every character of each language's table (the Chinese
// glyphs cut at build time from Debian's Noto Sans CJK SC, as the desktop app and the page
// get them).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "app/assets.hpp"
#include "app/state.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "core/figures.hpp"
#include "core/inventory.hpp"
#include "core/layer_plan.hpp"
#include "core/lang.hpp"
#include "core/model_fields.hpp"
#include "core/workload.hpp"
#include "ref/demo.hpp"

using namespace llmsize;

namespace {

std::string table_text(core::Lang l) { return core::all_text(l); }

std::string hex(const std::u32string& cps) {
  std::string out;
  char b[16];
  for (char32_t c : cps) {
    std::snprintf(b, sizeof b, " U+%04X", static_cast<unsigned>(c));
    out += b;
  }
  return out;
}

struct Context {
  Context() { ImGui::CreateContext(); }
  ~Context() { ImGui::DestroyContext(); }
};

}  // namespace

TEST_CASE("A link carries the interface language; English links stay as they were", "[app][lang]") {
  app::AppState s = app::default_state();
  const std::string en = app::link_of(s);
  CHECK(en.find("lang=") == std::string::npos);
  s.lang = core::Lang::Zh;
  const std::string zh = app::link_of(s);
  CHECK(zh == en + "&lang=zh");
  app::AppState t = app::default_state();
  REQUIRE(app::open_link(t, zh));
  CHECK(t.lang == core::Lang::Zh);
  CHECK(t.banners.empty());
  // A link without "lang" keeps the language chosen (the browser's or the user's).
  REQUIRE(app::open_link(t, en));
  CHECK(t.lang == core::Lang::Zh);
  REQUIRE(app::open_link(t, en + "&lang=en"));
  CHECK(t.lang == core::Lang::En);
  // An unknown language is named, and the language stays.
  REQUIRE(app::open_link(t, en + "&lang=fr"));
  CHECK(t.lang == core::Lang::En);
  REQUIRE(t.banners.size() == 1);
  CHECK(t.banners.front().text.find("lang=\"fr\"") != std::string::npos);
  // A banner made while English was shown reads in Chinese once Chinese is shown (the desktop app
  // and the page open the start-up link before the first frame sets the language).
  const std::string zh_banner = app::banner_text(t.banners.front(), core::Lang::Zh);
  CHECK(zh_banner != t.banners.front().text);
  CHECK(zh_banner.find("lang=\"fr\"") != std::string::npos);
  CHECK(zh_banner.find("\xE9") != std::string::npos);  // a CJK character's lead byte (U+9000…U+9FFF)
  // A bad link's issues too: "gpus must be a multiple of tp × pp" in Chinese.
  REQUIRE_FALSE(app::open_link(t, en + "&gpus=3&tp=2"));
  REQUIRE(t.banners.size() == 1);
  const std::string bad = app::banner_text(t.banners.front(), core::Lang::Zh);
  CHECK(bad.find("tp × pp = 2 的倍数") != std::string::npos);
  CHECK(app::banner_text(t.banners.front(), core::Lang::En).find("must be a multiple of tp × pp = 2") != std::string::npos);
}

TEST_CASE("The font atlas has a glyph for every character of each language's table", "[app][lang][font]") {
  Context ctx;
  // English: the Latin font with the language switch's 中文 (compiled into every build).
  REQUIRE_FALSE(app::cjk_switch_otf().empty());
  app::build_fonts(1.0f, false);
  INFO("missing in English:" << hex(app::missing_glyphs(table_text(core::Lang::En))));
  CHECK(app::missing_glyphs(table_text(core::Lang::En)).empty());
  CHECK_FALSE(app::missing_glyphs(table_text(core::Lang::Zh)).empty());  // the Chinese glyphs are not in it

  // Chinese: the subset the build cut from the table.
  std::ifstream f(LLMSIZE_CJK_OTF, std::ios::binary);
  REQUIRE(f.good());
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 1000);
  app::set_cjk_font(bytes);
  const float w1 = [] {
    const app::Fonts small = app::build_fonts(1.0f, true);
    const ImFontGlyph* g = small.body->FindGlyphNoFallback(0x5185);  // 内
    return g ? g->X1 - g->X0 : 0.0f;
  }();
  const app::Fonts fonts = app::build_fonts(2.0f, true);
  CHECK(fonts.cjk);
  INFO("missing in Chinese:" << hex(app::missing_glyphs(table_text(core::Lang::Zh))));
  CHECK(app::missing_glyphs(table_text(core::Lang::Zh)).empty());
  CHECK(app::missing_glyphs(table_text(core::Lang::En)).empty());
  // Crisp at HiDPI: at scale 2 the glyphs are rasterised twice as large, not magnified; and a
  // CJK character is about as wide as the body font's em (not shrunk to the Latin line height).
  const ImFontGlyph* g = fonts.body->FindGlyphNoFallback(0x5185);
  REQUIRE(g != nullptr);
  CHECK(w1 > 10.0f);
  CHECK(std::abs((g->X1 - g->X0) - 2 * w1) <= 2.0f);
  const ImFontGlyph* m = fonts.body->FindGlyphNoFallback('M');
  REQUIRE(m != nullptr);
  CHECK(g->AdvanceX >= 1.1f * m->AdvanceX);
  app::set_cjk_font({});
}

TEST_CASE("Every input field has its Chinese label and help, once", "[app][lang]") {
  size_t fields = 0;
  auto check = [&](std::string_view table, const auto& rows) {
    for (const auto& f : rows) {
      ++fields;
      INFO(table << " field " << f.key);
      const core::FieldText* t = core::field_text(table, f.key, core::Lang::Zh);
      REQUIRE(t != nullptr);
      CHECK_FALSE(t->label.empty());
      CHECK_FALSE(t->help.empty());
    }
  };
  check("model", core::model_fields());
  check("workload", core::workload_fields());
  check("demo", ref::demo_fields());
  // Every figure's label, every part of the memory bars' legend (no help: "").
  size_t named = 0;
  for (const core::Figure& f : core::figures()) {
    INFO("figure " << f.key);
    const core::FieldText* t = core::field_text("figure", f.key, core::Lang::Zh);
    REQUIRE(t != nullptr);
    CHECK_FALSE(t->label.empty());
    ++named;
  }
  for (core::Mode m : {core::Mode::Inference, core::Mode::Training})
    for (const auto& part : core::mode_figures(m).parts) {
      INFO("legend " << part.figure->key);
      const core::FieldText* t = core::field_text("legend", part.figure->key, core::Lang::Zh);
      REQUIRE(t != nullptr);
      CHECK_FALSE(t->label.empty());
      ++named;
    }
  // Every module's and attention kind's name, by its English name.
  for (int g = 0; g < core::kGroupCount; ++g) {
    const std::string_view name = core::to_string(static_cast<core::Group>(g));
    INFO("group " << name);
    CHECK(core::field_text("group", name, core::Lang::Zh) != nullptr);
    ++named;
  }
  for (const std::string_view name : core::kAttnKindNames) {
    INFO("attention kind " << name);
    CHECK(core::field_text("attn", name, core::Lang::Zh) != nullptr);
    ++named;
  }
  // No row for a field, figure or name that does not exist, none twice.
  CHECK(core::field_texts(core::Lang::Zh).size() == fields + named);
  CHECK(core::field_texts(core::Lang::En).empty());
  CHECK(core::field_text("workload", "seq", core::Lang::En) == nullptr);
}

TEST_CASE("Messages come in the language shown", "[app][lang]") {
  app::set_ui_lang(core::Lang::Zh);
  app::AppState s = app::default_state();
  CHECK_FALSE(app::open_link(s, "#v=1&preset=no-such-model"));
  REQUIRE(s.banners.size() == 1);
  CHECK(s.banners.front().text.rfind("无法打开此链接", 0) == 0);
  CHECK(s.banners.front().text.find("preset") != std::string::npos);  // the core's issue, as it is
  CHECK_FALSE(app::import_config(s, "{", "x.json"));
  CHECK(s.banners.back().text.rfind("无法导入 x.json：", 0) == 0);
  app::set_ui_lang(core::Lang::En);
  CHECK_FALSE(app::import_config(s, "{", "x.json"));
  CHECK(s.banners.back().text.rfind("Could not import x.json: ", 0) == 0);
}
