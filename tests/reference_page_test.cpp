// Every figure of the reference page for Qwen 3.5 35B-A3B
// (shared/reference/000_2f22aac0dd3df6b7.txt, copied to
// tests/fixtures/reference-page-qwen3.5-35b-a3b.txt), written out by hand from the page, must come
// out of the estimator with the digits the page shows. The exact byte counts were worked out by
// hand from the rule:
//   weights = 35e9 x bpw / 8; KV = 10 attention layers x 2 (K, V) x 2 KV heads x 256 x 2 bytes
//   per token; overhead = 12 % of (weights + KV).

#include "canitrun/report.hpp"
#include "catch.hpp"
#include "format.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::database;

namespace {

ModelReport page_report(std::uint64_t context = 8192) {
    ReportOptions o;
    o.plan = quick_settings();  // the page's rule: --engine quick
    o.estimate.context = context;
    o.estimate.kv_type = parse_kv_type("f16").value();
    return build_model_report(database(), test::model("qwen3.5-35b-a3b"), o).value();
}

const QuantRow& row(const ModelReport& r, const std::string& id) {
    for (const auto& x : r.rows) {
        if (x.quant->id == id) return x;
    }
    FAIL("no row " << id);
    throw;
}

}  // namespace

TEST_CASE("reference page: exact bytes of the Q4_K_M headline - worked by hand") {
    const ModelReport r = page_report();
    CHECK(r.quant->id == "Q4_K_M");
    // 35e9 x 4.873 / 8
    CHECK(r.selected.term(TermKind::weights) == 21319375000ULL);
    // 10 x 2 x 2 x 256 x 2 bytes x 8192 tokens
    CHECK(r.selected.term(TermKind::kv_cache) == 167772160ULL);
    // floor(0.12 x 21487147160)
    CHECK(r.selected.term(TermKind::overhead) == 2578457659ULL);
    CHECK(r.selected.total() == 24065604819ULL);
}

TEST_CASE("reference page: VRAM at each quantization - 8k context") {
    struct Expected {
        const char* quant;
        const char* weights;
        const char* kv;
        const char* total;
    };
    // The page's table, row by row, in its order.
    const Expected page[] = {
        {"FP32", "140.0 GB", "0.17 GB", "157.0 GB"}, {"BF16", "70.0 GB", "0.17 GB", "78.6 GB"},
        {"FP16", "70.0 GB", "0.17 GB", "78.6 GB"},   {"Q8_0", "37.2 GB", "0.17 GB", "41.9 GB"},
        {"Q6_K", "28.7 GB", "0.17 GB", "32.4 GB"},   {"Q5_K_M", "24.9 GB", "0.17 GB", "28.1 GB"},
        {"Q4_K_M", "21.3 GB", "0.17 GB", "24.1 GB"}, {"Q3_K_M", "16.8 GB", "0.17 GB", "19.0 GB"},
        {"Q2_K", "13.3 GB", "0.17 GB", "15.1 GB"},   {"NVFP4", "17.5 GB", "0.17 GB", "19.8 GB"},
    };
    const ModelReport r = page_report();
    REQUIRE(r.rows.size() == 10);
    for (std::size_t i = 0; i < 10; ++i) {
        INFO(page[i].quant);
        CHECK(r.rows[i].quant->id == page[i].quant);
        CHECK(format_gb(r.rows[i].estimate.term(TermKind::weights)) == page[i].weights);
        CHECK(format_gb(r.rows[i].estimate.term(TermKind::kv_cache)) == page[i].kv);
        CHECK(format_gb(r.rows[i].estimate.total()) == page[i].total);
    }
    CHECK(row(r, "Q4_K_M").quant->recommended);
    CHECK(row(r, "NVFP4").quant->requires_backend == "cuda");
}

TEST_CASE("reference page: quantization x context matrix with card classes") {
    struct Cell {
        const char* total;
        std::uint64_t card_gb;
    };
    struct Expected {
        const char* quant;
        Cell cells[4];
    };
    const Expected page[] = {
        {"Q8_0", {{"41.9 GB", 48}, {"42.4 GB", 48}, {"44.7 GB", 48}, {"47.7 GB", 48}}},
        {"Q6_K", {{"32.4 GB", 48}, {"32.9 GB", 48}, {"35.2 GB", 48}, {"38.2 GB", 48}}},
        {"Q5_K_M", {{"28.1 GB", 32}, {"28.7 GB", 32}, {"30.9 GB", 32}, {"33.9 GB", 48}}},
        {"Q4_K_M", {{"24.1 GB", 32}, {"24.6 GB", 32}, {"26.9 GB", 32}, {"29.9 GB", 32}}},
        {"Q3_K_M", {{"19.0 GB", 24}, {"19.6 GB", 24}, {"21.9 GB", 24}, {"24.9 GB", 32}}},
    };
    const ModelReport r = page_report();
    CHECK(r.matrix_contexts == std::vector<std::uint64_t>{8192, 32768, 131072, 262144});
    REQUIRE(r.matrix.size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(r.matrix[i].quant->id == page[i].quant);
        for (std::size_t c = 0; c < 4; ++c) {
            INFO(page[i].quant << " column " << c);
            CHECK(format_gb(r.matrix[i].cells[c].total) == page[i].cells[c].total);
            REQUIRE(r.matrix[i].cells[c].card.has_value());
            CHECK(r.matrix[i].cells[c].card->gb == page[i].cells[c].card_gb);
            // The page colours 24 and 32 GB cards as consumer, 48 GB as workstation.
            CHECK(r.matrix[i].cells[c].card->gpu_class ==
                  (page[i].cells[c].card_gb == 48 ? GpuClass::workstation : GpuClass::consumer));
        }
    }
}

TEST_CASE("reference page: the hybrid stack's full-context comparison") {
    const ModelReport r = page_report();
    // 10 layers x 2048 bytes x 262144 tokens = 5368709120; all 40 layers: x4.
    CHECK(r.kv_full_context == 5368709120ULL);
    CHECK(r.kv_all_attention_full_context == 21474836480ULL);
    CHECK(format_gb(r.kv_full_context) == "5.4 GB");
    CHECK(format_gb(r.kv_all_attention_full_context) == "21.5 GB");
    CHECK(format_gb(r.total_full_context) == "29.9 GB");
    CHECK(format_gb(r.total_all_attention_full_context) == "47.9 GB");
    // "grows by about 5.2 GB going from 8k ... versus roughly 20.8 GB"
    CHECK(format_gb(r.kv_full_context - r.kv_at_context) == "5.2 GB");
    CHECK(format_gb(r.kv_all_attention_full_context - r.kv_all_attention_at_context) == "20.8 GB");
    CHECK(count_kv_layers(*r.model) == 10);
    CHECK(count_layers(*r.model, LayerKind::linear) == 30);
}

TEST_CASE("reference page: smallest GPU - 16 GB and 24 GB answers") {
    ReportOptions o;
    o.plan = quick_settings();
    o.vram_budget = 24 * kGB;
    const ModelReport r = build_model_report(database(), test::model("qwen3.5-35b-a3b"), o).value();
    REQUIRE(r.smallest_gpu != nullptr);
    CHECK(r.smallest_gpu->id == "rtx-5090");
    CHECK(r.smallest_gpu->vram_gb == 32);
    CHECK(display_name(*r.smallest_gpu) == "NVIDIA RTX 5090");
    // "At NVFP4 ... needs 19.8 GB, the highest-quality quantization that fits in 24 GB"
    REQUIRE(r.vram.has_value());
    CHECK_FALSE(r.vram->fits_recommended);
    REQUIRE(r.vram->best.has_value());
    CHECK(r.vram->best->quant->id == "NVFP4");
    CHECK(format_gb(r.vram->best->estimate.total()) == "19.8 GB");
    // "Can it run on a 16 GB GPU? No." (24.1 GB > 16 GB), and 24 GB: no either.
    CHECK(r.selected.total() > 16 * kGB);
    CHECK(r.selected.total() > 24 * kGB);
    REQUIRE(r.card_answers.size() == 2);
    CHECK(r.card_answers[0].gb == 16);
    CHECK_FALSE(r.card_answers[0].fits);
    CHECK(r.card_answers[1].gb == 24);
    CHECK_FALSE(r.card_answers[1].fits);
    REQUIRE(r.card_answers[1].best.has_value());
    CHECK(r.card_answers[1].best->quant->id == "NVFP4");
}

TEST_CASE("reference page: the model card") {
    const Model& m = test::model("qwen3.5-35b-a3b");
    CHECK(m.name == "Qwen 3.5 35B-A3B");
    CHECK(m.vendor == "Alibaba");
    CHECK(format_params(m.params_total) == "35B");
    CHECK(format_params(m.params_active) == "3B");
    CHECK(format_context(m.context_native) == "256k");
    CHECK(format_thousands(m.context_native) == "262,144");
    CHECK(m.license == "Apache 2.0");
    CHECK(m.commercial_use);
    CHECK(m.released == "2026-02-24");
    CHECK(m.modalities == std::vector<std::string>{"text", "image", "video"});
    REQUIRE(m.arch.moe.has_value());
    CHECK(m.arch.moe->experts == 256);
    CHECK(m.arch.moe->experts_per_token == 8);
    CHECK(m.arch.moe->shared_experts == 1);
    CHECK(m.run.gguf_repo == "unsloth/Qwen3.5-35B-A3B-GGUF");
    CHECK(m.run.ollama == "qwen3.5:35b-a3b");
    REQUIRE(m.benchmarks.size() == 3);
    CHECK(m.benchmarks[0].name == "MMLU-Pro");
    CHECK(m.benchmarks[0].score == 85.3);
}
