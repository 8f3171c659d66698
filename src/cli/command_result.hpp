#pragma once
// What every command returns: one value holding its data views (JSON, CSV, --quiet's answer),
// its text page (the table; Markdown is made from it) and, for the model page only, its HTML
// page, with the exit code. run() prints it in the asked format (print_result), so each
// format means the same for every command, and a view a command does not offer is refused in
// one line instead of being ignored.

#include <functional>
#include <ostream>
#include <string>

#include "canitrun/verdict.hpp"
#include "data_views.hpp"
#include "style.hpp"

namespace canitrun::cli {

struct CommandResult {
    std::string what;  // the command, for a refusal: "verify", "a model file"
    DataViews views;   // a view left empty is not offered
    std::function<void(std::ostream&)> text;
    std::function<void(std::ostream&)> html;  // the model page only
    Verdict verdict = Verdict::answered;      // the core's, for the exit status
};

// The exit status of a verdict: 0 answered or runs, 1 does not run (kExitDoesNotFit). The one
// place a command's answer becomes a status.
int exit_code(Verdict verdict);

// The view `format` asks for is offered by `result`; otherwise the refusal's message and hint.
// `flag` is how the user asked for it ("--quiet", "--format csv").
Result<bool> check_offered(const CommandResult& result, Format format, const std::string& flag);

// Writes the result in the stream's format (style.hpp); the caller checked it is offered.
void write_result(std::ostream& out, const CommandResult& result);

}  // namespace canitrun::cli
