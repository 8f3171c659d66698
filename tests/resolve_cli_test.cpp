// The command line resolved once (src/cli/request.hpp, issue #35): a flag's value means the same
// to every command that takes it. Each case asks several commands the same question through the
// real binary and expects one answer: the same bytes of RAM, the same refusal, the same context.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

using canitrun::test::check_refusal;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using json = nlohmann::json;

namespace {

json json_of(const std::vector<std::string>& args) {
    const Outcome o = run_cli(args);
    INFO("args: " << args.front() << " ... stderr: " << o.err);
    REQUIRE((o.code == 0 || o.code == 1));
    return json::parse(o.out);
}

}  // namespace

TEST_CASE("resolve: --ram is bytes to every command, a fraction included") {
    // 0.5 GB is 500,000,000 bytes (GB = 10^9), and 63.9 GB is 63,900,000,000: every command
    // plans with exactly that, where the lists once took whole GB (63) and --gpu the bytes.
    for (const auto& [text, bytes] : {std::pair{"0.5", 500000000ULL}, {"63.9", 63900000000ULL}}) {
        INFO("--ram " << text);
        const json page = json_of({"llama-3.1-8b", "--gpu", "RTX 4090", "--ram", text, "--json"});
        CHECK(page["hardware"]["hardware"]["ram_bytes"] == bytes);
        const json fit = json_of({"fit", "--gpu", "RTX 4090", "--ram", text, "--json"});
        CHECK(fit["hardware"]["ram_bytes"] == bytes);
        const json gpus = json_of({"gpus", "llama-3.1-8b", "--ram", text, "--json"});
        CHECK(gpus["gpus"]["ram_gb_assumed"].get<double>() ==
              Approx(static_cast<double>(bytes) / 1e9));
        const json lists = json_of({"llama-3.1-8b", "--ram", text, "--json"});
        CHECK(lists["gpus"]["ram_gb_assumed"].get<double>() ==
              Approx(static_cast<double>(bytes) / 1e9));
        const Outcome compare = run_cli({"compare", "llama-3.1-8b", "qwen3-8b", "--ram", text});
        CHECK(compare.code == 0);
    }
}

TEST_CASE("resolve: a context past the window is refused by every view of the model") {
    // Llama 3.1 8B's window is 131,072 tokens (its config.json max_position_embeddings); 1M is
    // past it for llama.cpp, vLLM, exo and the comparison alike.
    const std::string message = "context 1M is past llama-3.1-8b's window of 131,072 tokens";
    const std::vector<std::vector<std::string>> asks = {
        {"llama-3.1-8b", "--ctx", "1M"},
        {"llama-3.1-8b", "--ctx", "1M", "--gpu", "RTX 4090"},
        {"gpus", "llama-3.1-8b", "--ctx", "1M"},
        {"llama-3.1-8b", "--ctx", "1M", "--engine", "vllm", "--gpu", "RTX 4090"},
        {"llama-3.1-8b", "--ctx", "1M", "--engine", "exo", "--host", "m3-ultra-256gb"},
        {"llama-3.1-8b", "--ctx", "1M", "--host", "2x3090", "--host", "2x3090"},
    };
    for (const auto& args : asks) check_refusal(run_cli(args), args, message);
    const std::vector<std::string> compare = {"compare", "llama-3.1-8b", "qwen3-8b", "--ctx", "1M"};
    check_refusal(run_cli(compare), compare, message);
}

TEST_CASE("resolve: the default context never passes the window, in every engine") {
    // Llama 2 7B's window is 4,096 tokens (config.json max_position_embeddings), below the 8k
    // default: the page, vLLM and exo all plan 4,096.
    CHECK(json_of({"llama-2-7b", "--json"})["context"] == 4096);
    CHECK(json_of({"llama-2-7b", "--engine", "vllm", "--gpu", "RTX 4090", "--json"})["context"] ==
          4096);
    CHECK(json_of({"llama-2-7b", "--engine", "exo", "--host", "m3-ultra-256gb",
                   "--json"})["context"] == 4096);
}

TEST_CASE("resolve: a llama.cpp flag under --engine quick is refused whatever its value") {
    // "Given" is whether the flag was typed: --ubatch 512 (llama.cpp's default) is refused as
    // --ubatch 513 is, by every command that takes --engine.
    for (const std::string value : {"512", "513"}) {
        const std::vector<std::vector<std::string>> asks = {
            {"llama-3.1-8b", "--engine", "quick", "--ubatch", value},
            {"gpus", "llama-3.1-8b", "--engine", "quick", "--ubatch", value},
            {"fit", "--gpu", "RTX 4090", "--engine", "quick", "--ubatch", value},
            {"compare", "llama-3.1-8b", "qwen3-8b", "--engine", "quick", "--ubatch", value},
            {"local", "--gpu", "RTX 4090", "--engine", "quick", "--ubatch", value},
        };
        for (const auto& args : asks) {
            // local reads the stores under HOME: an empty one answers as fast as any.
            check_refusal(run_cli(args, {"HOME=/nonexistent-canitrun-home"}), args,
                          "--ubatch is a llama.cpp setting, and --engine quick has none");
        }
    }
}

TEST_CASE("resolve: --margin reaches the words that state it, as it reaches the plans") {
    // 512 MiB kept free, not the default 1 GiB: the page's rule line, its allocation table's
    // note and the GPU lists all say so.
    const Outcome page = run_cli({"llama-3.1-8b", "--margin", "512"});
    REQUIRE(page.code == 0);
    CHECK(canitrun::test::has(page.out, "512 MiB kept free per GPU"));
    CHECK(canitrun::test::has(page.out, "A GPU also keeps 512 MiB free"));
    CHECK_FALSE(canitrun::test::has(page.out, "1 GiB"));
    const Outcome gpus = run_cli({"gpus", "llama-3.1-8b", "--margin", "512"});
    REQUIRE(gpus.code == 0);
    CHECK(canitrun::test::has(gpus.out, "beside 512 MiB kept free"));
}
