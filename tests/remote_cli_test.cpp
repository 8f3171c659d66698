// Remote models through the binary, against tests/support/hub_server.py on 127.0.0.1: a fake
// Hugging Face Hub (listing, resolve with its 302 to a CDN path that serves ranges, a gated
// repo) and Ollama registry (manifest, blob redirect), serving full-size sparse GGUF files
// written by the GGUF writer. No test here needs the network.

#include <csignal>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"
#include "support/hub_process.hpp"

using canitrun::test::GgufWriter;
using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A Llama 3.1 8B header with a 200,000-token vocabulary (about 3.4 MB of strings, so the
// header is read in more than one block) and two tensors: token_embd q4_K 4096 x 128256 and
// one f32 norm; the tensor data is a hole in the file.
GgufWriter big_header_llama() {
    GgufWriter w = canitrun::test::small_llama_writer("Remote Llama");
    std::vector<std::string> tokens;
    tokens.reserve(200000);
    for (int i = 0; i < 200000; ++i) tokens.push_back("tok" + std::to_string(1000000 + i));
    w.str_array("tokenizer.ggml.tokens", tokens);
    return w;
}

// token_embd: 128256 rows x 16 q4_K blocks x 144 bytes; output_norm: 4096 x 4.
constexpr std::uint64_t kTensorBytes = canitrun::test::kSmallLlamaTensorBytes;

class Hub {
  public:
    Hub() {
        root_ = canitrun::test::fresh_temp_dir("hub");
        fs::create_directories(root_ / "hf" / "org" / "repo" / "Q8_0");
        fs::create_directories(root_ / "hf" / "org" / "gated");
        fs::create_directories(root_ / "ollama" / "library" / "tiny");
        fs::create_directories(root_ / "ollama" / "blobs");
        const GgufWriter model = big_header_llama();
        header_bytes_ = model.header().size();
        model.write_sparse_file((root_ / "hf/org/repo/Remote-Llama-Q4_K_M.gguf").string());
        // A split model: two parts, each with one of the tensors and the split keys.
        for (int part = 1; part <= 2; ++part) {
            GgufWriter w = part == 1 ? big_header_llama() : GgufWriter{};
            if (part == 2) w.str("general.architecture", "llama");
            w.u16("split.no", static_cast<std::uint16_t>(part - 1));
            w.u16("split.count", 2);
            (void)w;
            w.write_sparse_file((root_ / ("hf/org/repo/Q8_0/Remote-Llama-Q8_0-0000" +
                                          std::to_string(part) + "-of-00002.gguf"))
                                    .string());
        }
        // A safetensors repo: a config.json and one shard whose header holds one BF16 tensor
        // of 1000 x 1000 (1,000,000 parameters); its data is a hole.
        fs::create_directories(root_ / "hf/org/st");
        fs::copy_file(fs::path(CANITRUN_FIXTURES) / "hf/qwen3-next/config.json",
                      root_ / "hf/org/st/config.json");
        {
            const std::string header =
                R"({"w":{"dtype":"BF16","shape":[1000,1000],"data_offsets":[0,2000000]}})";
            std::string bytes(8, '\0');
            for (int i = 0; i < 8; ++i) {
                bytes[static_cast<std::size_t>(i)] =
                    static_cast<char>((header.size() >> (8 * i)) & 0xff);
            }
            std::FILE* f = std::fopen((root_ / "hf/org/st/model.safetensors").c_str(), "wb");
            if (f != nullptr) {
                std::fwrite(bytes.data(), 1, 8, f);
                std::fwrite(header.data(), 1, header.size(), f);
                std::fclose(f);
            }
            fs::resize_file(root_ / "hf/org/st/model.safetensors", 8 + header.size() + 2000000);
        }
        GgufWriter proj;
        proj.str("general.architecture", "clip");
        proj.tensor("v.patch_embd.weight", {1024, 1024}, 1);
        proj.write_sparse_file((root_ / "hf/org/repo/mmproj-F16.gguf").string());
        model.write_sparse_file((root_ / "hf/org/gated/Remote-Llama-Q4_K_M.gguf").string());
        std::FILE* gated = std::fopen((root_ / "hf/org/gated/.gated").c_str(), "w");
        if (gated != nullptr) std::fclose(gated);
        const std::string digest(64, 'a');
        model.write_sparse_file((root_ / "ollama/blobs" / ("sha256-" + digest)).string());
        std::FILE* m = std::fopen((root_ / "ollama/library/tiny/latest.json").c_str(), "w");
        if (m != nullptr) {
            const json manifest = {
                {"schemaVersion", 2},
                {"layers",
                 {{{"mediaType", "application/vnd.ollama.image.model"},
                   {"digest", "sha256:" + digest},
                   {"size", fs::file_size(root_ / "ollama/blobs" / ("sha256-" + digest))}},
                  {{"mediaType", "application/vnd.ollama.image.projector"},
                   {"digest", "sha256:" + std::string(64, 'b')},
                   {"size", 2097152}}}}};
            const std::string text = manifest.dump();
            std::fwrite(text.data(), 1, text.size(), m);
            std::fclose(m);
        }
        server_ = std::make_unique<canitrun::test::HubProcess>(root_);
    }
    Hub(const Hub&) = delete;
    Hub& operator=(const Hub&) = delete;

    bool up() const { return server_->up(); }
    std::string base() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }
    std::uint64_t header_bytes() const { return header_bytes_; }
    fs::path root() const { return root_; }

    // The environment of one run: this server for the Hub and the registry, a cache of its own.
    std::vector<std::string> env(const std::string& cache = "cache") const {
        return {"HF_ENDPOINT=" + base(),
                "CANITRUN_OLLAMA_REGISTRY=" + base(),
                "XDG_CACHE_HOME=" + (root_ / cache).string(),
                "HOME=" + (root_ / "home").string(),
                "HF_TOKEN=",
                "HF_HUB_OFFLINE=",
                "OLLAMA_MODELS=" + (root_ / "no-ollama-store").string(),
                "NO_PROXY=127.0.0.1",
                "no_proxy=127.0.0.1"};
    }

    json stats() const { return server_->stats(); }

  private:
    fs::path root_;
    std::unique_ptr<canitrun::test::HubProcess> server_;  // removes root_ when it stops
    std::uint64_t header_bytes_ = 0;
};

Hub& hub() {
    static Hub h;
    return h;
}

// Without python3 there is no loopback server: said, not silently passed.
bool no_server() {
    return !canitrun::test::have_python();
}

std::vector<std::string> with(std::vector<std::string> env, const std::string& extra) {
    env.push_back(extra);
    return env;
}

}  // namespace

TEST_CASE("remote: a Hugging Face repo lists its GGUF models, split parts joined") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome o = run_cli({"hf:org/repo"}, hub().env());
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "hf:org/repo"));
    CHECK(has(o.out, "Q4_K_M"));
    CHECK(has(o.out, "Q8_0"));
    CHECK(has(o.out, "Vision projector: mmproj-F16.gguf"));
    const Outcome j = run_cli({"hf:org/repo", "--json"}, hub().env());
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    bool split = false;
    for (const auto& m : doc["models"]) {
        if (m["quant"] == "Q8_0") {
            split = m["files"].size() == 2;
            const auto dir = hub().root() / "hf/org/repo/Q8_0";
            CHECK(m["bytes"] == fs::file_size(dir / "Remote-Llama-Q8_0-00001-of-00002.gguf") +
                                    fs::file_size(dir / "Remote-Llama-Q8_0-00002-of-00002.gguf"));
        }
    }
    CHECK(split);
    CHECK(doc["projectors"][0] == "mmproj-F16.gguf");
    // With --gpu, each row's plan on it: 0.3 GB of weights run natively on a 24 GB card.
    const Outcome g = run_cli({"hf:org/repo", "--json", "--gpu", "RTX 4090"}, hub().env());
    REQUIRE(g.code == 0);
    const json planned = json::parse(g.out);  // kept: a loop over a temporary's member dangles
    for (const auto& m : planned["models"]) CHECK(m["plan"] == "native");
}

TEST_CASE("remote: hf:ORG/REPO:QUANT reads the header by range, never the weights") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const json before = hub().stats();
    const Outcome o = run_cli({"hf:org/repo:Q4_K_M", "--json"}, hub().env("cache-q4"));
    INFO(o.err);
    REQUIRE(o.code == 0);
    const json doc = json::parse(o.out);
    CHECK(doc["weights_bytes"] == kTensorBytes);
    CHECK(doc["architecture"] == "llama");
    const json after = hub().stats();
    const auto requests = after["requests"].get<int>() - before["requests"].get<int>();
    const auto bytes = after["bytes"].get<std::uint64_t>() - before["bytes"].get<std::uint64_t>();
    // The listing, the resolve redirect, then blocks of 1 MiB straight from the CDN until the
    // header (about 3.4 MB) is read: its size plus at most 1 MiB, and the small listing.
    CHECK(requests <= 5);
    CHECK(bytes <= hub().header_bytes() + (1U << 20) + 4096);
    CHECK(bytes >= hub().header_bytes());
}

TEST_CASE("remote: a split model's parts are read and joined, and ORG/REPO:QUANT is a repo") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome split = run_cli({"hf:org/repo:q8_0", "--json"}, hub().env());
    INFO(split.err);
    REQUIRE(split.code == 0);
    CHECK(json::parse(split.out)["parts"] == 2);
    const Outcome plain = run_cli({"org/repo:Q4_K_M"}, hub().env());
    INFO(plain.err);
    REQUIRE(plain.code == 0);
    CHECK(has(plain.out, "hf:org/repo:Q4_K_M"));
    CHECK(has(plain.out, "Remote Llama"));
}

TEST_CASE("remote: a safetensors repo is its config.json, its parameters from the headers") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome o = run_cli({"hf:org/st", "--json"}, hub().env());
    INFO(o.err);
    REQUIRE(o.code == 0);
    const json doc = json::parse(o.out);
    CHECK(doc["params_source"] == "safetensors headers");
    CHECK(doc["model"]["params_total"] == 1000000);
    CHECK(doc["quants"].size() >= 5);  // the page at every quantization
    const Outcome q8 = run_cli({"hf:org/st:Q8_0"}, hub().env());
    INFO(q8.err);
    REQUIRE(q8.code == 0);
    CHECK(has(q8.out, "From hf:org/st"));
    CHECK(has(q8.out, "How to run it locally (Q8_0)"));
}

TEST_CASE("remote: a URL, and an Ollama model with its projector") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome url = run_cli(
        {hub().base() + "/org/repo/resolve/main/Remote-Llama-Q4_K_M.gguf", "--json"}, hub().env());
    INFO(url.err);
    REQUIRE(url.code == 0);
    CHECK(json::parse(url.out)["weights_bytes"] == kTensorBytes);
    const Outcome ollama = run_cli({"ollama:tiny", "--json"}, hub().env());
    INFO(ollama.err);
    REQUIRE(ollama.code == 0);
    const json doc = json::parse(ollama.out);
    CHECK(doc["weights_bytes"] == kTensorBytes);
    CHECK(doc["mmproj_bytes"] == 2097152);
}

TEST_CASE("remote: what was read is cached, and --offline answers from the cache alone") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const auto env = hub().env("cache-offline");
    REQUIRE(run_cli({"hf:org/repo:Q4_K_M"}, env).code == 0);
    const json before = hub().stats();
    const Outcome again = run_cli({"hf:org/repo:Q4_K_M", "--offline"}, env);
    INFO(again.err);
    CHECK(again.code == 0);
    CHECK(hub().stats()["requests"] == before["requests"]);  // no request at all
    const Outcome hub_offline = run_cli({"hf:org/repo:Q4_K_M"}, with(env, "HF_HUB_OFFLINE=1"));
    CHECK(hub_offline.code == 0);
    canitrun::test::check_refusal(
        run_cli({"hf:org/repo:Q4_K_M", "--offline"}, hub().env("cache-empty")),
        {"hf:org/repo:Q4_K_M", "--offline"}, "not in the cache");
}

TEST_CASE("remote: each failure is one line and exit 2, with what to do") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const auto env = hub().env("cache-errors");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"hf:org/gated:Q4_K_M"}, "HF_TOKEN"},
        {{"hf:org/gated:Q4_K_M"}, "accept the licence at " + hub().base() + "/org/gated"},
        {{"hf:org/missing"}, "not found"},
        {{"hf:org/repo:Q5_K_M"}, "its GGUF quantizations: Q8_0, Q4_K_M"},
        {{"ollama:nothing:7b"}, "not found"},
        {{hub().base() + "/bad/ignore-ranges/hf/org/repo/Remote-Llama-Q4_K_M.gguf"},
         "ignores range requests"},
        {{hub().base() + "/bad/wrong-range/hf/org/repo/Remote-Llama-Q4_K_M.gguf"}, "Content-Range"},
        {{hub().base() + "/bad/truncated/hf/org/repo/Remote-Llama-Q4_K_M.gguf"}, "canitrun"},
        {{hub().base() + "/bad/loop"}, "redirects in a loop"},
        {{hub().base() + "/bad/500/x.gguf"}, "HTTP 500"},
        {{"http://127.0.0.1:1/model.gguf"}, "127.0.0.1:1"},
    };
    for (const auto& [args, message] : cases) {
        canitrun::test::check_refusal(run_cli(args, env), args, message);
    }
    // The gated repo opens with a token.
    const Outcome token = run_cli({"hf:org/gated:Q4_K_M"}, with(env, "HF_TOKEN=good-token"));
    INFO(token.err);
    CHECK(token.code == 0);
    // 429 twice, then the file: retried, answered.
    const Outcome retried =
        run_cli({hub().base() + "/bad/429-twice/hf/org/repo/Remote-Llama-Q4_K_M.gguf"}, env);
    INFO(retried.err);
    CHECK(retried.code == 0);
}

TEST_CASE("remote: a server that accepts and never answers is cut off by --timeout") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> args = {hub().base() + "/bad/hang/x.gguf", "--timeout", "1"};
    canitrun::test::check_refusal(run_cli(args, hub().env()), args, "--timeout");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("remote: gpus and compare take remote models as operands") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome g = run_cli({"gpus", "hf:org/repo:Q4_K_M", "--json"}, hub().env());
    INFO(g.err);
    REQUIRE(g.code == 0);
    const Outcome c =
        run_cli({"compare", "llama-3.1-8b", "hf:org/repo:Q4_K_M", "--json"}, hub().env());
    INFO(c.err);
    REQUIRE(c.code == 0);
    CHECK(json::parse(c.out)["models"].size() == 2);
}

TEST_CASE("remote: the llama.cpp engine view reads the remote header too") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const Outcome o =
        run_cli({"hf:org/repo:Q4_K_M", "--engine", "llama.cpp", "--json"}, hub().env());
    INFO(o.err);
    REQUIRE(o.code == 0);
    // The same terms as the same file read from disk.
    const Outcome local = run_cli({(hub().root() / "hf/org/repo/Remote-Llama-Q4_K_M.gguf").string(),
                                   "--engine", "llama.cpp", "--json"});
    REQUIRE(local.code == 0);
    CHECK(json::parse(o.out)["estimate"] == json::parse(local.out)["estimate"]);
}

// A remote model's line loads it where it lives (#33): `-m hf:org/repo:Q4_K_M` names no file.
// llama-server's -hf REPO:TAG picks the file by its tag as canitrun did, and also fetches the
// repo's projector (mmproj-F16.gguf here), which the plan does not count, so the line says
// --no-mmproj (common/arg.cpp and common/download.cpp at 0ad4a86: download_mmproj unless
// no_mmproj); a URL is llama-server's -mu; an Ollama model from the registry its blobs by URL,
// the model (-mu) and the projector the plan counts (-mmu).
TEST_CASE("remote: the llama-server line loads the model where it lives") {
    if (no_server()) return;
    REQUIRE(hub().up());
    const auto command = [](const std::string& name) {
        const Outcome o = run_cli({name, "--gpu", "RTX 4090", "--json"}, hub().env());
        INFO(o.err);
        REQUIRE(o.code == 0);
        return json::parse(o.out)["hardware"]["llama_cpp_command"].get<std::string>();
    };
    CHECK(command("hf:org/repo:Q4_K_M") ==
          "llama-server -hf org/repo:Q4_K_M --no-mmproj -c 8192 -ngl 99 --parallel 1");
    const std::string url = hub().base() + "/org/repo/resolve/main/Remote-Llama-Q4_K_M.gguf";
    CHECK(command(url).starts_with("llama-server -mu " + url + " -c 8192 "));
    const std::string blobs = hub().base() + "/v2/library/tiny/blobs/sha256:";
    CHECK(command("ollama:tiny")
              .starts_with("llama-server -mu " + blobs + std::string(64, 'a') + " -mmu " + blobs +
                           std::string(64, 'b') + " -c 8192 "));
}
