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

// A secret header (HF_TOKEN's Authorization) for the one origin it was issued for: sent only to
// a URL of exactly that scheme, host and port (huggingface_hub's rule), never to a host a
// redirect names, and never over http to an https origin's host. The client applies it on every
// hop (credential_for), so a redirect or a range reader that follows one cannot carry it off.
struct Credential {
    std::string origin;  // url_origin() of the address it was issued for
    std::string name;    // "Authorization"
    std::string value;   // "Bearer ..."
};

struct HttpRequest {
    std::string url;
    std::optional<ByteRange> range;
    std::vector<std::pair<std::string, std::string>> headers;  // extra request headers
    std::optional<Credential> credential;
    std::uint64_t max_body = 16ULL << 20;
};

// "scheme://host:port" in lower case, the port made explicit (80, 443) and any "user:pass@"
// left out; "" when the address is not http(s) or has no host.
std::string url_origin(const std::string& url);

// The credential when `url` is on its origin, else nothing.
const Credential* credential_for(const HttpRequest& request, const std::string& url);

// Whether a header value can go on the wire as one header: printable ASCII and spaces, no CR,
// LF or other control byte (a line break would add headers of the sender's choosing).
bool header_value_ok(const std::string& value);

// A deadline for the whole answer (--timeout): milliseconds left, read by the retry loop and
// the client. Empty: no deadline (tests and library users that bound time otherwise).
using TimeLeft = std::function<std::uint64_t()>;

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
// (capped at 30 s). A wait that would reach the deadline (`time_left`) is not made: a
// Retry-After never stretches a command past --timeout. The last answer is returned whatever
// its status.
struct RetryPolicy {
    int attempts = 4;
    std::function<void(std::uint64_t ms)> sleep;  // empty: no wait (tests)
    TimeLeft time_left;                           // empty: no deadline
};
Result<HttpResponse> get_with_retries(HttpClient& client, const HttpRequest& request,
                                      const RetryPolicy& policy);

// The one-line error for an HTTP status that is not success, naming what was asked for.
Error http_status_error(const HttpResponse& response, const std::string& what,
                        const std::string& hint);

}  // namespace canitrun
