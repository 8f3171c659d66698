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

// The canitrun binary under test with these arguments; `environment` holds "NAME=value"
// assignments for it (CANITRUN_PROBE_RECORDING, NO_COLOR, ...).
Outcome run_canitrun(const std::vector<std::string>& args,
                     const std::vector<std::string>& environment = {});

// The tests' usual spelling of run_canitrun.
inline Outcome run_cli(const std::vector<std::string>& args,
                       const std::vector<std::string>& environment = {}) {
    return run_canitrun(args, environment);
}

bool has(const std::string& text, const std::string& part);

// The environment assignment that makes canitrun read a recorded machine instead of this one:
// tests/fixtures/probe/NAME (nvidia-smi, rocm-smi, sysfs outputs as recorded).
std::string probe_recording(const std::string& name);

// A file's bytes; throws (the test fails, naming the path) when it cannot be read.
std::string read_file(const std::string& path);

// The lines of a text, without their newlines.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace canitrun::test
