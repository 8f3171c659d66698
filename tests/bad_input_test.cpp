// Every class of bad input in the man page's DIAGNOSTICS (docs/canitrun.1), end to end through
// the real binary: exit code 2, nothing on stdout, and on stderr one line `canitrun: error: ...`
// naming the problem, then at most one `canitrun: ...` line saying how to fix it. Also the
// arithmetic limits: a 1T-parameter model at FP32 with 10M context comes out right, a larger one
// is refused.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_canitrun;
using nlohmann::json;

namespace {

constexpr const char* kTinyDir = CANITRUN_FIXTURES "/tiny-database";
const std::string& tiny() {
    static const std::string dir = kTinyDir;
    return dir;
}

// The contract for bad input; `message` must appear in the error line.
void check_bad_input(const std::vector<std::string>& args, const std::string& message) {
    canitrun::test::check_refusal(run_canitrun(args), args, message);
}

// A copy of tests/fixtures/tiny-database in a fresh temporary folder, to break on purpose.
class Scratch {
  public:
    Scratch() {
        static int counter = 0;
        dir_ = fs::temp_directory_path() /
               ("canitrun-bad-input-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
        fs::remove_all(dir_);
        fs::copy(tiny(), dir_, fs::copy_options::recursive);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    std::string dir() const { return dir_.string(); }
    void write(const std::string& rel, const std::string& text) const {
        std::ofstream(dir_ / rel, std::ios::binary) << text;
    }
    // models/test.json holding only tiny-dense-test, with one field changed.
    void write_model(const std::string& pointer, const json& value) const {
        json model = first_model();
        if (value.is_null()) {
            const json::json_pointer p(pointer);
            model[p.parent_pointer()].erase(p.back());
        } else {
            model[json::json_pointer(pointer)] = value;
        }
        write("models/test.json", json::array({model}).dump(2));
    }
    json first_model() const {
        std::ifstream in(fs::path(tiny()) / "models/test.json");
        return json::parse(in).at(0);
    }

  private:
    fs::path dir_;
};

}  // namespace

TEST_CASE("bad input: unknown names get did-you-mean") {
    check_bad_input({"qwen3.5-35b-a3x"}, "unknown model 'qwen3.5-35b-a3x'");
    const Outcome o = run_canitrun({"qwen3.5-35b-a3x"});
    CHECK(has(o.err, "did you mean 'qwen3.5-35b-a3b'"));
    check_bad_input({"gpus", "qwen3.5-35b-a3x"}, "unknown model");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "RTX 4099"}, "unknown GPU 'RTX 4099'");
    CHECK(has(run_canitrun({"qwen3.5-35b-a3b", "--gpu", "RTX 4099"}).err, "did you mean"));
    check_bad_input({"qwen3.5-35b-a3b", "--quant", "Q4_K_X"}, "unknown quantization 'Q4_K_X'");
    CHECK(has(run_canitrun({"qwen3.5-35b-a3b", "--quant", "Q4_K_X"}).err, "did you mean"));
    check_bad_input({"qwen3.5-35b-a3b", "--kv-type", "q3"}, "unknown KV cache type 'q3'");
}

TEST_CASE("bad input: flag values out of range or malformed") {
    const std::string m = "qwen3.5-35b-a3b";
    check_bad_input({m, "--ctx", "0"}, "context length '0' is less than 1 token");
    check_bad_input({m, "--ctx", "0.0001k"}, "less than 1 token");
    check_bad_input({m, "--ctx", "10e99"}, "invalid context length '10e99'");
    check_bad_input({m, "--ctx", "99999999999999999999999"}, "invalid context length");
    // 2^30 tokens is the largest accepted (parse.hpp kMaxContext): 1048577k is one k over.
    check_bad_input({m, "--ctx", "1048577k"}, "is too large");
    check_bad_input({m, "--ctx", "-5"}, "invalid context length '-5'");
    check_bad_input({m, "--ram", "-1"}, "invalid size '-1'");
    check_bad_input({m, "--vram", "abc"}, "invalid size 'abc'");
    check_bad_input({m, "--vram", "0"}, "size '0' is out of range");
    check_bad_input({m, "--vram", "1000001"}, "size '1000001' is out of range");
    check_bad_input({"gpu-list", "--min-vram", "lots"}, "invalid size 'lots'");
    check_bad_input({m, "--quant", ""}, "--quant needs a value");
    check_bad_input({m, "--gpu", ""}, "--gpu needs a value");
    check_bad_input({"", "--json"}, "needs a value");
    // A runtime setting the model cannot take: its files carry no MTP layer; no such load mode.
    check_bad_input({"deepseek-v3", "--mtp"}, "do not carry its MTP layers");
    check_bad_input({m, "--load-mode", "no-mmap"}, "'no-mmap' is not a load mode");
}

TEST_CASE("bad input: the command line itself") {
    check_bad_input({"qwen3.5-35b-a3b", "--bogus"}, "--bogus");
    check_bad_input({"qwen3.5-35b-a3b", "--ctx"}, "--ctx");
    check_bad_input({"models", "--min-vram", "8"}, "--min-vram");
    check_bad_input({"gpus"}, "gpus needs a model");
    check_bad_input({}, "name a model");
    // A control character in a name stays on one line.
    check_bad_input({"qwen\nbad"}, "unknown model 'qwen?bad'");
}

TEST_CASE("bad input: unreadable database folders and files") {
    check_bad_input({"--data", "/nonexistent/canitrun", "qwen3.5-35b-a3b"},
                    "cannot read database folder '/nonexistent/canitrun'");
    check_bad_input({"--data", tiny() + "/quants.json", "tiny-dense-test"},
                    "cannot read database folder");
    check_bad_input({"--data", "", "tiny-dense-test"}, "--data needs a value");
    const Scratch s;
    fs::create_symlink(s.dir() + "/no-such-file", fs::path(s.dir()) / "models/dangling.json");
    check_bad_input({"--data", s.dir(), "tiny-dense-test"}, "cannot read '");
}

TEST_CASE("bad input: malformed or truncated JSON in the database") {
    const Scratch truncated;
    std::ifstream in(tiny() + "/models/test.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    truncated.write("models/test.json", text.substr(0, text.size() / 2));
    check_bad_input({"--data", truncated.dir(), "tiny-dense-test"},
                    "malformed JSON in models/test.json");
    const Scratch empty;
    empty.write("gpus/nvidia.json", "");
    check_bad_input({"--data", empty.dir(), "tiny-dense-test"},
                    "malformed JSON in gpus/nvidia.json");
    const Scratch object;
    object.write("quants.json", R"({"id": "Q4_K_M"})");
    check_bad_input({"--data", object.dir(), "tiny-dense-test"},
                    "quants.json: expected a JSON array of entries");
    const Scratch stray;
    stray.write("notes.json", "[]");
    check_bad_input({"--data", stray.dir(), "tiny-dense-test"}, "notes.json: not a database file");
    const Scratch info;
    info.write("database.json", R"({"version": "1", "date": "yesterday", "source": "x"})");
    check_bad_input({"--data", info.dir(), "tiny-dense-test"}, "must be a date written YYYY-MM-DD");
}

TEST_CASE("bad input: database entries with missing or absurd fields") {
    struct Case {
        const char* pointer;
        json value;  // null: remove the field
        const char* message;
    };
    const Case cases[] = {
        {"/source", nullptr, "missing field 'source'"},
        {"/architecture/layers", -4, "field 'layers' = -4 must not be negative"},
        {"/architecture/layers", 16.5, "must be a whole, non-negative number"},
        {"/architecture/layers", "16", "field 'layers' must be a whole number"},
        {"/architecture/layers", 17, "layer_groups count 16 layers, but layers = 17"},
        {"/context/native", 1e15, "field 'native' = 1e+15 is outside 1..1073741824"},
        {"/params/total", 0, "field 'total' = 0 is outside"},
        {"/architecture/attention/kv_heads", 32, "field 'kv_heads' = 32 is outside 1..16"},
        {"/architecture/layer_groups/0/kind", "dense", "unknown layer kind 'dense'"},
        {"/id", "Tiny Dense", "may hold only a-z, 0-9"},
        // Each dimension is within its bound, but 10000 layers of 10^6 heads x 10^6 dims x 10^6
        // hidden is ~10^22 parameters: the count is refused, never wrapped.
        {"/architecture",
         json{{"hidden_size", 1000000},
              {"vocab_size", 1000},
              {"layers", 10000},
              {"attention", {{"heads", 1000000}, {"kv_heads", 1000000}, {"head_dim", 1000000}}},
              {"ffn", {{"intermediate_size", 1000}}},
              {"layer_groups", json::array({{{"kind", "full"}, {"count", 10000}}})}},
         "parameter count does not fit in 64 bits"},
    };
    for (const auto& c : cases) {
        const Scratch s;
        s.write_model(c.pointer, c.value);
        check_bad_input({"--data", s.dir(), "tiny-dense-test"}, c.message);
    }
    const Scratch gpu;
    std::ifstream in(tiny() + "/gpus/nvidia.json");
    json gpus = json::parse(in);
    gpus[0]["bandwidth_gbps"] = 0;
    gpu.write("gpus/nvidia.json", gpus.dump());
    check_bad_input({"--data", gpu.dir(), "tiny-dense-test"},
                    "field 'bandwidth_gbps' = 0 is outside the sensible range");
    const Scratch twice;
    const json model = twice.first_model();
    twice.write("models/test.json", json::array({model, model}).dump());
    check_bad_input({"--data", twice.dir(), "tiny-dense-test"},
                    "model name 'tiny-dense-test' of 'tiny-dense-test' is already used");
}

TEST_CASE("overflow: a 1T-parameter model at FP32 with 10M context comes out right") {
    const Outcome o = run_canitrun(
        {"--data", tiny(), "trillion-fp32-test", "--quant", "FP32", "--ctx", "10M", "--json"});
    REQUIRE(o.code == 0);
    CHECK(o.err.empty());
    const json doc = json::parse(o.out);
    // 10M = 10 x 2^20 = 10,485,760 tokens (k = 1024, M = 1024^2).
    CHECK(doc["context"] == 10485760);
    const json& terms = doc["estimate"]["terms"];
    // weights: 10^12 parameters x 32 bits / 8 = 4 x 10^12 bytes.
    CHECK(terms[0]["bytes"].get<std::uint64_t>() == 4000000000000ULL);
    // KV cache: 128 layers x 2 (K and V) x 8 KV heads x 128 dims x 2 bytes (f16) = 2^19 bytes
    // per token; x 10 x 2^20 tokens = 10 x 2^39 = 5,497,558,138,880 bytes.
    CHECK(terms[1]["bytes"].get<std::uint64_t>() == 5497558138880ULL);
    // overhead: floor(12 % of 9,497,558,138,880) = floor(1,139,706,976,665.6).
    CHECK(terms[2]["bytes"].get<std::uint64_t>() == 1139706976665ULL);
    CHECK(doc["estimate"]["total_bytes"].get<std::uint64_t>() == 10637265115545ULL);
    // 10.6 TB: no GPU holds it (the largest in the fixture is the 141 GB H200).
    CHECK(doc["smallest_gpu"].is_null());
    CHECK(doc["gpus"]["native"].empty());
    // The text report prints the same total, rounded to 0.1 GB.
    const Outcome text =
        run_canitrun({"--data", tiny(), "trillion-fp32-test", "--quant", "FP32", "--ctx", "10M"});
    CHECK(text.code == 0);
    CHECK(has(text.out, "10637.3 GB"));
}

TEST_CASE("overflow: an estimate past 64 bits is refused and never wrapped") {
    // 1000 layers x 2 x 10^5 KV heads x 10^5 dims x 2 bytes = 4 x 10^13 bytes per token; the
    // page's 8k column alone is 3.3 x 10^20 bytes, past 2^64 (1.8 x 10^19).
    check_bad_input({"--data", tiny(), "kv-overflow-test"},
                    "the estimate for kv-overflow-test does not fit in 64-bit byte counts");
    check_bad_input({"--data", tiny(), "gpus", "kv-overflow-test", "--json"},
                    "does not fit in 64-bit");
    // Listing it is fine: its parameter count (about 4 x 10^18) fits.
    const Outcome list = run_canitrun({"--data", tiny(), "models", "--json"});
    CHECK(list.code == 0);
    CHECK(json::parse(list.out).size() == 3);
}

TEST_CASE("bad input: hardware specs") {
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "0x3090"}, "'0x3090' asks for 0 GPUs");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "3090,,4090"}, "empty GPU name");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "2xRTX 4099"},
                    "unknown GPU 'RTX 4099' in '2xRTX 4099'");
    check_bad_input({"qwen3.5-35b-a3b", "--host", "4090+foo"}, "unknown GPU 'foo' in '4090+foo'");
    // Apple's M4 Max comes with 36, 48, 64 or 128 GB: every one is suggested.
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "m4 max"},
                    "unknown GPU 'm4 max'; did you mean 'm4-max-36gb', 'm4-max-48gb', "
                    "'m4-max-64gb' or 'm4-max-128gb'?");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "4090", "--ngl", "3.5"}, "invalid --ngl '3.5'");
    check_bad_input({"qwen3.5-35b-a3b", "--ngl", "10"},
                    "--ngl, --n-cpu-moe, --cpu-moe and --tensor-split place layers on GPUs");
    check_bad_input({"llama-3.3-70b", "--gpu", "RTX 3090", "--tensor-split", "3,1"},
                    "--tensor-split splits layers over several GPUs");
    check_bad_input({"llama-3.3-70b", "--gpu", "2x3090", "--tensor-split", "3,1,1"},
                    "--tensor-split gives 3 proportions for 2 GPUs");
    check_bad_input({"llama-3.3-70b", "--gpu", "2x3090", "--tensor-split", "3,x"},
                    "invalid --tensor-split 'x'");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "4090", "--cpu-moe", "--n-cpu-moe", "3"},
                    "--cpu-moe and --n-cpu-moe both move experts");
    check_bad_input(
        {"llama-3.3-70b", "--gpu", "4090", "--cpu-moe"},
        "--n-cpu-moe and --cpu-moe move routed experts, and llama-3.3-70b is a dense model");
    check_bad_input({"fit"}, "fit needs the hardware to fit");
    check_bad_input({"qwen3.5-35b-a3b", "--gpu", "4090", "--ram-bandwidth", "fast"},
                    "invalid bandwidth 'fast'");
    // GPUs one llama.cpp process cannot drive: two vendors' backends, or a unified-memory
    // machine beside a card (detected, a desktop's iGPU is left out instead: detect_test.cpp).
    check_bad_input({"llama-3.3-70b", "--gpu", "4090,7900xtx"},
                    "'4090,7900xtx' mixes NVIDIA and AMD cards");
    check_bad_input({"llama-3.3-70b", "--gpu", "4090,m4-max-64gb"},
                    "puts M4 Max 64GB, a unified-memory machine, beside other GPUs");
}

TEST_CASE("bad input: model files and logs") {
    const Scratch s;
    const std::string cut = s.dir() + "/cut.gguf";
    {
        std::ofstream f(cut, std::ios::binary);
        f << "GGUF" << std::string(3, '\x03');  // stops inside the version field
    }
    check_bad_input({cut}, "truncated");
    const std::string text = s.dir() + "/notes.txt";
    {
        std::ofstream f(text);
        f << "hello\n";
    }
    check_bad_input({text}, "bad magic");
    check_bad_input({s.dir() + "/missing.gguf"}, "cannot open");
    check_bad_input({"verify", text}, "nothing in this file looks like a llama.cpp log");
}
