// Which llama.cpp build a log comes from, and the build-keyed rules verify takes from it
// (verify_devices.hpp: the KQ masks' type, the MoE graph before ggml's GLU ops).

#include <string>

#include "canitrun/llama_log.hpp"
#include "canitrun/verify_devices.hpp"
#include "catch.hpp"

using namespace canitrun;

// The build line in each spelling the corpus holds (validation/llama-logs/: llama-server's,
// with a time stamp before it, 2024's main, and the JSON server's build_info), and which KQ
// mask rule it takes: builds up to b9174 make f32 masks (before llama.cpp PR #23764); a build
// of 0 or 1 (no git history) and no line at all read as unknown, taken as older. Builds up to
// b5622 ran the MoE experts before ggml's GLU ops (PR #14158 + #14181, 2025-06-29); a build not
// known (no line, or 1) is read as the pinned graph there.
TEST_CASE("a log's build number in every spelling and the rules it takes") {
    const auto build = [](const std::string& line) {
        return parse_llama_log(line + "\nllama_context: n_ctx = 4096\n").value().build;
    };
    CHECK(build("build: 7772 (287a33017) with GNU 11.4.0 for Linux x86_64") == 7772U);
    CHECK(build("0.00.000.210 I build: 4368 (0a11f8b7b) with cc (Ubuntu 11.4.0)") == 4368U);
    CHECK(build("main: build = 3215 (d62e4aaa)") == 3215U);
    CHECK(build("build_info: b9512-5757c4dcb") == 9512U);
    CHECK_FALSE(build("main: build = 1 (18b0375)").has_value());
    CHECK_FALSE(build("llama_context: n_batch = 512").has_value());
    CHECK(before_f16_mask(std::nullopt));
    CHECK(before_f16_mask(9174));
    CHECK_FALSE(before_f16_mask(9512));
    CHECK(before_glu_ops(5331));
    CHECK(before_glu_ops(5622));
    CHECK_FALSE(before_glu_ops(5781));
    CHECK_FALSE(before_glu_ops(std::nullopt));
    CHECK_FALSE(before_glu_ops(1));
}
