// The KQ mask the host fills for each prompt token (SpeedWork::mask_cells, speed_work.cpp), and
// its time in prefill (SpeedModel::mask_cell_s), checked by hand.
#include <cstdint>
#include <string>

#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

double cells(const std::string& model, std::uint64_t depth, std::uint64_t tokens,
             std::uint64_t ubatch) {
    return speed_basis(test::model(model), test::quant("Q4_0"), 65536,
                       SpeedPoint{depth, tokens, ubatch})
        .shell.mask_cells;
}

}  // namespace

// llama-bench's pp2048 @ d32768 at -ub 2048 is one micro-batch whose mask spans 32768 + 2048 =
// 34816 cells a token. llama-2-7b (data/models/llama.json) has one cache, all full attention.
// gemma-3-4b's 29 sliding layers (window 1024) have a second cache of the window and a
// micro-batch, 1024 + 2048 = 3072 cells: 37888. gpt-oss-20b's (window 128): 34816 + 2176 =
// 36992. Qwen 3.5 35B-A3B's 30 Gated DeltaNet layers have no mask; its 10 full ones one cache.
TEST_CASE("a prompt token's mask holds a row of every KV cache") {
    CHECK(cells("llama-2-7b", 32768, 2048, 2048) == 34816);
    CHECK(cells("gemma-3-4b", 32768, 2048, 2048) == 37888);
    CHECK(cells("gpt-oss-20b", 32768, 2048, 2048) == 36992);
    CHECK(cells("qwen3.5-35b-a3b", 32768, 2048, 2048) == 34816);
}

// A prompt of 4096 tokens at -ub 1024 is four micro-batches whose masks span 1024, 2048, 3072
// and 4096 cells past the depth: 2560 on average. One shorter than its micro-batch (pp512 at
// -ub 2048) spans its own 512. A sliding cache shallower than its window and micro-batch spans
// the same cells as the full one: gemma-3-4b's pp512 at -ub 512 fills two rows of 512.
TEST_CASE("a mask spans the cache up to its micro-batch's last token") {
    CHECK(cells("llama-2-7b", 8192, 4096, 1024) == 8192 + 2560);
    CHECK(cells("llama-2-7b", 0, 512, 2048) == 512);
    CHECK(cells("gemma-3-4b", 0, 512, 512) == 2 * 512);
}

// The host fills the mask once a token, whatever the GPUs: 36992 cells at 2 ns add 73.984 us to
// a gpt-oss-20b prompt token 32768 deep, on one R9700 or split over two.
TEST_CASE("the mask's time is the host's, once a token") {
    const Model& model = test::model("gpt-oss-20b");
    const Quant& quant = test::quant("MXFP4");
    for (const int n : {1, 2}) {
        const Hardware hw = test::hardware_of(
            n == 1 ? std::vector<std::string>{"radeon-ai-pro-r9700"}
                   : std::vector<std::string>{"radeon-ai-pro-r9700", "radeon-ai-pro-r9700"});
        SpeedWork work =
            speed_work(model, quant, Placement{}, 65536, SpeedPoint{32768, 2048, 2048});
        work.gpus.assign(static_cast<std::size_t>(n), DeviceWork{0, 1, 0, 0, 0, 1});
        SpeedModel m = test::zeroed_speed_model();
        const double without = prefill_seconds(work, hw, m, 2048).value_or(0);
        m.mask_cell_s = 2e-9;
        CHECK(prefill_seconds(work, hw, m, 2048).value_or(0) - without ==
              Approx(73.984e-6).epsilon(1e-9));
    }
}
