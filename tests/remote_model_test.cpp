// The pure pieces of remote models: names, file names, the Hub's and the registry's answers,
// the range reader and the cache, against a fake HttpClient that answers from memory.

#include <chrono>
#include <filesystem>
#include <fstream>

#include "canitrun/http_cache.hpp"
#include "canitrun/range_source.hpp"
#include "canitrun/remote_model.hpp"
#include "catch.hpp"

using namespace canitrun;
namespace fs = std::filesystem;

namespace {

// A file in memory served with ranges (or, when `ignore_ranges`, whole), counting requests.
class FakeServer final : public HttpClient {
  public:
    explicit FakeServer(std::string file) : file_(std::move(file)) {}
    bool ignore_ranges = false;
    long status_first = 0;  // a status to answer first (429, 500), then the file
    int status_times = 0;
    std::string content_range_override;

    Result<HttpResponse> get(const HttpRequest& request) override {
        HttpResponse r;
        r.url = request.url;
        if (status_times > 0) {
            --status_times;
            r.status = status_first;
            count(r);
            return r;
        }
        if (ignore_ranges || !request.range) {
            r.status = 200;
            if (file_.size() > request.max_body) {
                return fail(ErrorKind::io, "body past its bound", "");
            }
            r.body = file_;
        } else {
            const std::uint64_t first = request.range->first;
            const std::uint64_t last =
                std::min<std::uint64_t>(request.range->last, file_.size() - 1);
            r.status = 206;
            r.body = file_.substr(first, last - first + 1);
            r.headers.emplace_back("content-range", content_range_override.empty()
                                                        ? "bytes " + std::to_string(first) + "-" +
                                                              std::to_string(last) + "/" +
                                                              std::to_string(file_.size())
                                                        : content_range_override);
        }
        count(r);
        return r;
    }

  private:
    std::string file_;
};

std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 % 251);
    return s;
}

}  // namespace

TEST_CASE("remote names: every form users type") {
    auto hf = parse_remote_spec("hf:unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M");
    REQUIRE(hf);
    CHECK(hf->kind == RemoteKind::hf_repo);
    CHECK(hf->repo == "unsloth/Qwen3.5-35B-A3B-GGUF");
    CHECK(hf->quant == "Q4_K_M");
    auto co = parse_remote_spec("hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M");
    REQUIRE(co);
    CHECK(co->repo == "unsloth/Qwen3-30B-A3B-GGUF");
    auto resolve =
        parse_remote_spec("https://huggingface.co/ORG/REPO/resolve/abc123/sub/model-Q8_0.gguf");
    REQUIRE(resolve);
    CHECK(resolve->repo == "ORG/REPO");
    CHECK(resolve->revision == "abc123");
    CHECK(resolve->file == "sub/model-Q8_0.gguf");
    auto page = parse_remote_spec("https://huggingface.co/ORG/REPO");
    REQUIRE(page);
    CHECK(page->quant.empty());
    auto url = parse_remote_spec("https://example.com/x/model.gguf");
    REQUIRE(url);
    CHECK(url->kind == RemoteKind::url);
    auto ollama = parse_remote_spec("ollama:qwen3:30b");
    REQUIRE(ollama);
    CHECK(ollama->ns == "library");
    CHECK(ollama->name == "qwen3");
    CHECK(ollama->tag == "30b");
    auto user = parse_remote_spec("ollama:someone/model");
    REQUIRE(user);
    CHECK(user->ns == "someone");
    CHECK(user->tag == "latest");
    auto bare = parse_remote_spec("Org/Repo:Q4_K_M");
    REQUIRE(bare);
    CHECK(bare->repo == "Org/Repo");
    for (const char* bad : {"hf:", "hf:noslash", "hf:a/b:", "hf:../x", "ollama:", "ollama:a:b:c",
                            "https://exa mple.com/x.gguf"}) {
        INFO(bad);
        CHECK_FALSE(parse_remote_spec(bad));
    }
    CHECK(looks_like_repo("Qwen/Qwen3-8B"));
    CHECK_FALSE(looks_like_repo("qwen3.5-35b-a3b"));
    CHECK_FALSE(looks_like_repo("./dir/file"));
}

TEST_CASE("remote names: the quantization a file name carries, and -hf's pick") {
    CHECK(quant_from_filename("Qwen3.5-35B-A3B-Q4_K_M.gguf") == "Q4_K_M");
    CHECK(quant_from_filename("Qwen3.5-35B-A3B-UD-Q4_K_XL.gguf") == "UD-Q4_K_XL");
    CHECK(quant_from_filename("gpt-oss-20b-MXFP4.gguf") == "MXFP4");
    CHECK(quant_from_filename("BF16/model-bf16-00001-of-00002.gguf") == "BF16");
    CHECK(quant_from_filename("Llama-3-8B-IQ4_XS.gguf") == "IQ4_XS");
    CHECK(quant_from_filename("model.gguf").empty());
    const auto models = gguf_models({{"a-Q8_0.gguf", 8},
                                     {"a-UD-Q4_K_M.gguf", 4},
                                     {"mmproj-F16.gguf", 1},
                                     {"big/a-BF16-00001-of-00002.gguf", 10},
                                     {"big/a-BF16-00002-of-00002.gguf", 6}});
    REQUIRE(models.size() == 4);
    CHECK(models[0].quant == "BF16");  // largest first
    CHECK(models[0].files.size() == 2);
    CHECK(models[0].bytes == 16);
    REQUIRE(pick_quant(models, "q8_0") != nullptr);
    CHECK(pick_quant(models, "q8_0")->files[0] == "a-Q8_0.gguf");
    REQUIRE(pick_quant(models, "Q4_K_M") != nullptr);  // the UD- build when it is the only one
    CHECK(pick_quant(models, "Q4_K_M")->quant == "UD-Q4_K_M");
    CHECK(pick_quant(models, "Q2_K") == nullptr);
    CHECK(pick_quant(models, "F16") == nullptr);  // the projector is never the model
}

TEST_CASE("remote answers: the Hub's listing and Ollama's manifest, bounded and checked") {
    auto files = parse_hf_files(
        R"([{"type":"file","path":"a-Q4_K_M.gguf","size":134,"lfs":{"size":4920650464}},
            {"type":"directory","path":"sub"},{"type":"file","path":"README.md","size":10}])");
    REQUIRE(files);
    REQUIRE(files->size() == 2);
    CHECK((*files)[0].size == 4920650464ULL);  // the LFS object, not the pointer
    CHECK_FALSE(parse_hf_files("{\"error\":\"x\"}"));
    // A member of the wrong type is skipped, not thrown (found by fuzz_range_source).
    auto odd = parse_hf_files(
        R"([{"type":222000861293},{"type":"file","path":7},{"type":"file","path":"a.gguf","size":"x"}])");
    REQUIRE(odd);
    REQUIRE(odd->size() == 1);
    CHECK((*odd)[0].size == 0);
    CHECK_FALSE(parse_ollama_manifest(R"({"layers":[{"mediaType":1,"digest":2}]})"));
    CHECK_FALSE(parse_hf_files("not json"));
    const std::string digest = "sha256:" + std::string(64, 'f');
    auto m = parse_ollama_manifest(
        R"({"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":")" + digest +
        R"(","size":42}]})");
    REQUIRE(m);
    CHECK(m->model()->size == 42);
    // A digest that is not sha256 hex never reaches a URL.
    CHECK_FALSE(parse_ollama_manifest(
        R"({"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:../../etc"}]})"));
}

TEST_CASE("range reader: Content-Range parsed strictly") {
    const auto c = parse_content_range("bytes 0-1048575/4920650464");
    REQUIRE(c);
    CHECK(c->first == 0);
    CHECK(c->last == 1048575);
    CHECK(c->total == 4920650464ULL);
    for (const char* bad : {"", "bytes */100", "bytes 5-4/100", "bytes 0-100/100", "bytes a-b/c",
                            "items 0-1/2", "bytes 0-1/99999999999999999999"}) {
        INFO(bad);
        CHECK_FALSE(parse_content_range(bad));
    }
}

TEST_CASE("range reader: blocks grow with what was read, bytes come back exact") {
    const std::string file = pattern(5 << 20);  // 5 MiB
    FakeServer server(file);
    auto src = HttpRangeSource::open(server, "http://x/f.gguf", {});
    REQUIRE(src);
    CHECK((*src)->size() == file.size());
    CHECK(server.requests() == 1);
    // A sequential read of the first 4 MiB with no forecast: four blocks of 1 MiB.
    for (std::uint64_t at = 0; at < (4ULL << 20); at += 4096) {
        auto b = (*src)->read(at, 4096);
        REQUIRE(b);
        CHECK(*b == file.substr(at, 4096));
    }
    CHECK(server.requests() == 4);
    CHECK(server.bytes_received() == 4ULL << 20);
    auto end = (*src)->read(file.size() - 10, 10);
    REQUIRE(end);
    CHECK(*end == file.substr(file.size() - 10));
    CHECK_FALSE((*src)->read(file.size() - 5, 10));  // past the end
}

TEST_CASE("range reader: a forecast read comes in one block, with an eighth and 256 KiB more") {
    const std::string file = pattern(8 << 20);
    FakeServer server(file);
    auto src = HttpRangeSource::open(server, "http://x/f.gguf", {});
    REQUIRE(src);
    (*src)->expect(1 << 20, 4 << 20);  // 4 MiB of strings from 1 MiB on
    for (std::uint64_t at = 0; at < (5ULL << 20); at += 65536) REQUIRE((*src)->read(at, 65536));
    CHECK(server.requests() == 2);
    // 1 MiB, then 4 MiB + 512 KiB + 256 KiB.
    CHECK(server.bytes_received() == (1ULL << 20) + (4ULL << 20) + (512ULL << 10) + (256ULL << 10));
}

TEST_CASE("range reader: a server that ignores ranges or lies is refused") {
    const std::string file = pattern(3 << 20);
    FakeServer whole(file);
    whole.ignore_ranges = true;
    auto a = HttpRangeSource::open(whole, "http://x/f.gguf", {});
    REQUIRE_FALSE(a);
    CHECK(a.error().message.find("ignores range requests") != std::string::npos);
    FakeServer liar(file);
    liar.content_range_override = "bytes 1-1048576/3145728";
    auto b = HttpRangeSource::open(liar, "http://x/f.gguf", {});
    REQUIRE_FALSE(b);
    CHECK(b.error().message.find("Content-Range") != std::string::npos);
    // A small file answered whole is the file itself.
    FakeServer tiny(pattern(100));
    tiny.ignore_ranges = true;
    auto c = HttpRangeSource::open(tiny, "http://x/t.gguf", {});
    REQUIRE(c);
    CHECK((*c)->size() == 100);
}

TEST_CASE("range reader: a header that goes on past the bound is refused") {
    FakeServer server(pattern(8 << 20));
    RangeOptions o;
    o.max_total = 3 << 20;
    auto src = HttpRangeSource::open(server, "http://x/f.gguf", o);
    REQUIRE(src);
    Result<std::string> last = std::string();
    for (std::uint64_t at = 0; last && at < (8ULL << 20); at += 65536)
        last = (*src)->read(at, 65536);
    REQUIRE_FALSE(last);
    CHECK(last.error().message.find("goes on past 3 MiB") != std::string::npos);
    CHECK(server.bytes_received() <= 3ULL << 20);
}

TEST_CASE("retries: 429 and 5xx are tried again, then the last answer is returned") {
    FakeServer server(pattern(10));
    server.status_first = 429;
    server.status_times = 2;
    std::vector<std::uint64_t> waits;
    RetryPolicy p;
    p.sleep = [&](std::uint64_t ms) { waits.push_back(ms); };
    HttpRequest req;
    req.url = "http://x/a";
    auto r = get_with_retries(server, req, p);
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(waits == std::vector<std::uint64_t>{500, 1000});
    server.status_first = 503;
    server.status_times = 10;
    auto failed = get_with_retries(server, req, p);
    REQUIRE(failed);
    CHECK(failed->status == 503);
}

TEST_CASE("cache: an answer is served again without the network, a bad entry is a miss") {
    const fs::path dir =
        fs::temp_directory_path() /
        ("canitrun-cache-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    FakeServer server(pattern(1000));
    std::uint64_t now = 1000000;
    CacheOptions o;
    o.dir = dir.string();
    o.now = [&] { return now; };
    CachingClient cache(&server, o);
    HttpRequest req;
    req.url = "http://x/f";
    req.range = ByteRange{0, 99};
    auto first = cache.get(req);
    REQUIRE(first);
    auto again = cache.get(req);
    REQUIRE(again);
    CHECK(again->body == first->body);
    CHECK(again->header("content-range") == "bytes 0-99/1000");
    CHECK(server.requests() == 1);
    CHECK(cache.hits() == 1);
    // Older than a day: fetched again.
    now += 86401;
    REQUIRE(cache.get(req));
    CHECK(server.requests() == 2);
    // Offline: the cache alone, whatever the age; a miss says so.
    CacheOptions off = o;
    off.offline = true;
    now += 10ULL * 86400;
    CachingClient offline(nullptr, off);
    REQUIRE(offline.get(req));
    HttpRequest other = req;
    other.range = ByteRange{100, 199};
    auto miss = offline.get(other);
    REQUIRE_FALSE(miss);
    CHECK(miss.error().message.find("not in the cache") != std::string::npos);
    // A corrupted entry (its length line wrong) is a miss, never a wrong answer.
    for (const auto& e : fs::directory_iterator(dir / "http")) {
        std::ofstream(e.path(), std::ios::app) << "trailing junk";
    }
    CHECK_FALSE(offline.get(req));
    std::error_code ec;
    fs::remove_all(dir, ec);
}
