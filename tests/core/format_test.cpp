// Number formatting: separators, units (GB = 10^9, GiB = 2^30), short counts.
#include <catch2/catch.hpp>
#include <limits>

#include "core/format.hpp"

using namespace llmsize::core;

TEST_CASE("thousands separators", "[core][format]") {
  CHECK(with_commas(0) == "0");
  CHECK(with_commas(999) == "999");
  CHECK(with_commas(1000) == "1,000");
  CHECK(with_commas(6738415616) == "6,738,415,616");
  CHECK(with_commas(-1234567) == "-1,234,567");
  CHECK(with_commas(std::numeric_limits<std::int64_t>::min()) == "-9,223,372,036,854,775,808");
}

TEST_CASE("byte units are labelled and never mixed", "[core][format]") {
  CHECK(format_bytes(16'000'000'000, ByteUnit::GB) == "16.00 GB");
  CHECK(format_bytes(16'000'000'000, ByteUnit::GiB) == "14.90 GiB");
  CHECK(format_bytes(std::int64_t{1} << 30, ByteUnit::GiB, 0) == "1 GiB");
}

TEST_CASE("short counts", "[core][format]") {
  CHECK(short_count(124439808) == "124M");
  CHECK(short_count(6738415616) == "6.74B");
  CHECK(short_count(671026419200) == "671B");
  CHECK(short_count(999) == "999");
}
