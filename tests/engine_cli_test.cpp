// End to end: --engine llama.cpp | vllm on the real binary.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;

TEST_CASE("cli: --engine llama.cpp prints the term breakdown") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--engine", "llama.cpp", "--backend", "cpu"});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    CHECK(has(o.out, "llama.cpp 5b4ebc5 profile (cpu)"));
    for (const char* term : {"weights", "token_embd", "kv_cache", "recurrent_state", "compute",
                             "output", "runtime", "total"}) {
        CHECK(has(o.out, term));
    }
}

TEST_CASE("cli: --engine llama.cpp --json holds every term in bytes") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--engine", "llama.cpp", "--backend", "cpu",
                               "--ctx", "8192", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["engine"] == "llama.cpp");
    CHECK(doc["flash_attn"] == "on");
    CHECK(doc["llama_arch"] == "qwen35moe");
    std::uint64_t sum = 0;
    for (const auto& t : doc["estimate"]["terms"]) {
        sum += t["bytes"].get<std::uint64_t>();
        // 10 full layers x 8192 cells x 2 kv heads x 256 x 2 (K, V) x 2 bytes
        if (t["name"] == "kv_cache") CHECK(t["bytes"] == 10ULL * 8192 * 2048);
    }
    CHECK(doc["total_bytes"] == sum);
}

TEST_CASE("cli: --engine llama.cpp with --gpu answers fit with the exit code") {
    const Outcome small = run_cli({"llama-3.1-70b", "--engine", "llama.cpp", "--gpu", "RTX 4090"});
    CHECK(small.code == 1);
    CHECK(has(small.out, "does not fit"));
    const Outcome big = run_cli({"llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "RTX 4090"});
    CHECK(big.code == 0);
    CHECK(has(big.out, "fits"));
}

TEST_CASE("cli: --engine vllm reports max context and sequences") {
    const Outcome o = run_cli({"llama-3.1-8b", "--engine", "vllm", "--gpu", "h100", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["engine"] == "vllm");
    CHECK(doc["quant"] == "BF16");
    CHECK(doc["max_sequences_at_context"].get<std::uint64_t>() > 1);
    CHECK(doc["max_context_one_sequence"].get<std::uint64_t>() > 131072);
}

TEST_CASE("cli: bad engine values are one error line and exit 2 with nothing on stdout") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"llama-3.1-8b", "--engine", "tgi"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--flash-attn", "maybe"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--ubatch", "0"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--parallel", "x"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--cache-type-k", "q3_k"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--backend", "tpu"},
             {"llama-3.1-8b", "--engine", "llama.cpp", "--quant", "AWQ"},
             {"gemma-3n-e4b", "--engine", "llama.cpp"},
             {"gpus", "llama-3.1-8b", "--engine", "llama.cpp"},
             {"llama-3.1-8b", "--engine", "vllm"},
             {"llama-3.1-8b", "--engine", "vllm", "--gpu", "h100", "--gpu-memory-utilization",
              "1.5"}}) {
        INFO(args[1] << " " << args.back());
        const Outcome o = run_cli(args);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(o.err.rfind("canitrun: error: ", 0) == 0);
    }
}

TEST_CASE("cli: the default engine is quick and keeps the page") {
    const Outcome quick = run_cli({"qwen3.5-35b-a3b", "--engine", "quick"});
    const Outcome plain = run_cli({"qwen3.5-35b-a3b"});
    CHECK(quick.code == 0);
    CHECK(quick.out == plain.out);
}
