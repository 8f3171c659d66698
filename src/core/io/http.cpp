#include "canitrun/http.hpp"

#include <algorithm>
#include <cstdlib>

namespace canitrun {

std::string HttpResponse::header(const std::string& name) const {
    for (const auto& [key, value] : headers) {
        if (key == name) return value;
    }
    return "";
}

namespace {

bool retryable(long status) {
    return status == 429 || (status >= 500 && status <= 599);
}

// Retry-After in seconds (the HTTP-date form is not used by the hubs canitrun talks to).
std::uint64_t retry_after_ms(const HttpResponse& r, std::uint64_t fallback) {
    const std::string v = r.header("retry-after");
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 4) {
        return fallback;
    }
    return std::min<std::uint64_t>(std::strtoull(v.c_str(), nullptr, 10) * 1000, 30000);
}

}  // namespace

Result<HttpResponse> get_with_retries(HttpClient& client, const HttpRequest& request,
                                      const RetryPolicy& policy) {
    std::uint64_t wait = 500;
    for (int attempt = 1;; ++attempt) {
        auto r = client.get(request);
        if (!r || !retryable(r->status) || attempt >= policy.attempts) return r;
        if (policy.sleep) policy.sleep(retry_after_ms(*r, wait));
        wait = std::min<std::uint64_t>(wait * 2, 30000);
    }
}

Error http_status_error(const HttpResponse& r, const std::string& what, const std::string& hint) {
    std::string reason;
    switch (r.status) {
        case 401:
        case 403:
            reason = "access denied";
            break;
        case 404:
            reason = "not found";
            break;
        case 429:
            reason = "too many requests, still refused after retries";
            break;
        default:
            reason = r.status >= 500 ? "the server failed" : "unexpected answer";
    }
    return Error{ErrorKind::io,
                 what + ": HTTP " + std::to_string(r.status) + " (" + reason + ") from " + r.url,
                 hint};
}

}  // namespace canitrun
