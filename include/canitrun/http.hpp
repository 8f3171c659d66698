#pragma once
// HTTP as the core sees it: a request, a response and a client interface. The core never talks
// to the network itself; the CLI hands it a client (src/net/curl_client.hpp, libcurl), tests a fake
// one or the loopback server. Every response is bounded: the client refuses a body past `max_body`
// bytes instead of growing without end.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/error.hpp"

namespace canitrun {

struct ByteRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;  // inclusive, as in "Range: bytes=first-last"
};

struct HttpRequest {
    std::string url;
    std::optional<ByteRange> range;
    std::vector<std::pair<std::string, std::string>> headers;  // extra request headers
    std::uint64_t max_body = 16ULL << 20;
};

struct HttpResponse {
    long status = 0;
    std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
    std::string body;
    std::string url;  // after redirects
    // The first value of a header (name in lower case), or empty.
    std::string header(const std::string& name) const;
};

class HttpClient {
  public:
    virtual ~HttpClient() = default;
    // The response (any status), or an Error for a failure with no response: no route, DNS,
    // TLS, a timeout, a redirect loop, a body past max_body, a truncated body.
    virtual Result<HttpResponse> get(const HttpRequest& request) = 0;
    // Requests sent and body bytes received so far (the bench and the tests count them).
    std::uint64_t requests() const { return requests_; }
    std::uint64_t bytes_received() const { return bytes_; }

  protected:
    void count(const HttpResponse& r) {
        ++requests_;
        bytes_ += r.body.size();
    }

  private:
    std::uint64_t requests_ = 0;
    std::uint64_t bytes_ = 0;
};

// GET with retries: a 429 or 5xx answer is tried again up to `attempts` times in all, waiting
// (by `sleep`, in milliseconds) 500 ms, then twice as long each time, or what Retry-After says
// (capped at 30 s). The last answer is returned whatever its status.
struct RetryPolicy {
    int attempts = 4;
    std::function<void(std::uint64_t ms)> sleep;  // empty: no wait (tests)
};
Result<HttpResponse> get_with_retries(HttpClient& client, const HttpRequest& request,
                                      const RetryPolicy& policy);

// The one-line error for an HTTP status that is not success, naming what was asked for.
Error http_status_error(const HttpResponse& response, const std::string& what,
                        const std::string& hint);

}  // namespace canitrun
