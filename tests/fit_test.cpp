#include "canitrun/fit.hpp"
#include "canitrun/hardware_questions.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

Gpu card(const char* id, std::uint64_t gb, GpuClass c, double bandwidth,
         std::vector<std::string> backends = {"cuda"}) {
    Gpu g;
    g.id = g.name = g.short_name = id;
    g.vram_gb = gb;
    g.vram_bytes = gb << 30;
    g.gpu_class = c;
    g.bandwidth_gbps = bandwidth;
    g.backends = std::move(backends);
    return g;
}

Quant plain() {
    Quant q;
    q.id = "Q4_K_M";
    return q;
}

}  // namespace

TEST_CASE("native fit compares the total with the marketed size taken as GB") {
    const Gpu g24 = card("a", 24, GpuClass::consumer, 1000);
    // 24.0 GB fits a "24 GB" card; 24.1 GB does not (the page's rule), though 24 GiB would hold it.
    CHECK(classify_fit(g24, plain(), 24000000000ULL, {}) == Fit::native);
    CHECK(classify_fit(g24, plain(), 24100000000ULL, {}) == Fit::offload);
}

TEST_CASE("CPU offload: at least half on the GPU - the rest within system RAM") {
    const Gpu g16 = card("b", 16, GpuClass::consumer, 500);
    // 30 GB: 14 GB spills, within 32 GB of RAM.
    CHECK(classify_fit(g16, plain(), 30 * kGB, FitOptions{32 * kGB}) == Fit::offload);
    // With 8 GB of RAM it does not.
    CHECK(classify_fit(g16, plain(), 30 * kGB, FitOptions{8 * kGB}) == Fit::no);
    // 33 GB: the GPU would hold less than half.
    CHECK(classify_fit(g16, plain(), 33 * kGB, FitOptions{64 * kGB}) == Fit::no);
}

TEST_CASE("unified memory: only the GPU's share counts - and nothing spills") {
    Gpu mac = card("m", 32, GpuClass::unified, 400, {"metal"});
    mac.unified_gpu_share_permille = 667;  // 2/3 of 32 GB = 21.344 GB
    CHECK(gpu_budget_bytes(mac) == 21344000000ULL);
    CHECK(classify_fit(mac, plain(), 21 * kGB, {}) == Fit::native);
    CHECK(classify_fit(mac, plain(), 22 * kGB, {}) == Fit::no);
}

TEST_CASE("NVFP4 runs only where CUDA does") {
    Quant nvfp4 = plain();
    nvfp4.requires_backend = "cuda";
    CHECK(classify_fit(card("n", 24, GpuClass::consumer, 1000), nvfp4, kGB, {}) == Fit::native);
    CHECK(classify_fit(card("r", 24, GpuClass::consumer, 1000, {"rocm"}), nvfp4, kGB, {}) ==
          Fit::no);
}

TEST_CASE("smallest GPU: least VRAM - then consumer first - then the faster card") {
    const std::vector<Gpu> gpus = {
        card("ws32", 32, GpuClass::workstation, 2000), card("slow32", 32, GpuClass::consumer, 600),
        card("fast32", 32, GpuClass::consumer, 1792), card("big48", 48, GpuClass::consumer, 3000),
        card("small24", 24, GpuClass::consumer, 1000)};
    CHECK(smallest_gpu(gpus, plain(), 24100000000ULL)->id == "fast32");
    CHECK(smallest_gpu(gpus, plain(), 20 * kGB)->id == "small24");
    CHECK(smallest_gpu(gpus, plain(), 60 * kGB) == nullptr);
    const GpuLists lists = gpus_for(gpus, plain(), 24100000000ULL, {});
    REQUIRE(lists.native.size() == 4);
    CHECK(lists.native[0]->id == "fast32");
    CHECK(lists.native[1]->id == "slow32");
    CHECK(lists.native[2]->id == "ws32");
    REQUIRE(lists.offload.size() == 1);
    CHECK(lists.offload[0]->id == "small24");
}

TEST_CASE("best quantization for a budget is the highest-quality one that fits") {
    const Model& m = test::model("qwen3.5-35b-a3b");
    std::vector<const Quant*> quants;
    for (const auto& q : test::database().quants) {
        if (q.page_table) quants.push_back(&q);  // the page's ten, as the FAQ answers
    }
    REQUIRE(quants.size() == 10);
    EstimateOptions o;
    // Hand figures at 8k: Q3_K_M 19.0 GB, Q2_K 15.1 GB, NVFP4 19.8 GB, Q4_K_M 24.1 GB.
    CHECK(best_quant_for_budget(m, quants, 16 * kGB, o).value()->quant->id == "Q2_K");
    CHECK(best_quant_for_budget(m, quants, 20 * kGB, o).value()->quant->id == "NVFP4");
    CHECK(best_quant_for_budget(m, quants, 25 * kGB, o).value()->quant->id == "Q4_K_M");
    CHECK_FALSE(best_quant_for_budget(m, quants, 10 * kGB, o).value().has_value());
    // On a card without CUDA, NVFP4 is out: Q3_K_M.
    const Gpu amd = card("amd", 20, GpuClass::consumer, 800, {"rocm"});
    CHECK(best_quant_for_budget(m, quants, 20 * kGB, o, &amd).value()->quant->id == "Q3_K_M");
}

// fit --ctx 32k asks for 32k: a model whose window is 4k or 8k cannot run at it (the model page
// refuses `phi-3-mini-4k --ctx 32k`), so fit leaves it out; without --ctx the default is capped
// at each model's window, as the model page caps it.
TEST_CASE("fit: an asked context leaves out the models whose window is shorter") {
    const Hardware h = test::hardware_of({"rtx-4090"}, 64);
    PlanSettings s;
    s.estimate.context = 32768;
    const auto asked = models_that_fit(test::database(), h, s, ContextAsked::asked).value();
    for (const auto& f : asked) {
        INFO(f.model->id);
        CHECK(longest_supported_context(*f.model) >= 32768);
    }
    const auto capped = models_that_fit(test::database(), h, s).value();
    bool phi = false;
    for (const auto& f : capped) phi = phi || f.model->id == "phi-3-mini-4k";
    CHECK(phi);
    CHECK(asked.size() < capped.size());
}

// The snapshot's device_elements spare `fit` the layout of a model that fits at no quantization,
// and its weight_parts the layout and typing of one that passes the floor
// (hardware_questions.cpp); without them every floor and every plan is asked of the layout.
// Same answers, with either or both cleared, on one GPU, on two unlike ones and on none.
TEST_CASE("fit: the same models, quantizations and contexts without the snapshot's figures") {
    const Database& db = test::database();
    REQUIRE(db.device_elements.size() == db.models.size());
    REQUIRE(db.weight_parts.size() == db.models.size());
    Database no_elements = db;
    no_elements.device_elements.clear();
    Database no_weights = db;
    no_weights.weight_parts.clear();
    Database bare = no_elements;
    bare.weight_parts.clear();
    for (const auto& gpus : std::vector<std::vector<std::string>>{
             {"rtx-4090"}, {"rtx-4060-ti-16gb", "rtx-3090"}, {}}) {
        const Hardware h = test::hardware_of(gpus, 64);
        const auto kept = models_that_fit(db, h, PlanSettings{}).value();
        for (const Database* other : {&no_elements, &no_weights, &bare}) {
            const auto built = models_that_fit(*other, h, PlanSettings{}).value();
            REQUIRE(kept.size() == built.size());
            for (std::size_t i = 0; i < kept.size(); ++i) {
                CHECK(kept[i].model->id == built[i].model->id);
                CHECK(kept[i].answer.quant->id == built[i].answer.quant->id);
                CHECK(kept[i].max_context == built[i].max_context);
                CHECK(kept[i].answer.plan.placement.gpus.size() ==
                      built[i].answer.plan.placement.gpus.size());
                CHECK(kept[i].answer.speed.decode_tokens_per_s ==
                      built[i].answer.speed.decode_tokens_per_s);
            }
        }
    }
}
