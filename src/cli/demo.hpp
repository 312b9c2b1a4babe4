// `llmsize demo`: runs the reference decoder's timed demo block (ref/demo.hpp) to the end and
// prints its timings, the whole-model extrapolation, measured-versus-estimated memory and a
// summary of the last attention map, as text or one JSON object. Flag values are parsed
// strictly; a bad one is an error naming the flag and its range (exit status 2).
#pragma once
#include <optional>
#include <string>

#include "cli.hpp"

namespace llmsize::cli {

struct DemoFlags {
  std::optional<std::string> preset, config;        // exactly one
  bool generic = false, json = false;
  std::optional<std::string> prompt, tokens, budget_mib;  // raw values of --prompt, --tokens, --budget-mib
};

Output demo_cmd(const DemoFlags& flags, const FileReader& read_file);

}  // namespace llmsize::cli
