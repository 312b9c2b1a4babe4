// `llmsize demo`: runs the reference decoder's timed demo block (ref/demo.hpp) to the end and
// prints its timings, the whole-model extrapolation, measured-versus-estimated memory and a
// summary of the last attention map, as text or one JSON object. Flag values are parsed
// strictly; a bad one is an error naming the flag and its range (exit status 2).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cli.hpp"

namespace llmsize::cli {

struct DemoFlags {
  std::optional<std::string> preset, config;        // exactly one
  bool generic = false, json = false;
  std::map<std::string, std::string> settings;  // raw values by flag ("--prompt" -> "16"), the last one given
  core::Lang lang = core::Lang::En;             // the text view's and the errors' language (--lang, else the locale's)
};

Output demo_cmd(const DemoFlags& flags, const FileReader& read_file);

// The settings' flags, all from ref::demo_fields().
bool is_demo_flag(std::string_view arg);
std::string demo_flag_list(std::string_view last_sep);  // "--prompt, --tokens" + last_sep + "--budget-mib"
std::string demo_flags_usage(core::Lang lang = core::Lang::En);  // their lines of `llmsize --help`, with range and default

}  // namespace llmsize::cli
