// End to end: --engine llama.cpp | vllm on the real binary.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;

TEST_CASE("cli: the page under llama.cpp's rule shows what llama.cpp allocates") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--engine", "llama.cpp"});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    CHECK(has(o.out, "Figures: what llama.cpp allocates"));
    CHECK(has(o.out, "What llama.cpp allocates (Q4_K_M, 8k context, one CUDA GPU)"));
    for (const char* term : {"weights", "token_embd", "kv_cache", "recurrent_state", "compute",
                             "output", "runtime", "on the GPU", "in RAM"}) {
        CHECK(has(o.out, term));
    }
    // The page's rule would say 24.1 GB and a 32 GB card (the reference page); one sentence says
    // so.
    CHECK(has(o.out, "The page's 12 % rule would say 24.1 GB at Q4_K_M and a 32 GB card"));
}

TEST_CASE("cli: the page's JSON under llama.cpp's rule holds every term in bytes") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--ctx", "8192", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["rule"] == "llama.cpp");
    std::uint64_t sum = 0, gpu = 0;
    for (const auto& t : doc["estimate"]["terms"]) {
        sum += t["bytes"].get<std::uint64_t>();
        if (t["device"] == "gpu") gpu += t["bytes"].get<std::uint64_t>();
        // 10 full layers x 8192 cells x 2 kv heads x 256 x 2 (K, V) x 2 bytes
        if (t["name"] == "kv_cache") CHECK(t["bytes"] == 10ULL * 8192 * 2048);
        // The CUDA runtime measured on an H200 (validation/cuda-h200/): 672 MiB, and 96 MiB
        // of pool for a model with routed experts (llamacpp_engine.cpp)
        if (t["name"] == "runtime") CHECK(t["bytes"] == (672ULL + 96) << 20);
        // the logits: 248,320 vocab x 4 bytes, in RAM
        if (t["name"] == "output") CHECK(t["bytes"] == 248320ULL * 4);
        if (t["name"] == "token_embd") CHECK(t["device"] == "cpu");
    }
    CHECK(doc["estimate"]["total_bytes"] == sum);
    CHECK(doc["estimate"]["gpu_bytes"] == gpu);
    // The quick rule's figure, for contrast: the reference page's 24.1 GB and 32 GB card.
    CHECK(doc["quick_rule"]["card_gb"] == 32);
}

TEST_CASE("cli: --gpu answers fit with the exit code under llama.cpp's rule") {
    const Outcome small = run_cli({"llama-3.1-70b", "--engine", "llama.cpp", "--gpu", "RTX 4090"});
    CHECK(small.code == 1);
    const Outcome big = run_cli({"llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "RTX 4090"});
    CHECK(big.code == 0);
    CHECK(has(big.out, "Fits on the GPU"));
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
             {"llama-3.1-8b", "--engine", "quick", "--ubatch", "1024"},
             {"gpus", "llama-3.1-8b", "--engine", "vllm"},
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

TEST_CASE("cli: the default rule is llama.cpp's, and a model it cannot lay out says so") {
    const Outcome explicit_rule = run_cli({"qwen3.5-35b-a3b", "--engine", "llama.cpp"});
    const Outcome plain = run_cli({"qwen3.5-35b-a3b"});
    CHECK(plain.code == 0);
    CHECK(explicit_rule.out == plain.out);
    // Every database model has a layout; the tiny test database's family has none.
    const Outcome fallback =
        run_cli({"--data", CANITRUN_FIXTURES "/tiny-database", "tiny-dense-test"});
    CHECK(fallback.code == 0);
    CHECK(has(fallback.out, "not modelled yet, so the figures are the quick rule's"));
}

TEST_CASE(
    "engine cli: --engine llama.cpp on a config.json is the default plan and vllm is refused") {
    // llama.cpp is the default engine: naming it changes nothing for a Hugging Face checkpoint
    // (it read the config.json as a GGUF file: "bad magic").
    const std::string config = std::string(CANITRUN_FIXTURES) + "/hf/lfm2-700m/config.json";
    const Outcome plain = run_cli({config, "--json"});
    const Outcome named = run_cli({config, "--engine", "llama.cpp", "--json"});
    REQUIRE(plain.code == 0);
    CHECK(named.code == 0);
    CHECK(named.out == plain.out);
    const Outcome vllm = run_cli({config, "--engine", "vllm", "--gpu", "h100"});
    CHECK(vllm.code == 2);
    CHECK(vllm.out.empty());
    CHECK(has(vllm.err, "canitrun: error: --engine vllm plans database models, not a config.json"));
}

// llama-server reserves one output a slot (--parallel 1: the page's line), the library every
// token of the ubatch (--reserve-outputs all). Qwen3-30B-A3B on one CUDA GPU at 8,192 cells,
// ubatch 512, flash attention: the layers' phase, 512 x (2 x 8,192 f16 mask cells + 4 x (3 x
// 2,048 + 3 x 8 x 768 + 8 x 2,048 routed down floats)) = 92,274,688 B, against the logits of a
// whole ubatch, 512 x 4 x (151,936 + 2,048) = 315,359,232 B (the H200's 300.75 MiB).
TEST_CASE("cli: --reserve-outputs plans llama-server's outputs or every token's") {
    const auto compute = [](const std::vector<std::string>& args) -> std::uint64_t {
        const Outcome o = run_cli(args);
        REQUIRE(o.code == 0);
        const auto doc = nlohmann::json::parse(o.out);
        for (const auto& t : doc["estimate"]["terms"]) {
            if (t["name"] == "compute") return t["bytes"].get<std::uint64_t>();
        }
        return 0;
    };
    CHECK(compute({"qwen3-30b-a3b", "--json"}) == 92'274'688ULL);
    CHECK(compute({"qwen3-30b-a3b", "--reserve-outputs", "server", "--json"}) == 92'274'688ULL);
    CHECK(compute({"qwen3-30b-a3b", "--reserve-outputs", "all", "--json"}) == 315'359'232ULL);
    const Outcome quick =
        run_cli({"qwen3-30b-a3b", "--engine", "quick", "--reserve-outputs", "all"});
    CHECK(quick.code == 2);
    CHECK(has(quick.err, "--reserve-outputs is a llama.cpp setting"));
    const Outcome bad = run_cli({"qwen3-30b-a3b", "--reserve-outputs", "some"});
    CHECK(bad.code == 2);
    CHECK(has(bad.err, "--reserve-outputs takes server or all"));
}

// The page says which outputs its compute buffer is planned for (#37). llama-server's by
// default, n_parallel x (1 + drafted tokens) (llama_server_outputs; server_output_limits at
// 0ad4a86): GLM-4.5-Air with --mtp (its published files carry the layer) and --parallel 2 drafts
// up to 3 tokens a step (--spec-draft-n-max's default), so 2 x (1 + 3) = 8 outputs. With
// --reserve-outputs all every token of the ubatch, and the page names llama-server's 2 x 1 = 2
// it would reserve instead, in the rule's line and again in the --gpu answer.
TEST_CASE("cli: the page says which outputs the plan reserves, in every format") {
    const Outcome server = run_cli({"glm-4.5-air", "--mtp", "--parallel", "2", "--json"});
    REQUIRE(server.code == 0);
    const auto doc = nlohmann::json::parse(server.out);
    CHECK(doc["outputs_reserved"]["reserve"] == "server");
    CHECK(doc["outputs_reserved"]["outputs"] == 8);
    CHECK(has(doc["outputs_reserved"]["text"].get<std::string>(),
              "planned for llama-server's outputs, 8 outputs a ubatch"));

    const std::vector<std::string> all = {"glm-4.5-air",           "--parallel", "2",
                                          "--reserve-outputs",     "all",        "--gpu",
                                          "rtx-pro-6000-blackwell"};
    const std::string said = "planned for every token of the ubatch (--reserve-outputs all";
    const Outcome text = run_cli(all);
    CHECK(text.code == 0);
    // the rule's line and the --gpu answer
    const auto first = text.out.find(said);
    REQUIRE(first != std::string::npos);
    CHECK(text.out.find(said, first + 1) != std::string::npos);
    CHECK(has(text.out, "llama-server, which the printed lines run, reserves 2 outputs"));
    auto md = all;
    md.insert(md.end(), {"--format", "markdown"});
    CHECK(has(run_cli(md).out, said));
    auto html = all;
    html.insert(html.end(), {"--format", "html"});
    CHECK(has(run_cli(html).out, said));
    auto as_json = all;
    as_json.push_back("--json");
    const auto all_doc = nlohmann::json::parse(run_cli(as_json).out);
    CHECK(all_doc["outputs_reserved"]["reserve"] == "all");
    CHECK(all_doc["outputs_reserved"]["outputs"] == 0);
}
