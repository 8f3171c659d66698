#include "canitrun/http_cache.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "canitrun/bounded_file.hpp"

namespace canitrun {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxEntry = 65ULL << 20;  // a block of 64 MiB and its few header lines
const char* const kMagic = "canitrun-http-cache 1";

// FNV-1a, 64 bits: a file name for the key, not a security boundary (the entry repeats the key).
std::string hash_hex(const std::string& s) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    static const char* digits = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
    return out;
}

bool one_line(const std::string& s) {
    return s.find('\n') == std::string::npos && s.find('\r') == std::string::npos;
}

// One line: the address, the range, the Accept header (what makes two answers differ).
std::string key_of(const HttpRequest& r) {
    std::string key = r.url;
    if (r.range)
        key += " range " + std::to_string(r.range->first) + "-" + std::to_string(r.range->last);
    for (const auto& [k, v] : r.headers) {
        if (k == "Accept") key += " accept " + v;
    }
    return one_line(key) ? key : std::string();
}

std::uint64_t now_s(const CacheOptions& o) {
    if (o.now) return o.now();
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
}

struct Entry {
    std::string key;
    std::uint64_t time = 0;
    HttpResponse response;
};

// magic \n key-line \n time \n status \n url \n content-range \n etag \n body-length \n body
std::optional<Entry> read_entry(const std::string& path) {
    auto text = read_bounded_file(path, kMaxEntry, "cache entry");
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    std::string magic, key, time, status, url, range, etag, length;
    if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, key) ||
        !std::getline(in, time) || !std::getline(in, status) || !std::getline(in, url) ||
        !std::getline(in, range) || !std::getline(in, etag) || !std::getline(in, length)) {
        return std::nullopt;
    }
    const auto digits = [](const std::string& s) {
        return !s.empty() && s.size() <= 19 &&
               s.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(time) || !digits(status) || !digits(length)) return std::nullopt;
    const auto at = static_cast<std::uint64_t>(in.tellg());
    const std::uint64_t n = std::stoull(length);
    if (at + n != text->size()) return std::nullopt;
    Entry e;
    e.key = key;
    e.time = std::stoull(time);
    e.response.status = std::stol(status);
    e.response.url = url;
    if (!range.empty()) e.response.headers.emplace_back("content-range", range);
    if (!etag.empty()) e.response.headers.emplace_back("etag", etag);
    e.response.body = text->substr(at);
    return e;
}

void write_entry(const std::string& path, const std::string& key, std::uint64_t time,
                 const HttpResponse& r) {
    const std::string range = r.header("content-range");
    const std::string etag = r.header("etag");
    if (!one_line(r.url) || !one_line(range) || !one_line(etag) ||
        r.body.size() > kMaxEntry - 8192) {
        return;
    }
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    const std::string tmp = path + ".tmp" + std::to_string(time);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out << kMagic << "\n"
            << key << "\n"
            << time << "\n"
            << r.status << "\n"
            << r.url << "\n"
            << range << "\n"
            << etag << "\n"
            << r.body.size() << "\n"
            << r.body;
        if (!out) return;
    }
    fs::rename(tmp, path, ec);  // whole entries only: a reader never sees half of one
    if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string default_cache_dir(const char* xdg_cache_home, const char* home) {
    if (xdg_cache_home != nullptr && *xdg_cache_home == '/') {
        return std::string(xdg_cache_home) + "/canitrun";
    }
    if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/canitrun";
    return "";
}

CachingClient::CachingClient(HttpClient* inner, CacheOptions options)
    : inner_(inner), options_(std::move(options)) {}

std::string CachingClient::path_for(const HttpRequest& request) const {
    return options_.dir + "/http/" + hash_hex(key_of(request));
}

Result<HttpResponse> CachingClient::get(const HttpRequest& request) {
    const std::string key = key_of(request);
    const bool cached = !options_.dir.empty() && !key.empty();
    if (cached) {
        // The entry repeats its key: a hash collision or a stray file is a miss.
        auto e = read_entry(path_for(request));
        const std::uint64_t now = now_s(options_);
        const bool fresh =
            e && e->key == key && (options_.offline || now < e->time + options_.max_age_s);
        if (fresh && e->response.body.size() <= request.max_body) {
            ++hits_;
            count(e->response);
            return e->response;
        }
    }
    if (options_.offline || inner_ == nullptr) {
        return fail(ErrorKind::io, "offline, and " + request.url + " is not in the cache",
                    "run the same question once with the network (without --offline or "
                    "HF_HUB_OFFLINE) to cache it");
    }
    auto r = inner_->get(request);
    if (!r) return r;
    count(*r);
    if (cached && (r->status == 200 || r->status == 206)) {
        write_entry(path_for(request), key, now_s(options_), *r);
    }
    return r;
}

}  // namespace canitrun
