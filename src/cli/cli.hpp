// The llmsize command line: argv in, text or JSON out, an exit status. A library so that
// tests drive it without spawning processes; main.cpp only wires stdin/stdout and files.
// Exit status: 0 success, 2 bad input (usage, flag value, config), 1 internal error.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/lang.hpp"
#include "core/model_source.hpp"

namespace llmsize::cli {

// Reads a file for --config; nullopt + message on failure. Injected so tests need no files.
using FileReader = std::function<std::optional<std::string>(const std::string& path, std::string& error)>;

struct Output {
  std::string out;  // what goes to stdout
  std::string err;  // what goes to stderr (one line per error, with a hint)
  int status = 0;
};

// Reads up to `max_bytes` from the start of a file and its whole size (`llmsize gguf`: a model
// file is read only as far as its header).
using PrefixReader = std::function<std::optional<std::string>(const std::string& path, std::int64_t max_bytes,
                                                              std::int64_t& file_bytes, std::string& error)>;
std::optional<std::string> read_file_prefix(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                            std::string& error);
// The same with `error` in `lang`.
std::optional<std::string> read_file_prefix_in(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                               std::string& error, core::Lang lang);

// The language an argument list asks for with --lang (its last valid one), if any.
std::optional<core::Lang> lang_of_args(const std::vector<std::string>& args);

// `lang`: the language of the text views and messages when no --lang is given (main.cpp: the
// locale's); JSON, CSV and the engines' own lines are the same in every language.
Output run(const std::vector<std::string>& args, const FileReader& read_file,
           const PrefixReader& read_prefix = read_file_prefix, core::Lang lang = core::Lang::En);

// The model of `--preset NAME` or `--config PATH` (the caller checks that exactly one is
// given; `generic`: --generic) through core::load_model, the one loader. On failure nullopt,
// and `err` holds the lines the CLI prints (exit status 2).
std::optional<core::LoadedModel> load_model_flag(const std::optional<std::string>& preset,
                                                 const std::optional<std::string>& config, bool generic,
                                                 const FileReader& read_file, Output& err, core::Lang lang = core::Lang::En);

// Reads a whole file with a size limit (the default FileReader of the executable).
std::optional<std::string> read_file_limited(const std::string& path, std::string& error);
// The same with `error` in `lang`.
std::optional<std::string> read_file_limited_in(const std::string& path, std::string& error, core::Lang lang);

}  // namespace llmsize::cli
