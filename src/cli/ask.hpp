#pragma once
// The command line as a function: the same parse-and-answer path main() runs (run() in app.hpp),
// with stdout and stderr captured as strings. The JSON API, the MCP server and the static site
// answer through it, so each of their documents is, by construction, the bytes the binary
// prints for the same flags.
//
// Safe to call from several threads at once: run() keeps its state in locals, the built-in
// database is loaded once behind a function-local static, and the core's caches are
// thread_local. Hardware detection (--gpu auto, system) is the exception: its probes share a
// process group for their time limit, so callers serialise it (serve detects once).

#include <string>
#include <vector>

namespace canitrun::cli {

struct Asked {
    int code = 0;     // the exit code the binary would return (app.hpp)
    std::string out;  // what it would print on stdout
    std::string err;  // what it would print on stderr: one "canitrun: error: ..." line, or none
};

// `args`: argv without the program name, e.g. {"qwen3.5-35b-a3b", "--json"}.
Asked ask(const std::vector<std::string>& args);

}  // namespace canitrun::cli
