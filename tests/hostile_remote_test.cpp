// Hostile servers through the binary (issue #39), against tests/support/hub_server.py on
// loopback: a redirect to another host name (127.0.0.2) or another origin, a TLS endpoint that
// redirects to plain http, a password in HF_ENDPOINT, a token with a line break, a body that
// trickles, a Retry-After storm. Each run is bounded by a short --timeout.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "canitrun/http.hpp"
#include "canitrun/remote_model.hpp"
#include "canitrun/strings.hpp"
#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"
#include "support/hub_process.hpp"

using canitrun::test::check_refusal;
using canitrun::test::has;
using canitrun::test::HubProcess;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A repo whose downloads redirect to `where` ("other": 127.0.0.2, "plain": http on another
// port), gated so that the resolve step needs the token.
void hostile_repo(const fs::path& root, const std::string& name, const std::string& where) {
    const fs::path dir = root / "hf" / "org" / name;
    fs::create_directories(dir);
    canitrun::test::small_llama_writer("Hostile").write_sparse_file(
        (dir / "Hostile-Q4_K_M.gguf").string());
    write_text(dir / ".redirect", where);
    write_text(dir / ".gated", "");
}

fs::path hostile_root() {
    fs::path root = canitrun::test::fresh_temp_dir("hostile-hub");
    hostile_repo(root, "elsewhere", "other");
    hostile_repo(root, "plain-cdn", "plain");
    // A GGUF that claims 2^62 tensors in a 64-byte file: refused at its first block.
    std::string broken = "GGUF";
    const auto u32 = [&](std::uint32_t v) {
        for (int i = 0; i < 4; ++i) broken += static_cast<char>((v >> (8 * i)) & 0xff);
    };
    u32(3);
    u32(0);
    u32(1U << 30);  // n_tensors = 2^62 (little-endian u64: low word 0, high word 2^30)
    broken += std::string(48, '\0');
    write_text(root / "hf/org/broken/Broken-Q4_K_M.gguf", broken);
    // JSON nested 100,000 deep as a listing and as a config.json.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    write_text(root / "hf/org/deep-tree/.tree", deep);
    write_text(root / "hf/org/deep-config/config.json", deep);
    // A split model of two parts, each holding 70 arrays of 65,536 bools: 36,700,160 bytes
    // held each (x 8 per value), 73,400,320 together, past the 64 MiB of one model.
    fs::create_directories(root / "hf/org/heavy");
    for (int part = 1; part <= 2; ++part) {
        canitrun::test::GgufWriter w = canitrun::test::small_llama_writer("Heavy");
        const std::vector<bool> bits(65536, true);
        for (int i = 0; i < 70; ++i) w.bool_array("heavy." + std::to_string(i), bits);
        w.u16("split.no", static_cast<std::uint16_t>(part - 1));
        w.u16("split.count", 2);
        w.write_sparse_file(
            (root / ("hf/org/heavy/Heavy-Q4_K_M-0000" + std::to_string(part) + "-of-00002.gguf"))
                .string());
    }
    // A file whose name holds '?' and '#' (read whole only when escaped), and one whose name
    // holds a terminal escape (passed over).
    fs::create_directories(root / "hf/org/odd");
    canitrun::test::small_llama_writer("Odd").write_sparse_file(
        (root / "hf/org/odd/odd?x#y-Q4_K_M.gguf").string());
    canitrun::test::small_llama_writer("Odd").write_sparse_file(
        (root / "hf/org/odd/\x1b[2Jevil-Q8_0.gguf").string());
    // A safetensors repo of 65 shards, one past the most canitrun reads.
    write_text(root / "hf/org/shards/config.json",
               R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                   "intermediate_size": 14336, "max_position_embeddings": 8192})");
    for (int i = 1; i <= 65; ++i) {
        write_text(root / ("hf/org/shards/model-" + std::to_string(100 + i) + ".safetensors"),
                   std::string("\x02\0\0\0\0\0\0\0{}", 10));
    }
    return root;
}

HubProcess& hub() {
    static HubProcess h(hostile_root());
    return h;
}

std::string base() {
    return "http://127.0.0.1:" + std::to_string(hub().port());
}

std::vector<std::string> env_for(const std::string& endpoint, const std::string& token) {
    const fs::path root = hub().root();
    return {"HF_ENDPOINT=" + endpoint,
            "HF_TOKEN=" + token,
            "XDG_CACHE_HOME=" + (root / "cache").string(),
            "HOME=" + (root / "home").string(),
            "HF_HUB_OFFLINE=",
            "CURL_CA_BUNDLE=",
            "NO_PROXY=127.0.0.1,127.0.0.2",
            "no_proxy=127.0.0.1,127.0.0.2"};
}

// Which listeners got an Authorization header, and how many requests each got, since `before`.
struct Seen {
    std::vector<std::string> auth;
    json listeners;
};
Seen seen_since(const json& before, const json& after) {
    Seen s;
    const auto& a = after["auth"];
    for (std::size_t i = before["auth"].size(); i < a.size(); ++i) s.auth.push_back(a[i]);
    s.listeners = json::object();
    for (const auto& [name, n] : after["listeners"].items()) {
        const int was =
            before["listeners"].contains(name) ? before["listeners"][name].get<int>() : 0;
        s.listeners[name] = n.get<int>() - was;
    }
    return s;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("hostile: HF_TOKEN goes to the endpoint's host only, never where a redirect points") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const json before = hub().stats();
    // --no-cache is not a flag: a cache folder of its own makes every block a request.
    auto env = env_for(base(), "good-token");
    env.push_back("XDG_CACHE_HOME=" + (hub().root() / "cache-token").string());
    const Outcome o = run_cli({"hf:org/elsewhere:Q4_K_M", "--json"}, env);
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(json::parse(o.out)["weights_bytes"] == canitrun::test::kSmallLlamaTensorBytes);
    const Seen seen = seen_since(before, hub().stats());
    // The resolve step (gated: it needs the token) went to the endpoint; every block of the
    // header came from 127.0.0.2, and not one of those requests carried the token.
    CHECK(seen.listeners["main"].get<int>() >= 1);
    CHECK(seen.listeners["other"].get<int>() >= 1);
    REQUIRE(!seen.auth.empty());
    for (const auto& name : seen.auth) CHECK(name == "main");
}

TEST_CASE("hostile: an https endpoint's token is never sent over http, even on its own host") {
    if (!canitrun::test::have_python()) return;
    const fs::path root = canitrun::test::fresh_temp_dir("tls-hub");
    const std::string cert = (root / "cert.pem").string();
    const std::string key = (root / "key.pem").string();
    const Outcome made = canitrun::test::run_shell(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext "
        "subjectAltName=IP:127.0.0.1 -keyout " +
        key + " -out " + cert + " >/dev/null");
    if (made.code != 0) {
        WARN("openssl could not make a certificate: the TLS case is not run");
        return;
    }
    hostile_repo(root / "site", "plain-cdn", "plain");
    HubProcess tls(root / "site", {"--tls", cert, key});
    REQUIRE(tls.up());
    const json before = tls.stats();
    auto env = env_for("https://127.0.0.1:" + std::to_string(tls.port()), "good-token");
    env.push_back("CURL_CA_BUNDLE=" + cert);
    env.push_back("XDG_CACHE_HOME=" + (root / "cache").string());
    const Outcome o = run_cli({"hf:org/plain-cdn:Q4_K_M", "--json", "--timeout", "8"}, env);
    INFO(o.err);
    REQUIRE(o.code == 0);
    const Seen seen = seen_since(before, tls.stats());
    CHECK(seen.listeners["plain"].get<int>() >= 1);  // the blocks came over http
    REQUIRE(!seen.auth.empty());
    for (const auto& name : seen.auth) CHECK(name == "main");  // the token over TLS only
    fs::remove_all(root);
}

TEST_CASE("hostile: a password inside HF_ENDPOINT is never printed") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const std::string endpoint = "http://user:hunter2@127.0.0.1:" + std::to_string(hub().port());
    const std::vector<std::string> args = {"hf:org/missing:Q4_K_M"};
    const Outcome o = run_cli(args, env_for(endpoint, ""));
    check_refusal(o, args, "not found");
    CHECK(!has(o.err, "hunter2"));
    CHECK(!has(o.err, "user:"));
    CHECK(has(o.err, "http://127.0.0.1:" + std::to_string(hub().port())));
    // Nor when the server cannot be reached at all (libcurl's message names the address).
    const std::vector<std::string> closed = {"hf:org/x"};
    const Outcome c = run_cli(closed, env_for("http://u:hunter2@127.0.0.1:1", ""));
    check_refusal(c, closed, "127.0.0.1:1");
    CHECK(!has(c.err, "hunter2"));
}

TEST_CASE("hostile: a line break in HF_TOKEN or the token file adds no header") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const json before = hub().stats();
    const std::vector<std::string> args = {"hf:org/elsewhere:Q4_K_M"};
    check_refusal(run_cli(args, env_for(base(), "good-token\r\nX-Injected: 1")), args,
                  "the Hugging Face token holds a line break");
    const fs::path home = hub().root() / "token-home";
    write_text(home / ".cache/huggingface/token", "good-token\nX-Injected: 1\n");
    auto env = env_for(base(), "");
    env.push_back("HOME=" + home.string());
    check_refusal(run_cli(args, env), args, "line break");
    // Refused before anything was sent.
    CHECK(hub().stats()["requests"] == before["requests"]);
}

TEST_CASE("hostile: a body that trickles is cut off at --timeout for the whole answer") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    // 2 bytes every 1.5 s never trips a 1-byte/s low-speed limit: only the deadline stops it.
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> args = {base() + "/bad/trickle/x.gguf", "--timeout", "2"};
    check_refusal(run_cli(args, env_for(base(), "")), args, "--timeout");
    CHECK(seconds_since(start) < 2 + 5);
}

TEST_CASE("hostile: Retry-After cannot stretch a request past --timeout") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    // Every answer is 429 with Retry-After: 30; four attempts used to wait 90 s.
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> args = {base() + "/bad/retry-storm/x.gguf", "--timeout", "2"};
    check_refusal(run_cli(args, env_for(base(), "")), args, "HTTP 429");
    CHECK(seconds_since(start) < 2 + 5);
}

TEST_CASE(
    "hostile: a cache folder others can write or a link is refused, a refusal keeps nothing") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const fs::path cache = hub().root() / "cache-hostile";
    auto env = env_for(base(), "");
    env.push_back("XDG_CACHE_HOME=" + cache.string());
    const std::vector<std::string> args = {"hf:org/elsewhere:Q4_K_M", "--timeout", "5"};
    fs::create_directories(cache / "canitrun/http");
    fs::permissions(cache / "canitrun/http", fs::perms::all, fs::perm_options::replace);
    check_refusal(run_cli(args, env), args, "is writable by other users");
    // A link planted where the folder goes.
    fs::remove_all(cache / "canitrun/http");
    fs::create_directories(hub().root() / "victim");
    fs::create_directory_symlink(hub().root() / "victim", cache / "canitrun/http");
    check_refusal(run_cli(args, env), args, "is a symbolic link");
    CHECK(fs::is_empty(hub().root() / "victim"));
    fs::remove(cache / "canitrun/http");
    // A header that is refused leaves no entry behind (the listing and the block it read).
    const std::vector<std::string> broken = {"hf:org/broken:Q4_K_M", "--timeout", "5"};
    check_refusal(run_cli(broken, env), broken, "tensor count");
    CHECK(fs::is_empty(cache / "canitrun/http"));
    // One that is answered is kept.
    env.push_back("HF_TOKEN=good-token");
    const Outcome good = run_cli(args, env);
    INFO(good.err);
    REQUIRE(good.code == 0);
    CHECK_FALSE(fs::is_empty(cache / "canitrun/http"));
    // A flipped byte in every entry (their last byte: the body's) is a miss, never an answer.
    const std::vector<std::string> offline = {"hf:org/elsewhere:Q4_K_M", "--offline"};
    REQUIRE(run_cli(offline, env).code == 0);
    for (const auto& e : fs::directory_iterator(cache / "canitrun/http")) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(-1, std::ios::end);
        const char last = static_cast<char>(f.get());
        f.seekp(-1, std::ios::end);
        f.put(static_cast<char>(last ^ 1));
    }
    check_refusal(run_cli(offline, env), offline, "not in the cache");
}

TEST_CASE("hostile: deep JSON from the Hub is refused before it is parsed") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const auto env = env_for(base(), "");
    const std::vector<std::string> tree = {"hf:org/deep-tree", "--timeout", "5"};
    check_refusal(run_cli(tree, env), tree, "the Hub's file listing nests deeper than 64 levels");
    const std::vector<std::string> config = {"hf:org/deep-config", "--timeout", "5"};
    check_refusal(run_cli(config, env), config, "config.json nests deeper than 64 levels");
}

TEST_CASE("hostile: past 64 safetensors shards, none is read and the page says so") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const json before = hub().stats();
    const Outcome o = run_cli({"hf:org/shards", "--json", "--timeout", "5"}, env_for(base(), ""));
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(json::parse(o.out)["params_source"] ==
          "config.json (architecture formula: the repo's 65 safetensors shards are more than "
          "the 64 canitrun reads)");
    // The listing, config.json's resolve and its redirect: no shard.
    const json after = hub().stats();
    CHECK(after["requests"].get<int>() - before["requests"].get<int>() == 3);
}

TEST_CASE("hostile: a remote split model's headers are capped all parts together") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    // The parts stream 64 MiB from a Python server: a sanitized build on a busy machine took
    // longer than 5 s, and the deadline is not what this case checks.
    const std::vector<std::string> args = {"hf:org/heavy:Q4_K_M", "--timeout", "60"};
    check_refusal(run_cli(args, env_for(base(), "")), args,
                  "would hold more than 64 MiB in memory");
}

TEST_CASE("hostile: Hub file names are escaped in addresses and never print escapes") {
    if (!canitrun::test::have_python()) return;
    REQUIRE(hub().up());
    const Outcome list = run_cli({"hf:org/odd", "--timeout", "5"}, env_for(base(), ""));
    INFO(list.err);
    REQUIRE(list.code == 0);
    CHECK(has(list.out, "Q4_K_M"));
    CHECK_FALSE(has(list.out, "\x1b"));
    CHECK_FALSE(has(list.out, "Q8_0"));  // the file with the escape is passed over
    const Outcome one =
        run_cli({"hf:org/odd:Q4_K_M", "--json", "--timeout", "5"}, env_for(base(), ""));
    INFO(one.err);
    REQUIRE(one.code == 0);
    CHECK(json::parse(one.out)["weights_bytes"] == canitrun::test::kSmallLlamaTensorBytes);
}

TEST_CASE("hostile: an origin is scheme, host and port, without a password") {
    using canitrun::url_origin;
    CHECK(url_origin("https://huggingface.co/org/repo") == "https://huggingface.co:443");
    CHECK(url_origin("HTTP://Host:8080/x?y") == "http://host:8080");
    CHECK(url_origin("http://user:pw@127.0.0.1:5/a") == "http://127.0.0.1:5");
    CHECK(url_origin("http://[::1]/a") == "http://[::1]:80");
    CHECK(url_origin("ftp://host/a").empty());
    CHECK(url_origin("https:///a").empty());
    // The same host over http is another origin than over https.
    CHECK(url_origin("http://huggingface.co/x") != url_origin("https://huggingface.co/x"));
    canitrun::HttpRequest r;
    r.credential = canitrun::Credential{"https://hub:443", "Authorization", "Bearer t"};
    CHECK(canitrun::credential_for(r, "https://hub/org/repo") != nullptr);
    CHECK(canitrun::credential_for(r, "https://cdn.hub/org/repo") == nullptr);
    CHECK(canitrun::credential_for(r, "http://hub/org/repo") == nullptr);
    CHECK(canitrun::credential_for(r, "https://hub:444/org/repo") == nullptr);
    CHECK(canitrun::credential_for(r, "https://hub@evil/org/repo") == nullptr);
}

TEST_CASE("hostile: a message loses the password of every address in it") {
    using canitrun::without_url_userinfo;
    CHECK(without_url_userinfo("https://u:p@h/x: not found from http://a:b@c:1/y") ==
          "https://h/x: not found from http://c:1/y");
    CHECK(without_url_userinfo("see https://h/a@b") == "see https://h/a@b");  // '@' in a path
    CHECK(without_url_userinfo("no address @ all") == "no address @ all");
}

TEST_CASE("hostile: a listed file name is escaped in its address") {
    canitrun::RemoteSpec spec;
    spec.repo = "org/r";
    CHECK(canitrun::hf_file_url("http://e", spec, "dir/a?b#c d%.gguf") ==
          "http://e/org/r/resolve/main/dir/a%3Fb%23c%20d%25.gguf");
    // As typed in an address, the name is decoded once and encoded again.
    auto typed =
        canitrun::parse_remote_spec("https://huggingface.co/org/r/resolve/main/a%3Fb.gguf");
    REQUIRE(typed);
    CHECK(typed->file == "a?b.gguf");
    CHECK(canitrun::hf_file_url("http://e", *typed, typed->file) ==
          "http://e/org/r/resolve/main/a%3Fb.gguf");
}
