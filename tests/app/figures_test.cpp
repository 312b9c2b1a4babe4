// How the UI writes figures: byte sizes stay in the chosen family (GB with MB/kB, GiB with
// MiB/KiB, never mixed), durations pick a readable unit.
#include <catch2/catch.hpp>

#include "app/figures.hpp"

using llmsize::app::format_bytes_auto;
using llmsize::core::format_duration;
using llmsize::core::ByteUnit;

TEST_CASE("Byte sizes keep to the chosen family of units", "[app][format]") {
  auto [bytes, unit, text] = GENERATE(table<std::int64_t, ByteUnit, const char*>({
      {16060522496, ByteUnit::GB, "16.06 GB"},
      {16060522496, ByteUnit::GiB, "14.96 GiB"},
      {131072, ByteUnit::GB, "131.1 kB"},
      {131072, ByteUnit::GiB, "128.0 KiB"},
      {2084864, ByteUnit::GB, "2.1 MB"},
      {2084864, ByteUnit::GiB, "2.0 MiB"},
      {512, ByteUnit::GiB, "512 B"},
      {0, ByteUnit::GB, "0.00 GB"},
  }));
  CHECK(format_bytes_auto(bytes, unit) == text);
}

TEST_CASE("Durations are written in a readable unit", "[app][format]") {
  auto [seconds, text] = GENERATE(table<double, const char*>({
      {0.0042, "4.20 ms"},
      {0.85, "850.0 ms"},
      {12.4, "12.4 s"},
      {600, "10.0 min"},
      {3 * 3600, "3.0 h"},
      {20896212.6, "241.9 days"},
      {0, "n/a"},
  }));
  CHECK(format_duration(seconds) == text);
}
