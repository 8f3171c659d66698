// llama.cpp's CPU_REPACK rule (cpu_repack.hpp): which weights the CPU backend keeps a second,
// repacked copy of, by type, instruction set and output rows, as
// ggml_repack_get_optimal_repack_type in ggml/src/ggml-cpu/repack.cpp (0ad4a86) decides.

#include "canitrun/cpu_repack.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

// MXFP4: the AVX2 branch takes ne[1] % 8 (mxfp4_8x8_q8_0), the NEON dotprod one ne[1] % 4
// (mxfp4_4x4_q8_0). 2,884 = 8 x 360 + 4.
TEST_CASE("cpu repack: MXFP4 on AVX2 by 8 rows and on ARM by 4") {
    CHECK(repacks(CpuIsa::avx2, "mxfp4", 2880));
    CHECK(repacks(CpuIsa::avx512, "mxfp4", 2880));
    CHECK_FALSE(repacks(CpuIsa::avx2, "mxfp4", 2884));
    CHECK(repacks(CpuIsa::arm_dotprod, "mxfp4", 2884));
    CHECK_FALSE(repacks(CpuIsa::none, "mxfp4", 2880));
}

// Q5_K and Q6_K: only NEON has their kernels (q5_K_8x8 / 8x4, q6_K_8x8 / 8x4), every one at
// ne[1] % 8; x86 has none. 4,100 = 8 x 512 + 4.
TEST_CASE("cpu repack: Q5_K and Q6_K only on ARM by 8 rows") {
    for (const char* type : {"q5_K", "q6_K"}) {
        INFO(type);
        CHECK(repacks(CpuIsa::arm_dotprod, type, 4096));
        CHECK(repacks(CpuIsa::arm_i8mm, type, 4096));
        CHECK_FALSE(repacks(CpuIsa::arm_dotprod, type, 4100));
        CHECK_FALSE(repacks(CpuIsa::avx2, type, 4096));
        CHECK_FALSE(repacks(CpuIsa::avx512, type, 4096));
    }
}

// Q8_0 (q8_0_4x8 with i8mm, q8_0_4x4 with dotprod) and Q1_0 (q1_0_4x8 / 4x4): NEON only, at
// ne[1] % 4. 4,098 = 4 x 1,024 + 2.
TEST_CASE("cpu repack: Q8_0 and Q1_0 only on ARM by 4 rows") {
    for (const char* type : {"q8_0", "q1_0"}) {
        INFO(type);
        CHECK(repacks(CpuIsa::arm_dotprod, type, 4100));
        CHECK(repacks(CpuIsa::arm_i8mm, type, 4100));
        CHECK_FALSE(repacks(CpuIsa::arm_dotprod, type, 4098));
        CHECK_FALSE(repacks(CpuIsa::avx2, type, 4096));
    }
}

// Types with no kernel on any planned instruction set stay in the mapped file.
TEST_CASE("cpu repack: Q5_0 Q3_K F16 BF16 and IQ4_XS are never repacked") {
    for (const char* type : {"q5_0", "f16", "bf16", "iq4_xs", "q3_K"}) {
        INFO(type);
        CHECK_FALSE(repacks(CpuIsa::avx512, type, 4096));
        CHECK_FALSE(repacks(CpuIsa::arm_i8mm, type, 4096));
    }
}

// Llama 3.2 1B (tied embeddings: no output tensor; token_embd is a row lookup). Per layer q
// 2048x2048, k and v 2048x512, o 2048x2048, gate and up 2048x8192, down 8192x2048 = 60,817,408
// weights, every ne[1] (2048, 512, 8192) a multiple of 8. At Q8_0 (34 B per 32): 64,618,496 B
// a layer, 16 layers 1,033,895,936 B, all repacked on ARM, none on AVX2. At Q6_K (210 B per
// 256, llama-quantize upgrades nothing at this file type): 49,889,280 B a layer, 798,228,480 B.
TEST_CASE("cpu repack: Llama 3.2 1B at Q8_0 and Q6_K on an ARM CPU") {
    const Model& m = test::model("llama-3.2-1b");
    CHECK(llamacpp_repack_bytes(m, test::quant("Q8_0"), CpuIsa::arm_dotprod).value() ==
          1'033'895'936ULL);
    CHECK(llamacpp_repack_bytes(m, test::quant("Q8_0"), CpuIsa::avx2).value() == 0);
    CHECK(llamacpp_repack_bytes(m, test::quant("Q6_K"), CpuIsa::arm_i8mm).value() ==
          798'228'480ULL);
    CHECK(llamacpp_repack_bytes(m, test::quant("Q6_K"), CpuIsa::avx512).value() == 0);
}

// gpt-oss-20b at MXFP4 (llama-quantize's MXFP4_MOE: the routed experts MXFP4, the rest Q8_0):
// 24 layers x 3 expert tensors x 32 experts x 2,880 x 2,880 = 19,110,297,600 weights, ne[1]
// 2,880 = 8 x 360 each; 17 B per 32: 10,152,345,600 B repacked on AVX2. Q8_0 has no x86
// kernel, so nothing else is.
TEST_CASE("cpu repack: gpt-oss-20b's MXFP4 experts on an AVX2 CPU") {
    const Model& m = test::model("gpt-oss-20b");
    CHECK(llamacpp_repack_bytes(m, test::quant("MXFP4"), CpuIsa::avx2).value() ==
          10'152'345'600ULL);
}

// DeepSeek-V2-Lite at Q4_0 (every matrix Q4_0 but the Q6_K output head; no q LoRA, no
// attn_kv_b in the file). Per layer, 2-D MUL_MATs: attn_q 2048x3072 + attn_kv_a_mqa 2048x576 +
// attn_output 2048x2048 = 11,665,408 weights; MLA's attn_k_b 128x512x16 and attn_v_b 512x128x16
// (1,048,576 each) are 3-D MUL_MATs, which the repack buffer type does not take. Layer 0's
// dense FFN: 3 x 2048 x 10944 = 67,239,936; each of the 26 MoE layers: 64 experts' 3-D
// MUL_MAT_IDs 3 x 2048 x 1408 x 64 = 553,648,128 and the shared experts 3 x 2048 x 2816 =
// 17,301,504. Rows (3072, 576, 2048, 10944, 1408, 2816) are all multiples of 8: 27 x 11,665,408
// + 67,239,936 + 26 x 570,949,632 = 15,226,896,384 weights x 18 / 32 = 8,565,129,216 B, what the
// pinned llama.cpp's CPU_REPACK buffer holds for this file (docs/ACCURACY.md). The 27 x 2 x
// 1,048,576 x 18 / 32 = 31,850,496 B of attn_k_b / attn_v_b stay in the plain buffer.
TEST_CASE("cpu repack: DeepSeek-V2-Lite's 3-D MLA products stay unpacked") {
    // the file above, made without an importance matrix (its publisher's files use one)
    Model m = test::model("deepseek-v2-lite");
    m.run.gguf_imatrix = false;
    CHECK(llamacpp_repack_bytes(m, test::quant("Q4_0"), CpuIsa::avx2).value() == 8'565'129'216ULL);
}
