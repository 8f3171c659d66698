// `canitrun local` through the binary, over a home folder with one model in each store the
// tools keep: Ollama (a manifest naming a blob), the Hugging Face cache (a snapshot's symlink
// to a blob), LM Studio's models folder and llama.cpp's cache.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"

using canitrun::test::GgufWriter;
using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

GgufWriter small_llama(const std::string& name) {
    return canitrun::test::small_llama_writer(name);
}

constexpr std::uint64_t kWeights = canitrun::test::kSmallLlamaTensorBytes;

struct Home {
    Home() {
        root = fs::temp_directory_path() /
               ("canitrun-home-" +
                std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        const std::string digest(64, 'c');
        fs::create_directories(root / ".ollama/models/blobs");
        fs::create_directories(root /
                               ".ollama/models/manifests/registry.ollama.ai/library/llama3.1");
        small_llama("ollama model")
            .write_sparse_file((root / ".ollama/models/blobs" / ("sha256-" + digest)).string());
        std::ofstream(root / ".ollama/models/manifests/registry.ollama.ai/library/llama3.1/8b")
            << json{{"layers",
                     {{{"mediaType", "application/vnd.ollama.image.model"},
                       {"digest", "sha256:" + digest},
                       {"size", 1}}}}}
                   .dump();
        const fs::path repo = root / ".cache/huggingface/hub/models--org--Llama-GGUF";
        fs::create_directories(repo / "blobs");
        fs::create_directories(repo / "snapshots/abc123");
        small_llama("hf model").write_sparse_file((repo / "blobs/0123").string());
        fs::create_symlink("../../blobs/0123", repo / "snapshots/abc123/Llama-Q4_K_M.gguf");
        fs::create_directories(root / ".lmstudio/models/lmstudio-community/Llama-GGUF");
        small_llama("lm studio model")
            .write_sparse_file(
                (root / ".lmstudio/models/lmstudio-community/Llama-GGUF/Llama-Q4_K_M.gguf")
                    .string());
        // A projector beside it is not a model.
        GgufWriter proj;
        proj.str("general.architecture", "clip");
        proj.write_sparse_file(
            (root / ".lmstudio/models/lmstudio-community/Llama-GGUF/mmproj-F16.gguf").string());
        fs::create_directories(root / ".cache/llama.cpp");
        small_llama("llama.cpp model")
            .write_sparse_file(
                (root / ".cache/llama.cpp/org_Llama-GGUF_Llama-Q4_K_M.gguf").string());
        // An unreadable file is listed with why, not a failure of the whole listing.
        std::ofstream(root / ".cache/llama.cpp/broken.gguf") << "not a gguf";
    }
    ~Home() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    std::vector<std::string> env() const {
        return {"HOME=" + root.string(), "OLLAMA_MODELS=", "HF_HOME=", "LLAMA_CACHE=",
                canitrun::test::probe_recording("no-gpu")};
    }
    fs::path root;
};

}  // namespace

TEST_CASE("local: one model in each store, named as each tool names it") {
    const Home home;
    const Outcome o = run_cli({"local", "--gpu", "RTX 4090"}, home.env());
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "Models on this machine (5)"));
    CHECK(has(o.out, "llama3.1:8b"));
    CHECK(has(o.out, "org/Llama-GGUF/Llama-Q4_K_M.gguf"));
    CHECK(has(o.out, "lmstudio-community/Llama-GGUF/Llama-Q4_K_M.gguf"));
    CHECK(has(o.out, "org_Llama-GGUF_Llama-Q4_K_M.gguf"));
    CHECK(has(o.out, "unreadable"));
    CHECK_FALSE(has(o.out, "mmproj"));

    const Outcome j = run_cli({"local", "--json", "--gpu", "RTX 4090"}, home.env());
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    REQUIRE(doc["models"].size() == 5);
    std::vector<std::string> stores;
    for (const auto& m : doc["models"]) {
        stores.push_back(m["store"]);
        if (m["error"].is_null()) {
            CHECK(m["weights_bytes"] == kWeights);  // the tensors' bytes, from the header
            CHECK(m["plan"] == "native");
            CHECK(m["bytes"] == fs::file_size(m["path"].get<std::string>()));
        }
    }
    CHECK(stores ==
          std::vector<std::string>{"ollama", "huggingface", "lmstudio", "llama.cpp", "llama.cpp"});
    const Outcome csv = run_cli({"local", "--format", "csv"}, home.env());
    REQUIRE(csv.code == 0);
    CHECK(canitrun::test::lines_of(csv.out).size() == 6);
}

TEST_CASE("local: without --gpu the plans are for this machine, as detected") {
    const Home home;
    const Outcome o = run_cli({"local", "--json"}, home.env());
    INFO(o.err);
    REQUIRE(o.code == 0);
    const json doc = json::parse(o.out);
    CHECK(doc["hardware"] == "this machine's CPU and RAM");  // the no-GPU recording
}

TEST_CASE("local: no store at all is an empty listing, not an error") {
    const Outcome o = run_cli({"local"}, {"HOME=/nonexistent-canitrun-home",
                                          "OLLAMA_MODELS=", "HF_HOME=", "LLAMA_CACHE="});
    CHECK(o.code == 0);
    CHECK(has(o.out, "No GGUF model found"));
}
