#pragma once
// A GGUF header read over HTTP by range requests: a ByteSource whose reads are served from a
// window of the file fetched with "Range: bytes=a-b". A request asks for 1 MiB, or, when the
// reader has forecast a long array of strings (ByteSource::expect), for the rest of that array
// and 256 KiB more: a vocabulary's megabytes of tokens come in one request, and the header
// costs a few requests and less than 1 MiB past its own size. A server
// that ignores ranges, answers a range it was not asked for, or sends a wrong Content-Range is
// refused; so is a header that claims more than `max_total` bytes.

#include <cstdint>
#include <memory>
#include <string>

#include "canitrun/gguf.hpp"
#include "canitrun/http.hpp"

namespace canitrun {

struct RangeOptions {
    std::uint64_t first_block = 1ULL << 20;
    std::uint64_t max_block = 64ULL << 20;
    std::uint64_t max_total = 256ULL << 20;  // a GGUF header past this is refused
    std::optional<Credential> credential;    // HF_TOKEN, for its own origin only (http.hpp)
    std::string denied_hint;                 // the hint for a 401 or 403 (a gated repo: HF_TOKEN)
    RetryPolicy retry;
};

class HttpRangeSource final : public ByteSource {
  public:
    // The first block is fetched here: it gives the file's size.
    static Result<std::unique_ptr<HttpRangeSource>> open(HttpClient& client, std::string url,
                                                         RangeOptions options);
    std::uint64_t size() const override { return size_; }
    void expect(std::uint64_t offset, std::uint64_t bytes) const override;
    std::string name() const override { return name_; }
    const std::string& etag() const { return etag_; }
    std::uint64_t fetched() const { return fetched_; }  // body bytes received so far

  protected:
    Result<std::string> do_read(std::uint64_t offset, std::uint64_t length) const override;

  private:
    HttpRangeSource(HttpClient& client, std::string url, RangeOptions options)
        : client_(client), name_(url), url_(std::move(url)), options_(std::move(options)) {}
    Result<bool> fetch(std::uint64_t offset, std::uint64_t length) const;

    HttpClient& client_;
    std::string name_;  // the address asked for, for messages
    // Where blocks are fetched: after the first redirect. The credential still goes only to its
    // own origin (the client checks every address), so following the CDN carries no token.
    mutable std::string url_;
    RangeOptions options_;
    // Learnt from the first answer (fetch() runs from const reads, as ByteSource's are).
    mutable std::uint64_t size_ = 0;
    mutable std::string etag_;
    mutable std::string window_;
    mutable std::uint64_t window_start_ = 0;
    mutable std::uint64_t fetched_ = 0;
    mutable std::uint64_t forecast_end_ = 0;  // where the reader's forecast read ends
};

// "bytes 0-1048575/4920650464" -> {0, 1048575, 4920650464}; nullopt when malformed.
struct ContentRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::uint64_t total = 0;
};
std::optional<ContentRange> parse_content_range(const std::string& value);

}  // namespace canitrun
