#include "canitrun/http_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "canitrun/bounded_file.hpp"

namespace canitrun {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxEntry = 65ULL << 20;  // a block of 64 MiB and its few header lines
const char* const kMagic = "canitrun-http-cache 2";
const char* const kTempMark = ".tmp.";
// A temporary file older than this was left by a run that stopped (Ctrl-C, a full disk); a
// younger one may be another canitrun's write in progress.
constexpr auto kStaleTemp = std::chrono::minutes(10);

// FNV-1a, 64 bits: the entry's file name from its key (the entry repeats the key), and the
// entry's checksum. Not a defence against someone who can write the folder (the folder check
// is), but any one changed byte changes it: every step is a bijection of the running value.
std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

std::string hex16(std::uint64_t h) {
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

bool digits(const std::string& s) {
    return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
}

// magic \n checksum \n key \n time \n status \n url \n content-range \n etag \n body-length \n
// body; the checksum (16 hex digits) is FNV-1a of everything after its line.
std::optional<Entry> read_entry(const std::string& path) {
    auto text = read_bounded_file(path, kMaxEntry, "cache entry");
    if (!text) return std::nullopt;
    const std::string head = std::string(kMagic) + "\n";
    if (text->size() < head.size() + 17 || text->compare(0, head.size(), head) != 0 ||
        (*text)[head.size() + 16] != '\n') {
        return std::nullopt;
    }
    const std::string sum = text->substr(head.size(), 16);
    const std::size_t at_key = head.size() + 17;
    if (hex16(fnv1a(text->substr(at_key))) != sum) return std::nullopt;
    std::istringstream in(text->substr(at_key));
    std::string key, time, status, url, range, etag, length;
    if (!std::getline(in, key) || !std::getline(in, time) || !std::getline(in, status) ||
        !std::getline(in, url) || !std::getline(in, range) || !std::getline(in, etag) ||
        !std::getline(in, length)) {
        return std::nullopt;
    }
    if (!digits(time) || !digits(status) || !digits(length)) return std::nullopt;
    const auto at = at_key + static_cast<std::uint64_t>(in.tellg());
    if (at + std::stoull(length) != text->size()) return std::nullopt;
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

bool write_all(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

// Written to a new file of a random name made with O_CREAT | O_EXCL (mkstemp: a link planted
// at any name is never followed), then renamed over the entry: a reader sees a whole entry or
// none. A failed write (a full disk) leaves nothing behind. Returns whether it was written.
bool write_entry(const std::string& path, const std::string& key, std::uint64_t time,
                 const HttpResponse& r) {
    const std::string range = r.header("content-range");
    const std::string etag = r.header("etag");
    if (!one_line(r.url) || !one_line(range) || !one_line(etag) ||
        r.body.size() > kMaxEntry - 8192) {
        return false;
    }
    std::string rest = key + "\n" + std::to_string(time) + "\n" + std::to_string(r.status) + "\n" +
                       r.url + "\n" + range + "\n" + etag + "\n" + std::to_string(r.body.size()) +
                       "\n";
    rest += r.body;
    const std::string text = std::string(kMagic) + "\n" + hex16(fnv1a(rest)) + "\n" + rest;
    std::string tmp = path + kTempMark + "XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) return false;
    const bool ok = write_all(fd, text);
    const bool closed = ::close(fd) == 0;
    if (!ok || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

// A folder of the cache: made (0700) when missing, then checked with lstat: a real folder, not
// a link, owned by this user and not writable by others.
Result<bool> own_folder(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        return fail(ErrorKind::io,
                    "cannot make the cache folder " + dir + ": " + std::strerror(errno),
                    "set XDG_CACHE_HOME to a folder you can write");
    }
    struct stat st {};
    std::string why;
    if (::lstat(dir.c_str(), &st) != 0) {
        why = std::strerror(errno);
    } else if (S_ISLNK(st.st_mode)) {
        why = "is a symbolic link";
    } else if (!S_ISDIR(st.st_mode)) {
        why = "is not a folder";
    } else if (st.st_uid != ::geteuid()) {
        why = "belongs to another user";
    } else if ((st.st_mode & S_IWOTH) != 0) {
        why = "is writable by other users";
    }
    if (why.empty()) return true;
    return fail(ErrorKind::bad_input, "the cache folder " + dir + " " + why,
                "another user could plant files there: use a folder of your own (chmod o-w, "
                "or set XDG_CACHE_HOME)");
}

}  // namespace

std::string default_cache_dir(const char* xdg_cache_home, const char* home) {
    if (xdg_cache_home != nullptr && *xdg_cache_home == '/') {
        return std::string(xdg_cache_home) + "/canitrun";
    }
    if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/canitrun";
    return "";
}

std::string cache_entry_path(const std::string& dir, const HttpRequest& request) {
    return dir + "/http/" + hex16(fnv1a(key_of(request)));
}

CachingClient::CachingClient(HttpClient* inner, CacheOptions options)
    : inner_(inner), options_(std::move(options)) {}

Result<bool> CachingClient::check_folder() {
    if (!folder_ok_) {
        // The parents are the user's business (~/.cache); the two folders canitrun owns are
        // checked.
        std::error_code ec;
        fs::create_directories(fs::path(options_.dir).parent_path(), ec);
        auto ok = own_folder(options_.dir);
        folder_ok_ = ok ? own_folder(folder()) : ok;
    }
    return *folder_ok_;
}

Result<HttpResponse> CachingClient::get(const HttpRequest& request) {
    const std::string key = key_of(request);
    const bool cached = !options_.dir.empty() && !key.empty();
    if (cached) {
        CANITRUN_TRY(check_folder());
        // The entry repeats its key: a hash collision or a stray file is a miss. A time stamp
        // in the future is a miss too (it would never expire).
        const std::string path = cache_entry_path(options_.dir, request);
        auto e = read_entry(path);
        const std::uint64_t now = now_s(options_);
        const bool fresh =
            e && e->key == key &&
            (options_.offline || (e->time <= now && now - e->time < options_.max_age_s));
        if (fresh && e->response.body.size() <= request.max_body) {
            ++hits_;
            // Used now: the eviction goes by the file's time, least recently used first.
            ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
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
        const std::string path = cache_entry_path(options_.dir, request);
        if (write_entry(path, key, now_s(options_), *r)) written_.push_back(path);
    }
    return r;
}

CachingClient::~CachingClient() {
    if (written_.empty()) return;
    if (!kept_) {
        for (const auto& path : written_) ::unlink(path.c_str());
        return;
    }
    // Entries by last use; temporary files past their age go whatever the total.
    struct File {
        fs::file_time_type used;
        std::uint64_t bytes;
        fs::path path;
    };
    std::vector<File> files;
    std::uint64_t total = 0;
    std::error_code ec;
    const auto stale = fs::file_time_type::clock::now() - kStaleTemp;
    for (fs::directory_iterator it(folder(), ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        if (!it->is_regular_file(e2)) continue;
        const auto used = it->last_write_time(e2);
        const auto bytes = it->file_size(e2);
        if (e2) continue;
        if (it->path().filename().string().find(kTempMark) != std::string::npos) {
            if (used < stale) fs::remove(it->path(), e2);
            continue;
        }
        files.push_back({used, bytes, it->path()});
        total += bytes;
    }
    std::sort(files.begin(), files.end(),
              [](const File& a, const File& b) { return a.used < b.used; });
    for (const auto& f : files) {
        if (total <= options_.max_bytes) break;
        if (fs::remove(f.path, ec)) total -= f.bytes;
    }
}

}  // namespace canitrun
