#pragma once
// A cache of HTTP answers on disk (under $XDG_CACHE_HOME/canitrun/http, default
// ~/.cache/canitrun): every successful answer canitrun reads (listings, manifests, the header
// ranges of GGUF files) is kept, keyed by its address and range, so a repeated question needs no
// network and an offline machine answers what it has seen. An entry is trusted only as far as
// its own file says: bounded size, its format checked on every read; a bad one is a miss.

#include <cstdint>
#include <functional>
#include <string>

#include "canitrun/http.hpp"

namespace canitrun {

struct CacheOptions {
    std::string dir;                  // the cache folder; empty: no cache
    bool offline = false;             // --offline / HF_HUB_OFFLINE=1: answers only from the cache
    std::uint64_t max_age_s = 86400;  // online, older entries are fetched again
    std::function<std::uint64_t()> now;  // seconds since the epoch (tests fix it)
};

class CachingClient final : public HttpClient {
  public:
    // `inner` may be null when offline.
    CachingClient(HttpClient* inner, CacheOptions options);
    Result<HttpResponse> get(const HttpRequest& request) override;
    std::uint64_t hits() const { return hits_; }

  private:
    std::string path_for(const HttpRequest& request) const;
    HttpClient* inner_;
    CacheOptions options_;
    std::uint64_t hits_ = 0;
};

// The cache folder from the environment's values: XDG_CACHE_HOME, else HOME/.cache.
std::string default_cache_dir(const char* xdg_cache_home, const char* home);

}  // namespace canitrun
