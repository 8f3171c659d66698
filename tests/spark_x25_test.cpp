// XHToken's Spark-X2.5 4B (issue #38 item 5) as the pinned llama.cpp (0ad4a86) runs it,
// architecture spark2_5: src/models/spark2-5.cpp's load_arch_tensors (a fused q/k/v, a head-wise
// attention gate of hidden x heads, a gated FFN) and the sliding-window cache it builds
// (build_attn_inp_kv_iswa). Figures by hand from the config values in data/models/spark.json
// (hidden 2560, vocab 131,072 tied, 36 layers, 16 q / 4 KV heads of 256, FFN 10240, window 512,
// layer_types 3 sliding then 1 full, x9) and the Hub's parameter count the entry cites.

#include <algorithm>
#include <string_view>
#include <vector>

#include "canitrun/gguf_file_size.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// The layout's tensor of this name, or nullptr.
const TensorInfo* spark_tensor(const TensorLayout& l, std::string_view name) {
    const auto it =
        std::ranges::find(l.tensors, name, [](const TensorInfo& t) { return t.name.view(); });
    return it == l.tensors.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("Spark-X2.5 4B: spark2_5's tensors sum to the Hub's 4,112,079,360") {
    const Model& m = test::model("spark-x2.5-4b");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "spark2_5");
    // token_embd (tied, no output) and output_norm; a layer has 2 norms, qkv, gate, output and
    // the FFN's gate, up, down: 2 + 36 x 8 = 290
    CHECK(l.tensors.size() == 290);
    CHECK(spark_tensor(l, "output.weight") == nullptr);
    const TensorInfo* qkv = spark_tensor(l, "blk.5.attn_qkv.weight");
    REQUIRE(qkv != nullptr);
    CHECK(qkv->ne[0] == 2560);
    CHECK(qkv->ne[1] == 16ULL * 256 + 2ULL * 4 * 256);  // q 4096, k 1024, v 1024
    const TensorInfo* gate = spark_tensor(l, "blk.5.attn_gate.weight");
    REQUIRE(gate != nullptr);
    CHECK(gate->ne[0] == 2560);
    CHECK(gate->ne[1] == 16);  // one sigmoid gate a head
    CHECK(spark_tensor(l, "blk.5.attn_q.weight") == nullptr);
    // a layer: qkv 2560 x 6144 = 15,728,640; output 4096 x 2560 = 10,485,760; gate 40,960;
    // FFN 3 x 2560 x 10240 = 78,643,200; two norms 5120: 104,903,680, x 36 = 3,776,532,480;
    // the embedding 131,072 x 2560 = 335,544,320 and the output norm 2560: 4,112,079,360, the
    // Hub's safetensors count to the parameter
    CHECK(l.elements() == 4112079360ULL);
    CHECK(l.elements() == m.params_total);
}

TEST_CASE("Spark-X2.5 4B: every fourth layer attends fully, the rest slide over 512 tokens") {
    const Model& m = test::model("spark-x2.5-4b");
    const std::vector<LayerKind> kinds = layer_kinds(m);
    REQUIRE(kinds.size() == 36);
    for (std::size_t il = 0; il < kinds.size(); ++il) {
        INFO(il);
        CHECK((kinds[il] == LayerKind::full) == (il % 4 == 3));  // layer_types: s, s, s, full
    }
    const KvType f16 = *parse_kv_type("f16");
    // a layer keeps 4 KV heads x 256 x (K + V) x 2 B = 4096 B a token; at 32768 tokens the 9
    // full layers keep them all (1,207,959,552 B), the 27 sliding ones 512 (56,623,104 B)
    CHECK(kv_cache_bytes(m, 32768, f16) == 9ULL * 4096 * 32768 + 27ULL * 4096 * 512);
    LlamaCppOptions o;
    o.context = 32768;
    o.cache_type_k = o.cache_type_v = "f16";
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o);
    REQUIRE(e);
    // llama_kv_cache_iswa: the sliding cache holds window + n_ubatch (512) cells = 1024
    CHECK(e->term(TermKind::kv_cache) == 9ULL * 4096 * 32768 + 27ULL * 4096 * 1024);
}

TEST_CASE("Spark-X2.5 4B: the BF16 file's tensors are the weights at two bytes") {
    // XHToken/Spark-X2.5-4B-GGUF's one file, Spark-X2.5-4B.gguf, is 8.23 GB. By hand: the
    // matrices 4,112,079,360 - 186,880 norm weights (36 x 2 x 2560 + 2560) at 2 B =
    // 8,223,784,960, the norms in F32 747,520: 8,224,532,480 B, 8.22 GB before the header and
    // the 131,072-token vocabulary.
    const Bytes bf16 =
        gguf_tensor_bytes(test::model("spark-x2.5-4b"), quantize_request(test::quant("BF16")))
            .value();
    CHECK(bf16 == 8224532480ULL);
    CHECK(bf16 < 8230000000ULL);
}
