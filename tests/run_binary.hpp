#pragma once
// Runs the real canitrun binary (or any command) and captures stdout, stderr and the exit code.

#include <string>
#include <vector>

namespace canitrun::test {

struct Outcome {
    std::string out;
    std::string err;
    int code = -1;  // -1: killed by a signal (a crash)
};

// Single-quotes an argument for /bin/sh.
std::string shell_quote(const std::string& arg);

// `command` is a shell command line; stderr goes to a temporary file and is read back.
Outcome run_shell(const std::string& command);

// The canitrun binary under test with these arguments.
Outcome run_canitrun(const std::vector<std::string>& args);

// The lines of a text, without their newlines.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace canitrun::test
