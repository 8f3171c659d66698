#pragma once
// Which command reads which flag, and the refusal of a flag given where it would be silently
// ignored (issue "Hardening"): one table, checked once per run.

#include <CLI/CLI.hpp>

#include "app_options.hpp"
#include "command_kind.hpp"

namespace canitrun::cli {

// Throws Failure for a flag given to a command that does not read it.
void check_flags_apply(const CLI::App& app, const CLI::App* sub, Command command, const Options& o);

}  // namespace canitrun::cli
