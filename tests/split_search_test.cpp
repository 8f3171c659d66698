// The fastest split on three or more GPUs (split_search.hpp): the plan printed is never slower,
// by the speed model, than any placement of the space that fits. The oracle here is independent
// of the search: every --n-cpu-moe, every -ngl, and for each every --tensor-split of unit counts
// over the GPUs on a grid (each GPU's count but the last's a multiple of `step`, the last
// the rest; step 1 is every split).

#include <optional>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/split_search.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/sampling.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace split_search_test {

using Best = test::FastestFound;

std::string split_text(const std::vector<std::uint64_t>& s) {
    std::string t;
    for (auto v : s) t += (t.empty() ? "" : ",") + std::to_string(v);
    return t;
}

Best brute_force(const Model& m, const Quant& q, const Hardware& h, const PlanSettings& s,
                 std::uint64_t step) {
    const ModelParts parts = plan_parts(m, q, s).value();
    const std::uint64_t n = parts.layers.size();
    const PlacementOptions base = server_placement_for(m, q, h, s).value();
    Best best;
    const auto consider = [&](const PlacementOptions& o, const std::string& what) {
        const auto p = place(parts, h, o);
        if (!p || !p->fits()) return;
        const double d =
            estimate_speed(m, q, *p, h, s.estimate.context, s.ubatch, s.n_seq).decode_tokens_per_s;
        if (d > best.decode) best = {d, what + " -ts " + split_text(o.tensor_split)};
    };
    // Every GPU but the last takes a multiple of `step` of what is left; the last the rest.
    const auto splits = [&](auto& self, PlacementOptions& o, std::size_t d, std::uint64_t left,
                            const std::string& what) -> void {
        if (d + 1 == h.gpus.size()) {
            o.tensor_split[d] = left;
            consider(o, what);
            return;
        }
        for (std::uint64_t c = 0; c <= left; c += step) {
            o.tensor_split[d] = c;
            self(self, o, d + 1, left - c, what);
        }
    };
    const auto each_split = [&](PlacementOptions o, const std::string& what) {
        o.tensor_split.assign(h.gpus.size(), 0);
        splits(splits, o, 0, std::min(o.gpu_layers.value_or(n + 1), n + 1), what);
    };
    for (std::uint64_t k = 0; k <= n; ++k) {
        PlacementOptions o = base;
        o.cpu_moe_layers = k;
        each_split(o, "--n-cpu-moe " + std::to_string(k));
        if (!m.is_moe()) break;
    }
    for (std::uint64_t ngl = 1; ngl <= n; ++ngl) {
        PlacementOptions o = base;
        o.gpu_layers = ngl;
        each_split(o, "-ngl " + std::to_string(ngl));
    }
    return best;
}

void check_never_slower(const std::string& model, const std::vector<std::string>& gpus,
                        std::uint64_t ram_gb, std::uint64_t step, std::uint64_t ubatch = 512) {
    const Model& m = test::model(model);
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of(gpus, ram_gb);
    PlanSettings s = test::settings_at_8k(m);
    s.ubatch = ubatch;
    const auto a = answer_for(m, q, h, s).value();
    const Best oracle = brute_force(m, q, h, s, step);
    INFO(model << " on " << gpus.size() << " GPUs (" << gpus.front() << ", " << gpus[1] << " ...), "
               << ram_gb << " GB RAM: planned " << plan_kind_name(a.plan.kind) << " -ts "
               << split_text(a.plan.placement.tensor_split) << " at " << a.speed.decode_tokens_per_s
               << " t/s, brute force " << oracle.decode << " t/s (" << oracle.what << ")");
    if (oracle.decode == 0) {
        CHECK(a.plan.kind == PlanKind::none);
        return;
    }
    REQUIRE(a.plan.kind != PlanKind::none);
    CHECK(a.speed.decode_tokens_per_s >= oracle.decode * (1 - 1e-9));
}

std::size_t gpus_used(const Placement& p) {
    std::size_t used = 0;
    for (const Share& g : p.gpus) used += g.layers > 0 || g.output ? 1 : 0;
    return used;
}

}  // namespace split_search_test

TEST_CASE("split search: three GPUs never slower than every split, a brute-force sample") {
    const std::vector<std::vector<std::string>> three = {
        {"rtx-3090", "rtx-3090", "rtx-3090"},
        {"rtx-4060-ti-16gb", "rtx-3090", "rtx-3090"},
        {"rtx-3090", "rtx-4090", "rtx-4060-ti-16gb"},
        {"rtx-4060-ti-16gb", "rtx-4060-ti-16gb", "rtx-3060"}};
    // Every split of qwen3-30b-a3b's 49 units; a grid of 3 to 8 for the larger stacks.
    const std::vector<std::pair<const char*, std::uint64_t>> models = {{"qwen3-30b-a3b", 1},
                                                                       {"gpt-oss-120b", 3},
                                                                       {"llama-3.3-70b", 8},
                                                                       {"glm-4.5-air", 6},
                                                                       {"qwen3.5-35b-a3b", 5}};
    std::size_t i = 0;
    for (const auto& gpus : three)
        for (const auto& [model, step] : models)
            if (test::sampled(i++, 3)) split_search_test::check_never_slower(model, gpus, 64, step);
}

// By hand: an 8B model at Q4_K_M (about 5 GB) fits on one 24 GB card. On three alike cards every
// GPU reads at the same speed, so the fewest GPUs win: one, with no hand-over (speed.cpp's
// gpu_hop_s per GPU past the first), where the split by memory would use all three.
TEST_CASE("split search: three alike GPUs, a model one card holds runs on one") {
    const Model& m = test::model("llama-3.1-8b");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090", "rtx-3090"}, 64);
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, test::settings_at_8k(m)).value();
    REQUIRE(a.plan.kind == PlanKind::native);
    CHECK(split_search_test::gpus_used(a.plan.placement) == 1);
    CHECK(a.plan.placement.split_faster);
}

// By hand: Llama 3.3 70B at Q4_K_M is about 42.5 GB of weights (bartowski's file), which two
// 24 GB RTX 3090s hold (48 GB less two 1 GiB margins, the CUDA contexts and the KV cache of 8k
// tokens, 2.7 GB). The RTX 4060 Ti reads at 288 GB/s, the 3090s at 936 GB/s (the database's
// figures): every byte moved onto the 4060 Ti reads 3.25x slower, and using it adds a hand-over.
// So the fastest split leaves it empty: -ts 0,a,b.
TEST_CASE("split search: a slow card beside two fast ones is left out when they hold the model") {
    const Model& m = test::model("llama-3.3-70b");
    const Hardware h = test::hardware_of({"rtx-4060-ti-16gb", "rtx-3090", "rtx-3090"}, 64);
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, test::settings_at_8k(m)).value();
    REQUIRE(a.plan.kind == PlanKind::native);
    REQUIRE(a.plan.placement.tensor_split.size() == 3);
    CHECK(a.plan.placement.tensor_split[0] == 0);
    CHECK(a.plan.placement.gpus[0].layers == 0);
    CHECK(split_search_test::gpus_used(a.plan.placement) == 2);
}

// Four GPUs: the same oracle on a coarser grid.
TEST_CASE("split search: four GPUs never slower than every split on a grid") {
    split_search_test::check_never_slower(
        "llama-3.3-70b", {"rtx-4060-ti-16gb", "rtx-3090", "rtx-4090", "rtx-3060"}, 64, 9);
    split_search_test::check_never_slower(
        "qwen3-30b-a3b", {"rtx-3060", "rtx-3060", "rtx-4060-ti-16gb", "rtx-3090"}, 64, 4);
    // Four alike cards, a 72B at Q4_K_M (about 47 GB) near what two of them hold: the fills.
    split_search_test::check_never_slower("qwen2.5-72b",
                                          {"rtx-3090", "rtx-3090", "rtx-3090", "rtx-3090"}, 64, 9);
    split_search_test::check_never_slower("qwen2.5-72b",
                                          {"rtx-3060", "rtx-3060", "rtx-3060", "rtx-3060"}, 64, 9);
    // A large micro-batch: compute buffers of GBs on every GPU used, so the weights and caches
    // that two GPUs hold may still need a third (the fills past their first GPU).
    split_search_test::check_never_slower(
        "qwen3-32b", {"rtx-3060", "rtx-3060", "rtx-3060", "rtx-3060"}, 64, 4, 8192);
    split_search_test::check_never_slower("qwen3-32b", {"rtx-3060", "rtx-3060", "rtx-3060"}, 64, 2,
                                          8192);
}

// Five and six GPUs: the search is a dynamic program over the GPUs (split_search.hpp), so it
// covers any number of them; the oracle enumerates every split on a grid, which grows as
// (units / step)^(GPUs - 1), so the grids are coarse. Unlike cards (8 to 24 GB, 272 to
// 1,008 GB/s), where no fill-in-turn shortcut applies: a 30B MoE (about 18.6 GB at Q4_K_M)
// that needs two or three of them, with experts in RAM on the small ones; a 70B (about 42.5 GB)
// that needs three or more; and a 30B at a micro-batch of 8192, whose compute buffers push
// the weights onto more cards.
TEST_CASE("split search: five and six unlike GPUs never slower than every split on a grid") {
    const std::vector<std::string> five = {"rtx-3060", "rtx-4060", "rtx-4060-ti-16gb", "rtx-3090",
                                           "rtx-4090"};
    split_search_test::check_never_slower("qwen3-30b-a3b", five, 64, 7);
    split_search_test::check_never_slower("llama-3.3-70b", five, 64, 16);
    split_search_test::check_never_slower(
        "qwen3-30b-a3b", {"rtx-4060", "rtx-3060", "rtx-4060", "rtx-3060", "rtx-4060"}, 64, 7);
    split_search_test::check_never_slower(
        "qwen3-32b", {"rtx-3060", "rtx-4060", "rtx-3060", "rtx-4060", "rtx-3060"}, 64, 8, 8192);
    split_search_test::check_never_slower(
        "qwen3-30b-a3b", {"rtx-4060", "rtx-3060", "rtx-4060", "rtx-3060", "rtx-4060", "rtx-3060"},
        64, 10);
}

// By hand: Llama 3.3 70B at Q4_K_M (about 42.5 GB of weights, 2.7 GB of KV cache at 8k and
// about 1 GB of buffers per GPU, 47.2 GB) on five GPUs: two RTX 3090s (24 GiB, 24.7 GB each
// after the 1 GiB margin: 49.4 GB together, enough) among three RTX 4060s (8 GB, 272 GB/s
// against the 3090s' 936 GB/s). Every byte moved onto a 4060 reads 3.4x slower and each card
// used adds a hand-over, so the fastest split leaves the 4060s empty: -ts 0,a,0,b,0, where the
// split by memory would give each 4060 80 x 8 / 72, about 9 layers.
TEST_CASE("split search: five GPUs leave the slow cards out when the fast ones hold the model") {
    const Model& m = test::model("llama-3.3-70b");
    const Hardware h =
        test::hardware_of({"rtx-4060", "rtx-3090", "rtx-4060", "rtx-3090", "rtx-4060"}, 64);
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, test::settings_at_8k(m)).value();
    REQUIRE(a.plan.kind == PlanKind::native);
    REQUIRE(a.plan.placement.tensor_split.size() == 5);
    const auto& g = a.plan.placement.gpus;
    CHECK(g[0].layers + g[2].layers + g[4].layers == 0);
    CHECK(g[1].layers + g[3].layers == 80);
    CHECK(split_search_test::gpus_used(a.plan.placement) == 2);
    CHECK(a.plan.placement.split_faster);
}
