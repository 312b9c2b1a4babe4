// llmsize executable: forwards argv to llmsize::cli::run and writes its output.
#include <cstdio>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // The text views and messages in the locale's language (LC_ALL, LC_MESSAGES, LANG) unless --lang
  // says otherwise; the file readers' errors too.
  using llmsize::core::Lang;
  const Lang lang = llmsize::cli::lang_of_args(args).value_or(llmsize::core::lang_of_environment().value_or(Lang::En));
  const auto read_file = [lang](const std::string& path, std::string& error) {
    return llmsize::cli::read_file_limited_in(path, error, lang);
  };
  const auto read_prefix = [lang](const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes, std::string& error) {
    return llmsize::cli::read_file_prefix_in(path, max_bytes, file_bytes, error, lang);
  };
  const auto out = llmsize::cli::run(args, read_file, read_prefix, lang);
  std::fputs(out.out.c_str(), stdout);
  std::fputs(out.err.c_str(), stderr);
  return out.status;
}
