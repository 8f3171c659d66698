#pragma once
// A request's answer, independent of the HTTP library: the status, the content type and the
// body. /api/v1/ documents are cli::ask()'s stdout unchanged; a refusal or a failed command is
// a JSON error document with the status that fits it (docs/schema/error.schema.json).

#include <string>
#include <string_view>

#include "api_routes.hpp"
#include "request_target.hpp"

namespace canitrun::serve {

struct HttpAnswer {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    int exit_code = 0;  // the CLI's, where a command answered (1: it does not fit)
};

// {"error": {"status": N, "message": "..."}}
HttpAnswer error_answer(int status, std::string_view message);

// The error document for a command that failed (exit 2: 400, else 500), from its stderr line.
HttpAnswer failed_answer(int code, const std::string& err);

// An answer for a request under /api/v1/: a command's document, the OpenAPI document, or the
// server's detected hardware (/api/v1/system, detected once per process).
HttpAnswer api_answer(const Target& target, const ApiPolicy& policy);

// What `canitrun system --json` printed the first time it was asked in this process: the
// hardware "this machine" means (detection probes are run once, never per request).
const std::string& system_document();

}  // namespace canitrun::serve
