// The vLLM profile, derived by hand from the rules in src/core/engines/vllm_engine.cpp.

#include "canitrun/vllm_engine.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("vllm: budget minus weights and reserves - the rest in 16-token pages") {
    VllmOptions o;
    o.context = 8192;
    o.gpu_memory = 80ULL << 30;  // H100 80 GB = 80 GiB
    const auto r = estimate_vllm(test::model("llama-3.1-8b"), test::quant("BF16"), o).value();
    const std::uint64_t budget = 85899345920ULL * 90 / 100;
    CHECK(r.budget == budget);
    // 8.03e9 params x 2 bytes
    CHECK(r.estimate.term(TermKind::weights) == 16060000000ULL);
    // 8192 tokens x 2 bytes x (2 x 14336 + 4 x 4096) + 256 x 4 x 128256 logits
    const std::uint64_t act = 8192ULL * 2 * (2 * 14336 + 4 * 4096) + 256ULL * 4 * 128256;
    CHECK(r.estimate.term(TermKind::activation_reserve) == act);
    const std::uint64_t pool = budget - 16060000000ULL - act - (1ULL << 30);
    CHECK(r.kv_pool == pool);
    // a page: 16 tokens x 32 layers x 2 (K, V) x 8 heads x 128 x 2 bytes
    CHECK(r.page_bytes == 16ULL * 32 * 2 * 8 * 128 * 2);
    CHECK(r.max_context_one_seq == pool / r.page_bytes * 16);
    CHECK(r.max_sequences == pool / (512 * r.page_bytes));  // 8192 / 16 pages each
}

TEST_CASE("vllm: sliding layers hold at most window - 1 + batched tokens - plus one page") {
    VllmOptions o;
    o.context = 131072;
    o.gpu_memory = 141ULL << 30;
    const auto r = estimate_vllm(test::model("gemma-3-27b"), test::quant("BF16"), o).value();
    // 52 sliding layers: cdiv(min(1023 + 8192, 131072), 16) + 1 = 577 pages of 16 tokens,
    // 16 kv heads x 128 x 2 (K, V) x 2 bytes = 8192 B per token and layer
    CHECK(r.per_sequence_fixed == 52ULL * 577 * 16 * 8192);
    CHECK(r.page_bytes == 10ULL * 16 * 8192);  // the 10 full layers
}

TEST_CASE("vllm refuses GGUF quantizations and a missing GPU") {
    VllmOptions o;
    o.gpu_memory = 80ULL << 30;
    CHECK_FALSE(estimate_vllm(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o).has_value());
    o.gpu_memory = 0;
    CHECK_FALSE(estimate_vllm(test::model("llama-3.1-8b"), test::quant("BF16"), o).has_value());
}
