#pragma once
// The commands that are services rather than one answer: serve (runs canitrun-serve, the web
// server), site (writes the pages and documents as static files) and mcp (the Model Context
// Protocol on stdio). main() asks here first; each of them streams or runs until stopped, so
// they do not go through run()'s build-the-answer-then-print path.

#include <iosfwd>
#include <optional>

namespace canitrun::serve {

// The exit code when argv names one of these commands, else nullopt.
std::optional<int> run_service_command(int argc, char** argv, std::istream& in, std::ostream& out,
                                       std::ostream& err);

}  // namespace canitrun::serve
