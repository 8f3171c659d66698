// What a decoded token reads of the output head (#34): the head's matrix whole, a tied one too.
#include <cstdint>
#include <string>

#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speed_check.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// The llama.cpp rule's parts (with its buffers: a tied head's copy among them).
ModelParts llama_parts(const std::string& model, const std::string& quant) {
    const Model& m = test::model(model);
    auto parts = plan_parts(m, test::quant(quant), settings_for_model(m, PlanSettings{}));
    REQUIRE(parts);
    return *parts;
}

Bytes layers_active(const ModelParts& parts) {
    Bytes sum = 0;
    for (const LayerPart& l : parts.layers) sum += l.active_weights;
    return sum;
}

}  // namespace

// llama.cpp's output layer multiplies by token_embd where the embeddings are tied (the copy an
// offloaded head holds), so a token reads it whole: Gemma 3 4B's GPU reads its layers and that
// copy, 262,208 x 2,560 weights; Llama 3.1 8B's its layers and output.weight, no copy.
TEST_CASE("decode reads a tied output head's matrix whole") {
    const Hardware h = test::hardware_of({"rtx-4090"});
    const ModelParts tied = llama_parts("gemma-3-4b", "Q4_K_M");
    REQUIRE(tied.buffers);
    const Bytes copy = tied.buffers->output_duplicate;
    // Q4_K_M writes a tied token_embd at 4.5 to 8.5 bits a weight (Q4_K ... Q8_0).
    CHECK(copy >= 262208ULL * 2560 * 45 / 80);
    CHECK(copy <= 262208ULL * 2560 * 85 / 80);
    const auto p = place(tied, h, {});
    REQUIRE(p);
    CHECK(p->gpus[0].active_weights == layers_active(tied) + tied.output_weights + copy);
    const ModelParts untied = llama_parts("llama-3.1-8b", "Q4_K_M");
    REQUIRE(untied.buffers);
    CHECK(untied.buffers->output_duplicate == 0);
    const auto q = place(untied, h, {});
    REQUIRE(q);
    CHECK(q->gpus[0].active_weights == layers_active(untied) + untied.output_weights);
}

// A published file holds token_embd once, where a GPU holding a tied head holds a copy beside the
// host's: a run read at its file's size scales the weights by file / (planned less the copy), so
// a file as large as the plan's weights without the copy reads them unscaled.
TEST_CASE("a run's file size is matched without a tied head's copy") {
    BenchRun run;
    run.model = &test::model("gemma-3-4b");
    run.quant = &test::quant("Q4_0");
    run.gpus = {&test::gpu("rtx-4090")};
    run.test = BenchTest{0, 128, 0};
    const auto planned = predict_bench(run);
    REQUIRE(planned);
    const ModelParts parts = llama_parts("gemma-3-4b", "Q4_0");
    REQUIRE(parts.buffers);
    run.file_bytes = static_cast<double>(parts.weights());
    const auto at_file = predict_bench(run);
    REQUIRE(at_file);
    CHECK(at_file->decode.gpus[0].read_bytes ==
          Approx(planned->decode.gpus[0].read_bytes).epsilon(1e-9));
}
