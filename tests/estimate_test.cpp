#include "canitrun/estimate.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("weights = params x bits per weight / 8 - rounded up to a byte") {
    Quant q;
    q.bpw_e4 = 45000;  // 4.5 bpw
    CHECK(weight_bytes(8000000000ULL, q) == 4500000000ULL);
    q.bpw_e4 = 160000;
    CHECK(weight_bytes(1, q) == 2);
    q.bpw_e4 = 48730;  // 4.873 bpw: 3 weights = 14.619 bits = 1.827 bytes, rounded up
    CHECK(weight_bytes(3, q) == 2);
}

TEST_CASE("an estimate is named terms: weights - KV cache - 12 % overhead") {
    LayerGroup full;
    full.kind = LayerKind::full;
    full.count = 1;
    const Model m = test::model_with({full}, 8, 128);  // 1e9 params, 4096 KV bytes per token
    Quant q;
    q.bpw_e4 = 80000;  // 8 bpw: 1e9 bytes
    EstimateOptions o;
    o.context = 1000;
    const Estimate e = estimate(m, q, o).value();
    REQUIRE(e.terms.size() == 3);
    CHECK(e.terms[0].kind == TermKind::weights);
    CHECK(std::string(term_name(e.terms[0].kind)) == "weights");  // the name the output prints
    CHECK(e.term(TermKind::weights) == 1000000000ULL);
    CHECK(e.term(TermKind::kv_cache) == 4096000ULL);
    // 12 % of 1004096000
    CHECK(e.term(TermKind::overhead) == 120491520ULL);
    CHECK(e.total() == 1124587520ULL);
    CHECK(e.terms[2].device == Device::gpu);
}

TEST_CASE("a 1T-parameter model at FP32 with a 1M context comes out right - not wrapped") {
    LayerGroup full;
    full.kind = LayerKind::full;
    full.count = 128;
    Model m = test::model_with({full}, 64, 256);
    m.params_total = 1000000000000ULL;
    const Quant& fp32 = test::quant("FP32");
    EstimateOptions o;
    o.context = 1048576;
    const Estimate e = estimate(m, fp32, o).value();
    CHECK(e.term(TermKind::weights) == 4000000000000ULL);
    // 128 layers x 2 x 64 x 256 x 2 bytes x 2^20 tokens = 2^7 x 2^16 x 2^20 = 2^43
    CHECK(e.term(TermKind::kv_cache) == (1ULL << 43));
}

TEST_CASE("an estimate past 64 bits is refused - never wrapped") {
    LayerGroup full;
    full.kind = LayerKind::full;
    full.count = 10000;
    Model m = test::model_with({full}, 1000000, 1000000);
    EstimateOptions o;
    o.context = 1ULL << 30;
    const auto e = estimate(m, test::quant("FP16"), o);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == ErrorKind::overflow);
}
