#include "api_answer.hpp"

#include <nlohmann/json.hpp>

#include "answer_cache.hpp"
#include "ask.hpp"
#include "embedded_assets.hpp"

namespace canitrun::serve {
namespace {

// The command's one stderr line without its "canitrun: error: " prefix and newline.
std::string error_line(const std::string& err) {
    std::string line = err.substr(0, err.find('\n'));
    constexpr std::string_view prefix = "canitrun: error: ";
    if (line.starts_with(prefix)) line.erase(0, prefix.size());
    return line.empty() ? std::string("the command failed with no message") : line;
}

}  // namespace

HttpAnswer error_answer(int status, std::string_view message) {
    const nlohmann::json doc = {{"error", {{"status", status}, {"message", message}}}};
    HttpAnswer a;
    a.status = status;
    a.body = doc.dump(2) + "\n";
    return a;
}

HttpAnswer failed_answer(int code, const std::string& err) {
    HttpAnswer a = error_answer(code == 2 ? 400 : 500, error_line(err));
    a.exit_code = code;
    return a;
}

const std::string& system_document() {
    // A function-local static: the first request detects (other threads wait for it), every
    // later one reads the same bytes.
    static const std::string doc = cli::ask({"system", "--json"}).out;
    return doc;
}

HttpAnswer api_answer(const Target& target, const ApiPolicy& policy) {
    if (target.path == "/api/v1/openapi.json" || target.path == "/api/v1/system") {
        if (!target.params.empty()) return error_answer(400, "this endpoint takes no parameters");
        HttpAnswer a;
        if (target.path == "/api/v1/system") {
            a.body = system_document();
        } else {
            a.body = std::string(find_asset("/api/v1/openapi.json")->bytes);
        }
        return a;
    }
    const auto argv = api_argv(target, policy);
    if (!argv) return error_answer(argv.error().status, argv.error().message);
    cli::Asked asked = cached_ask(*argv, !policy.allow_remote);
    // 0: answered; 1: answered, and the model does not fit the hardware asked about (the
    // document says so): both are documents. 2: the question was bad; 3 or more: a bug.
    if (asked.code == 0 || asked.code == 1) {
        HttpAnswer a;
        a.body = std::move(asked.out);
        a.exit_code = asked.code;
        return a;
    }
    return failed_answer(asked.code, asked.err);
}

}  // namespace canitrun::serve
