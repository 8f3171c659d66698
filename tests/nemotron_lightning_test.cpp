// NVIDIA Nemotron 3.5 Lightning 30B-A3B (issue #38 item 5), as the pinned llama.cpp (0ad4a86)
// runs it: nemotron_h_moe, one tensor group per block of config.json's layer pattern. Figures by
// hand from the config values in data/models/nemotron.json (a parity script and an MLX test
// record them: hidden 2688, vocab 131,072 untied, 52 blocks MEMEM*EMEMEM*..., 32 q / 2 KV heads
// of 128, Mamba-2 64 heads x 64 = 4096 wide, state 128, 8 groups, conv 4, 128 experts of 1856
// and a shared expert of 3712, squared ReLU: up and down only), and from the published file the
// entry cites.

#include <algorithm>
#include <string_view>

#include "canitrun/kv_cache.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// How many of the layout's tensors have `part` in their name.
std::size_t lightning_tensors(const TensorLayout& l, std::string_view part) {
    return static_cast<std::size_t>(std::ranges::count_if(l.tensors, [&](const TensorInfo& t) {
        return t.name.view().find(part) != std::string_view::npos;
    }));
}

}  // namespace

TEST_CASE("Nemotron 3.5 Lightning: nemotron_h_moe's tensors sum to the GGUF's 31.58B") {
    const Model& m = test::model("nemotron-3.5-lightning-30b-a3b");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "nemotron_h_moe");
    // token_embd and output 2 x 131,072 x 2688 = 704,643,072, output_norm 2688.
    // A Mamba-2 block: ssm_in 2688 x (2 x 4096 + 2 x 8 x 128 + 64) = 2688 x 10,304 = 27,697,152;
    // conv1d 4 x 6144 = 24,576 and its bias 6144 (6144 = 4096 + 2 x 8 x 128); dt, A, D 3 x 64;
    // the grouped norm 4096; ssm_out 4096 x 2688 = 11,010,048: 38,742,208, x 23 = 891,070,784.
    // An attention block: q and output 2 x 2688 x 4096, k and v 2 x 2688 x 256: 23,396,352,
    // x 6 = 140,378,112. A MoE block: router 2688 x 128 = 344,064 and its bias 128; experts up
    // and down 2 x 128 x 2688 x 1856 = 1,277,165,568; shared 2 x 2688 x 3712 = 19,955,712:
    // 1,297,465,472, x 23 = 29,841,705,856. With the 52 block norms (139,776):
    // 704,645,760 + 139,776 + 891,070,784 + 140,378,112 + 29,841,705,856 = 31,577,940,288,
    // the "31.58B" a model survey reads in the GGUF metadata.
    CHECK(l.elements() == 31577940288ULL);
    // 3 globals, 52 block norms, 8 tensors a Mamba block, 4 an attention block, 6 a MoE block
    CHECK(l.tensors.size() == 3 + 52 + 23 * 8 + 6 * 4 + 23 * 6);
    CHECK(lightning_tensors(l, "ssm_in.weight") == 23);
    CHECK(lightning_tensors(l, "attn_k.weight") == 6);
    CHECK(lightning_tensors(l, "ffn_up_exps.weight") == 23);
    CHECK(lightning_tensors(l, "ffn_gate_exps") == 0);  // squared ReLU: no gate
    // the MTP block stays out of the layout (ggml-org's files keep it in a sidecar)
    CHECK(lightning_tensors(l, "blk.52.") == 0);
}

TEST_CASE("Nemotron 3.5 Lightning: KV on the six attention blocks, Mamba state on 23") {
    const Model& m = test::model("nemotron-3.5-lightning-30b-a3b");
    // 6 blocks x K and V x 2 KV heads x 128 x 2 B = 6144 B a token at f16: 1.5 GiB at 262,144
    const KvType f16 = *parse_kv_type("f16");
    CHECK(kv_cache_bytes(m, 262144, f16) == 6144ULL * 262144);
    CHECK(kv_cache_bytes(m, 262144, f16) == 1610612736ULL);
    // A Mamba block keeps (conv 4 - 1) x 6144 conv values and 64 heads x 64 x 128 state values,
    // f32 in llama.cpp: (18,432 + 524,288) x 4 B = 2,170,880 B; x 23 = 49,930,240 B a sequence.
    // (An MLX test gives 49,082,368 for its bf16 conv cache: 23 x (18,432 x 2 + 524,288 x 4).)
    CHECK(recurrent_state_bytes(m) == 49930240ULL);
    CHECK(49082368ULL == 23ULL * (18432 * 2 + 524288 * 4));
}

TEST_CASE("Nemotron 3.5 Lightning: the layout is Nemotron 3 Nano's, tensor by tensor") {
    // The parity script found the two configs identical in every architectural field.
    const TensorLayout lightning =
        tensor_layout(test::model("nemotron-3.5-lightning-30b-a3b")).value();
    const TensorLayout nano = tensor_layout(test::model("nemotron-3-nano-30b-a3b")).value();
    REQUIRE(lightning.tensors.size() == nano.tensors.size());
    for (std::size_t i = 0; i < nano.tensors.size(); ++i) {
        CHECK(lightning.tensors[i].name.view() == nano.tensors[i].name.view());
        CHECK(lightning.tensors[i].ne == nano.tensors[i].ne);
    }
}
