// Releases of September 2026 added by issue #38 (data 2026.12.06.12): MiniCPM5-2B, a plain
// Llama, and DeepSeek-V4-Flash-Vision-Exp, V4-Flash's language model with a second routing bias
// for image tokens. Figures by hand from the model cards' counts and the configs (data/models/
// minicpm.json, deepseek.json), and from the published files' sizes and tensor counts the
// entries cite.

#include <string>

#include "canitrun/gguf_file_size.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

std::size_t tensors_named(const TensorLayout& l, const std::string& part) {
    std::size_t n = 0;
    for (const auto& t : l.tensors) {
        if (t.name.view().find(part) != std::string::npos) ++n;
    }
    return n;
}

Bytes typed_bytes(const char* model, const char* quant) {
    return gguf_tensor_bytes(test::model(model), quantize_request(test::quant(quant))).value();
}

}  // namespace

TEST_CASE("MiniCPM5-2B: a Llama of 42 layers whose counts give its FFN width") {
    // The card: 2,516,756,480 parameters, 1,981,982,720 without the embeddings; the config: h
    // 2048, 42 layers, 16 q / 2 KV heads of 128, vocab 130,560, untied. Embedding and head 2 x
    // 130,560 x 2048 = 534,773,760; a layer q/o 2 x 2048 x 2048 + k/v 2 x 2048 x 256 =
    // 9,437,184, two norms 4,096 and SwiGLU 3 x 2048 x 6144 = 37,748,736: 47,190,016 x 42 =
    // 1,981,980,672, with the output norm 1,981,982,720, the card's non-embedding count.
    const Model& m = test::model("minicpm5-2b");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "llama");
    CHECK(l.elements() == 2516756480ULL);
    // 3 + 42 x 9 tensors: the 381 parameters a public fine-tuning script asserts on the
    // checkpoint (len(list(model.parameters())) == 381)
    CHECK(l.tensors.size() == 381);
    CHECK(tensors_named(l, "attn_output.weight") == 42);
    CHECK(tensors_named(l, "output.weight") == 43);  // and the untied head
    // KV: 42 layers x K and V x 2 heads x 128 x 2 B = 43,008 B a token
    const KvType f16 = *parse_kv_type("f16");
    CHECK(kv_cache_bytes(m, 32768, f16) == 43008ULL * 32768);
}

TEST_CASE("MiniCPM5-2B: the published GGUF files are the tensors and one header") {
    // openbmb/MiniCPM5-2B-GGUF: F16 5,039,006,688 B, Q8_0 2,679,710,688 B, Q4_K_M 1,561,318,368 B.
    // By hand, F16: 2,516,582,400 matrix weights x 2 B + 174,080 norm weights x 4 B (F32) =
    // 5,033,861,120; Q8_0: 2,516,582,400 x 34 / 32 + 696,320 = 2,674,565,120. Both files are
    // these plus the same 5,145,568 B (header and tokenizer), so the Q4_K_M file's tensors are
    // 1,561,318,368 - 5,145,568 = 1,556,172,800 B, which llama-quantize's rules must give.
    CHECK(typed_bytes("minicpm5-2b", "FP16") == 5033861120ULL);
    CHECK(typed_bytes("minicpm5-2b", "Q8_0") == 2674565120ULL);
    CHECK(5039006688ULL - 5033861120ULL == 2679710688ULL - 2674565120ULL);
    CHECK(typed_bytes("minicpm5-2b", "Q4_K_M") == 1561318368ULL - 5145568ULL);
    // the whole file counts the header at its floor: past the tensors, short of the published file
    const auto f16 =
        gguf_file_bytes(test::model("minicpm5-2b"), quantize_request(test::quant("FP16"))).value();
    CHECK(f16 > 5033861120ULL);
    CHECK(f16 <= 5039006688ULL);
}

TEST_CASE("DeepSeek-V4-Flash-Vision-Exp: V4-Flash's layout and an image routing bias a layer") {
    // unsloth's split GGUF declares 1371 tensors: V4-Flash's 1328 and blk.N.exp_probs_b_vl.bias
    // (F32, 256 experts) on all 43 layers, the three hash layers included.
    const TensorLayout text = tensor_layout(test::model("deepseek-v4-flash")).value();
    const TensorLayout vision = tensor_layout(test::model("deepseek-v4-flash-vision-exp")).value();
    CHECK(vision.arch == "deepseek4");
    CHECK(text.tensors.size() == 1328);
    CHECK(vision.tensors.size() == 1371);
    CHECK(tensors_named(vision, "exp_probs_b_vl.bias") == 43);
    CHECK(tensors_named(vision, "blk.0.exp_probs_b_vl.bias") == 1);  // a hash layer
    CHECK(tensors_named(text, "exp_probs_b_vl") == 0);
    CHECK(vision.elements() == text.elements() + 43ULL * 256);
    CHECK(vision.elements() == 284334578519ULL);
    // the biases stay F32 at any type: 43 x 256 x 4 = 44,032 B more than V4-Flash's file
    CHECK(typed_bytes("deepseek-v4-flash-vision-exp", "Q4_K_M") ==
          typed_bytes("deepseek-v4-flash", "Q4_K_M") + 44032ULL);
    // the KV cache and compressor state: V4-Flash's 947,798,016 B at 131,072 tokens (f16)
    LlamaCppOptions o;
    o.context = 131072;
    const auto e =
        estimate_llamacpp(test::model("deepseek-v4-flash-vision-exp"), test::quant("Q4_K_M"), o)
            .value();
    CHECK(e.term(TermKind::kv_cache) + e.term(TermKind::recurrent_state) == 947798016ULL);
}
