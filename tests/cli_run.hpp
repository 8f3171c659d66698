#pragma once
// Running the real binary from a test: argv (and optional environment) in, stdout, stderr and
// the exit code out.

#include <string>
#include <vector>

namespace canitrun::test {

struct Outcome {
    std::string out;
    std::string err;
    int code = -1;
};

// `environment`: "NAME=value" assignments put before the command.
Outcome run_cli(const std::vector<std::string>& args,
                const std::vector<std::string>& environment = {});

bool has(const std::string& text, const std::string& part);

}  // namespace canitrun::test
