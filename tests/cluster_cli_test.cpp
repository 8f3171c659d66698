// Issue "Beyond one machine" through the binary: vLLM over GPUs and hosts, llama.cpp RPC over
// hosts, several users; the verdicts are the ones derived by hand in vllm_layout_test.cpp,
// rpc_plan_test.cpp and serving_test.cpp.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;

namespace {

json json_of(const std::vector<std::string>& args, int code) {
    const Outcome o = run_cli(args);
    INFO(o.err);
    REQUIRE(o.code == code);
    return json::parse(o.out);
}

void refused(const std::vector<std::string>& args, const std::string& words) {
    const Outcome o = run_cli(args);
    INFO(o.err);
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(has(o.err, "canitrun: error: "));
    CHECK(has(o.err, words));
}

}  // namespace

TEST_CASE("cluster: DeepSeek V3 at FP8 - not 8x H100, yes 8x H200, yes two 8x H100 hosts") {
    const json h100 = json_of(
        {"deepseek-v3", "--engine", "vllm", "--quant", "FP8", "--gpu", "8xh100-sxm", "--json"}, 1);
    CHECK(h100["fits"] == false);
    const json h200 = json_of(
        {"deepseek-v3", "--engine", "vllm", "--quant", "FP8", "--gpu", "8xh200-sxm", "--json"}, 0);
    CHECK(h200["tensor_parallel"] == 8);
    CHECK(h200["pipeline_parallel"] == 1);
    const json two = json_of({"deepseek-v3", "--engine", "vllm", "--quant", "FP8", "--host",
                              "8xh100-sxm", "--host", "8xh100-sxm", "--json"},
                             0);
    CHECK(two["tensor_parallel"] == 8);
    CHECK(two["pipeline_parallel"] == 2);
    REQUIRE(two["stages"].size() == 2);
    CHECK(two["stages"][1]["host"] == 2);
    CHECK(has(two["commands"][0].get<std::string>(), "ray start --head"));
    CHECK(has(two["commands"].back().get<std::string>(), "--pipeline-parallel-size 2"));
}

TEST_CASE("cluster: the vLLM answer in every format") {
    const std::vector<std::string> q = {"deepseek-v3", "--engine",   "vllm",   "--quant",   "FP8",
                                        "--host",      "8xh100-sxm", "--host", "8xh100-sxm"};
    std::vector<std::string> args = q;
    args.emplace_back("--quiet");
    const Outcome quiet = run_cli(args);
    CHECK(quiet.out == "TP 8 x PP 2\n");
    args = q;
    args.insert(args.end(), {"--format", "csv"});
    const Outcome csv = run_cli(args);
    CHECK(csv.out.rfind("stage,host,tensor_parallel,layers,", 0) == 0);
    // 61 layers over two stages: 31 then 30 (get_pp_indices)
    CHECK(has(csv.out, "\n0,1,8,31,"));
    CHECK(has(csv.out, "\n1,2,8,30,"));
    const Outcome text = run_cli(q);
    CHECK(has(text.out, "tensor parallel 8 x pipeline parallel 2 (16 GPUs)"));
    args = q;
    args.insert(args.end(), {"--format", "markdown"});
    CHECK(run_cli(args).code == 0);
}

TEST_CASE("cluster: an 8B in BF16 on one H100 serves 55 sequences of 8k with vLLM") {
    const json doc = json_of(
        {"llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm", "--users", "55", "--json"}, 0);
    CHECK(doc["max_sequences_at_context"] == 55);
    CHECK(doc["users"] == 55);
    const Outcome more = run_cli(
        {"llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm", "--users", "56", "--quiet"});
    CHECK(more.code == 1);
}

TEST_CASE("cluster: llama.cpp RPC - a 405B over two 256 GB Macs") {
    const json doc = json_of(
        {"llama-3.1-405b", "--host", "m3-ultra-256gb", "--host", "m3-ultra-256gb", "--json"}, 0);
    CHECK(doc["engine"] == "llama.cpp-rpc");
    CHECK(doc["fits"] == true);
    CHECK(doc["device_hosts"] == json::array({1, 0}));
    CHECK(doc["plan"]["gpus"][0]["layers"] == 64);
    CHECK(doc["network"]["transfers_per_token"] == 2);
    REQUIRE(doc["commands"].size() == 2);
    CHECK(doc["commands"][0]["host"] == 2);
    CHECK(doc["commands"][0]["command"] == "rpc-server --host 0.0.0.0 --port 50052");
    CHECK(has(doc["commands"][1]["command"].get<std::string>(), "--rpc HOST2_IP:50052"));
    const Outcome text =
        run_cli({"llama-3.1-405b", "--host", "m3-ultra-256gb", "--host", "m3-ultra-256gb"});
    CHECK(has(text.out, "on host 2: rpc-server --host 0.0.0.0 --port 50052"));
    CHECK(has(text.out, "10 Gb Ethernet, the default"));
}

TEST_CASE("cluster: llama.cpp RPC - a 70B over three mixed machines on 1 Gb/s") {
    const json doc = json_of({"llama-3.1-70b", "--host", "rtx-4090:ram=64", "--host", "2x3090",
                              "--host", "rtx-3090", "--link", "1gbe", "--json"},
                             0);
    CHECK(doc["link_gbits"] == 1.0);
    CHECK(doc["device_hosts"] == json::array({1, 1, 2, 0}));
    // The split search holds the 70B on two GPUs (the 4090 on host 1, the server, and one 3090):
    // host 1 -> the other host and back (rpc_plan_test has the split).
    CHECK(doc["network"]["transfers_per_token"] == 2);
    CHECK(doc["hosts"][0]["hardware"]["ram_bytes"] == 64000000000ULL);
}

TEST_CASE("cluster: several users on one GPU through the page") {
    const json doc =
        json_of({"llama-3.1-8b", "--gpu", "rtx-4090", "--users", "4", "--ctx", "32k", "--json"}, 0);
    const json& h = doc["hardware"];
    CHECK(h["selected"]["context"] == 131072);
    CHECK(h["users_speed"]["users"] == 4);
    CHECK(h["serving"]["per_user_context"] == 32768);
    CHECK(h["serving"]["max_users"] == 4);
    const Outcome text =
        run_cli({"llama-3.1-8b", "--gpu", "rtx-4090", "--users", "4", "--ctx", "32k"});
    CHECK(has(text.out, "4 sequences of 32,768 tokens"));
    CHECK(has(text.out, "Serving: up to 4 users of 32,768 tokens each"));
}

TEST_CASE("cluster: mistaken machine flags are refused") {
    refused({"llama-3.1-8b", "--link", "10"}, "--link does not apply");
    refused({"llama-3.1-8b", "--host", "rtx-4090", "--link", "10"}, "--link does not apply");
    refused({"llama-3.1-8b", "--host", "rtx-4090", "--host", "rtx-3090", "--gpu", "rtx-4090"},
            "--host names each machine's GPUs");
    refused({"llama-3.1-8b", "--host", "rtx-4090:ram=lots", "--host", "rtx-3090"}, "");
    refused({"llama-3.1-8b", "--host", "rtx-4090:vram=24", "--host", "rtx-3090"},
            "unknown host setting");
    refused({"llama-3.1-8b", "--host", "rtx-4090", "--host", "rtx-3090", "--link", "fast"},
            "invalid link speed");
    refused({"llama-3.1-8b", "--host", "rtx-4090", "--host", "rtx-3090", "--engine", "quick"},
            "--engine quick plans one machine");
    refused({"llama-3.1-8b", "--gpu", "rtx-4090", "--users", "4", "--parallel", "2"},
            "--users and --parallel");
    refused({"llama-3.1-8b", "--gpu", "rtx-4090", "--users", "300"}, "--users");
    refused({"llama-3.1-8b", "--engine", "vllm", "--host", "m3-ultra-256gb"}, "NVIDIA");
    refused({"llama-3.1-8b", "--host", "no-such-gpu", "--host", "rtx-3090"}, "");
}

TEST_CASE("cluster: exo over two 256 GB Macs - 63 layers each") {
    const json doc = json_of({"llama-3.1-405b", "--engine", "exo", "--host", "m3-ultra-256gb",
                              "--host", "m3-ultra-256gb", "--json"},
                             0);
    CHECK(doc["engine"] == "exo");
    REQUIRE(doc["nodes"].size() == 2);
    CHECK(doc["nodes"][0]["layers"] == 63);
    CHECK(doc["nodes"][1]["first_layer"] == 63);
    CHECK(doc["network"]["transfers_per_token"] == 2);
    const Outcome text = run_cli({"llama-3.1-405b", "--engine", "exo", "--host", "m3-ultra-256gb",
                                  "--host", "m3-ultra-256gb"});
    CHECK(has(text.out, "uv run exo"));
    // Timed by MLX's published runs on the M3 Ultra (validation/mlx.json), with their band;
    // an RTX 4090 has none, so no speed at all, and JSON says null.
    REQUIRE(doc["decode_tokens_per_s"].is_number());
    CHECK(doc["decode_band_tokens_per_s"][0].get<double>() <= doc["decode_tokens_per_s"]);
    CHECK(doc["decode_band_tokens_per_s"][1].get<double>() >= doc["decode_tokens_per_s"]);
    CHECK(doc["quant"] == "MLX-4bit");
    CHECK(has(text.out, "share of bandwidth MLX reached"));
    // Each hop at exo's own cost, fitted on exo issue #2070's runs (exo_plan_test: 1.42 ms, 1.10
    // to 1.73), and the text says what it was fitted on.
    CHECK(doc["network"]["hop_seconds"].get<double>() == Approx(0.0014189524));
    CHECK(doc["network"]["hop_seconds_band"][0].get<double>() == Approx(0.0011029412));
    CHECK(doc["network"]["hop_source"] == "https://github.com/exo-explore/exo/issues/2070");
    CHECK(has(text.out, "a hop costs about 1.42 ms besides its bytes (1.10 to 1.73)"));
    CHECK(has(text.out, "pipelined over two Macs on Thunderbolt 5"));
    // The M1 Max has one run on record (mlx-examples PR #515, confirmed): the text names it as
    // the band's only run, unmarked. The M4 Max has six (a blog's and mlx-lm's BENCHMARKS.md's
    // five), so a band of its own and no such line.
    const Outcome m1max = run_cli({"llama-3.1-8b", "--engine", "exo", "--host", "m1-max-64gb"});
    CHECK(has(m1max.out, "one published MLX run"));
    CHECK(has(m1max.out, "https://github.com/ml-explore/mlx-examples/pull/515\n"));
    const Outcome m4max = run_cli({"llama-3.1-8b", "--engine", "exo", "--host", "m4-max-64gb"});
    CHECK_FALSE(has(m4max.out, "one published MLX run"));
    CHECK(has(m4max.out, "Network: none: one machine holds every layer"));
    const json cuda =
        json_of({"llama-3.1-8b", "--engine", "exo", "--host", "rtx-4090", "--json"}, 0);
    CHECK(cuda["decode_tokens_per_s"].is_null());
    CHECK(cuda["nodes"][0]["seconds_per_token"].is_null());
    refused({"llama-3.1-8b", "--engine", "exo"}, "--engine exo plans machines");
    refused({"llama-3.1-8b", "--engine", "exo", "--host", "rtx-4090", "--ubatch", "1024"},
            "--ubatch is a llama.cpp setting");
    refused({"gpus", "llama-3.1-8b", "--engine", "exo"}, "applies to the model command only");
}
