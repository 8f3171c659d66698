#pragma once
// CLI11's refusals of a command line in canitrun's words (issue #33): every ParseError but help
// and version becomes one Error (the problem, then how to fix it) that the caller prints as its
// one `canitrun: error: ...` line. CLI11's own text ("The following arguments were not
// expected: c b", listed backwards; "At Most 1 required but received 2"; "Could not convert")
// never reaches the user.

#include <CLI/CLI.hpp>

#include "canitrun/error.hpp"
#include "flag_table.hpp"

namespace canitrun::cli {

// The refusal of a parse of canitrun's own app (the model page and its subcommands): the
// command is the subcommand CLI11 parsed, else the model page.
Error usage_error(const CLI::ParseError& e, const CLI::App& app);

// The same for a service's app (serve, site, mcp), which parses its flags itself.
Error usage_error(const CLI::ParseError& e, const CLI::App& app, Cmd service);

}  // namespace canitrun::cli
