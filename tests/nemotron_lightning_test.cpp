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
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/server_terms.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "server_terms_support.hpp"
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
    // the MTP block stays out of the stack's layout: llama.cpp loads it only to draft with
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

// The MTP block as nemotron-h.cpp (lines 142-181 at 0ad4a86) loads it: one block past the 52,
// an attention sub-layer and a MoE sub-layer. attn_norm, q 2688 x 4096, k and v 2688 x 256,
// output 4096 x 2688 (23,396,352 + 2688); post_attention_norm; the router 2688 x 128 and its
// bias 128, experts 2 x 128 x 2688 x 1856, shared expert 2 x 2688 x 3712 (1,297,465,472 with
// the router); nextn eh_proj 5376 x 2688 = 14,450,688 and enorm, hnorm, shared_head_norm. 16
// tensors, 23,396,352 + 1,297,465,472 + 14,450,688 + 5 x 2688 = 1,335,325,952 weights; no
// embedding or head of its own (graph_mtp drafts with the stack's token_embd and output).
TEST_CASE("Nemotron 3.5 Lightning: the MTP block folds attention and MoE into one block") {
    const Model& m = test::model("nemotron-3.5-lightning-30b-a3b");
    CHECK(m.arch.mtp_layers == 1);
    const auto block = llamacpp_mtp_block(m, test::quant("Q8_0")).value();
    CHECK(block.size() == 16);
    std::uint64_t weights = 0;
    for (const auto& t : block) weights += t.tensor.elements();
    CHECK(weights == 1335325952ULL);
    const auto named = [&](std::string_view name) {
        return std::ranges::count_if(
            block, [&](const TypedTensor& t) { return t.tensor.name.view() == name; });
    };
    for (const char* name :
         {"blk.52.attn_norm.weight", "blk.52.attn_q.weight", "blk.52.post_attention_norm.weight",
          "blk.52.ffn_gate_inp.weight", "blk.52.ffn_up_exps.weight", "blk.52.ffn_down_shexp.weight",
          "blk.52.nextn.eh_proj.weight", "blk.52.nextn.shared_head_norm.weight"}) {
        CHECK(named(name) == 1);
    }
    CHECK(named("blk.52.nextn.embed_tokens.weight") == 0);
    // Q8_0: the 2-D weights 23,396,352 + 1,277,165,568 + 19,955,712 + 14,450,688 =
    // 1,334,968,320 at 34 B a block of 32: 1,418,403,840 B; in f32 the router 1,376,256 B, its
    // bias 512 B and the five norms 53,760 B: 1,419,834,368 B.
    CHECK(llamacpp_mtp_weight_bytes(m, test::quant("Q8_0")).value() == 1419834368ULL);
    // unsloth's files carry the block (run.gguf_mtp), so --mtp can load it
    CHECK(mtp_loadable(m, nullptr).value());
}

// unsloth's files at f2d3fe36, as onnxruntime/mobius docs/api/build_from_gguf.md (01008cf7)
// inventories them: the BF16 file's two shards hold 329 + 88 = 417 tensors, the layout's 401 and
// the block's 16; the Q8_0 file '32.904B parameters in Q8_0'. In Q8_0 by llama-quantize's
// rules: token_embd and output 704,643,072, each Mamba block's ssm_in and ssm_out 38,707,200
// (conv1d, A, D, the norms in f32), each attention block's 23,396,352, each MoE block's experts
// and shared expert 1,297,121,280 (the router in f32): 704,643,072 + 23 x 38,707,200 + 6 x
// 23,396,352 + 23 x 1,297,121,280 = 31,569,076,224 for the stack, and 1,334,968,320 for the
// block: 32,904,044,544, the published 32.904B (31.569B would be the stack alone).
TEST_CASE("Nemotron 3.5 Lightning: unsloth's files hold the stack and the MTP block") {
    const Model& m = test::model("nemotron-3.5-lightning-30b-a3b");
    const auto layout = tensor_layout(m).value();
    const auto block = llamacpp_mtp_block(m, test::quant("Q8_0")).value();
    CHECK(layout.tensors.size() + block.size() == 329 + 88);
    const auto q8_weights = [](const std::vector<TypedTensor>& typed) {
        std::uint64_t n = 0;
        for (const auto& t : typed) n += t.type.name == "q8_0" ? t.tensor.elements() : 0;
        return n;
    };
    const auto stack = quantize_tensors(layout, "Q8_0").value();
    CHECK(q8_weights(stack) == 31569076224ULL);
    CHECK(q8_weights(stack) + q8_weights(block) == 32904044544ULL);
}

// --mtp at Q8_0 and 8,192 tokens on one H100: the block's weights 1,419,834,368 B (above); its
// MTP context's KV, one attention block at f16: 8,192 x 2 KV heads x 128 x 2 B x 2 = 8,388,608
// B; its compute buffer under flash attention, the attention phase: 512 ubatch rows x (two
// 2688-wide rows, q 32 x 128, k and v 2 x 2 x 128, the output 32 x 128 = 14,080 floats) x 4 B
// = 28,835,840 B beside the f16 mask 512 x 8,192 x 2 B = 8,388,608 B: 37,224,448 B. The MoE
// sub-layer runs only on llama-server's 4 outputs (crop_before_ffn, nemotron-h-moe.cpp lines
// 54-57): 4 rows, far under it (over all 512 rows, two 2688-wide rows and 6 experts' 1856-wide
// up and activation rows alone, 512 x (5376 + 2 x 6 x 1856) x 4 B = 56,623,104 B, would pass it).
// In all 1,465,447,424 B.
TEST_CASE("Nemotron 3.5 Lightning: --mtp plans the block and its draft context") {
    PlanSettings s = test::at_context(8192);
    s.server.mtp = true;
    const auto p = test::plan_of("nemotron-3.5-lightning-30b-a3b", "Q8_0", {"h100-sxm"}, s);
    CHECK(test::term(p.gpus[0], "mtp").load == 1419834368ULL + 8388608ULL + 37224448ULL);
}
