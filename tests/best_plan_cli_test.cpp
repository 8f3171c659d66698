// Issue "The best plan, not just a plan", through the binary: the hand-derived cases of its
// "What it must show" as a user asks them, and one rule for --split-mode row.

#include <algorithm>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;
using nlohmann::json;

namespace {

json page_json(const std::vector<std::string>& args) {
    const auto o = run_cli(args);
    INFO(o.err);
    REQUIRE((o.code == 0 || o.code == 1));
    return json::parse(o.out);
}

}  // namespace

// By hand: gpt-oss-120b MXFP4 is about 65 GB, 2x RTX 3090 hold 2 x 24.7 GB after the 1 GiB
// margins, so some layers' experts go to RAM. The old plan (--n-cpu-moe 23 with the split by
// memory, -ts 24,24) left GPU 0 holding 0.56 GB of weights: the experts kept in RAM are the
// first layers', which the even split gave GPU 0. The default now finds the uneven split and
// fewer layers' experts in RAM, with GPU 0 more than half full.
TEST_CASE("best plan cli: gpt-oss-120b and GLM-4.5-Air on 2x RTX 3090 take the uneven split") {
    for (const auto& [model, quant] :
         {std::pair{"gpt-oss-120b", "MXFP4"}, std::pair{"glm-4.5-air", "Q4_K_M"}}) {
        const json doc =
            page_json({model, "--gpu", "2x3090", "--ram", "64", "--quant", quant, "--json"});
        const json& s = doc["hardware"]["selected"];
        INFO(model << ": " << doc["hardware"]["llama_cpp_command"]);
        CHECK(s["plan"] == "expert_offload");
        CHECK(s["cpu_moe_layers"].get<int>() < 23);
        const json& gpu0 = s["gpus"][0];
        CHECK(gpu0["weights_bytes"].get<double>() > gpu0["capacity_bytes"].get<double>() / 2);
        const std::string command = doc["hardware"]["llama_cpp_command"];
        // --n-cpu-moe, or -ot where a chosen set keeps fewer layers' experts in RAM (GLM-4.5-Air:
        // GPU 1's first 18, none of GPU 0's)
        CHECK((has(command, "--n-cpu-moe") || has(command, " -ot ")));
        CHECK(has(command, " -ts "));
        CHECK_FALSE(has(command, "-ts 24,24"));
    }
}

// By hand: Llama 3.3 70B on one RTX 4090 (24 GB) with 128 GB of RAM. Every quantization of at
// least 2 bits per weight needs more than 24 GB, so layers go to RAM, read at the default
// 76.8 GB/s x 0.6 (about 46 GB/s). At BF16 (141 GB) about 118 GB are read from RAM per token,
// 2.6 s: 0.4 tokens/s; at Q4_K_M (42.5 GB) about 21 GB, 0.46 s: about 2 tokens/s, under the
// 5 tokens/s floor. Only a quantization near 2-3 bits, with under 9 GB in RAM (0.2 s), reaches
// it: the pick is that, above the floor; with a floor of 0.1 tokens/s (--min-speed 0.1), a better
// one under 5.
TEST_CASE("best plan cli: the 70B on a 4090 with 128 GB picks a quantization above the floor") {
    const json floor = page_json({"llama-3.3-70b", "--gpu", "4090", "--ram", "128", "--json"});
    const json& best = floor["hardware"]["best"];
    CHECK(best["speed"]["decode_tokens_per_s"].get<double>() >= 5.0);
    CHECK(best["quant"] != "BF16");
    CHECK(best["quant"] != "Q4_K_M");
    const json none = page_json(
        {"llama-3.3-70b", "--gpu", "4090", "--ram", "128", "--min-speed", "0.1", "--json"});
    CHECK(none["hardware"]["best"]["speed"]["decode_tokens_per_s"].get<double>() < 5.0);
    const auto text = run_cli({"llama-3.3-70b", "--gpu", "4090", "--ram", "128"});
    CHECK(has(text.out, "Best quantization that runs at 8,192 tokens: " +
                            best["quant"].get<std::string>() + " (layer_offload, "));
}

// Beside the best quality that runs whole, the best that runs with offload at the floor. By
// hand: GLM-4.5-Air (106B, 12B active) on 2x RTX 3090 with 64 GB fits whole only near 2 bits.
// At Q4_K_M (about 4.8 bits, 73 GB) the GPUs hold about 48 GB and the routed experts of some
// 19 of 46 layers stay in RAM: of the 12B active (about 7 GB a token) some 2.5 GB are read from
// RAM at 46 GB/s (55 ms) and the rest from the GPUs at 936 GB/s (5 ms): about 17 tokens/s, over
// the 5 tokens/s floor. So a quality at least Q4_K_M's runs with offload above the floor; with
// a floor of 1,000 tokens/s none does.
TEST_CASE("best plan cli: the best whole and, beside it, a better one with offload") {
    const std::vector<std::string> args = {"glm-4.5-air", "--gpu", "2x3090",
                                           "--ram",       "64",    "--json"};
    const json doc = page_json(args);
    const json& h = doc["hardware"];
    REQUIRE(h["best"]["plan"] == "native");
    const json& o = h["best_with_offload"];
    REQUIRE(o.is_object());
    CHECK(o["plan"] == "expert_offload");
    CHECK(o["speed"]["decode_tokens_per_s"].get<double>() >= 5.0);
    const std::vector<std::string> at_least = {"BF16",   "Q8_0",   "Q6_K",
                                               "Q5_K_M", "Q5_K_S", "Q4_K_M"};
    CHECK(std::find(at_least.begin(), at_least.end(), o["quant"].get<std::string>()) !=
          at_least.end());
    auto fast = args;
    fast.insert(fast.end(), {"--min-speed", "1000"});
    CHECK(page_json(fast)["hardware"]["best_with_offload"].is_null());
    const auto text = run_cli({"glm-4.5-air", "--gpu", "2x3090", "--ram", "64"});
    CHECK(has(text.out, "; with offload " + o["quant"].get<std::string>() + " (expert_offload, "));
}

// One rule for --split-mode row: the model page plans it (the plan, the best quantization and
// the longest context, all from the row placement), and fit and gpus, which rank by speed
// that no published run measures under -sm row, refuse it with exit 2 and say where it is read.
TEST_CASE("best plan cli: --split-mode row on the page, refused by fit and gpus") {
    for (const auto& args :
         {std::vector<std::string>{"fit", "--gpu", "2x3090", "--split-mode", "row"},
          std::vector<std::string>{"gpus", "llama-3.3-70b", "--split-mode", "row"}}) {
        const auto o = run_cli(args);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(has(o.err, "--split-mode does not apply to " + args[0]));
        CHECK(has(o.err, "the model page"));
    }
    const auto row = run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--split-mode", "row"});
    REQUIRE(row.code == 0);
    // The best quantization is a row plan too: no speed figure (the -sm layer pick printed one).
    // Q5_K_M needs 52.9 GB, more than the 2 x 24.7 GB of the two cards, so it is not the pick.
    CHECK(has(row.out, "Best quantization that fits at 8,192 tokens: "));
    CHECK(has(row.out, " (native, speed unknown)\n"));
    CHECK_FALSE(has(row.out, "tokens: Q5_K_M"));
    CHECK(has(row.out, "Serving: not planned for --split-mode row"));
    CHECK(has(row.out, "-sm row"));
}

namespace {

// The placement flags of the "llama.cpp:" line a plan prints: from -ngl to the end of the line
// (the questions below ask for no cache type, -fa, --parallel or -ub, which would follow them).
std::string placement_flags(const std::string& page) {
    const auto line = page.find("  llama.cpp: llama-server ");
    REQUIRE(line != std::string::npos);
    const auto from = page.find(" -ngl ", line);
    // the placement ends where the slots begin (--parallel, always printed)
    const auto end = std::min(page.find('\n', line), page.find(" --parallel ", line));
    REQUIRE(from < end);
    return page.substr(from + 1, end - from - 1);
}

}  // namespace

// A plan the user's placement flags make fail names the planner's own placement, the one the
// same question without those flags prints (the core's answer_for computes it; the CLI only
// writes it). By hand: qwen3-30b-a3b's Q4_K_M file is 18.6 GB (unsloth's listing), more than
// the 16.1 GB an RTX 4060 Ti 16GB holds after its 1 GiB margin, so --n-cpu-moe 0 is over on
// GPU 0 and the plan's own keeps some layers' experts in RAM. Llama 3.3 70B at 20,000 tokens
// does not fit 2x RTX 3090 whole (its longest native context there is 15,616 tokens), so under
// -sm row (every layer on the GPUs) it is over, and the plan's own keeps layers in RAM under
// -sm layer: an -ngl and no -sm row.
TEST_CASE("best plan cli: a plan the placement flags make fail names the plan's own") {
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
        {{"qwen3-30b-a3b", "--quant", "Q4_K_M", "--gpu", "4060 ti 16gb", "--ram", "32"},
         {"--n-cpu-moe", "0"}},
        {{"llama-3.3-70b", "--quant", "Q4_K_M", "--gpu", "2x3090", "--ram", "64", "--ctx", "20000"},
         {"--split-mode", "row"}},
        {{"llama-3.3-70b", "--quant", "Q4_K_M", "--gpu", "2x3090", "--ram", "64"},
         {"--ngl", "81", "--ctx", "20000"}}};
    for (const auto& [question, flags] : cases) {
        auto with = question;
        with.insert(with.end(), flags.begin(), flags.end());
        auto without = question;
        if (flags.size() > 2) without.insert(without.end(), flags.begin() + 2, flags.end());
        const auto failed = run_cli(with);
        const auto own = run_cli(without);
        INFO(failed.out);
        CHECK(failed.code == 1);
        REQUIRE(own.code != 2);  // 1: runs with offload, which is not "fits whole"
        const std::string expected = placement_flags(own.out);
        CHECK(has(failed.out, "Does not fit: GPU 0 (NVIDIA "));
        CHECK(has(failed.out, "The plan's own placement fits: " + expected + " ("));
        CHECK_FALSE(has(expected, "-sm row"));
        CHECK_FALSE(has(failed.out, "keep more in system RAM"));
    }
    // Not the flags: nothing fits 8 GB and 32 GB of RAM whole (the 70B's Q4_K_M file is
    // 42.5 GB), so there is no plan of its own to name.
    const auto none = run_cli(
        {"llama-3.3-70b", "--quant", "Q4_K_M", "--gpu", "4060", "--ram", "32", "--ngl", "50"});
    CHECK_FALSE(has(none.out, "The plan's own placement"));
}

// --split-mode tensor: refused with the reason the pinned llama.cpp 0ad4a86 gives where it would
// not run it (llm_arch_supports_sm_tensor, src/llama-arch.cpp: deepseek2, Kimi K2's
// architecture, is among those it refuses; src/llama-context.cpp: it needs flash attention);
// else planned (tensor_split.hpp) and printed with -sm tensor, with the decode estimate read
// from the published pairs and its partial-sum buffers on each GPU. By hand:
// Llama 3.3 70B at Q4_K_M is 42.5 GB, about 21.3 GB a GPU cut in two, under the 24.7 GB an RTX
// 3090 holds after its margin, so the even cut (-ts 1,1) fits.
TEST_CASE("best plan cli: --split-mode tensor, llama.cpp's own refusals, else planned") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"kimi-k2", "--gpu", "2x3090", "--split-mode", "tensor"},
         "not implemented for architecture 'deepseek2'"},
        {{"llama-3.3-70b", "--gpu", "2x3090", "--split-mode", "tensor", "--flash-attn", "off"},
         "requires flash_attn to be enabled"}};
    for (const auto& [args, reason] : cases) {
        const auto o = run_cli(args);
        INFO(o.err);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(has(o.err, "canitrun: error: "));
        CHECK(has(o.err, reason));
    }
    const auto o = run_cli(
        {"llama-3.3-70b", "--quant", "Q4_K_M", "--gpu", "2x3090", "--split-mode", "tensor"});
    INFO(o.out << o.err);
    CHECK(o.code == 0);
    CHECK(has(o.out, " -ts 1,1 -sm tensor"));
    CHECK(has(o.out, " reading the prompt"));
    CHECK_FALSE(has(o.out, "reading the prompt is not estimated"));
    CHECK(has(o.out,
              "every layer adds two reductions of 58 us a generated token and 1.6 us a "
              "prompt token"));
    CHECK(has(o.out, "partial sums reduced between GPUs (-sm tensor)"));
}

// Left to the planner, the same question keeps -sm layer (the printed command has no -sm) and
// shows -sm tensor beside it as faster by estimate, with the line that runs it. By hand: the
// layer split reads the 42.5 GB one GPU after the other, at least 42.5 / 936 GB/s = 45 ms a
// token; tensor mode reads half on each GPU at once and adds 2 x 80 reductions of 58 µs (9.3
// ms), faster wherever the layer split takes more than 2 x 9.3 = 18.6 ms.
TEST_CASE("best plan cli: -sm tensor shown beside the plan where its estimate is faster") {
    const auto o = run_cli({"llama-3.3-70b", "--quant", "Q4_K_M", "--gpu", "2x3090"});
    INFO(o.out << o.err);
    CHECK(o.code == 0);
    const auto line = [&](const std::string& start) {
        const auto at = o.out.find(start);
        return at == std::string::npos ? std::string{}
                                       : o.out.substr(at, o.out.find('\n', at) - at);
    };
    const std::string option = line("  Faster by estimate, not chosen: --split-mode tensor");
    CHECK(has(option, "llama.cpp#19378"));
    CHECK(has(option, "llama.cpp#25051"));
    CHECK(has(option, "ranks tensor against layer right in only 2"));
    CHECK(has(option, " -ts 1,1 -sm tensor"));
    const std::string command = line("  llama.cpp: llama-server");
    REQUIRE_FALSE(command.empty());
    CHECK_FALSE(has(command, "-sm"));
}

// The plan's own placement is in --json too (hardware.selected.alternative), as the text names
// it. By hand, as above: qwen3-30b-a3b's Q4_K_M file is 18.6 GB (unsloth's listing) and an RTX
// 4060 Ti 16GB holds 16 GiB - 1 GiB margin = 16.1 GB, so under --n-cpu-moe 0 the plan is none,
// and the alternative keeps some layers' experts in RAM: at least 18.6 - 16.1 = 2.4 GB of
// weights (the listing's 18.6 rounded down a little) in RAM, with every device within its
// capacity. Its flags and speed are those of the same question without --n-cpu-moe.
TEST_CASE("best plan cli: --json carries the plan's own placement where the flags fail") {
    const std::vector<std::string> question = {"qwen3-30b-a3b", "--quant", "Q4_K_M", "--gpu",
                                               "4060 ti 16gb",  "--ram",   "32",     "--json"};
    auto with = question;
    with.insert(with.end(), {"--n-cpu-moe", "0"});
    const json failed = page_json(with)["hardware"];
    const json own = page_json(question)["hardware"];
    CHECK(failed["selected"]["plan"] == "none");
    CHECK_FALSE(failed.contains("llama_cpp_command"));
    REQUIRE(failed["selected"].contains("alternative"));
    const json& alt = failed["selected"]["alternative"];
    CHECK(alt["plan"] == "expert_offload");
    const auto n = alt["cpu_moe_layers"].get<std::uint64_t>();
    CHECK(n > 0);
    CHECK(alt["flags"] == "-ngl 99 --n-cpu-moe " + std::to_string(n));
    CHECK(alt["ram"]["weights_bytes"].get<std::uint64_t>() > 2'400'000'000u);
    CHECK(alt["ram"]["fits"] == true);
    for (const json& g : alt["gpus"]) {
        CHECK(g["fits"] == true);
        CHECK(g["total_bytes"].get<std::uint64_t>() <= g["capacity_bytes"].get<std::uint64_t>());
    }
    CHECK(alt["gpus"][0]["capacity_bytes"] == 15 * (std::uint64_t{1} << 30));
    const std::string command = alt["llama_cpp_command"];
    CHECK(command.starts_with("llama-server "));
    CHECK(has(command, " -c 8192 " + alt["flags"].get<std::string>()));
    CHECK(command == own["llama_cpp_command"].get<std::string>());
    CHECK(alt["decode_tokens_per_s"].get<double>() > 0);
    CHECK(alt["decode_tokens_per_s"] == own["selected"]["speed"]["decode_tokens_per_s"]);
    CHECK_FALSE(own["selected"].contains("alternative"));
}

namespace {

// The value after `flag` in a printed command line ("" where it has none).
std::string flag_value(const std::string& command, const std::string& flag) {
    const auto at = command.find(" " + flag + " ");
    if (at == std::string::npos) return "";
    const auto from = at + flag.size() + 2;
    return command.substr(from, command.find(' ', from) - from);
}

// Where llama.cpp puts each unit of a printed line: llama_model::load_tensors (src/llama-model.cpp
// at 0ad4a86, lines 1509-1530) splits n_layer_all + 1 units, the last -ngl of them on the GPUs
// (i_gpu_start = units - ngl), unit il on the first GPU whose cumulative share of -ts is past
// (il - i_gpu_start) / act_gpu_layers (std::upper_bound). -1: the CPU.
std::vector<int> llamacpp_devices(std::uint64_t units, std::uint64_t ngl,
                                  const std::vector<double>& ts) {
    const std::uint64_t act = std::min(ngl, units);
    const std::uint64_t start = units - act;
    double sum = 0;
    for (const double t : ts) sum += t;
    std::vector<float> splits;
    double run = 0;
    for (const double t : ts) splits.push_back(static_cast<float>((run += t) / sum));
    std::vector<int> out;
    for (std::uint64_t il = 0; il < units; ++il) {
        if (il < start) {
            out.push_back(-1);
            continue;
        }
        const float f = static_cast<float>(il - start) / static_cast<float>(act);
        out.push_back(
            static_cast<int>(std::upper_bound(splits.begin(), splits.end(), f) - splits.begin()));
    }
    return out;
}

std::vector<double> numbers(const std::string& list) {
    std::vector<double> out;
    std::size_t from = 0;
    while (from <= list.size()) {
        const auto comma = std::min(list.find(',', from), list.size());
        out.push_back(std::stod(list.substr(from, comma - from)));
        from = comma + 1;
    }
    return out;
}

}  // namespace

// GLM-4.5-Air's GGUF files carry its MTP block: block_count 47, 46 layers + 1 nextn (the data's
// run.gguf_mtp, ggml-org/llama.cpp PR #14939's log), so llama.cpp splits 48 units, the nextn
// block (skipped unless loaded to draft) at 46 and the head at 47. The printed -ts must put on
// each GPU exactly the layers the plan's table gives it; an -ts summing to the plan's own 47
// units moves the boundary (26,21: ceil(26 x 48 / 47) = 27 layers on GPU 0, one more than
// planned on a GPU planned 0.1 GB short of full).
TEST_CASE("best plan cli: the printed -ts places a file's MTP block as llama.cpp counts it") {
    const json doc =
        page_json({"glm-4.5-air", "--gpu", "2x3090", "--ram", "64", "--quant", "Q4_K_M", "--json"});
    const std::string command = doc["hardware"]["llama_cpp_command"];
    INFO(command);
    const json& s = doc["hardware"]["selected"];
    REQUIRE(flag_value(command, "-ngl") == "99");
    const auto devices = llamacpp_devices(48, 99, numbers(flag_value(command, "-ts")));
    for (std::size_t d = 0; d < 2; ++d) {
        const auto on_d = std::count(devices.begin(), devices.begin() + 46, static_cast<int>(d));
        CHECK(on_d == s["gpus"][d]["layers"].get<long>());
        CHECK((devices[47] == static_cast<int>(d)) == s["gpus"][d]["output_head"].get<bool>());
    }
    // --json carries the split the line prints
    std::string split;
    for (const auto& u : s["tensor_split"]) {
        split += (split.empty() ? "" : ",") + std::to_string(u.get<std::uint64_t>());
    }
    CHECK(split == flag_value(command, "-ts"));
}

// --ngl 10 on GLM-4.5-Air, as canitrun counts it: 9 layers and the head on the RTX 4090 (the
// table's "9+out", 37 layers in RAM). llama.cpp's -ngl K keeps units 48 - K to 47 on the GPU:
// 9 layers (37 to 45), the nextn block (46) and the head (47) are K = 11.
TEST_CASE("best plan cli: the printed -ngl counts a file's MTP block") {
    const json doc =
        page_json({"glm-4.5-air", "--gpu", "RTX 4090", "--ram", "128", "--ngl", "10", "--json"});
    const std::string command = doc["hardware"]["llama_cpp_command"];
    INFO(command);
    const json& s = doc["hardware"]["selected"];
    REQUIRE(s["gpus"][0]["layers"] == 9);
    CHECK(flag_value(command, "-ngl") == "11");
    CHECK(s["gpu_layers"] == 11);
    const auto devices = llamacpp_devices(48, 11, {1});
    CHECK(std::count(devices.begin(), devices.begin() + 46, 0) == 9);
}

// --ngl 10 --n-cpu-moe 45 on Qwen3-30B-A3B (48 layers, no MTP block in its files): 9 layers and
// the head on the GPU, the routed experts of the first 45 in RAM (all of those 39 in RAM, 6 of
// the GPU's). The line must keep both: -ngl 99 would put all 48 layers' attention on the GPU.
TEST_CASE("best plan cli: layers and experts in RAM both reach the printed line") {
    const json doc = page_json({"qwen3-30b-a3b", "--gpu", "RTX 4060", "--ram", "64", "--ngl", "10",
                                "--n-cpu-moe", "45", "--json"});
    const std::string command = doc["hardware"]["llama_cpp_command"];
    INFO(command);
    CHECK(doc["hardware"]["selected"]["gpus"][0]["layers"] == 9);
    CHECK(flag_value(command, "-ngl") == "10");
    CHECK(flag_value(command, "--n-cpu-moe") == "45");
}

// GLM-4.5-Air's first layer is dense (one of 46; the other 45 MoE), so no set of layers' experts
// in RAM holds GPU 0's first layer: the sentence must not call the set "each GPU's first ones".
// Its layers are the -ot pattern's, which JSON gives as cpu_moe_set.
TEST_CASE("best plan cli: a chosen set is described as chosen, not as each GPU's first layers") {
    const auto o = run_cli({"glm-4.5-air", "--gpu", "2x3090", "--ram", "64"});
    REQUIRE(o.code == 1);  // runs with offload, not whole on the GPUs
    INFO(o.out);
    REQUIRE(has(o.out, " -ot "));
    CHECK_FALSE(has(o.out, "each GPU's first ones"));
    CHECK(has(o.out, "chosen on each GPU to free what it cannot hold"));
    const json doc = page_json({"glm-4.5-air", "--gpu", "2x3090", "--ram", "64", "--json"});
    const json& set = doc["hardware"]["selected"]["cpu_moe_set"];
    REQUIRE_FALSE(set.empty());
    CHECK(set[0].get<int>() > 0);  // layer 0, dense, has no routed experts to move
}
