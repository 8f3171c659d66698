// End to end on model files: `canitrun FILE.gguf`, `canitrun config.json`, `canitrun verify LOG`
// through the real binary (stdout, stderr, exit code).

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "json_rows.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"

using canitrun::test::GgufWriter;
using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::Outcome;
using canitrun::test::row_where;
using canitrun::test::run_cli;

namespace {

// One folder per process (ctest may run test binaries side by side), removed at exit.
struct TempDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("canitrun_file_cli_test_" + std::to_string(::getpid()));
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

std::filesystem::path temp_dir() {
    static TempDir dir;
    std::filesystem::create_directories(dir.path);
    return dir.path;
}

GgufWriter small_llama() {
    return canitrun::test::small_llama_writer();
}

// token_embd: 128256 rows x 16 q4_K blocks x 144 bytes; output_norm: 4096 x 4.
constexpr std::uint64_t kSmallWeights = 128256ULL * 16 * 144 + 4096ULL * 4;

}  // namespace

TEST_CASE("file cli: a GGUF file gets its own report") {
    const std::string path = (temp_dir() / "small-llama.gguf").string();
    small_llama().write_sparse_file(path);
    const Outcome o = run_cli({path});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    CHECK(has(o.out, "llama (GGUF v3, 1 file, 2 tensors)"));
    CHECK(has(o.out, "Test Llama"));
    CHECK(has(o.out, "295,518,208 bytes"));  // kSmallWeights
    CHECK(has(o.out, "Quantization mix"));
    CHECK(has(o.out, "q4_K"));
    CHECK(has(o.out, "kv_cache"));

    const Outcome j = run_cli({path, "--json", "--ctx", "4096"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["weights_bytes"] == kSmallWeights);
    // 32 layers x 4096 x 8 x (128 + 128) x 2 bytes
    CHECK(doc["kv_cache_bytes"] == 32ULL * 4096 * 8 * 256 * 2);
    CHECK(row_where(doc["quant_mix"], "type", "q4_K")["bytes"] == 128256ULL * 16 * 144);
    CHECK(row_where(doc["estimate"]["terms"], "name", "weights")["bytes"] == kSmallWeights);
}

TEST_CASE("file cli: mmproj adds the projector's tensors") {
    const std::string path = (temp_dir() / "small-llama2.gguf").string();
    const std::string mmproj = (temp_dir() / "mmproj.gguf").string();
    small_llama().write_sparse_file(path);
    GgufWriter p;
    p.str("general.architecture", "clip");
    p.tensor("v.patch_embd.weight", {1024, 1024}, 1);  // f16: 2 MiB
    p.write_sparse_file(mmproj);
    const Outcome j = run_cli({path, "--mmproj", mmproj, "--json"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["mmproj_bytes"] == 1024ULL * 1024 * 2);
    bool found = false;
    for (const auto& t : doc["estimate"]["terms"]) {
        if (t["name"] == "mmproj") found = t["bytes"] == 1024ULL * 1024 * 2;
    }
    CHECK(found);
}

TEST_CASE("file cli: a 100 GB file does not fit a 24 GB card") {
    const std::string path = (temp_dir() / "huge.gguf").string();
    GgufWriter w = small_llama();
    for (int k = 0; k < 100; ++k) w.tensor("blk." + std::to_string(k), {1ULL << 15, 1ULL << 14}, 1);
    w.write_sparse_file(path);
    const Outcome o = run_cli({path, "--gpu", "RTX 4090"});
    CHECK(o.code == 1);
    CHECK(has(o.out, "does not fit"));
    const std::string small_path = (temp_dir() / "small-llama3.gguf").string();
    small_llama().write_sparse_file(small_path);
    const Outcome small = run_cli({small_path, "--vram", "80"});
    CHECK(small.code == 0);
    CHECK(has(small.out, "VRAM budget"));
}

namespace {

bool lists(const nlohmann::json& gpus, const std::string& id) {
    for (const auto& g : gpus) {
        if (g["id"] == id) return true;
    }
    return false;
}

}  // namespace

// Under --engine quick (the page's 12 % rule, which a file gets only when asked for; by default
// a file is planned by llama.cpp's allocation of its tensors, file_plan_test.cpp):
// small_llama plus 22 f16 tensors of 2^15 x 2^14 (1 GiB each): weights 22 x 1,073,741,824 +
// 295,518,208 = 23,917,838,336 B. At 4k: KV 32 x 4096 x 8 x 256 x 2 = 536,870,912 B; overhead
// floor(12 % of 24,454,709,248) = 2,934,565,109 B; total 27,389,274,357 B. Past every 24 GB card,
// within the 32 GB ones: the smallest by the page's order (least marketed GB, consumer first,
// then bandwidth) is the RTX 5090. An RTX 4090 holds 24 GB, at least half, and spills 3.4 GB to
// the 32 GB of RAM (offload); an RTX 3060's 12 GB is under half (neither list).
TEST_CASE("file cli: gpus FILE.gguf lists the GPUs that run the file at its own weights") {
    const std::string path = (temp_dir() / "gpus-27gb.gguf").string();
    GgufWriter w = small_llama();
    for (int k = 0; k < 22; ++k) w.tensor("blk." + std::to_string(k), {1ULL << 15, 1ULL << 14}, 1);
    w.write_sparse_file(path);

    const Outcome j = run_cli({"gpus", path, "--ctx", "4096", "--engine", "quick", "--json"});
    REQUIRE(j.code == 0);
    CHECK(j.err.empty());
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["total_bytes"] == 27389274357ULL);
    CHECK(doc["context"] == 4096);
    CHECK(doc["quant"] == "GGUF file");
    CHECK(doc["smallest_gpu"]["id"] == "rtx-5090");
    CHECK(lists(doc["gpus"]["native"], "rtx-5090"));
    CHECK_FALSE(lists(doc["gpus"]["native"], "rtx-4090"));
    CHECK(lists(doc["gpus"]["offload"], "rtx-4090"));
    CHECK_FALSE(lists(doc["gpus"]["native"], "rtx-3060"));
    CHECK_FALSE(lists(doc["gpus"]["offload"], "rtx-3060"));

    const Outcome text = run_cli({"gpus", path, "--ctx", "4096", "--engine", "quick"});
    CHECK(text.code == 0);
    CHECK(has(text.out, "Test Llama at GGUF file, 4k context: 27.4 GB"));
    CHECK(has(text.out, "Run it natively"));

    const Outcome quiet = run_cli({"gpus", path, "--ctx", "4096", "--engine", "quick", "--quiet"});
    CHECK(quiet.code == 0);
    CHECK(quiet.out.rfind("rtx-5090\n", 0) == 0);

    const Outcome missing = run_cli({"gpus", (temp_dir() / "missing.gguf").string()});
    CHECK(missing.code == 2);
    CHECK(missing.out.empty());
    CHECK(has(missing.err, "canitrun: error: "));
}

// A Hugging Face folder answers `gpus` like a database model, at the recommended Q4_K_M (4.873
// bpw): Qwen3-Next's 79.5e9 parameters (its safetensors index) make 48,425,437,500 B; KV at 8k
// 12 full layers x 8192 x 2 x 512 x 2 = 201,326,592 B; overhead floor(12 % of 48,626,764,092) =
// 5,835,211,691 B; total 54,461,975,783 B. No card between 48 and 64 marketed GB holds it, and
// among the 64 GB ones the datacenter MI210 comes before the unified Macs.
TEST_CASE("file cli: gpus on a Hugging Face folder lists GPUs like a database model") {
    const std::string dir = std::string(CANITRUN_FIXTURES) + "/hf/qwen3-next";
    const Outcome j = run_cli({"gpus", dir, "--json"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["quant"] == "Q4_K_M");
    CHECK(doc["total_bytes"] == 54461975783ULL);
    CHECK(doc["smallest_gpu"]["id"] == "mi210");
}

TEST_CASE("file cli: a corrupt or missing file is bad input") {
    const std::string path = (temp_dir() / "corrupt.gguf").string();
    {
        std::ofstream f(path, std::ios::binary);
        f << "GGUF" << std::string(3, '\x03');  // truncated after the version's first bytes
    }
    const Outcome o = run_cli({path});
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(has(o.err, "canitrun: error:"));
    CHECK(has(o.err, "truncated"));
    const std::string text = (temp_dir() / "notes.txt").string();
    {
        std::ofstream f(text);
        f << "hello\n";
    }
    const Outcome not_gguf = run_cli({text});
    CHECK(not_gguf.code == 2);
    CHECK(has(not_gguf.err, "bad magic"));
    const Outcome missing = run_cli({(temp_dir() / "nope.gguf").string()});
    CHECK(missing.code == 2);
    CHECK(missing.out.empty());
    CHECK(has(missing.err, "cannot open"));
}

TEST_CASE("file cli: a Hugging Face folder answers like a database model") {
    const std::string dir = std::string(CANITRUN_FIXTURES) + "/hf/qwen3-next";
    const Outcome o = run_cli({dir, "--quant", "Q8_0"});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    CHECK(has(o.out, "model.safetensors.index.json"));
    CHECK(has(o.out, "Q8_0"));
    const Outcome j = run_cli({dir + "/config.json", "--json", "--ctx", "8192"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["model"]["params_total"] == 79500000000ULL);
    bool kv_found = false;
    for (const auto& t : doc["estimate"]["terms"]) {
        // 12 full layers x 8192 x 2 x 512 x 2 bytes
        if (t["name"] == "kv_cache") kv_found = t["bytes"] == 12ULL * 8192 * 2 * 512 * 2;
    }
    CHECK(kv_found);
}

TEST_CASE("file cli: verify compares a llama.cpp log term by term") {
    const std::string logs = std::string(CANITRUN_FIXTURES) + "/logs/";
    const Outcome o = run_cli({"verify", logs + "qwen3.5-35b-a3b-Q4_K_M-cpu.log"});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    for (const char* part : {"weights", "kv_cache", "recurrent_state", "output", "compute",
                             "160.00 MiB", "62.81 MiB", "497.00 MiB", "n_ctx 32,768"}) {
        CHECK(has(o.out, part));
    }
    const Outcome j = run_cli({"verify", logs + "llama-3.1-8b-Q4_K_M-cpu.log", "--json"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    REQUIRE(doc["contexts"].size() == 2);
    const auto term = [&](const std::string& name) {
        for (const auto& t : doc["contexts"][0]["terms"]) {
            if (t["term"] == name) return t;
        }
        return nlohmann::json();
    };
    const auto kv = term("kv_cache");
    CHECK(kv["llama_cpp_bytes"] == 1073741824ULL);
    CHECK(kv["estimate_bytes"] == 1073741824ULL);
    CHECK(kv["difference_bytes"] == 0);
    CHECK(term("compute")["llama_cpp_bytes"] == (26650ULL * 1048576 + 50) / 100);  // 266.50 MiB
    // The llama.cpp profile: compute within 5 % of the log's (issue 6's bar), the tensors
    // within the log's 0.01 MiB rounding of its model buffer (4685.30 MiB).
    const double compute = term("compute")["estimate_bytes"].get<double>();
    CHECK(compute == Approx(266.50 * 1048576).epsilon(0.05));
    const double tensors = term("weights_llama_cpp")["estimate_bytes"].get<double>();
    CHECK(std::abs(tensors - 4685.30 * 1048576) <= 0.005 * 1048576);
    // The log's "file size = 4.58 GiB" beside the model buffer (4685.30 MiB).
    CHECK(term("weights_file_size")["estimate_bytes"] == 458ULL * 1073741824 / 100 + 1);

    const std::string junk = (temp_dir() / "junk.log").string();
    {
        std::ofstream f(junk);
        f << "nothing to see\n";
    }
    const Outcome bad = run_cli({"verify", junk});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(has(bad.err, "canitrun: error:"));
    CHECK(run_cli({"verify", (temp_dir() / "none.log").string()}).code == 2);
}

// Issue 6's bar on the three real logs: tensors within the log's 0.01 MiB rounding, KV and
// recurrent state within 0.01 MiB, compute within 5 %, at every context each log creates.
TEST_CASE("file cli: verify with the llama.cpp profile meets the bar on every log") {
    const std::string logs = std::string(CANITRUN_FIXTURES) + "/logs/";
    for (const char* log : {"llama-3.1-8b-Q4_K_M-cpu.log", "gemma-3-27b-Q4_K_M-cpu.log",
                            "qwen3.5-35b-a3b-Q4_K_M-cpu.log"}) {
        INFO(log);
        const Outcome o = run_cli({"verify", logs + log, "--json"});
        REQUIRE(o.code == 0);
        const auto doc = nlohmann::json::parse(o.out);
        REQUIRE_FALSE(doc["contexts"].empty());
        for (const auto& c : doc["contexts"]) {
            for (const auto& t : c["terms"]) {
                if (t["estimate_bytes"].is_null() || t["llama_cpp_bytes"].is_null()) continue;
                const double est = t["estimate_bytes"].get<double>();
                const double real = t["llama_cpp_bytes"].get<double>();
                const std::string name = t["term"];
                INFO(name);
                if (name == "weights_llama_cpp" || name == "kv_cache" ||
                    name == "recurrent_state") {
                    CHECK(std::abs(est - real) <= 0.01 * 1048576);
                } else if (name == "compute") {
                    CHECK(est == Approx(real).epsilon(0.05));
                }
            }
        }
    }
}

// The llama.cpp profile on a file's own tensors: token_embd (q4_K, 4096 x 128256:
// 128256 x 16 blocks x 144 bytes) on the host, the rest (one f32 norm of 4096: 16,384 bytes) in
// the weights; KV as llama.cpp allocates it at 4096 (32 x 4096 x 8 x 256 x 2 bytes).
TEST_CASE("file cli: --engine llama.cpp uses the file's own tensors") {
    const std::string path = (temp_dir() / "small-llama-engine.gguf").string();
    small_llama().write_sparse_file(path);
    const Outcome j =
        run_cli({path, "--engine", "llama.cpp", "--backend", "cpu", "--ctx", "4096", "--json"});
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    std::map<std::string, std::uint64_t> terms;
    for (const auto& t : doc["estimate"]["terms"]) terms[t["name"]] = t["bytes"];
    CHECK(terms["token_embd"] == 128256ULL * 16 * 144);
    CHECK(terms["weights"] == 4096ULL * 4);
    CHECK(terms["kv_cache"] == 32ULL * 4096 * 8 * 256 * 2);
    const Outcome vllm = run_cli({path, "--engine", "vllm"});
    CHECK(vllm.code == 2);
    CHECK(has(vllm.err, "--engine vllm loads checkpoints, not GGUF files"));
}

TEST_CASE("file cli: a GGUF file gets the page's KV chart with --chart") {
    const std::string path = (temp_dir() / "small-llama-chart.gguf").string();
    small_llama().write_sparse_file(path);
    const Outcome plain = run_cli({path});
    REQUIRE(plain.code == 0);
    CHECK_FALSE(has(plain.out, "KV cache against context"));
    const Outcome o = run_cli({path, "--chart", "--ascii"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "KV cache against context"));
    // 32 layers x (K + V) x 8 KV heads x 128 x 2 bytes x 131,072 tokens = 17,179,869,184 bytes.
    CHECK(has(o.out, "17.2 GB"));
    CHECK(has(o.out, "128k"));
}

TEST_CASE("file cli: a GGUF file's JSON carries the chart's points") {
    const std::string path = (temp_dir() / "small-llama-curve.gguf").string();
    small_llama().write_sparse_file(path);
    const Outcome o = run_cli({path, "--json"});
    REQUIRE(o.code == 0);
    const auto curve = nlohmann::json::parse(o.out)["kv_comparison"]["curve"];
    REQUIRE(curve.size() >= 8);
    CHECK(curve.back()["context"] == 131072);
    // 32 layers x 2 x 8 x 128 x 2 bytes per token, all full attention: its own twin.
    CHECK(curve.back()["this_model_bytes"] == 131072ULL * 131072ULL);
    CHECK(curve.back()["all_attention_bytes"] == 131072ULL * 131072ULL);
}

// verify per device through the binary: a published two-GPU log (JSON rows per device, the
// KV split by free memory worked by hand in llama_log_test.cpp), and the same log as a bare
// excerpt with its model named by --model.
TEST_CASE("file cli: verify gives per-device rows, and reads a bare excerpt with --model") {
    const std::string logs = std::string(CANITRUN_FIXTURES) + "/logs/";
    const Outcome j =
        run_cli({"verify", logs + "cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log", "--json"});
    REQUIRE(j.code == 0);
    const auto devices = nlohmann::json::parse(j.out)["contexts"][0]["devices"];
    CHECK(devices["gpus"] == nlohmann::json::array({"CUDA0", "CUDA1"}));
    bool kv0 = false;
    for (const auto& r : devices["rows"]) {
        if (r["device"] == "CUDA0" && r["term"] == "kv_cache") {
            CHECK(r["estimate_bytes"] == 384ULL << 20);
            CHECK(r["llama_cpp_bytes"] == 384ULL << 20);
            kv0 = true;
        }
    }
    CHECK(kv0);
    const std::string excerpt = logs + "excerpt-qwen3-30b-a3b-2gpu.log";
    const Outcome no_quant = run_cli({"verify", excerpt, "--model", "qwen3-30b-a3b"});
    CHECK(no_quant.code == 2);
    CHECK(has(no_quant.err, "--quant"));
    const Outcome bare =
        run_cli({"verify", excerpt, "--model", "qwen3-30b-a3b", "--quant", "Q4_K_M", "--json"});
    REQUIRE(bare.code == 0);
    const auto doc = nlohmann::json::parse(bare.out);
    CHECK(doc["contexts"][0]["devices"]["gpus"].size() == 2);
    const Outcome unknown =
        run_cli({"verify", excerpt, "--model", "no-such-model", "--quant", "Q4_K_M"});
    CHECK(unknown.code == 2);
    CHECK(unknown.out.empty());
}

// verify --gpu on a llama.cpp log: the log's run weighed on named cards. The published
// two-GPU log (an RTX 4090 and an RTX 5090, experts in RAM) asked about RTX 3090s.
TEST_CASE("file cli: verify --gpu weighs a two-GPU log's plan on the cards named") {
    const std::string log = std::string(CANITRUN_FIXTURES) +
                            "/logs/cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log";
    constexpr std::uint64_t mib = 1ULL << 20;
    const Outcome o = run_cli({"verify", log, "--gpu", "RTX 3090", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    const auto devices = doc["contexts"][0]["devices"];
    // The log's buffers are its own rows still: CUDA0's model buffer 135.76 MiB and KV 384 MiB
    // (its lines 136 and 151), the KV split by free memory as without --gpu.
    std::map<std::string, std::uint64_t> planned;  // the plan's buffers per GPU
    for (const auto& r : devices["rows"]) {
        if (r["device"] == "CUDA0" && r["term"] == "kv_cache")
            CHECK(r["llama_cpp_bytes"] == 384 * mib);
        if (r["device"] != "host") planned[r["device"]] += r["estimate_bytes"].get<std::uint64_t>();
    }
    REQUIRE(planned.size() == 2);
    // The runtime term of a CUDA GPU is 672 MiB, and ggml-cuda's pool adds 96 MiB for a model
    // with routed experts (llamacpp_backend.cpp): 768 MiB. The RTX 3090 holds 24 GiB
    // (25,769,803,776 bytes, data/gpus/nvidia.json rtx-3090), less the 1 GiB every plan keeps
    // free: 24,696,061,952 bytes on each.
    const auto& hardware = devices["hardware"];
    REQUIRE(hardware.size() == 2);
    for (std::size_t d = 0; d < 2; ++d) {
        const std::string name = d == 0 ? "CUDA0" : "CUDA1";
        CHECK(hardware[d]["device"] == name);
        CHECK(hardware[d]["gpu"] == "NVIDIA RTX 3090");
        CHECK(hardware[d]["capacity_bytes"] == 24696061952ULL);
        CHECK(hardware[d]["used_bytes"] == planned[name] + 768 * mib);
        CHECK(hardware[d]["fits"] == true);
    }
    // The runtime rows are the cards the log names, not --gpu's: the RTX 4090's 24 GiB less the
    // 9862 MiB free at load (line 23) is 14714 MiB; the RTX 5090's 32 GiB (34,359,738,368
    // bytes, rtx-5090) less 31518 MiB (line 24) is 1250 MiB.
    const auto& runtime = devices["runtime"];
    REQUIRE(runtime.size() == 2);
    CHECK(runtime[0]["device"] == "CUDA0");
    CHECK(runtime[0]["llama_cpp_bytes"] == 14714 * mib);
    CHECK(runtime[1]["llama_cpp_bytes"] == 1250 * mib);
    CHECK(runtime[0]["estimate_bytes"] == 768 * mib);
    CHECK(has(doc["notes"].dump(), "each of the log's 2 GPUs (CUDA0, CUDA1) is planned as one"));
    // A list must match the log's two GPUs: three is one error line, exit status 2.
    const Outcome three = run_cli({"verify", log, "--gpu", "3x3090"});
    CHECK(three.code == 2);
    CHECK(three.out.empty());
    CHECK(has(three.err, "--gpu names 3 GPUs; the log's run used 2 (CUDA0, CUDA1)"));
    CHECK(lines_of(three.err).size() == 1);
    // Two, one per GPU in order, in text: the verdict per card.
    const Outcome two = run_cli({"verify", log, "--gpu", "3090,4090"});
    REQUIRE(two.code == 0);
    CHECK(has(two.out, "CUDA1   NVIDIA RTX 4090"));
    CHECK(has(two.out, "23552.00 MiB  fits"));  // 24 GiB less 1 GiB, in MiB
}

// A difference that rounds to zero reads +0.00, never -0.00: the published two-GPU log's CUDA1
// weights are 648.66 MiB either way (canitrun's are 0.0001 MiB less).
TEST_CASE("cli: verify never prints a negative zero") {
    const Outcome o =
        run_cli({"verify",
                 std::string(CANITRUN_SOURCE_DIR) +
                     "/validation/llama-logs/cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "+0.00 MiB (+0.00 %)"));
    CHECK_FALSE(has(o.out, "-0.00"));
}

TEST_CASE("file cli: --engine llama.cpp decides the backend and the verdict as the planner does") {
    const std::string path = (temp_dir() / "small-llama-profile.gguf").string();
    small_llama().write_sparse_file(path);
    // An Intel card runs llama.cpp's Vulkan backend by the planner's rule (plan_settings.hpp
    // backend_for), not the first backend its database entry lists (SYCL).
    const Outcome arc = run_cli({path, "--engine", "llama.cpp", "--gpu", "Arc A770", "--json"});
    REQUIRE(arc.code == 0);
    CHECK(nlohmann::json::parse(arc.out)["backend"] == "vulkan");
    // The verdict keeps --margin free, as every plan does: the RTX 4090 holds 24 GiB
    // (25,769,803,776 bytes), so --margin 24576 (24 GiB) leaves no room for the 0.3 GB file,
    // where the default 1 GiB margin leaves plenty.
    const Outcome fits = run_cli({path, "--engine", "llama.cpp", "--gpu", "RTX 4090", "--json"});
    REQUIRE(fits.code == 0);
    CHECK(nlohmann::json::parse(fits.out)["fits"] == true);
    const Outcome full = run_cli(
        {path, "--engine", "llama.cpp", "--gpu", "RTX 4090", "--margin", "24576", "--json"});
    CHECK(full.code == 1);
    CHECK(nlohmann::json::parse(full.out)["fits"] == false);
}

// Issue #33: a projector given with --mmproj is loaded by llama-server beside the file, so every
// plan of the file counts it, as the single page did: 26 f16 tensors of 2^15 x 2^14 make
// 26 x 1,073,741,824 = 27,917,287,424 B of projector, on the first GPU. small_llama alone runs
// natively on a 24 GiB RTX 4090; with the projector it cannot (26 GiB is past the card's 24 GiB
// before anything else), while a 32 GiB RTX 5090 still holds it whole (26 GiB plus the model's
// 0.3 GB of weights and about 1 GB of KV and buffers, under 31 GiB with the 1 GiB margin). The
// llama-server line names the projector as given.
TEST_CASE("file cli: --mmproj is counted in the GPU lists and carried by the llama-server line") {
    const std::string path = (temp_dir() / "small-llama-vision.gguf").string();
    const std::string mmproj = (temp_dir() / "mmproj-26g.gguf").string();
    small_llama().write_sparse_file(path);
    GgufWriter p;
    p.str("general.architecture", "clip");
    for (int k = 0; k < 26; ++k) {
        p.tensor("v.blk." + std::to_string(k) + ".weight", {1ULL << 15, 1ULL << 14}, 1);
    }
    p.write_sparse_file(mmproj);

    const Outcome alone = run_cli({"gpus", path, "--ctx", "4096", "--json"});
    REQUIRE(alone.code == 0);
    const auto a = nlohmann::json::parse(alone.out);
    CHECK(lists(a["gpus"]["native"], "rtx-4090"));

    const Outcome with = run_cli({"gpus", path, "--mmproj", mmproj, "--ctx", "4096", "--json"});
    REQUIRE(with.code == 0);
    const auto w = nlohmann::json::parse(with.out);
    CHECK_FALSE(lists(w["gpus"]["native"], "rtx-4090"));
    CHECK(lists(w["gpus"]["native"], "rtx-5090"));

    const Outcome plan = run_cli({path, "--mmproj", mmproj, "--gpu", "RTX 5090", "--ctx", "4096"});
    CHECK(plan.code == 0);
    CHECK(has(plan.out, "-m " + path + " --mmproj " + mmproj + " "));
    const Outcome small = run_cli({path, "--mmproj", mmproj, "--gpu", "RTX 4090", "--ctx", "4096"});
    CHECK(small.code == 1);
}
