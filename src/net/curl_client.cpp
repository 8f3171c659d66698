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

class CurlClient final : public HttpClient {
  public:
    explicit CurlClient(CurlOptions o) : options_(std::move(o)) {}

    Result<HttpResponse> get(const HttpRequest& request) override {
        std::string why;
        const net::CurlLibrary* lib = net::curl_library(why);
        if (lib == nullptr) return fail(ErrorKind::io, why, "");
        CURL* curl = lib->easy_init();
        if (curl == nullptr) return fail(ErrorKind::io, "cannot start libcurl", "");
        Transfer t;
        t.max_body = request.max_body;
        curl_slist* headers = nullptr;
        for (const auto& [k, v] : request.headers) {
            std::string line = k;
            line += ": ";
            line += v;
            headers = lib->slist_append(headers, line.c_str());
        }
        const std::string range = request.range ? std::to_string(request.range->first) + "-" +
                                                      std::to_string(request.range->last)
                                                : std::string();
        const auto timeout = static_cast<long>(options_.timeout_s);
        lib->easy_setopt(curl, CURLOPT_URL, request.url.c_str());
        lib->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
        lib->easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        lib->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
        lib->easy_setopt(curl, CURLOPT_MAXREDIRS, options_.max_redirects);
        lib->easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
        lib->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        lib->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        lib->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeout);
        // A server that accepts and then sends nothing: under 1 byte/s for `timeout` seconds.
        lib->easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        lib->easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, timeout);
        lib->easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
        if (!range.empty()) lib->easy_setopt(curl, CURLOPT_RANGE, range.c_str());
        lib->easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        lib->easy_setopt(curl, CURLOPT_WRITEDATA, &t);
        lib->easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        lib->easy_setopt(curl, CURLOPT_HEADERDATA, &t);
        const CURLcode rc = lib->easy_perform(curl);
        long status = 0;
        lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        char* effective = nullptr;
        lib->easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective);
        t.response.status = status;
        t.response.url = effective != nullptr ? effective : request.url;
        lib->slist_free_all(headers);
        lib->easy_cleanup(curl);
        if (t.too_big) {
            return fail(ErrorKind::io,
                        request.url + ": the answer's body goes on past " +
                            std::to_string(request.max_body) + " bytes (body past its bound)",
                        "the server sent more than was asked for");
        }
        if (rc != CURLE_OK) return std::unexpected(transfer_error(*lib, request.url, rc));
        count(t.response);
        return std::move(t.response);
    }

  private:
    Error transfer_error(const net::CurlLibrary& lib, const std::string& url, CURLcode rc) const {
        std::string hint = "check the address and the network (HTTPS_PROXY, NO_PROXY)";
        switch (rc) {
            case CURLE_OPERATION_TIMEDOUT:
                hint = "the server did not answer within " + std::to_string(options_.timeout_s) +
                       " s; try again later or raise --timeout";
                break;
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
