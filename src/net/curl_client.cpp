#include "curl_client.hpp"

#include <cctype>

#include "curl_library.hpp"

namespace canitrun {
namespace {

struct Transfer {
    HttpResponse response;
    std::uint64_t max_body = 0;
    bool too_big = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * n;
    if (t->response.body.size() + bytes > t->max_body) {
        t->too_big = true;
        return 0;  // aborts the transfer: the body is never held past max_body
    }
    t->response.body.append(data, bytes);
    return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * n;
    std::string line(data, bytes);
    // A new status line (after a redirect) starts a new set of headers.
    if (line.rfind("HTTP/", 0) == 0) {
        t->response.headers.clear();
        return bytes;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos || t->response.headers.size() >= 200) return bytes;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    const auto a = value.find_first_not_of(" \t");
    const auto b = value.find_last_not_of(" \t\r\n");
    value = a == std::string::npos ? std::string() : value.substr(a, b - a + 1);
    if (value.size() <= 8192) t->response.headers.emplace_back(std::move(name), std::move(value));
    return bytes;
}

// One hop's answer: the response, and where a redirect points (empty when it is the answer).
struct Hop {
    HttpResponse response;
    std::string next;
};

class CurlClient final : public HttpClient {
  public:
    explicit CurlClient(CurlOptions o) : options_(std::move(o)) {}

    // Redirects are followed here, hop by hop, not by libcurl: the credential goes only to its
    // own origin on every hop (credential_for), whatever libcurl's version does with headers
    // on a redirect, and every hop runs under what is left of the deadline.
    Result<HttpResponse> get(const HttpRequest& request) override {
        std::string why;
        const net::CurlLibrary* lib = net::curl_library(why);
        if (lib == nullptr) return fail(ErrorKind::io, why, "");
        for (const auto& [k, v] : request.headers) {
            if (!header_value_ok(k) || !header_value_ok(v)) {
                return fail(ErrorKind::bad_input, "a request header holds a control character",
                            "a line break in a header would add headers of its own");
            }
        }
        if (request.credential && !header_value_ok(request.credential->value)) {
            return fail(ErrorKind::bad_input,
                        "the Hugging Face token holds a line break or another control character",
                        "set HF_TOKEN (or the token file) to the token alone, on one line");
        }
        std::string url = request.url;
        for (long hop = 0;; ++hop) {
            CANITRUN_TRY_ASSIGN(Hop h, transfer(*lib, request, url));
            if (h.next.empty()) {
                count(h.response);
                return std::move(h.response);
            }
            if (hop >= options_.max_redirects) {
                return fail(ErrorKind::io,
                            request.url + ": more than " + std::to_string(options_.max_redirects) +
                                " redirects",
                            "the server redirects in a loop");
            }
            if (url_origin(h.next).empty()) {
                return fail(ErrorKind::io, url + " redirects to an address that is not http(s)",
                            "canitrun follows redirects to http and https addresses only");
            }
            url = h.next;
        }
    }

  private:
    // Milliseconds left before the deadline; 0 when there is none.
    std::uint64_t time_left() const { return options_.time_left ? options_.time_left() : 0; }

    Result<Hop> transfer(const net::CurlLibrary& lib, const HttpRequest& request,
                         const std::string& url) const {
        if (options_.time_left && time_left() == 0) return std::unexpected(timed_out(url));
        CURL* curl = lib.easy_init();
        if (curl == nullptr) return fail(ErrorKind::io, "cannot start libcurl", "");
        Transfer t;
        t.max_body = request.max_body;
        curl_slist* headers = nullptr;
        for (const auto& [k, v] : request.headers) {
            std::string line = k;
            line += ": ";
            line += v;
            headers = lib.slist_append(headers, line.c_str());
        }
        if (const Credential* c = credential_for(request, url)) {
            std::string line = c->name;
            line += ": ";
            line += c->value;
            headers = lib.slist_append(headers, line.c_str());
        }
        const std::string range = request.range ? std::to_string(request.range->first) + "-" +
                                                      std::to_string(request.range->last)
                                                : std::string();
        set_options(lib, curl, url, headers);
        if (!range.empty()) lib.easy_setopt(curl, CURLOPT_RANGE, range.c_str());
        lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        lib.easy_setopt(curl, CURLOPT_WRITEDATA, &t);
        lib.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        lib.easy_setopt(curl, CURLOPT_HEADERDATA, &t);
        const CURLcode rc = lib.easy_perform(curl);
        long status = 0;
        lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        char* next = nullptr;
        lib.easy_getinfo(curl, CURLINFO_REDIRECT_URL, &next);
        Hop hop;
        if (status >= 300 && status < 400 && next != nullptr) hop.next = next;
        t.response.status = status;
        t.response.url = url;
        lib.slist_free_all(headers);
        lib.easy_cleanup(curl);
        if (t.too_big) {
            return fail(ErrorKind::io,
                        url + ": the answer's body goes on past " +
                            std::to_string(request.max_body) + " bytes (body past its bound)",
                        "the server sent more than was asked for");
        }
        if (rc != CURLE_OK) return std::unexpected(transfer_error(lib, url, rc));
        hop.response = std::move(t.response);
        return hop;
    }

    void set_options(const net::CurlLibrary& lib, CURL* curl, const std::string& url,
                     curl_slist* headers) const {
        const auto timeout = static_cast<long>(options_.timeout_s);
        lib.easy_setopt(curl, CURLOPT_URL, url.c_str());
        lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
        lib.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
        lib.easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
        lib.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeout);
        // The whole answer by the deadline; under it, a server that sends under 1 byte/s for
        // `timeout` seconds is cut off too.
        if (options_.time_left) {
            lib.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(time_left()));
        }
        lib.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        lib.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, timeout);
        lib.easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
        if (!options_.ca_file.empty())
            lib.easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
    }

    Error timed_out(const std::string& url) const {
        return Error{ErrorKind::io,
                     url + ": no whole answer within " + std::to_string(options_.timeout_s) + " s",
                     "every remote question must be answered within --timeout (" +
                         std::to_string(options_.timeout_s) +
                         " s); try again later or raise --timeout"};
    }

    Error transfer_error(const net::CurlLibrary& lib, const std::string& url, CURLcode rc) const {
        std::string hint = "check the address and the network (HTTPS_PROXY, NO_PROXY)";
        switch (rc) {
            case CURLE_OPERATION_TIMEDOUT:
                return timed_out(url);
            case CURLE_TOO_MANY_REDIRECTS:
                hint = "the server redirects in a loop";
                break;
            case CURLE_PARTIAL_FILE:
                hint = "the server closed the connection before the whole answer";
                break;
            case CURLE_COULDNT_RESOLVE_HOST:
                hint =
                    "the host name does not resolve: check it, or use --offline for what "
                    "is cached";
                break;
            default:
                break;
        }
        return Error{ErrorKind::io, url + ": " + lib.easy_strerror(rc), hint};
    }

    CurlOptions options_;
};

}  // namespace

std::unique_ptr<HttpClient> make_curl_client(const CurlOptions& options) {
    return std::make_unique<CurlClient>(options);
}

}  // namespace canitrun
