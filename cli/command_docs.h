// What is generated from the command line itself, so that it cannot drift from the options:
// `qcesim completion bash` (CLI11 2.1 has no generator: subcommands, each one's options, the
// choices an option accepts, and scenario names from the folder qcesim ships; builtins only,
// so it works without the bash-completion package), and the man page's COMMANDS section
// (help2man writes the rest from --help; cmake/manpage.cmake).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace qcesim::cli {

std::string bash_completion(const CLI::App& app);

// A help2man include file's [COMMANDS] section: each subcommand with its usage, description and
// options, in roff.
std::string man_commands(const CLI::App& app);

}  // namespace qcesim::cli
