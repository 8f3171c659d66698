// The on-disk HTTP cache (issue #39 items 4, 11, 13), through a fake server: a link planted
// where the temporary file used to be named, a folder others can write, a flipped byte, a time
// stamp in the future, the size cap, and what a refused answer leaves behind.

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "canitrun/http_cache.hpp"
#include "catch.hpp"

using namespace canitrun;
namespace fs = std::filesystem;

namespace {

// Answers every request with 200 and a body of `size` copies of the URL's last character.
class Echo final : public HttpClient {
  public:
    std::size_t size = 1000;
    Result<HttpResponse> get(const HttpRequest& request) override {
        HttpResponse r;
        r.url = request.url;
        r.status = 200;
        r.body = std::string(size, request.url.back());
        count(r);
        return r;
    }
};

struct CacheDir {
    CacheDir() {
        root = fs::temp_directory_path() /
               ("canitrun-cache-test-" +
                std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(root);
    }
    ~CacheDir() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    CacheOptions options(const std::uint64_t* now) const {
        CacheOptions o;
        o.dir = (root / "canitrun").string();
        o.now = [now] { return *now; };
        return o;
    }
    fs::path root;
};

HttpRequest request(const std::string& url) {
    HttpRequest r;
    r.url = url;
    return r;
}

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t entries(const fs::path& http) {
    std::size_t n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(http, ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
}

}  // namespace

TEST_CASE("cache: a link planted at a temporary name is never followed") {
    CacheDir d;
    std::uint64_t now = 1000000;
    const CacheOptions o = d.options(&now);
    const HttpRequest req = request("http://x/a");
    const std::string entry = cache_entry_path(o.dir, req);
    fs::create_directories(fs::path(entry).parent_path());
    fs::permissions(o.dir, fs::perms::owner_all, fs::perm_options::replace);
    fs::permissions(fs::path(entry).parent_path(), fs::perms::owner_all, fs::perm_options::replace);
    const fs::path victim = d.root / "victim.txt";
    std::ofstream(victim) << "precious";
    // The names the old cache used (ENTRY.tmpTIME) and a guess at the new ones.
    for (const std::string suffix : {".tmp1000000", ".tmp.XXXXXX", ".tmp"}) {
        fs::create_symlink(victim, entry + suffix);
    }
    Echo server;
    {
        CachingClient cache(&server, o);
        REQUIRE(cache.get(req));
        cache.keep();
    }
    CHECK(read(victim) == "precious");
    // The entry itself is written, and served.
    CachingClient again(&server, o);
    auto r = again.get(req);
    REQUIRE(r);
    CHECK(r->body == std::string(1000, 'a'));
    CHECK(server.requests() == 1);
}

TEST_CASE("cache: a folder others can write, or a link, is refused") {
    CacheDir d;
    std::uint64_t now = 1000000;
    const CacheOptions o = d.options(&now);
    fs::create_directories(fs::path(o.dir) / "http");
    fs::permissions(fs::path(o.dir) / "http", fs::perms::all, fs::perm_options::replace);
    ::chmod((fs::path(o.dir) / "http").c_str(), 0777);  // past the umask
    Echo server;
    CachingClient cache(&server, o);
    auto r = cache.get(request("http://x/a"));
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "the cache folder " + o.dir + "/http is writable by other users");
    CHECK(server.requests() == 0);
    // A link where the folder should be (it could point anywhere).
    fs::remove_all(o.dir);
    fs::create_directories(d.root / "elsewhere");
    fs::create_directory_symlink(d.root / "elsewhere", o.dir);
    CachingClient linked(&server, o);
    auto l = linked.get(request("http://x/a"));
    REQUIRE_FALSE(l);
    CHECK(l.error().message == "the cache folder " + o.dir + " is a symbolic link");
}

TEST_CASE("cache: a flipped byte or a time stamp in the future is a miss") {
    CacheDir d;
    std::uint64_t now = 1000000;
    const CacheOptions o = d.options(&now);
    Echo server;
    const HttpRequest req = request("http://x/b");
    {
        CachingClient cache(&server, o);
        REQUIRE(cache.get(req));
        cache.keep();
    }
    const std::string path = cache_entry_path(o.dir, req);
    std::string text = read(path);
    REQUIRE(text.size() > 1000);
    text[text.size() - 10] = 'c';  // one byte of the body: "32 layers became 33"
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    {
        CachingClient cache(&server, o);
        auto r = cache.get(req);
        REQUIRE(r);
        CHECK(r->body == std::string(1000, 'b'));  // fetched again, not served
        CHECK(cache.hits() == 0);
        CHECK(server.requests() == 2);
        cache.keep();
    }
    // Written a day in the future: online, never fresh (it would never expire).
    now += 86400;
    {
        CachingClient cache(&server, o);
        REQUIRE(cache.get(request("http://x/f")));
        cache.keep();
    }
    now -= 86400;
    CachingClient cache(&server, o);
    REQUIRE(cache.get(request("http://x/f")));
    CHECK(cache.hits() == 0);
    CHECK(server.requests() == 4);
}

TEST_CASE("cache: nothing is kept without keep(), the cap evicts the least recently used") {
    CacheDir d;
    std::uint64_t now = 1000000;
    CacheOptions o = d.options(&now);
    const fs::path http = fs::path(o.dir) / "http";
    Echo server;
    {
        CachingClient refused(&server, o);
        REQUIRE(refused.get(request("http://x/r")));
    }
    CHECK(entries(http) == 0);
    // Three entries of a little over 1000 bytes each under a cap of 2500: one goes.
    o.max_bytes = 2500;
    const auto write = [&](const std::string& url) {
        CachingClient cache(&server, o);
        REQUIRE(cache.get(request(url)));
        cache.keep();
    };
    const auto age = [&](const std::string& url, int seconds) {
        fs::last_write_time(cache_entry_path(o.dir, request(url)),
                            fs::file_time_type::clock::now() - std::chrono::seconds(seconds));
    };
    write("http://x/a");
    age("http://x/a", 300);
    write("http://x/b");
    age("http://x/b", 200);
    // A left-over temporary file an hour old goes; one a second old may be another run's.
    std::ofstream(http / "0123.tmp.abcdef") << "half";
    fs::last_write_time(http / "0123.tmp.abcdef",
                        fs::file_time_type::clock::now() - std::chrono::hours(1));
    std::ofstream(http / "4567.tmp.abcdef") << "half";
    {
        // a is read (now the most recently used), c is written: b, the least recent, goes.
        CachingClient cache(&server, o);
        REQUIRE(cache.get(request("http://x/a")));
        CHECK(cache.hits() == 1);
        REQUIRE(cache.get(request("http://x/c")));
        cache.keep();
    }
    CHECK(fs::exists(cache_entry_path(o.dir, request("http://x/a"))));
    CHECK_FALSE(fs::exists(cache_entry_path(o.dir, request("http://x/b"))));
    CHECK(fs::exists(cache_entry_path(o.dir, request("http://x/c"))));
    CHECK_FALSE(fs::exists(http / "0123.tmp.abcdef"));
    CHECK(fs::exists(http / "4567.tmp.abcdef"));
}
