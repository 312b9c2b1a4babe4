// llmsize executable: forwards argv to llmsize::cli::run and writes its output.
#include <cstdio>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // The text views in the locale's language (LC_ALL, LC_MESSAGES, LANG) unless --lang says otherwise.
  const auto out = llmsize::cli::run(args, llmsize::cli::read_file_limited, llmsize::cli::read_file_prefix,
                                     llmsize::core::lang_of_environment().value_or(llmsize::core::Lang::En));
  std::fputs(out.out.c_str(), stdout);
  std::fputs(out.err.c_str(), stderr);
  return out.status;
}
