// Fuzz target: the CLI argument parser. The input is split at NUL bytes into argv; a
// --config PATH or a GGUF file (gguf FILE, --gguf FILE) reads the bytes after the last NUL. Exit status is 0 with output, or 2
// with an error line and no output — never a crash.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size && args.size() <= 24; ++i) {
    if (data[i] == 0) args.emplace_back();
    else args.back() += static_cast<char>(data[i]);
  }
  const std::string file = args.size() > 1 ? args.back() : std::string();
  auto reader = [&](const std::string&, std::string&) -> std::optional<std::string> { return file; };
  auto prefix = [&](const std::string&, std::int64_t max_bytes, std::int64_t& file_size, std::string&) -> std::optional<std::string> {
    file_size = static_cast<std::int64_t>(file.size());
    return file.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, file_size)));
  };
  const auto out = llmsize::cli::run(args, reader, prefix);
  FUZZ_CHECK(out.status == 0 || out.status == 2);
  if (out.status == 2) FUZZ_CHECK(out.out.empty() && !out.err.empty());
  else FUZZ_CHECK(!out.out.empty());
  return 0;
}
