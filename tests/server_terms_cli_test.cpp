// End to end: what the server holds beside the model, through the real binary. Figures worked
// by hand here and in server_terms_test.cpp.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;

// Qwen 3.5 35B-A3B at llama-server's defaults (8,192 tokens, one slot). Its 30 Gated DeltaNet
// layers keep a recurrent state per sequence: the conv state (kernel 4 - 1) x (16 x 128 x 2 +
// 32 x 128 = 8,192 channels) x 4 B = 98,304 B and the delta-rule state 32 value heads x 128 x
// 128 x 4 B = 2,097,152 B: 2,195,456 B a layer, 65,863,680 B a checkpoint, 32 checkpoints =
// 2,107,637,760 B. The prompt cache: 8,192 MiB = 8,589,934,592 B. Both in RAM, none at load:
// 10,697,572,352 B at most ("10.7 GB").
TEST_CASE("cli: the page of qwen3.5-35b-a3b says what grows after load") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--json"});
    REQUIRE(o.code == 0);
    const auto g = nlohmann::json::parse(o.out)["grows_after_load"];
    CHECK(g["prompt_cache_bytes"] == 8589934592ULL);
    CHECK(g["checkpoints"] == 32);
    CHECK(g["checkpoints_bytes"] == 2107637760ULL);
    CHECK(g["total_bytes"] == 10697572352ULL);
    const auto text = run_cli({"qwen3.5-35b-a3b"});
    CHECK(has(text.out, "Up to 10.7 GB more in RAM after load"));
    CHECK(has(text.out, "32 context checkpoints, 2.1 GB"));
}

// On an RTX 4090 the model is whole on the GPU; what grows is in RAM, 10,697,572,352 B past
// the RAM's load, within the 32 GB assumed: the verdict holds at the defaults.
TEST_CASE("cli: --gpu RTX 4090 says what grows after load and that the plan holds") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--json"});
    REQUIRE(o.code == 0);
    const auto sel = nlohmann::json::parse(o.out)["hardware"]["selected"];
    CHECK(sel["plan"] == "native");
    const auto& ram = sel["ram"];
    CHECK(ram["most_bytes"].get<std::uint64_t>() - ram["total_bytes"].get<std::uint64_t>() ==
          10697572352ULL);
    CHECK(ram["resident"][0]["name"] == "prompt_cache");
    CHECK(ram["resident"][0]["load_bytes"] == 0);
    CHECK(ram["resident"][1]["name"] == "ctx_checkpoints");
    CHECK(ram["resident"][1]["most_bytes"] == 2107637760ULL);
    const auto text = run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4090"});
    CHECK(has(text.out, "Grows after load (llama-server): prompt cache up to 8.6 GB in RAM"));
    CHECK(has(text.out, "the plan holds at those"));
}

// --cache-ram and --ctx-checkpoints change the terms and ride on the printed command; Gemma
// 3 27B's checkpoint is 654,311,424 B (server_terms_test.cpp), so 2 are 1,308,622,848 B.
TEST_CASE("cli: --cache-ram and --ctx-checkpoints on the plan and the command") {
    const auto o = run_cli({"gemma-3-27b", "--gpu", "RTX 4090", "--cache-ram", "0",
                            "--ctx-checkpoints", "2", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out)["hardware"];
    const auto& ram = doc["selected"]["ram"];
    CHECK(ram["resident"].size() == 1);
    CHECK(ram["resident"][0]["name"] == "ctx_checkpoints");
    CHECK(ram["resident"][0]["most_bytes"] == 1308622848ULL);
    CHECK(has(doc["llama_cpp_command"].get<std::string>(), "--cache-ram 0 --ctx-checkpoints 2"));
}

// 128k tokens of Llama 3.1 8B with the KV cache in RAM: 32 x 131,072 x 4,096 B =
// 17,179,869,184 B in RAM, none on the GPU; the command carries -nkvo.
TEST_CASE("cli: --no-kv-offload puts a 128k cache in RAM") {
    const auto o = run_cli(
        {"llama-3.1-8b", "--gpu", "RTX 4090", "--ctx", "128k", "--no-kv-offload", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out)["hardware"];
    CHECK(doc["selected"]["ram"]["kv_cache_bytes"] == 17179869184ULL);
    CHECK(doc["selected"]["gpus"][0]["kv_cache_bytes"] == 0);
    CHECK(has(doc["llama_cpp_command"].get<std::string>(), "-nkvo"));
    // and the attention on the CPU: 155,189,248 B (server_terms_test.cpp works it by hand)
    bool named = false;
    for (const auto& t : doc["selected"]["ram"]["resident"]) {
        if (t["name"] != "nkvo_attention") continue;
        named = true;
        CHECK(t["load_bytes"] == 155189248ULL);
    }
    CHECK(named);
    const auto text =
        run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--ctx", "128k", "--no-kv-offload"});
    CHECK(has(text.out, "attention on the CPU (-nkvo) 0.16 GB in RAM"));
}

TEST_CASE("cli: --draft and --also are named on the page and the command") {
    const auto d = run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--draft", "llama-3.2-1b"});
    CHECK(has(d.out, "draft model llama-3.2-1b"));
    CHECK(has(d.out, "-ngld 99"));
    const auto a =
        run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--also", "qwen3-embedding-0.6b:Q8_0", "--json"});
    REQUIRE(a.code == 0);
    const auto gpu = nlohmann::json::parse(a.out)["hardware"]["selected"]["gpus"][0];
    CHECK(gpu["resident"][0]["name"] == "also:qwen3-embedding-0.6b");
    CHECK_FALSE(gpu["resident"][0]["grows"].get<bool>());
}

// A multimodal --also model is loaded by its repo as the main model is, its projector with it
// (#37): gemma-3-4b's mmproj is 851,226,048 bytes (data/models/gemma.json run.projector, its
// clip compute buffer not recorded), on the first GPU beside the model; --no-mmproj drops it.
TEST_CASE("cli: an --also model's vision projector is counted with it") {
    const auto also_row = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"qwen3-8b",          "--gpu", "RTX 4090", "--also",
                                         "gemma-3-4b:Q4_K_M", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto o = run_cli(args);
        INFO(o.err);
        REQUIRE(o.code == 0);
        const auto gpu = nlohmann::json::parse(o.out)["hardware"]["selected"]["gpus"][0];
        for (const auto& r : gpu["resident"]) {
            if (r["name"] == "also:gemma-3-4b") return r["load_bytes"].get<std::uint64_t>();
        }
        FAIL("no also:gemma-3-4b row");
        return std::uint64_t{0};
    };
    CHECK(also_row({}) - also_row({"--no-mmproj"}) == 851226048ULL);
}

// --users 4 of 8,192 tokens with Qwen3 8B --also: the printed Ollama line sets
// OLLAMA_NUM_PARALLEL=4 and OLLAMA_CONTEXT_LENGTH=8192, so Ollama holds Qwen3 8B with 4 x 8,192
// cells: 36 layers x 32,768 x (8 KV heads x 128 x 2 B) x 2 = 4,831,838,208 B of KV, which
// --no-kv-offload takes off its GPU row. A qwen35 model (Qwen 3.5 0.8B) as the main model is
// served one request at a time by Ollama, and its line says so.
TEST_CASE("cli: an --also chat model holds the KV of the printed OLLAMA_NUM_PARALLEL") {
    const auto run = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {
            "qwen3-0.6b", "--gpu", "RTX 4090", "--ctx",           "8192",
            "--users",    "4",     "--also",   "qwen3-8b:Q4_K_M", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto o = run_cli(args);
        INFO(o.err);
        REQUIRE(o.code == 0);
        return nlohmann::json::parse(o.out);
    };
    const auto also_row = [](const nlohmann::json& j) {
        for (const auto& r : j["hardware"]["selected"]["gpus"][0]["resident"]) {
            if (r["name"] == "also:qwen3-8b") return r["load_bytes"].get<std::uint64_t>();
        }
        FAIL("no also:qwen3-8b row");
        return std::uint64_t{0};
    };
    const auto on = run({});
    CHECK(also_row(on) - also_row(run({"--no-kv-offload"})) == 4831838208ULL);
    std::string ollama;
    for (const auto& c : on["run_commands"]) {
        if (c["engine"] == "Ollama") ollama = c["command"].get<std::string>();
    }
    CHECK(has(ollama, "OLLAMA_CONTEXT_LENGTH=8192"));
    CHECK(has(ollama, "OLLAMA_NUM_PARALLEL=4"));
    const auto serial = run_cli({"qwen3.5-0.8b", "--ctx", "8192", "--users", "4"});
    CHECK(has(serial.out, "Ollama serves this model one request at a time"));
}

TEST_CASE("cli: the server's flags are llama.cpp settings, refused under the quick rule") {
    const auto o = run_cli({"qwen3-8b", "--engine", "quick", "--cache-ram", "4096"});
    CHECK(o.code == 2);
    CHECK(has(o.err, "--cache-ram is a llama.cpp setting"));
    const auto bad = run_cli({"qwen3-8b", "--draft", "no-such-model"});
    CHECK(bad.code == 2);
}

// An encoder keeps no KV cache and its server no prompt cache: the page says so, and nothing
// grows after load.
TEST_CASE("cli: an embedding encoder's page says it keeps no cache") {
    const auto o = run_cli({"bge-m3"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "no KV cache: llama.cpp runs this encoder without one"));
    CHECK_FALSE(has(o.out, "more in RAM after load"));
    const auto doc = nlohmann::json::parse(run_cli({"bge-m3", "--json"}).out);
    CHECK(doc["grows_after_load"]["total_bytes"] == 0);
}

// On one memory the host's growth may take what the GPU's share leaves unused: an M4 16 GB
// keeps 5.7 GB for the CPU side, less than the 8,589,934,592 B prompt cache, but Qwen3 0.6B
// uses under 2 GB of the GPU's 11.5 GB, so the whole stays within the machine's memory.
TEST_CASE("cli: on unified memory the prompt cache may use what the GPU leaves") {
    const auto o = run_cli({"qwen3-0.6b", "--gpu", "m4-16gb"});
    CHECK(o.code == 0);
    CHECK(has(o.out, "the plan holds at those"));
}

// Gemma 3 27B on an RTX 4090: the line loads it by -hf, which loads the repo's projector, so the
// GPU holds it: 857,714,112 B (server_terms_test.cpp works the tensors by hand), "0.86 GB".
// --no-mmproj: the GPU holds that much less and the command carries the flag.
TEST_CASE("cli: the vision projector on the plan, and --no-mmproj") {
    const auto with = run_cli({"gemma-3-27b", "--gpu", "RTX 4090", "--json"});
    REQUIRE(with.code == 0);
    const auto a = nlohmann::json::parse(with.out)["hardware"];
    const auto& gpu = a["selected"]["gpus"][0];
    CHECK(gpu["resident"][0]["name"] == "projector");
    CHECK(gpu["resident"][0]["load_bytes"] == 857714112ULL);
    CHECK_FALSE(has(a["llama_cpp_command"].get<std::string>(), "--no-mmproj"));
    const auto without = run_cli({"gemma-3-27b", "--gpu", "RTX 4090", "--no-mmproj", "--json"});
    REQUIRE(without.code == 0);
    const auto b = nlohmann::json::parse(without.out)["hardware"];
    CHECK(a["selected"]["gpus"][0]["total_bytes"].get<std::uint64_t>() -
              b["selected"]["gpus"][0]["total_bytes"].get<std::uint64_t>() ==
          857714112ULL);
    CHECK(has(b["llama_cpp_command"].get<std::string>(), "--no-mmproj"));
    const auto page = nlohmann::json::parse(with.out)["projector"];
    CHECK(page["counted"].get<bool>());
    CHECK(page["bytes"] == 857714112ULL);
    CHECK(page["basis"] == "tensors");
    CHECK(page["compute_bytes"].is_null());
    CHECK_FALSE(nlohmann::json::parse(without.out)["projector"]["counted"].get<bool>());
    const auto text = run_cli({"gemma-3-27b", "--gpu", "RTX 4090"});
    CHECK(has(text.out, "vision projector (mmproj) 0.86 GB on"));
    CHECK(has(text.out, "Vision projector (mmproj-F16.gguf, which -hf loads): 0.86 GB"));
    const auto quick = run_cli({"gemma-3-27b", "--engine", "quick", "--no-mmproj"});
    CHECK(quick.code == 2);
    CHECK(has(quick.err, "--no-mmproj is a llama.cpp setting"));
}

// Qwen3-30B-A3B with every layer's experts in RAM: --no-op-offload rides on the printed line,
// the CPU runs the prompt's expert FFNs (its buffer grows by one expert batch: 512 tokens x 4
// B x (2,048 + 8 experts x (768 + 2 x 2,048)) = 83,886,080 B, as llama_log_test.cpp derives
// it) and the prompt's speed is not estimated. Without the flag the line does not carry it.
TEST_CASE("cli: --no-op-offload is on the printed line and moves the prompt to the CPU") {
    const std::vector<std::string> base = {"qwen3-30b-a3b", "--gpu", "RTX 4090", "--cpu-moe"};
    auto with_flag = base;
    with_flag.push_back("--no-op-offload");
    auto hardware_json = [](std::vector<std::string> args) {
        args.push_back("--json");
        const auto o = run_cli(args);
        REQUIRE(o.code == 1);  // not whole on the GPU (README's exit codes), planned with offload
        return nlohmann::json::parse(o.out)["hardware"];
    };
    const auto off = hardware_json(with_flag);
    const auto on = hardware_json(base);
    CHECK(has(off["llama_cpp_command"].get<std::string>(), " --no-op-offload"));
    CHECK_FALSE(has(on["llama_cpp_command"].get<std::string>(), "op-offload"));
    CHECK(off["selected"]["ram"]["compute_bytes"].get<std::uint64_t>() -
              on["selected"]["ram"]["compute_bytes"].get<std::uint64_t>() ==
          83886080ULL);
    const auto text = run_cli(with_flag);
    CHECK(has(text.out, "reading the prompt is not estimated: with --no-op-offload"));
    CHECK_FALSE(has(run_cli(base).out, "--no-op-offload"));
}

// --blas-build: a build with a BLAS backend. Qwen3-8B with -ngl 0 (every layer and the head in
// RAM): BLAS takes every matrix product over host weights before op offload can offer it to a
// GPU (ggml-backend.cpp's ggml_backend_sched_backend_id_from_cur asks the GPUs only when the
// weight's first backend is the CPU; ggml-blas.cpp takes host buffers), and a dense model has no
// routed experts for BLAS to leave over, so GPU 0 copies nothing in and runs nothing: no compute
// buffer there (placement.cpp's host_work), where a release build's GPU 0 holds a layer's copy
// and its graph. BLAS is a cmake option, not a flag of llama-server: the printed line is the
// release build's, and the page and JSON say what it assumes. --engine quick has no such setting.
TEST_CASE("cli: --blas-build plans a BLAS build, and the printed line stays llama-server's own") {
    const std::vector<std::string> base = {"qwen3-8b", "--gpu", "RTX 4090", "--ngl", "0", "--json"};
    auto with_flag = base;
    with_flag.push_back("--blas-build");
    const auto blas_out = run_cli(with_flag);
    const auto plain_out = run_cli(base);
    REQUIRE(blas_out.code == plain_out.code);
    const auto blas = nlohmann::json::parse(blas_out.out)["hardware"];
    const auto plain = nlohmann::json::parse(plain_out.out)["hardware"];
    CHECK(blas["selected"]["gpus"][0]["compute_bytes"].get<std::uint64_t>() == 0);
    CHECK(plain["selected"]["gpus"][0]["compute_bytes"].get<std::uint64_t>() > 0);
    CHECK(blas["llama_cpp_command"] == plain["llama_cpp_command"]);
    CHECK_FALSE(has(blas["llama_cpp_command"].get<std::string>(), "blas"));
    CHECK(has(blas["llama_cpp_build"].get<std::string>(), "-DGGML_BLAS=ON"));
    CHECK_FALSE(plain.contains("llama_cpp_build"));
    const auto text = run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--ngl", "0", "--blas-build"});
    CHECK(has(text.out, "not by a flag of llama-server"));
    const auto quick = run_cli({"qwen3-8b", "--engine", "quick", "--blas-build"});
    CHECK(quick.code == 2);
    CHECK(has(quick.err, "--blas-build is a llama.cpp setting"));
}

// With --also the llama.cpp way is llama-server's router (launch_command.hpp): a section per
// model in one preset file, the router's own line carrying none of a model's arguments (it lays
// them over every child) and --models-max at the models planned (3 here, past the default 4 it
// would unload one). Qwen3 8B with --users 4 of 8,192 tokens runs -c 32,768 --parallel 4 as its
// own line does; Qwen3-Embedding-0.6B one sequence of 8,192 (Ollama's rule the plan holds it
// by); Qwen3 8B again (its section renamed, as two of one name are refused) 4 x 8,192; both
// --also children without the prompt cache and checkpoints the plan does not count for them.
// The embedding model's section asks for its endpoint (embeddings = true: llama-server refuses
// /embeddings without it), a reranker's for its own (reranking = true: --reranking sets
// embedding and pooling rank, which /rerank requires; server-context.cpp line 5149 at 0ad4a86).
TEST_CASE("cli: --also prints llama-server's router with a preset per model") {
    const auto o =
        run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--ctx", "8192", "--users", "4", "--also",
                 "qwen3-embedding-0.6b:Q8_0", "--also", "qwen3-8b:Q4_K_M", "--json"});
    INFO(o.err);
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    nlohmann::json router;
    for (const auto& c : doc["run_commands"]) {
        if (c["engine"] == "llama.cpp router") router = c;
    }
    REQUIRE(router.is_object());
    CHECK(router["command"] == "llama-server --models-preset canitrun-models.ini --models-max 3");
    CHECK(router["file_name"] == "canitrun-models.ini");
    const std::string main_section =
        "[qwen3-8b]\nhf = unsloth/Qwen3-8B-GGUF:Q4_K_M\nc = 32768\nngl = 99\nparallel = 4\n"
        "load-on-startup = true\n";
    const std::string embed_section =
        "[qwen3-embedding-0.6b]\nhf = Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0\nc = 8192\nngl = 99\n"
        "parallel = 1\ncache-ram = 0\nctx-checkpoints = 0\nembeddings = true\nload-on-startup = "
        "true\n";
    const std::string chat_section =
        "[qwen3-8b-2]\nhf = unsloth/Qwen3-8B-GGUF:Q4_K_M\nc = 32768\nngl = 99\nparallel = 4\n"
        "cache-ram = 0\nctx-checkpoints = 0\nload-on-startup = true\n";
    CHECK(router["file_text"] ==
          "version = 1\n\n" + main_section + "\n" + embed_section + "\n" + chat_section);
    const auto rerank = run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--ctx", "8192", "--also",
                                 "qwen3-reranker-0.6b:Q8_0", "--json"});
    REQUIRE(rerank.code == 0);
    bool reranking = false;
    const auto rerank_doc = nlohmann::json::parse(rerank.out);
    for (const auto& c : rerank_doc["run_commands"]) {
        reranking =
            reranking ||
            (c["engine"] == "llama.cpp router" &&
             has(c["file_text"].get<std::string>(),
                 "[qwen3-reranker-0.6b]\nm = qwen3-reranker-0.6b-Q8_0.gguf\nc = 8192\n"
                 "ngl = 99\nparallel = 1\ncache-ram = 0\nctx-checkpoints = 0\nreranking = true\n"
                 "load-on-startup = true\n"));
    }
    CHECK(reranking);
    const auto text = run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--also", "bge-m3:FP16"});
    // Written by one printf of quoted lines, so that copied from the indented page each line
    // lands in the first column, as llama.cpp's INI grammar wants.
    CHECK(has(text.out,
              "    printf '%s\\n' \\\n      'version = 1' \\\n      '' \\\n"
              "      '[qwen3-8b]' \\\n"));
    CHECK(has(text.out,
              "'load-on-startup = true' \\\n      > canitrun-models.ini\n"
              "    ./llama-server --models-preset canitrun-models.ini --models-max 2\n"));
}

// OLMo 3 7B on an RTX 4090 with 32 GB of RAM (server_terms_test.cpp works the 12 by hand): the
// plan runs natively, the line carries --ctx-checkpoints 12 and the page says why (#32).
TEST_CASE("cli: the checkpoints lowered to fit the RAM ride on the line and the page") {
    const auto o = run_cli({"olmo-3-7b", "--gpu", "RTX 4090", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out)["hardware"];
    CHECK(doc["selected"]["plan"] == "native");
    CHECK(doc["selected"]["growth_cap"]["ctx_checkpoints"] == 12);
    CHECK(doc["selected"]["growth_cap"]["cache_ram_mib"].is_null());
    CHECK(has(doc["selected"]["growth_cap"]["text"].get<std::string>(),
              "32 context checkpoints of 1.8 GB would outgrow 32.0 GB of RAM: the line keeps 12 "
              "(--ctx-checkpoints 12)."));
    CHECK(has(doc["llama_cpp_command"].get<std::string>(), "--ctx-checkpoints 12"));
    // Given, 32 are kept, and the verdict is today's: it holds its load only.
    const auto given = run_cli({"olmo-3-7b", "--gpu", "RTX 4090", "--ctx-checkpoints", "32"});
    CHECK(has(given.out, "Fits at load, but not what llama-server holds after it"));
}

// The serving line's plan has more slots, so more checkpoints (32 a slot for OLMo 3 7B's 24
// sliding-window layers): where cap_growth lowers them for that plan, the line must say so, as the
// page asked that same question directly does. The serving line's settings are read off its text
// and asked again; both plans come from one place() and must carry the same --ctx-checkpoints.
TEST_CASE("cli: the serving line carries the growth its own plan lowered") {
    const auto page = run_cli({"olmo-3-7b", "--gpu", "RTX 4090"});
    REQUIRE(page.code == 0);
    const auto at = page.out.find("without offload (--parallel ");
    REQUIRE(at != std::string::npos);
    const auto open = page.out.find('(', at);
    const std::string flags = page.out.substr(open + 1, page.out.find(')', open) - open - 1);
    // "--parallel N -c M --ctx-checkpoints K"
    std::vector<std::string> words;
    for (std::size_t i = 0; i < flags.size();) {
        const auto j = std::min(flags.find(' ', i), flags.size());
        words.push_back(flags.substr(i, j - i));
        i = j + 1;
    }
    REQUIRE(words.size() == 6);
    CHECK(words[4] == "--ctx-checkpoints");
    const auto asked =
        run_cli({"olmo-3-7b", "--gpu", "RTX 4090", "--parallel", words[1], "-c", words[3]});
    REQUIRE(asked.code == 0);
    CHECK(has(asked.out, "--parallel " + words[1] + " --ctx-checkpoints " + words[5] + "\n"));
    // JSON's serving object names the same lowered setting as its line.
    const auto as_json = run_cli({"olmo-3-7b", "--gpu", "RTX 4090", "--json"});
    REQUIRE(as_json.code == 0);
    const auto serving = nlohmann::json::parse(as_json.out)["hardware"]["serving"];
    CHECK(serving["max_users"].get<std::uint64_t>() == std::stoull(words[1]));
    CHECK(serving["growth_cap"]["ctx_checkpoints"].get<std::uint64_t>() == std::stoull(words[5]));
    CHECK(serving["growth_cap"]["cache_ram_mib"].is_null());
}

// Qwen3-30B-A3B Q4_K_M with --n-cpu-moe 0 on an RTX 4060 Ti 16GB: the GPU holds every layer,
// 18.4 GB of weights against 16.1 GB usable, and is over at load. The RAM holds token_embd
// and the logits (0.19 GB) and grows by the 8,589,934,592 B prompt cache to 8.8 GB of its 32 GB:
// the growth is within the RAM, so its line must not say the memory is over; the GPU is.
TEST_CASE("cli: a plan over on the GPU does not blame the RAM's growth") {
    const auto o = run_cli({"qwen3-30b-a3b", "--gpu", "4060 ti 16gb", "--n-cpu-moe", "0"});
    CHECK(o.code == 1);
    CHECK(has(o.out, "GPU 0 (NVIDIA RTX 4060 Ti 16GB) needs 20.1 GB of its 16.1 GB usable"));
    CHECK(has(o.out, "At most RAM 8.8 GB of 32.0 GB: within that memory"));
    CHECK_FALSE(has(o.out, "more than the memory holds"));
}
