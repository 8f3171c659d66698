#pragma once
// A cache of HTTP answers on disk (under $XDG_CACHE_HOME/canitrun/http, default
// ~/.cache/canitrun): every successful answer canitrun reads (listings, manifests, the header
// ranges of GGUF files) is kept, keyed by its address and range, so a repeated question needs no
// network and an offline machine answers what it has seen. An entry is trusted only as far as
// its own file says: bounded size, its format and a checksum of the whole entry checked on
// every read; a bad one, or one stamped in the future, is a miss. The folder must be the
// user's own and not writable by others (another user could plant links there); entries are
// written to a fresh file made with O_EXCL (mkstemp) and renamed into place whole. What a
// command read is kept only when the command used it (keep()), and the folder is held under
// `max_bytes` by evicting the least recently used entries.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/http.hpp"

namespace canitrun {

struct CacheOptions {
    std::string dir;                  // the cache folder; empty: no cache
    bool offline = false;             // --offline / HF_HUB_OFFLINE=1: answers only from the cache
    std::uint64_t max_age_s = 86400;  // online, older entries are fetched again
    std::function<std::uint64_t()> now;    // seconds since the epoch (tests fix it)
    std::uint64_t max_bytes = 1ULL << 30;  // the folder's cap; least recently used go first
};

class CachingClient final : public HttpClient {
  public:
    // `inner` may be null when offline.
    CachingClient(HttpClient* inner, CacheOptions options);
    // Removes what was written unless keep() was called, then holds the folder under its cap
    // and removes temporary files left by a run that was stopped (Ctrl-C, a full disk).
    ~CachingClient() override;
    CachingClient(const CachingClient&) = delete;
    CachingClient& operator=(const CachingClient&) = delete;
    Result<HttpResponse> get(const HttpRequest& request) override;
    std::uint64_t hits() const { return hits_; }
    // The answers read so far were used: keep them. Without it (a header that was refused, an
    // error), nothing this client wrote stays on disk.
    void keep() { kept_ = true; }

  private:
    Result<bool> check_folder();
    std::string folder() const { return options_.dir + "/http"; }
    HttpClient* inner_;
    CacheOptions options_;
    std::uint64_t hits_ = 0;
    std::optional<Result<bool>> folder_ok_;  // checked once, at the first request
    std::vector<std::string> written_;
    bool kept_ = false;
};

// The file that holds the answer to `request` in the cache folder `dir`.
std::string cache_entry_path(const std::string& dir, const HttpRequest& request);

// The cache folder from the environment's values: XDG_CACHE_HOME, else HOME/.cache.
std::string default_cache_dir(const char* xdg_cache_home, const char* home);

}  // namespace canitrun
