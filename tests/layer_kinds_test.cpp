// One layer-kind rule (issue "The house"): which layer of the stack is full attention, sliding,
// linear attention, SSM or MLA is decided once, by layer_kinds(), and every piece that lays out
// layers agrees with it for every database model: the quick rule's parts, the llama.cpp
// planner's parts, the llama.cpp tensor layout, and the GGUF reader reading back the file that
// llama.cpp's converter would write for the model.

#include <algorithm>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

std::vector<LayerKind> kinds_of(const ModelParts& parts) {
    std::vector<LayerKind> kinds;
    for (const auto& l : parts.layers) kinds.push_back(l.kind);
    return kinds;
}

}  // namespace

TEST_CASE("layer kinds: the quick parts and the llama.cpp planner agree for every model") {
    const Quant& q4 = test::quant("Q4_K_M");
    std::size_t planned = 0;
    for (const auto& m : test::database().models) {
        INFO(m.id);
        const auto kinds = layer_kinds(m);
        REQUIRE(kinds.size() == m.arch.layers);
        const auto quick = model_parts(m, q4, EstimateOptions{});
        REQUIRE(quick);
        CHECK(kinds_of(*quick) == kinds);
        if (!tensor_layout(m)) continue;  // the quick rule's fallback: no llama.cpp parts
        const auto llama = plan_parts(m, q4, PlanSettings{});
        REQUIRE(llama);
        CHECK(kinds_of(*llama) == kinds);
        ++planned;
    }
    CHECK(planned >= 100);  // most of the 135 models have a llama.cpp layout
}

TEST_CASE("layer kinds: the GGUF reader reads back each model's layers as layer_kinds has them") {
    // The file make_gguf writes (tools/accuracy: the same keys llama.cpp's converter writes),
    // read by gguf_to_model, whose per-layer kinds come from the file's keys alone.
    std::size_t read = 0;
    for (const auto& m : test::database().models) {
        if (!tensor_layout(m)) continue;
        INFO(m.id);
        const auto g = test::read_back(m);
        REQUIRE(g);
        // The file's own per-layer kinds, not layer_kinds() of the groups read (which would
        // compare the rule with itself).
        CHECK(g->layer_kinds == layer_kinds(m));
        ++read;
    }
    CHECK(read >= 100);
}

namespace {

bool any_ssm_rms_norm(const Model& m) {
    return std::ranges::any_of(m.arch.layer_groups,
                               [](const LayerGroup& g) { return g.ssm_rms_norm; });
}

}  // namespace

TEST_CASE("GGUF reader: a file's rope_freqs and ssm_norm read back as the data laying them out") {
    // No key says a llama3 rope scaling or Falcon-H1's mamba_rms_norm: the file's tensors do
    // (rope_freqs.weight, blk.0.ssm_norm.weight), so a model read from a file lays out the
    // tensors the file holds. With and without each.
    for (const char* id : {"llama-3.1-8b", "exaone-4.0-1.2b", "exaone-4.0-32b", "qwen3-8b",
                           "falcon-h1-1.5b", "falcon-h1-0.5b"}) {
        INFO(id);
        const Model& m = test::model(id);
        const auto g = test::read_back(m, "Q8_0");
        REQUIRE(g);
        CHECK(g->model.arch.attention.rope_scaling == m.arch.attention.rope_scaling);
        CHECK(any_ssm_rms_norm(g->model) == any_ssm_rms_norm(m));
        const auto read = tensor_layout(g->model);
        REQUIRE(read);
        CHECK(read->tensors.size() == tensor_layout(m)->tensors.size());
    }
}
