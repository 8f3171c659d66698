#include "canitrun/range_source.hpp"

#include <algorithm>
#include <cstdlib>

#include "canitrun/checked.hpp"

namespace canitrun {
namespace {

std::optional<std::uint64_t> range_number(const std::string& s) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return std::strtoull(s.c_str(), nullptr, 10);
}

Error range_error(const std::string& url, const std::string& what) {
    return Error{ErrorKind::io, url + ": " + what,
                 "the server must answer HTTP range requests (Range: bytes=a-b) as specified"};
}

}  // namespace

std::optional<ContentRange> parse_content_range(const std::string& value) {
    const std::string prefix = "bytes ";
    if (value.rfind(prefix, 0) != 0) return std::nullopt;
    const std::string rest = value.substr(prefix.size());
    const auto dash = rest.find('-');
    const auto slash = rest.find('/');
    if (dash == std::string::npos || slash == std::string::npos || dash > slash)
        return std::nullopt;
    const auto first = range_number(rest.substr(0, dash));
    const auto last = range_number(rest.substr(dash + 1, slash - dash - 1));
    const auto total = range_number(rest.substr(slash + 1));
    if (!first || !last || !total || *first > *last || *last >= *total) return std::nullopt;
    return ContentRange{*first, *last, *total};
}

Result<std::unique_ptr<HttpRangeSource>> HttpRangeSource::open(HttpClient& client, std::string url,
                                                               RangeOptions options) {
    std::unique_ptr<HttpRangeSource> s(
        new HttpRangeSource(client, std::move(url), std::move(options)));
    CANITRUN_TRY(s->fetch(0, s->options_.first_block));
    return s;
}

Result<bool> HttpRangeSource::fetch(std::uint64_t offset, std::uint64_t length) const {
    if (size_ > 0) length = std::min(length, size_ - offset);
    if (checked::add(fetched_, length) > options_.max_total) {
        return std::unexpected(Error{
            ErrorKind::bad_input,
            name_ + ": the GGUF header goes on past " + std::to_string(options_.max_total >> 20) +
                " MiB (a split model's parts together)",
            "a real header is a few MiB; the file is corrupt or not a GGUF model"});
    }
    HttpRequest req;
    req.url = url_;
    req.range = ByteRange{offset, offset + length - 1};
    req.credential = options_.credential;
    req.max_body = length;  // a server that ignores the range is cut off here
    auto r = get_with_retries(client_, req, options_.retry);
    if (!r) {
        Error e = r.error();
        if (e.message.find("body past") != std::string::npos) {
            return std::unexpected(range_error(name_,
                                               "the server ignores range requests and "
                                               "sends the whole file"));
        }
        return std::unexpected(e);
    }
    if (r->status == 200) {
        // A whole file no larger than the block asked for is the file itself.
        if (offset != 0 || r->body.size() > length) {
            return std::unexpected(range_error(name_, "the server ignores range requests"));
        }
        size_ = r->body.size();
        window_ = std::move(r->body);
        window_start_ = 0;
        fetched_ = window_.size();
        etag_ = r->header("etag");
        return true;
    }
    if (r->status != 206) {
        const bool denied = r->status == 401 || r->status == 403;
        return std::unexpected(
            http_status_error(*r, "reading " + name_, denied ? options_.denied_hint : ""));
    }
    const auto cr = parse_content_range(r->header("content-range"));
    if (!cr || cr->first != offset || cr->last - cr->first + 1 != r->body.size() ||
        r->body.empty() || (size_ > 0 && cr->total != size_)) {
        return std::unexpected(range_error(
            name_, "the answer's Content-Range ('" + r->header("content-range") +
                       "') does not match the bytes asked for (" + std::to_string(offset) + "-" +
                       std::to_string(offset + length - 1) + ") or the body"));
    }
    size_ = cr->total;
    if (etag_.empty()) etag_ = r->header("etag");
    // Later blocks go straight to where the first was redirected (the Hub's CDN), not through
    // the redirect again.
    if (offset == 0 && !r->url.empty()) url_ = r->url;
    window_ = std::move(r->body);
    window_start_ = offset;
    fetched_ = checked::add(fetched_, window_.size());
    return true;
}

void HttpRangeSource::expect(std::uint64_t offset, std::uint64_t bytes) const {
    forecast_end_ = std::min(checked::add(offset, bytes), size_);
}

Result<std::string> HttpRangeSource::do_read(std::uint64_t offset, std::uint64_t length) const {
    const std::uint64_t end = checked::add(offset, length);
    if (end > size_) {
        return std::unexpected(
            Error{ErrorKind::bad_input,
                  name_ + ": read past the end of the file (" + std::to_string(size_) + " bytes)",
                  "the file is truncated or not a GGUF model"});
    }
    const auto in_window = [&] {
        return offset >= window_start_ && end <= window_start_ + window_.size();
    };
    if (!in_window()) {
        // The rest of a forecast array and a little more, else one first-sized block.
        // The forecast comes from the strings read so far, and later ones tend to be longer:
        // an eighth more, and 256 KiB for what follows the array.
        const std::uint64_t rest = forecast_end_ > offset ? forecast_end_ - offset : 0;
        const std::uint64_t wanted =
            rest > 0 ? checked::add(rest + rest / 8, 256ULL << 10) : options_.first_block;
        const std::uint64_t block = std::min(options_.max_block, std::max(length, wanted));
        CANITRUN_TRY(fetch(offset, std::max(block, length)));
        if (!in_window()) {
            return std::unexpected(range_error(name_, "the server sent fewer bytes than asked"));
        }
    }
    return window_.substr(offset - window_start_, length);
}

}  // namespace canitrun
