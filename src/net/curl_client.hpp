#pragma once
// The HttpClient the command line uses: libcurl (TLS, HTTP/2, proxies from HTTPS_PROXY /
// NO_PROXY, redirects). It lives outside the core library, in canitrun_net, so the core and its
// users need no network library.

#include <cstdint>
#include <memory>
#include <string>

#include "canitrun/http.hpp"

namespace canitrun {

struct CurlOptions {
    std::uint64_t timeout_s = 30;  // connect, and any stretch with no byte received
    TimeLeft time_left;            // the whole answer's deadline (--timeout); empty: none
    long max_redirects = 10;
    std::string user_agent = "canitrun";
    std::string ca_file;  // CURL_CA_BUNDLE: the certificates to trust instead of the system's
};

std::unique_ptr<HttpClient> make_curl_client(const CurlOptions& options);

}  // namespace canitrun
