#pragma once
// Each /api/v1 endpoint as the command line it stands for: the path and the query become argv
// for cli::ask(), so the document an endpoint returns is the one `canitrun ARGV` prints. Only
// the parameters an endpoint lists are taken, each as one `--flag=value` token (a value can
// never become a flag of its own), and a model is a database name, or a remote name when the
// server runs with --allow-remote: never a file on the server's disk.

#include <expected>
#include <string>
#include <vector>

#include "request_target.hpp"

namespace canitrun {
struct Database;
}

namespace canitrun::serve {

struct ApiPolicy {
    const Database* db = nullptr;
    bool allow_remote = false;  // hf:, ollama:, URLs (they fetch from the network)
};

// The query parameters an endpoint takes, and the flag each becomes.
struct ParamFlag {
    const char* key;
    const char* flag;
};

// The argv (without the program name, with --json) for a request under /api/v1/, or why not:
// 404 for an unknown endpoint or model, 400 for a parameter it does not take, 403 for a
// remote model without --allow-remote.
std::expected<std::vector<std::string>, Refusal> api_argv(const Target& target,
                                                          const ApiPolicy& policy);

}  // namespace canitrun::serve
