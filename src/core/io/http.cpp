#include "canitrun/http.hpp"

#include <algorithm>
#include <cstdlib>

#include "canitrun/strings.hpp"

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
        const std::uint64_t ms = retry_after_ms(*r, wait);
        // The retry would start at or past the deadline: its answer could not be used.
        if (policy.time_left && ms >= policy.time_left()) return r;
        if (policy.sleep) policy.sleep(ms);
        wait = std::min<std::uint64_t>(wait * 2, 30000);
    }
}

std::string url_origin(const std::string& url) {
    const auto colon = url.find("://");
    if (colon == std::string::npos) return "";
    const std::string scheme = to_lower(url.substr(0, colon));
    if (scheme != "http" && scheme != "https") return "";
    const auto start = colon + 3;
    const auto end = url.find_first_of("/?#", start);
    std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
    if (const auto at = authority.rfind('@'); at != std::string::npos) {
        authority = authority.substr(at + 1);
    }
    authority = to_lower(authority);
    // "host", "host:port", "[v6]", "[v6]:port": the port is what follows the last ':' past
    // any bracket.
    const auto bracket = authority.rfind(']');
    const auto port_colon = authority.rfind(':');
    const bool has_port =
        port_colon != std::string::npos && (bracket == std::string::npos || port_colon > bracket);
    const std::string host = has_port ? authority.substr(0, port_colon) : authority;
    std::string port = has_port ? authority.substr(port_colon + 1) : "";
    if (host.empty()) return "";
    if (port.empty()) port = scheme == "https" ? "443" : "80";
    return scheme + "://" + host + ":" + port;
}

const Credential* credential_for(const HttpRequest& request, const std::string& url) {
    if (!request.credential || request.credential->origin.empty()) return nullptr;
    return url_origin(url) == request.credential->origin ? &*request.credential : nullptr;
}

bool header_value_ok(const std::string& value) {
    return std::all_of(value.begin(), value.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x7f;
    });
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
