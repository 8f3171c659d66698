#pragma once
// `canitrun serve`: the pages and the JSON API over HTTP/1.1, on cpp-httplib (Debian's
// libcpp-httplib-dev: maintained, packaged, a thread-pool server in one library with read and
// write timeouts and bounded request lines; we parse the target ourselves, request_target.hpp).
// Built into its own binary, canitrun-serve, which `canitrun serve` runs: the library pulls in
// OpenSSL, zlib and brotli, which every plain query would otherwise load at start
// (tests/startup_test.cpp).

#include <iosfwd>
#include <string>

namespace canitrun::serve {

struct ServeOptions {
    std::string bind = "127.0.0.1";
    int port = 8080;
    int threads = 4;  // the fixed worker pool
    bool quiet = false;
    bool allow_remote = false;
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 after a clean stop, 2 when the
// address cannot be bound). Prints "canitrun: serving http://ADDR:PORT/" on stderr once
// listening (the port actually bound when --port 0 asks for any).
int serve_http(const ServeOptions& options, std::ostream& err);

}  // namespace canitrun::serve
