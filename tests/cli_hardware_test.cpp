// End to end: hardware answers through the real binary.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;

namespace {

std::string recording(const std::string& name) {
    return canitrun::test::probe_recording(name);
}

}  // namespace

// Figures worked by hand in placement_test.cpp.
TEST_CASE("cli: 2x3090 splits a 70B per device in JSON") {
    const auto o = run_cli(
        {"llama-3.3-70b", "--gpu", "2x3090", "--ctx", "4096", "--json", "--engine", "quick"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out)["hardware"];
    CHECK(doc["selected"]["plan"] == "native");
    CHECK(doc["selected"]["gpus"][0]["layers"] == 41);
    CHECK(doc["selected"]["gpus"][0]["total_bytes"] == 25227272834ULL);
    CHECK(doc["selected"]["gpus"][1]["total_bytes"] == 24031365719ULL);
    CHECK(doc["hardware"]["gpus"][1]["memory_bytes"] == 25769803776ULL);
    CHECK(doc["selected"]["speed"]["decode_tokens_per_s"].get<double>() > 0);
    CHECK(doc["selected"]["speed"]["assumptions"]["ram_bandwidth_efficiency"] == 0.6);
}

// placement_test.cpp derives the 40 : 41 split by hand: the default 41 : 40 overfills GPU 0.
TEST_CASE("cli: 2x3090 at 8k fits with an uneven split and prints it") {
    const auto o =
        run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--ctx", "8k", "--engine", "quick"});
    CHECK(o.code == 0);
    CHECK(has(o.out, "Fits on the GPUs with an uneven split"));
    CHECK(has(o.out, "--tensor-split 40,41 holds every layer"));
    CHECK(has(o.out, "-c 8192 -ngl 99 -ts 40,41"));
    // Given by hand, the default split offloads a layer instead.
    const auto even = run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--ctx", "8k", "--engine",
                               "quick", "--tensor-split", "1,1"});
    CHECK(even.code == 1);
    CHECK(has(even.out, "runs with the first 1 layer in system RAM (llama.cpp -ngl 80)"));
    CHECK(has(even.out, "-c 8192 -ngl 80 -ts 1,1"));
}

TEST_CASE("cli: explicit --n-cpu-moe and --ngl are placed as given") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--n-cpu-moe", "12", "--json",
                            "--engine", "quick"});
    CHECK(o.code == 1);
    const auto doc = nlohmann::json::parse(o.out)["hardware"]["selected"];
    CHECK(doc["plan"] == "none");  // 12 layers' experts leave 17.4 GB for a 17.2 GB card
    CHECK(doc["gpus"][0]["total_bytes"] == 17408246979ULL);
    const auto bad = run_cli({"qwen3.5-35b-a3b", "--ngl", "10", "--engine", "quick"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(has(
        bad.err,
        "canitrun: error: --ngl, --n-cpu-moe, --cpu-moe and --tensor-split place layers on GPUs"));
}

TEST_CASE("cli: system on a machine with no GPU says so and exits 0") {
    const auto o = run_cli({"system"}, {recording("no-gpu")});
    CHECK(o.code == 0);
    CHECK(has(o.out, "No GPU found."));
    CHECK(has(o.out, "System RAM: 16.8 GB"));  // 16,384,000 kB x 1024 = 16.78 GB
}

TEST_CASE("cli: system lists detected GPUs with their database match") {
    const auto o = run_cli({"system", "--json"}, {recording("nvidia-2x3090")});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    REQUIRE(doc["gpus"].size() == 2);
    CHECK(doc["gpus"][0]["database_id"] == "rtx-3090");
    CHECK(doc["gpus"][0]["memory_bytes"] == 25769803776ULL);
    CHECK(doc["ram_bytes"] == 65756956ULL * 1024);
}

TEST_CASE("cli: --gpu auto uses the detected GPUs and RAM") {
    const auto o =
        run_cli({"llama-3.3-70b", "--gpu", "auto", "--ctx", "4096", "--json", "--engine", "quick"},
                {recording("nvidia-2x3090")});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out)["hardware"];
    CHECK(doc["hardware"]["ram_bytes"] == 65756956ULL * 1024);
    CHECK(doc["selected"]["gpus"][0]["total_bytes"] == 25227272834ULL);
    // No GPU and 16.8 GB of RAM: the 24.1 GB Q4_K_M does not run; with --ram 64 it runs on the CPU.
    const auto none = run_cli({"qwen3.5-35b-a3b", "--gpu", "auto", "--json", "--engine", "quick"},
                              {recording("no-gpu")});
    CHECK(none.code == 1);
    CHECK(nlohmann::json::parse(none.out)["hardware"]["selected"]["plan"] == "none");
    const auto cpu =
        run_cli({"qwen3.5-35b-a3b", "--gpu", "auto", "--ram", "64", "--json", "--engine", "quick"},
                {recording("no-gpu")});
    CHECK(nlohmann::json::parse(cpu.out)["hardware"]["selected"]["plan"] == "cpu_only");
}

TEST_CASE("cli: fit lists what runs on a GPU and sorts it") {
    const auto o =
        run_cli({"fit", "--gpu", "RTX 4090", "--json", "--sort", "name", "--engine", "quick"});
    REQUIRE(o.code == 0);
    const auto models = nlohmann::json::parse(o.out)["models"];
    REQUIRE(models.size() > 10);
    std::string qwen, llama70;
    for (const auto& m : models) {
        if (m["model"] == "qwen3.5-35b-a3b") qwen = m["quant"];
        if (m["model"] == "llama-3.3-70b") llama70 = m["quant"];
    }
    CHECK(qwen == "Q4_K_M");  // 24.1 GB of 25.8 GB (hardware_questions_test.cpp)
    // Llama 3.3 70B needs under 2.3228 bits per weight, below the default floor (Q2_K): not
    // listed (quality_floor_test.cpp).
    CHECK(llama70.empty());
    CHECK(models[0]["model"].get<std::string>() < models[1]["model"].get<std::string>());
    const auto bad = run_cli({"fit", "--gpu", "RTX 4090", "--sort", "size", "--engine", "quick"});
    CHECK(bad.code == 2);
    CHECK(has(bad.err, "unknown sort order 'size'"));
}

TEST_CASE("cli: fit on a machine without a GPU lists what runs from RAM") {
    const auto o =
        run_cli({"fit", "--gpu", "auto", "--json", "--engine", "quick"}, {recording("no-gpu")});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["hardware"]["gpus"].empty());
    REQUIRE_FALSE(doc["models"].empty());
    for (const auto& m : doc["models"]) {
        CHECK(m["plan"] == "cpu_only");
        CHECK(m["ram"]["total_bytes"].get<std::uint64_t>() <= 16384000ULL * 1024);
    }
}

// validation/llama-bench.json holds kyuz0's gpt-oss-120b MXFP4 runs on a Ryzen AI Max+ 395
// (the quoted row "| gpt-oss 120B MXFP4 MoE | ... | Vulkan | ... | pp512 | 719.91 ± ... |"): the
// page prints them beside the estimate, which carries its device class's error band.
TEST_CASE("cli: a published run of the same model, quantization and GPU is shown beside it") {
    const auto o =
        run_cli({"gpt-oss-120b", "--gpu", "ryzen-ai-max-395-128gb", "--quant", "MXFP4", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    const auto& speed = doc["hardware"]["selected"]["speed"];
    CHECK(speed["device_class"] == "amd_apu");
    CHECK(speed["decode_error"].is_number());
    bool found = false;
    for (const auto& m : speed["measured"]) {
        if (m["test"] == "pp512" && m["backend"] == "Vulkan") {
            found = true;
            CHECK(m["tokens_per_s"].get<double>() == Approx(719.91));
        }
    }
    CHECK(found);
    const auto text =
        run_cli({"gpt-oss-120b", "--gpu", "ryzen-ai-max-395-128gb", "--quant", "MXFP4"});
    CHECK(has(text.out, "measured: pp512 720 tokens/s"));
    CHECK(has(text.out, "± "));
}

// An MI250 is two GCDs, each a ROCm GPU with half of the module's 128 GiB and 3,276.8 GB/s:
// llama.cpp splits layers over two devices of 68,719,476,736 bytes, each less the 1,024 MiB
// margin (67,645,734,912), at 1,638.4 GB/s.
TEST_CASE("cli: an MI250 is planned as the two devices ROCm shows") {
    const auto o = run_cli({"llama-3.3-70b", "--gpu", "mi250", "--quant", "Q8_0", "--json"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    const auto& gpus = doc["hardware"]["hardware"]["gpus"];
    REQUIRE(gpus.size() == 2);
    for (const auto& g : gpus) CHECK(g["bandwidth_gbps"].get<double>() == Approx(1638.4));
    const auto& shares = doc["hardware"]["selected"]["gpus"];
    REQUIRE(shares.size() == 2);
    CHECK(shares[0]["capacity_bytes"].get<std::uint64_t>() == 67645734912ULL);
    CHECK(shares[1]["layers"].get<int>() > 0);
}

// AMD's MI250X page: 128 GB HBM2e on two GCDs; ROCm and llama.cpp list each GCD as a device of
// 64 GB (68,719,476,736 bytes).
TEST_CASE("cli: --gpu MI250X plans two 64 GB devices and says so") {
    const auto text = run_cli({"qwen3-8b", "--gpu", "MI250X"});
    REQUIRE(text.code == 0);
    CHECK(has(text.out, "On AMD Instinct MI250X GCD 1/2 + AMD Instinct MI250X GCD 2/2"));
    CHECK(has(text.out,
              "Note: the AMD Instinct MI250X is 2 GCDs that ROCm and llama.cpp see as 2 "
              "devices of 64 GB each"));
    const auto o = run_cli({"qwen3-8b", "--gpu", "MI250X", "--json"});
    const auto hw = nlohmann::json::parse(o.out)["hardware"]["hardware"];
    REQUIRE(hw["gpus"].size() == 2);
    for (const auto& g : hw["gpus"]) CHECK(g["memory_bytes"] == 68719476736ULL);
    CHECK(hw["notes"].size() == 1);
}

// NVIDIA sells the RTX 4060 Ti and 5060 Ti with 8 or 16 GB; the bare name plans the 16 GB card
// (17,179,869,184 bytes) and says how to name the 8 GB one.
TEST_CASE("cli: --gpu 4060ti and 5060ti plan the 16 GB card and say which") {
    for (const std::string& typed : {std::string("4060ti"), std::string("5060ti")}) {
        const auto o = run_cli({"qwen3-8b", "--gpu", typed});
        REQUIRE(o.code == 0);
        CHECK(has(o.out, "On NVIDIA RTX " + typed.substr(0, 4) + " Ti 16GB"));
        CHECK(has(o.out, "Note: '" + typed + "' names 2 cards and is planned as the RTX " +
                             typed.substr(0, 4) + " Ti 16GB; name rtx-" + typed.substr(0, 4) +
                             "-ti-8gb for the RTX " + typed.substr(0, 4) + " Ti 8GB."));
        const auto j = run_cli({"qwen3-8b", "--gpu", typed, "--json"});
        const auto hw = nlohmann::json::parse(j.out)["hardware"]["hardware"];
        CHECK(hw["gpus"][0]["id"] == "rtx-" + typed.substr(0, 4) + "-ti-16gb");
        CHECK(hw["gpus"][0]["memory_bytes"] == 17179869184ULL);
    }
    const auto eight = run_cli({"qwen3-8b", "--gpu", "4060 ti 8gb"});
    CHECK(has(eight.out, "On NVIDIA RTX 4060 Ti 8GB"));
    CHECK_FALSE(has(eight.out, "names 2 cards"));
}

// Issue #38: "16 GB variants first ..., said in the output": every view that plans named GPUs
// says how it read them, not only the model page's plan. fit's table, compare's and vLLM's
// pages and an RPC plan over two hosts each carry the note the plan above carries.
TEST_CASE("cli: fit, compare and the cluster plans say which card a shared name planned") {
    const std::string note =
        "Note: '4060ti' names 2 cards and is planned as the RTX 4060 Ti 16GB; name "
        "rtx-4060-ti-8gb for the RTX 4060 Ti 8GB.";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"fit", "--gpu", "4060ti"},
          {"compare", "qwen3-8b", "qwen3-14b", "--gpu", "4060ti"},
          {"qwen3-8b", "--gpu", "4060ti", "--engine", "vllm"},
          {"qwen3-8b", "--host", "4060ti", "--host", "3090"}}) {
        const auto o = run_cli(args);
        INFO(args.front() << " " << args.back());
        CHECK(o.code != 2);  // a plan (vLLM's BF16 of an 8B fills no 16 GB card: exit 1)
        CHECK(has(o.out, note));
    }
    const auto fit_gcds = run_cli({"fit", "--gpu", "MI250X"});
    CHECK(has(fit_gcds.out,
              "Note: the AMD Instinct MI250X is 2 GCDs that ROCm and llama.cpp "
              "see as 2 devices of 64 GB each"));
    const auto j = run_cli({"compare", "qwen3-8b", "qwen3-14b", "--gpu", "4060ti", "--json"});
    const auto notes = nlohmann::json::parse(j.out)["notes"];
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].get<std::string>().starts_with("'4060ti' names 2 cards"));
    const auto none = run_cli({"compare", "qwen3-8b", "qwen3-14b", "--gpu", "4060 ti 8gb"});
    CHECK_FALSE(has(none.out, "names 2 cards"));
}

TEST_CASE("cli: \"Ryzen AI Max+ 395\" is one machine, not two names split at the '+'") {
    const auto o = run_cli({"qwen3-8b", "--gpu", "Ryzen AI Max+ 395"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "On AMD Ryzen AI Max+ 395 128GB"));
    CHECK(has(o.out, "name ryzen-ai-max-395-64gb for the Ryzen AI Max+ 395 64GB"));
}

std::string gpu_spec(const std::string& name) {
    return std::string(CANITRUN_FIXTURES) + "/gpu-spec/" + name;
}

// tests/fixtures/gpu-spec/mtt-s80.json: 16 GB (17,179,869,184 bytes), 448 GB/s.
TEST_CASE("cli: --gpu-spec plans a GPU the database lacks, alone or named in --gpu") {
    const auto alone = run_cli({"qwen3-8b", "--gpu-spec", gpu_spec("mtt-s80.json"), "--json"});
    REQUIRE(alone.code == 0);
    const auto hw = nlohmann::json::parse(alone.out)["hardware"]["hardware"];
    REQUIRE(hw["gpus"].size() == 1);
    CHECK(hw["gpus"][0]["id"] == "moore-threads-mtt-s80");
    CHECK(hw["gpus"][0]["memory_bytes"] == 17179869184ULL);
    CHECK(hw["gpus"][0]["bandwidth_gbps"] == 448);
    const auto text = run_cli({"qwen3-8b", "--gpu-spec", gpu_spec("mtt-s80.json")});
    CHECK(has(text.out, "On Moore Threads MTT S80 + 32.0 GB RAM"));
    const auto two = run_cli({"qwen3-32b", "--gpu-spec", gpu_spec("mtt-s80.json"), "--gpu",
                              "2x moore-threads-mtt-s80", "--json"});
    REQUIRE(two.code == 0);
    CHECK(nlohmann::json::parse(two.out)["hardware"]["hardware"]["gpus"].size() == 2);
    // --host names it too, and fit plans on it.
    CHECK(run_cli({"qwen3-8b", "--gpu-spec", gpu_spec("mtt-s80.json"), "--host",
                   "moore-threads-mtt-s80"})
              .code == 0);
    const auto fit = run_cli({"fit", "--gpu-spec", gpu_spec("mtt-s80.json"), "--json"});
    CHECK(fit.code == 0);
    CHECK(has(fit.out, "Moore Threads MTT S80"));
}

TEST_CASE("cli: a --gpu-spec file's problems, one line each, exit 2") {
    const auto o = run_cli({"qwen3-8b", "--gpu-spec", gpu_spec("three-mistakes.json")});
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    std::size_t lines = 0;
    for (std::size_t at = o.err.find("canitrun: error: "); at != std::string::npos;
         at = o.err.find("canitrun: error: ", at + 1)) {
        ++lines;
    }
    CHECK(lines == 3);
    CHECK(has(o.err,
              "three-mistakes.json: unknown field 'bandwith_gbps'; did you mean "
              "'bandwidth_gbps'?\n"));
    const auto missing = run_cli({"qwen3-8b", "--gpu-spec", gpu_spec("no-such.json")});
    CHECK(missing.code == 2);
    CHECK(has(missing.err, "canitrun: error: cannot open"));
    // A device or a folder is no description: refused before it is read.
    const auto device = run_cli({"qwen3-8b", "--gpu-spec", "/dev/zero"});
    CHECK(device.code == 2);
    CHECK(has(device.err, "/dev/zero is a device"));
    const auto models = run_cli({"models", "--gpu-spec", gpu_spec("mtt-s80.json")});
    CHECK(models.code == 2);
    CHECK(has(models.err, "--gpu-spec does not apply to models"));
}

TEST_CASE("cli: a format the GPU cannot load says so, not that memory is short") {
    // NVFP4 needs CUDA (data/quants.json requires_backend); an M4 Max has memory to spare
    const auto o =
        run_cli({"qwen3-8b", "--quant", "NVFP4", "--engine", "quick", "--gpu", "m4-max-64gb"});
    CHECK(o.code == 1);
    CHECK(has(o.out,
              "Does not run: NVFP4 files load only on NVIDIA (CUDA) GPUs, and the M4 Max "
              "64GB is not one."));
    CHECK_FALSE(has(o.out, "Does not fit: needs"));
}

// Hardware as the runtime sees it (issue "The best plan"): machines llama.cpp cannot drive as
// one are refused with exit 2 and a pointer to --host; MIG slices are one device each.
TEST_CASE("cli: a Mac beside a GPU, two Macs and two vendors in one machine are refused") {
    for (const char* spec : {"4090,m4-max-64gb", "2xm4-max-64gb"}) {
        const auto o = run_cli({"llama-3.1-8b", "--gpu", spec});
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(has(o.err, "a unified-memory machine"));
        CHECK(has(o.err, "--host"));
    }
    const auto mixed = run_cli({"llama-3.1-8b", "--gpu", "4090,7900xtx"});
    CHECK(mixed.code == 2);
    CHECK(has(mixed.err, "mixes NVIDIA and AMD cards"));
    // The RPC alternative with the user's own cards, one machine per vendor or per Mac.
    CHECK(has(mixed.err, "--host 'rtx-4090' --host 'rx-7900-xtx'"));
    CHECK(has(run_cli({"llama-3.1-8b", "--gpu", "2xm4-max-64gb"}).err,
              "--host 'm4-max-64gb' --host 'm4-max-64gb'"));
    // and the alternative runs: one llama-server and one rpc-server
    const auto rpc = run_cli({"llama-3.1-8b", "--host", "rtx-4090", "--host", "rx-7900-xtx"});
    CHECK(rpc.code == 0);
    CHECK(has(rpc.out, "2 hosts over llama.cpp RPC"));
}

TEST_CASE("cli: a MIG machine is planned on its largest slice alone, and says why") {
    const auto o = run_cli({"qwen3-32b", "--gpu", "auto"}, {recording("nvidia-a100-mig")});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "the largest of 3 MIG slices"));
    CHECK_FALSE(has(o.out, "-ts "));
    // What grows after load is held against the machine's RAM, the recording's MemTotal
    // (1,056,270,300 kB x 1024 = 1,081,620,787,200 B), not the page's 32 GB default.
    CHECK(has(o.out, "counts it at its most against 1081.6 GB of RAM;"));
}

// An Intel card under the xe driver without xpu-smi (the intel-arc-b580-xe recording): its PCI id
// 0xe20b names the Arc B580, so the plan has the card's bandwidth and a speed, and `system` says
// which id named it.
TEST_CASE("cli: --gpu auto names an Intel card on xe by its PCI id and plans it") {
    const auto o = run_cli({"llama-3.1-8b", "--gpu", "auto"}, {recording("intel-arc-b580-xe")});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "On Intel Arc B580 + "));
    CHECK_FALSE(has(o.out, "Speed: unknown"));
    const auto fit = run_cli({"fit", "--gpu", "auto"}, {recording("intel-arc-b580-xe")});
    CHECK(fit.code == 0);
    CHECK(has(fit.out, "Intel Arc B580"));
    const auto system = run_cli({"system"}, {recording("intel-arc-b580-xe")});
    REQUIRE(system.code == 0);
    CHECK(has(system.out, "arc-b580"));
    CHECK(has(system.out, "sysfs (xe), named by PCI id 0xe20b"));
}

// A desktop's integrated Radeon beside two RTX 3090 (the nvidia-2x3090-amd-apu recording): the
// plan is the cards' alone (nvidia-smi names them), and the note names the Radeon it left out.
TEST_CASE("cli: --gpu auto plans the cards and leaves a desktop's integrated GPU out") {
    const auto o =
        run_cli({"llama-3.3-70b", "--gpu", "auto"}, {recording("nvidia-2x3090-amd-apu")});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "On 2x NVIDIA GeForce RTX 3090 + "));
    CHECK(has(o.out, "left out: an integrated GPU shares the system RAM"));
    CHECK_FALSE(has(o.out, "unified memory"));
}

// The reason names the device that is over: with every expert on the GPU (--n-cpu-moe 0) a
// 16 GB card cannot hold Qwen3-30B-A3B at Q4_K_M (about 18 GB of weights), though GPU and RAM
// together could.
// The second case: -ngl 20 puts 19 of the 48 layers and the output head on an RTX 4060
// (8 GiB, 7.5 GB usable): 19/48 of about 17.7 GB of layers is 7.0 GB of weights already,
// before 19 layers' KV cache (4 KV heads x 128 x 2 x 2 bytes x 8,192 tokens = 16 MiB a layer)
// and the compute buffer. The GPU is over, not RAM.
TEST_CASE("cli: a plan that does not fit names the GPU that is over and the flags") {
    const auto o = run_cli({"qwen3-30b-a3b", "--gpu", "4060 ti 16gb", "--n-cpu-moe", "0"});
    CHECK(o.code == 1);
    CHECK(has(o.out, "Does not fit: GPU 0 (NVIDIA RTX 4060 Ti 16GB) needs"));
    CHECK(has(o.out, "--n-cpu-moe"));
    const auto ngl = run_cli({"qwen3-30b-a3b", "--gpu", "4060", "--ngl", "20"});
    CHECK(ngl.code == 1);
    CHECK(has(ngl.out, "Does not fit: GPU 0 (NVIDIA RTX 4060) needs"));
    CHECK(has(ngl.out, "of its 7.5 GB usable"));
    CHECK(has(ngl.out, "use it in place of the placement flags given"));
}

// When the split by memory fits but another is faster, the plan says so, not that the default
// overfills. Qwen 3.5 35B-A3B at Q4_K_M (about 22 GB) fits a 24 GB RTX 4090 alone, whose
// 1008 GB/s beat the RTX 3090's 936: all 40 layers and the output head (41 units) on GPU 0.
TEST_CASE("cli: a faster split than the default says why, and the command carries it") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--gpu", "4090,3090"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "runs faster by the speed model than llama.cpp's default split"));
    CHECK_FALSE(has(o.out, "overfills"));
    CHECK(has(o.out, "-ngl 99 -ts 41,0"));
}

TEST_CASE("cli hardware: a CPU-only plan reads the model from RAM, the prompt at the CPU's rate") {
    // No GPU: nothing crosses PCIe; prompt reading (compute-bound) needs the CPU's figures, which
    // the no-gpu recording lacks (no /proc/cpuinfo).
    const Outcome o =
        run_cli({"llama-3.1-8b", "--gpu", "auto", "--ram", "64"}, {recording("no-gpu")});
    REQUIRE(o.code == 1);  // runs, but not on a GPU (exit codes: README)
    CHECK(has(o.out, "the whole model runs from RAM"));
    CHECK(has(o.out,
              "reading the prompt is not estimated (the CPU's cores, vector width and "
              "clock are not known"));
    CHECK_FALSE(has(o.out, "PCIe"));
    // The Core i5-4278U of geerlingguy/ai-benchmarks#53 (2 cores, AVX2, 3.1 GHz: 0.3968 TOPS):
    // Llama 3.2 3B Q4_K_M's pp512 at 0.229 x 0.3968e12 / 6,508,080,384 FLOPs a token = 13.96
    // tokens/s (speed_test.cpp derives the FLOPs), where the run measured 17.70.
    const Outcome i5 =
        run_cli({"llama-3.2-3b", "--quant", "Q4_K_M", "--gpu", "auto", "--ram", "16"},
                {recording("cpu-i5-4278u")});
    CHECK(has(i5.out, "14 tokens/s (no measured band) reading the prompt"));
    CHECK(has(i5.out,
              "the prompt at 22.9 % of Intel(R) Core(TM) i5-4278U CPU @ 2.60GHz's int8 "
              "rate (2 cores x 32-byte vectors x 2 x 3.1 GHz = 0.40 TOPS)"));
    // A VM shows its 2 cores and AVX-512 but no clock (no cpufreq, no "@ GHz" in "AMD EPYC"):
    // the line names the one figure missing, not all three.
    const Outcome vm =
        run_cli({"llama-3.2-3b", "--quant", "Q4_K_M", "--gpu", "auto"}, {recording("cpu-vm-epyc")});
    CHECK(has(vm.out, "reading the prompt is not estimated (the CPU's clock is not known"));
}
