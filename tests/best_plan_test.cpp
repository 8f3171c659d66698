// The best plan (issue "The best plan, not just a plan"): the placement the planner prints is
// never slower, by the speed model, than any placement llama.cpp can express that also fits.
// The oracle is a brute-force enumeration written here, independent of the planner's search:
// every --n-cpu-moe k (0 to all layers), every -ngl, and on two GPUs every split of the units
// between them; on two to four GPUs every split with chosen sets of layers' experts in RAM
// (chosen_sets below).

#include <algorithm>
#include <optional>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/launch_command.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/sampling.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

using Best = test::FastestFound;

double decode_of(const Model& m, const Quant& q, const Placement& p, const Hardware& h,
                 const PlanSettings& s) {
    return estimate_speed(m, q, p, h, s.estimate.context, s.ubatch, s.n_seq).decode_tokens_per_s;
}

// Every placement of the space that fits, and the fastest of them. `splits`: on two GPUs, try
// every split of the GPU units; else the default split only.
Best brute_force(const Model& m, const Quant& q, const Hardware& h, const PlanSettings& s,
                 bool splits) {
    const ModelParts parts = plan_parts(m, q, s).value();
    const std::uint64_t n = parts.layers.size();
    // The planner's own options: margin, runtime, and what the server holds beside the model.
    const PlacementOptions base = server_placement_for(m, q, h, s).value();
    Best best;
    const auto consider = [&](const PlacementOptions& o, const std::string& what) {
        const auto p = place(parts, h, o);
        if (!p || !p->fits()) return;
        const double d = decode_of(m, q, *p, h, s);
        if (d > best.decode) best = {d, what};
    };
    const auto each_split = [&](PlacementOptions o, const std::string& what) {
        consider(o, what);
        if (!splits || h.gpus.size() != 2) return;
        const std::uint64_t units = std::min(o.gpu_layers.value_or(n + 1), n + 1);
        for (std::uint64_t first = 0; first <= units; ++first) {
            o.tensor_split = {first, units - first};
            consider(o,
                     what + " -ts " + std::to_string(first) + "," + std::to_string(units - first));
        }
    };
    for (std::uint64_t k = 0; k <= n; ++k) {
        PlacementOptions o = base;
        o.cpu_moe_layers = k;
        each_split(o, "--n-cpu-moe " + std::to_string(k));
    }
    for (std::uint64_t ngl = 1; ngl <= n; ++ngl) {
        PlacementOptions o = base;
        o.gpu_layers = ngl;
        each_split(o, "-ngl " + std::to_string(ngl));
    }
    return best;
}

void check_never_slower(const std::string& model, const std::string& quant,
                        const std::vector<std::string>& gpus, std::uint64_t ram_gb, bool splits) {
    const Model& m = test::model(model);
    const Quant& q = test::quant(quant);
    const Hardware h = test::hardware_of(gpus, ram_gb);
    const PlanSettings s = test::settings_at_8k(m);
    const auto a = answer_for(m, q, h, s).value();
    const Best oracle = brute_force(m, q, h, s, splits);
    INFO(model << " " << quant << " on " << gpus.size() << " GPUs (" << gpus.front() << "), "
               << ram_gb << " GB RAM: planned " << plan_kind_name(a.plan.kind) << " at "
               << a.speed.decode_tokens_per_s << " t/s, brute force " << oracle.decode << " t/s ("
               << oracle.what << ")");
    if (oracle.decode == 0) {
        // Without splits the space lacks the planner's own on several GPUs (fitting_split).
        if (splits || h.gpus.size() < 2) CHECK(a.plan.kind == PlanKind::none);
        return;
    }
    REQUIRE(a.plan.kind != PlanKind::none);
    CHECK(a.speed.decode_tokens_per_s >= oracle.decode * (1 - 1e-9));
}

}  // namespace

// The cases: an even split puts the first layers, whose experts --n-cpu-moe keeps in
// RAM, on GPU 0 and leaves it nearly empty; the planner must find the uneven split.
TEST_CASE("best plan: gpt-oss-120b MXFP4 and GLM-4.5-Air on 2x RTX 3090 with 64 GB") {
    check_never_slower("gpt-oss-120b", "MXFP4", {"rtx-3090", "rtx-3090"}, 64, true);
    check_never_slower("glm-4.5-air", "Q4_K_M", {"rtx-3090", "rtx-3090"}, 64, true);
    // By hand: gpt-oss-120b's 36 layers' experts cannot all stay on 2 x 24 GB, and no split
    // leaves GPU 0 below half full: the old plan (--n-cpu-moe 23, -ts 24,24) held 0.56 GB of
    // weights on GPU 0.
    const Model& m = test::model("gpt-oss-120b");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    const auto a = answer_for(m, test::quant("MXFP4"), h, test::settings_at_8k(m)).value();
    REQUIRE(a.plan.kind == PlanKind::expert_offload);
    CHECK(a.plan.placement.cpu_moe_layers < 23);
    CHECK(a.plan.placement.gpus[0].weights > h.gpus[0].memory / 2);
}

TEST_CASE("best plan: never slower than any placement that fits, a brute-force sample") {
    const std::vector<std::vector<std::string>> two = {{"rtx-3090", "rtx-3090"},
                                                       {"rtx-4090", "rtx-3090"},
                                                       {"rtx-4060-ti-16gb", "rtx-4060-ti-16gb"}};
    for (const auto& gpus : two) {
        for (const char* model : {"qwen3-30b-a3b", "gpt-oss-120b", "llama-3.3-70b", "qwen3-32b"}) {
            check_never_slower(model, "Q4_K_M", gpus, 64, true);
        }
    }
}

// Every database model the llama.cpp rule lays out, on 22 setups: one card of each memory
// class and vendor, two alike and two unlike cards, three and five unlike cards, with 64 or
// 128 GB of RAM. The oracle's splits are llama.cpp's by memory (the two-GPU split search is
// checked whole by the sample above, three to six GPUs in split_search_test.cpp). Past 400B
// parameters the space is empty on every setup without enumerating it: at 4.5 bits or more
// (Q4_K_M's Q4_K, with some Q6_K) the weights alone exceed 400B x 4.5 / 8 = 225 GB, more than
// the largest setup's GPUs and RAM together (an H100's 80 GiB and 128 GB: 213.9 GB), and every
// weight is placed on a GPU or in RAM.
TEST_CASE("best plan: every model on 22 setups is never slower than the space") {
    const std::vector<std::pair<std::vector<std::string>, std::uint64_t>> setups = {
        {{"rtx-3060"}, 64},
        {{"rtx-4060"}, 64},
        {{"rtx-4060-ti-16gb"}, 64},
        {{"rtx-4080"}, 64},
        {{"rtx-4090"}, 128},
        {{"rtx-5090"}, 128},
        {{"rtx-3090"}, 64},
        {{"rtx-a6000"}, 128},
        {{"h100-sxm"}, 128},
        {{"rx-7600"}, 64},
        {{"rx-7900-xtx"}, 128},
        {{"arc-b580"}, 64},
        {{"arc-a770-16gb"}, 64},
        {{"gtx-1080-ti"}, 64},
        {{"rtx-3090", "rtx-3090"}, 64},
        {{"rtx-4090", "rtx-4090"}, 128},
        {{"rtx-4060-ti-16gb", "rtx-4060-ti-16gb"}, 64},
        {{"rtx-4090", "rtx-3090"}, 128},
        {{"rtx-5090", "rtx-4090"}, 128},
        {{"rx-7900-xtx", "rx-7900-xtx"}, 128},
        // Three and five unlike cards: the split search's dynamic program (split_search.hpp),
        // checked here against every --n-cpu-moe and -ngl at the split by memory, and against
        // every split on a grid in tests/split_search_test.cpp.
        {{"rtx-4060-ti-16gb", "rtx-3090", "rtx-3090"}, 64},
        {{"rtx-3060", "rtx-4060", "rtx-4060-ti-16gb", "rtx-3090", "rtx-4090"}, 64}};
    std::size_t checked = 0, seen = 0;
    std::size_t empty = 0;
    for (const auto& m : test::database().models) {
        if (!llama_arch(m)) continue;
        if (!test::sampled(seen++)) continue;
        if (m.params_total > 400'000'000'000ULL) {
            const Quant& q = test::quant("Q4_K_M");
            const PlanSettings s = test::settings_at_8k(m);
            const Bytes weights = plan_parts(m, q, s).value().weights();
            for (const auto& [gpus, ram] : setups) {
                const Hardware h = test::hardware_of(gpus, ram);
                INFO(m.id << " on " << gpus.size() << " GPUs (" << gpus.front() << ")");
                CHECK(weights > h.gpu_memory() + h.ram);
                CHECK(answer_for(m, q, h, s).value().plan.kind == PlanKind::none);
            }
            ++empty;
            continue;
        }
        for (const auto& [gpus, ram] : setups) check_never_slower(m.id, "Q4_K_M", gpus, ram, false);
        ++checked;
    }
    CHECK(checked > test::sampled_count(100));
    CHECK(empty > 0);
}

// A quantization a person would pick: the best quality that reaches the speed floor (5 tokens/s
// by default), not BF16 at 0.4 tokens/s.
TEST_CASE("best quantization: above the speed floor, else the fastest") {
    const Model& m = test::model("llama-3.3-70b");
    const Hardware h = test::hardware_of({"rtx-4090"}, 128);
    PlanSettings s = test::settings_at_8k(m);
    s.min_decode_tokens_per_s = kDefaultMinSpeed;
    s.min_quality_rank = test::quant(kDefaultMinQuant).quality_rank;  // as the command line
    const auto quants = llama_cpp_quants(test::database());
    const auto best = best_quant_for_hardware(m, quants, h, s).value();
    REQUIRE(best);
    CHECK(best->speed.decode_tokens_per_s >= 5.0);
    CHECK(best->quant->id != "BF16");
    // No floor: the best quality that runs at all, whatever its speed.
    s.min_decode_tokens_per_s = 0;
    const auto any = best_quant_for_hardware(m, quants, h, s).value();
    REQUIRE(any);
    CHECK(any->quant->quality_rank < best->quant->quality_rank);
    // A floor nothing reaches: the fastest that runs.
    s.min_decode_tokens_per_s = 100000;
    const auto fastest = quant_choices_for_hardware(m, quants, h, s).value();
    REQUIRE(fastest.best);
    REQUIRE(fastest.fastest);
    CHECK(fastest.best->quant == fastest.fastest->quant);
}

// Prefill breaks a decode tie. By hand: the RTX 3090 Ti and the RTX 4090 both read 1,008 GB/s
// (NVIDIA's pages, data/gpus/nvidia.json), so Qwen 3.5 35B-A3B at Q4_K_M (22.4 GB, on one 24 GB
// card: no hand-over) decodes as fast on either alone; the 4090's 165.2 FP16 TFLOPS against the
// 3090 Ti's 80 read the prompt faster, so all 40 layers and the head (41 units) go to the 4090,
// whichever place it has in the list.
TEST_CASE("best plan: prefill breaks a decode tie between two cards of one bandwidth") {
    const Model& m = test::model("qwen3.5-35b-a3b");
    const Quant& q = test::quant("Q4_K_M");
    const PlanSettings s = test::settings_at_8k(m);
    const Hardware h = test::hardware_of({"rtx-3090-ti", "rtx-4090"}, 32);
    PlacementOptions o = server_placement_for(m, q, h, s).value();
    const ModelParts parts = plan_parts(m, q, s).value();
    o.tensor_split = {41, 0};
    const Speed ti =
        estimate_speed(m, q, place(parts, h, o).value(), h, s.estimate.context, s.ubatch, s.n_seq);
    o.tensor_split = {0, 41};
    const Speed ada =
        estimate_speed(m, q, place(parts, h, o).value(), h, s.estimate.context, s.ubatch, s.n_seq);
    CHECK(ti.decode_tokens_per_s == Approx(ada.decode_tokens_per_s).epsilon(1e-12));
    CHECK(ada.prefill_tokens_per_s.value_or(0) > ti.prefill_tokens_per_s.value_or(0));
    const auto a = answer_for(m, q, h, s).value();
    CHECK(a.plan.placement.tensor_split == std::vector<std::uint64_t>{0, 41});
    const Hardware swapped = test::hardware_of({"rtx-4090", "rtx-3090-ti"}, 32);
    const auto b = answer_for(m, q, swapped, s).value();
    CHECK(b.plan.placement.tensor_split == std::vector<std::uint64_t>{41, 0});
}

// -ot with a chosen set (docs/METHOD.md, the search): gpt-oss-120b MXFP4 on 2x RTX 4060 Ti 16GB
// with 64 GB. --n-cpu-moe keeps the first layers' experts in RAM, all GPU 0's; with 20 no split
// fits (-ts 28,9 overfills GPU 0, -ts 27,10 GPU 1). The set {0..18, 27} with -ts 27,10 gives
// GPU 0 what --n-cpu-moe 19 gives it (its own 27 layers, 19 without experts) and GPU 1 what
// --n-cpu-moe 28 gives it (its first layer without experts), so it fits with 20 in RAM.
TEST_CASE("best plan: a chosen set of layers' experts saves a layer on two GPUs") {
    const Model& m = test::model("gpt-oss-120b");
    const Quant& q = test::quant("MXFP4");
    const Hardware h = test::hardware_of({"rtx-4060-ti-16gb", "rtx-4060-ti-16gb"}, 64);
    const PlanSettings s = test::settings_at_8k(m);
    const ModelParts parts = plan_parts(m, q, s).value();
    REQUIRE(parts.layers.size() == 36);
    PlacementOptions o = server_placement_for(m, q, h, s).value();
    o.tensor_split = {27, 10};
    const auto with_k = [&](std::uint64_t k, std::vector<std::uint64_t> split) {
        PlacementOptions x = o;
        x.cpu_moe_layers = k;
        x.tensor_split = std::move(split);
        return place(parts, h, x).value();
    };
    CHECK_FALSE(with_k(20, {28, 9}).fits());
    CHECK_FALSE(with_k(20, {27, 10}).fits());
    PlacementOptions chosen = o;
    for (std::uint64_t i = 0; i <= 18; ++i) chosen.cpu_moe_set.push_back(i);
    chosen.cpu_moe_set.push_back(27);
    const Placement p = place(parts, h, chosen).value();
    CHECK(p.cpu_moe_layers == 20);
    CHECK(p.fits());
    CHECK(p.gpus[0].most() == with_k(19, {27, 10}).gpus[0].most());
    CHECK(p.gpus[1].most() == with_k(28, {27, 10}).gpus[1].most());
    CHECK(p.ram.weights == with_k(20, {27, 10}).ram.weights);
    const std::vector<std::string> args = placement_args(&h, &p);
    const std::vector<std::string> want = {
        "-ngl", "99",   "-ot", "blk\\.([0-9]|1[0-8]|27)\\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU",
        "-ts",  "27,10"};
    CHECK(args == want);
    // The search finds a set of 20 (the GPUs are alike: any 20 read alike), at the speed of 20
    // layers' experts in RAM, above the --n-cpu-moe 21 plan's.
    const auto a = answer_for(m, q, h, s).value();
    REQUIRE(a.plan.kind == PlanKind::expert_offload);
    CHECK(a.plan.placement.cpu_moe_layers == 20);
    CHECK(a.plan.placement.cpu_moe_set.size() == 20);
    CHECK(a.speed.decode_tokens_per_s > decode_of(m, q, with_k(21, {28, 9}), h, s));
    CHECK(a.speed.decode_tokens_per_s == Approx(decode_of(m, q, p, h, s)));
}

// -ot with a chosen set on three GPUs: GLM-4.5-Air Q4_K_M on 3x RTX 3060 12GB with 64 GB. With
// --n-cpu-moe the GPUs after the first hold whole layers only, and every expert-less layer's
// attention and KV sits on GPU 0, so 28 layers' experts in RAM fit no split of the 47 units (46
// layers and the head). The set {7..19, 26..40} with -ts 7,19,21 does: GPU 0 holds layers 0-6
// whole, GPU 1 layers 7-25 (13 without experts), GPU 2 layers 26-45 and the head (15 without).
// Each GPU's weights are its layers' tensors less the routed experts of its expert-less ones,
// and the RAM's the input embedding and those experts: summed here from the model's layers.
TEST_CASE("best plan: a chosen set of layers' experts on three GPUs") {
    const Model& m = test::model("glm-4.5-air");
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of({"rtx-3060", "rtx-3060", "rtx-3060"}, 64);
    const PlanSettings s = test::settings_at_8k(m);
    const ModelParts parts = plan_parts(m, q, s).value();
    REQUIRE(parts.layers.size() == 46);
    const PlacementOptions o = server_placement_for(m, q, h, s).value();
    // No split of the 47 units fits --n-cpu-moe 28.
    PlacementOptions k = o;
    k.cpu_moe_layers = 28;
    bool any = false;
    for (std::uint64_t a = 0; a <= 47 && !any; ++a) {
        for (std::uint64_t b = 0; a + b <= 47 && !any; ++b) {
            k.tensor_split = {a, b, 47 - a - b};
            any = place(parts, h, k).value().fits();
        }
    }
    CHECK_FALSE(any);
    PlacementOptions chosen = o;
    chosen.tensor_split = {7, 19, 21};
    for (std::uint64_t i = 7; i <= 19; ++i) chosen.cpu_moe_set.push_back(i);
    for (std::uint64_t i = 26; i <= 40; ++i) chosen.cpu_moe_set.push_back(i);
    const Placement p = place(parts, h, chosen).value();
    CHECK(p.fits());
    CHECK(p.cpu_moe_layers == 28);
    const auto weights = [&](std::uint64_t from, std::uint64_t to, std::uint64_t bare) {
        Bytes sum = 0;  // layers [from, to), the first `bare` of them without routed experts
        for (std::uint64_t i = from; i < to; ++i) {
            sum += parts.layers[i].weights - (i < from + bare ? parts.layers[i].routed_experts : 0);
        }
        return sum;
    };
    CHECK(p.gpus[0].weights == weights(0, 7, 0));
    CHECK(p.gpus[1].weights == weights(7, 26, 13));
    CHECK(p.gpus[2].weights == weights(26, 46, 15) + parts.output_weights);
    Bytes experts = 0;
    for (const auto i : chosen.cpu_moe_set) experts += parts.layers[i].routed_experts;
    CHECK(p.ram.weights == parts.input_weights + experts);
    const std::vector<std::string> args = placement_args(&h, &p);
    const std::vector<std::string> want = {
        "-ngl", "99", "-ot",
        "blk\\.([7-9]|1[0-9]|2[6-9]|3[0-9]|40)\\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU",
        // the last count takes the files' nextn block: llama.cpp splits 48 units (46 layers,
        // the MTP block, the head; launch_command's llamacpp_tensor_split), so GPU 0 gets
        // ceil(7 x 48 / 48) = 7 layers, as placed
        "-ts", "7,19,22"};
    CHECK(args == want);
    // The search keeps a set of 28 or fewer, faster than the --n-cpu-moe plan (31, -ts 35,6,6)
    // and at least as fast as this set.
    k.cpu_moe_layers = 31;
    k.tensor_split = {35, 6, 6};
    const Placement by_count = place(parts, h, k).value();
    REQUIRE(by_count.fits());
    const auto a = answer_for(m, q, h, s).value();
    REQUIRE(a.plan.kind == PlanKind::expert_offload);
    CHECK_FALSE(a.plan.placement.cpu_moe_set.empty());
    CHECK(a.plan.placement.cpu_moe_layers <= 28);
    CHECK(decode_of(m, q, p, h, s) > decode_of(m, q, by_count, h, s));
    CHECK(a.speed.decode_tokens_per_s >= decode_of(m, q, p, h, s) * (1 - 1e-9));
}

namespace {

// The chosen-set space on two or more GPUs (chosen_set.hpp), enumerated here by brute force:
// every split of the units over the GPUs (zeros allowed), and per split, each GPU its fewest
// layers' experts in RAM taken from its own block, in two orders (the layers freeing the most
// bytes first, and the fewest first: with Q4_K_M's mix of Q4_K and Q6_K expert tensors the
// layers differ). A GPU's bytes fall by exactly a layer's routed experts when they go to RAM
// (placement.hpp), so the fewest are counted from the whole block's placement; GPU 0 may then
// need more for its prompt copy of an expert (op offload), added one at a time. Every candidate
// is placed and judged by place() and estimate_speed. On one kind of layer, more layers in RAM
// never read faster (speed.cpp), so the fewest per GPU is each split's fastest.
Best chosen_sets(const Model& m, const Quant& q, const Hardware& h, const PlanSettings& s,
                 std::size_t stride) {
    const ModelParts parts = plan_parts(m, q, s).value();
    const std::uint64_t n = parts.layers.size();
    const std::uint64_t units = n + 1;
    const std::size_t g = h.gpus.size();
    const PlacementOptions base = server_placement_for(m, q, h, s).value();
    Best best;
    std::vector<std::uint64_t> split(g, 0);
    std::size_t seen = 0;
    // Per GPU, the layers of [b, e) that hold routed experts, in an order.
    const auto order = [&](std::uint64_t b, std::uint64_t e, bool most_first) {
        std::vector<std::uint64_t> v;
        for (std::uint64_t i = b; i < e && i < n; ++i) {
            if (parts.layers[i].routed_experts > 0) v.push_back(i);
        }
        std::stable_sort(v.begin(), v.end(), [&](std::uint64_t a, std::uint64_t c) {
            const Bytes x = parts.layers[a].routed_experts, y = parts.layers[c].routed_experts;
            return most_first ? x > y : x < y;
        });
        return v;
    };
    const auto judge = [&]() {
        PlacementOptions o = base;
        o.tensor_split = split;
        const Placement whole = place(parts, h, o).value();
        for (const bool most_first : {true, false}) {
            std::vector<std::vector<std::uint64_t>> layers(g);
            std::vector<std::size_t> taken(g, 0);
            std::uint64_t b = 0;
            bool can = true;
            for (std::size_t d = 0; d < g; ++d) {
                layers[d] = order(b, b + split[d], most_first);
                b += split[d];
                const Share& w = whole.gpus[d];
                Bytes freed = 0;
                while (w.most() > w.capacity + freed && taken[d] < layers[d].size()) {
                    freed += parts.layers[layers[d][taken[d]++]].routed_experts;
                }
                can = can && w.most() <= w.capacity + freed;
            }
            if (!can) continue;
            for (;;) {
                o.cpu_moe_set.clear();
                for (std::size_t d = 0; d < g; ++d) {
                    o.cpu_moe_set.insert(o.cpu_moe_set.end(), layers[d].begin(),
                                         layers[d].begin() + static_cast<std::ptrdiff_t>(taken[d]));
                }
                std::sort(o.cpu_moe_set.begin(), o.cpu_moe_set.end());
                if (o.cpu_moe_set.empty()) break;  // no expert in RAM: the native search's
                const Placement p = place(parts, h, o).value();
                if (p.fits()) {
                    const double decode = decode_of(m, q, p, h, s);
                    if (decode > best.decode) {
                        best = {decode, std::to_string(o.cpu_moe_set.size()) + " layers, -ts " +
                                            std::to_string(split[0]) + ",..."};
                    }
                    break;
                }
                if (p.gpus[0].fits() || taken[0] == layers[0].size()) break;
                ++taken[0];
            }
        }
    };
    // Every composition of the units into g parts.
    const auto each = [&](auto&& self, std::size_t d, std::uint64_t left) -> void {
        if (d + 1 == g) {
            split[d] = left;
            if (test::sampled(seen++, stride)) judge();
            return;
        }
        for (std::uint64_t x = 0; x <= left; ++x) {
            split[d] = x;
            self(self, d + 1, left - x);
        }
    };
    each(each, 0, units);
    return best;
}

void check_sets(const std::string& model, const std::string& quant,
                const std::vector<std::string>& gpus, std::uint64_t ram_gb) {
    const Model& m = test::model(model);
    const Quant& q = test::quant(quant);
    const Hardware h = test::hardware_of(gpus, ram_gb);
    const PlanSettings s = test::settings_at_8k(m);
    const auto a = answer_for(m, q, h, s).value();
    // The sanitized build checks every 16th split (the others, every split).
    const Best oracle = chosen_sets(m, q, h, s, gpus.size() > 3 ? 16 : 4);
    INFO(model << " " << quant << " on " << gpus.size() << " GPUs (" << gpus.front()
               << "): " << a.speed.decode_tokens_per_s << " t/s, brute force " << oracle.decode
               << " t/s (" << oracle.what << ")");
    REQUIRE(oracle.decode > 0);  // each setup keeps experts in RAM: the space is not empty
    CHECK(a.speed.decode_tokens_per_s >= oracle.decode * (1 - 1e-9));
}

}  // namespace

// The chosen-set space on two to four GPUs against the brute force above: GLM-4.5-Air's two
// kinds of layer, gpt-oss-120b's one, Qwen3-30B-A3B at Q8_0; about 4 s in all.
TEST_CASE("best plan: chosen sets on two to four GPUs, a brute-force sample") {
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-3090", "rtx-3090"}, 64);
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-3090", "rtx-4060-ti-16gb"}, 64);
    check_sets("gpt-oss-120b", "MXFP4", {"rtx-4060-ti-16gb", "rtx-4060-ti-16gb"}, 64);
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-3060", "rtx-3060", "rtx-3060"}, 64);
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-3090", "rtx-4090", "rtx-4060-ti-16gb"}, 64);
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-4060-ti-16gb", "rtx-3090", "rtx-3090"}, 64);
    check_sets("gpt-oss-120b", "MXFP4", {"rtx-3060", "rtx-3060", "rtx-3060"}, 64);
    check_sets("gpt-oss-120b", "MXFP4", {"rtx-3090", "rtx-4090", "rtx-4060-ti-16gb"}, 64);
    check_sets("qwen3-30b-a3b", "Q8_0", {"rtx-4060", "rtx-4060", "rtx-3060"}, 64);
    check_sets("glm-4.5-air", "Q4_K_M", {"rtx-3060", "rtx-3060", "rtx-3060", "rtx-3060"}, 64);
    check_sets("gpt-oss-120b", "MXFP4", {"rtx-3060", "rtx-3060", "rtx-3060", "rtx-3060"}, 64);
}

namespace {

// Layers [from, to)'s weights less the routed experts of those in `set`: what a GPU holding
// them holds of the model's weights (placement.hpp).
Bytes block_weights(const ModelParts& parts, std::uint64_t from, std::uint64_t to,
                    const std::vector<std::uint64_t>& set) {
    Bytes sum = 0;
    for (std::uint64_t i = from; i < to; ++i) {
        const bool in_ram = std::find(set.begin(), set.end(), i) != set.end();
        sum += parts.layers[i].weights - (in_ram ? parts.layers[i].routed_experts : 0);
    }
    return sum;
}

}  // namespace

// The chosen set on four GPUs: GLM-4.5-Air Q4_K_M on 4x RTX 3060 12GB with 64 GB. Its 45 MoE
// layers are of two kinds. By hand (config.json: 128 routed experts of 1,408 x 4,096 weights a
// matrix, 5,767,168; ggml-common.h's blocks: Q4_K 144 B a 256, Q5_K 176 B a 256, Q8_0 34 B a
// 32): gate and up at Q4_K are 3,244,032 B each an expert, down at Q5_K 3,964,928 B or, in the
// layers Q4_K_M gives more bits (1-4, 7, 10, ..., 37 every third, 40-45), at Q8_0 6,127,616 B:
// 128 x 10,452,992 = 1,337,982,976 B of routed experts a layer, or 128 x 12,615,680 =
// 1,614,807,040 B. Each GPU holds 12 GiB less the 1 GiB margin, 11,811,160,064 B. A set that takes
// the larger kind where one layer's experts must free a GPU's excess keeps 20 layers' experts in
// RAM: {1, 2, 5, 10, 19, 26...40} with -ts 10,8,8,21 (GPU 0 layers 0-9, 1, 2 and 5 without experts;
// GPU 1 layers 10-17, 10 without; GPU 2 layers 18-25, 19 without; GPU 3 layers 26-45 and the head,
// 26-40 without). Each GPU's weights are summed here from its layers' tensors less the routed
// experts of the set's layers. The last search's set (the fewest layers of each GPU in stack order,
// whatever their kind) kept 22: {13...19, 26...40} with -ts 7,6,13,21; an exhaustive check by hand
// over every split with each GPU's fewest found 21 at 15.00 t/s.
TEST_CASE("best plan: a chosen set of two kinds of layer on four GPUs") {
    const Model& m = test::model("glm-4.5-air");
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of({"rtx-3060", "rtx-3060", "rtx-3060", "rtx-3060"}, 64);
    const PlanSettings s = test::settings_at_8k(m);
    const ModelParts parts = plan_parts(m, q, s).value();
    REQUIRE(parts.layers.size() == 46);
    CHECK(parts.layers[1].routed_experts == 1'614'807'040);
    CHECK(parts.layers[10].routed_experts == 1'614'807'040);
    CHECK(parts.layers[5].routed_experts == 1'337'982'976);
    CHECK(parts.layers[26].routed_experts == 1'337'982'976);
    PlacementOptions chosen = server_placement_for(m, q, h, s).value();
    chosen.tensor_split = {10, 8, 8, 21};
    chosen.cpu_moe_set = {1, 2, 5, 10, 19};
    for (std::uint64_t i = 26; i <= 40; ++i) chosen.cpu_moe_set.push_back(i);
    const Placement p = place(parts, h, chosen).value();
    CHECK(p.fits());
    CHECK(p.cpu_moe_layers == 20);
    const auto& set = chosen.cpu_moe_set;
    CHECK(p.gpus[0].weights == block_weights(parts, 0, 10, set));
    CHECK(p.gpus[1].weights == block_weights(parts, 10, 18, set));
    CHECK(p.gpus[2].weights == block_weights(parts, 18, 26, set));
    CHECK(p.gpus[3].weights == block_weights(parts, 26, 46, set) + parts.output_weights);
    for (const Share& g : p.gpus) CHECK(g.capacity == 11'811'160'064);
    // Each of GPUs 1 and 2 frees its excess with one layer of the larger kind.
    CHECK(p.gpus[1].most() + parts.layers[10].routed_experts > p.gpus[1].capacity);
    CHECK(p.gpus[2].most() + parts.layers[19].routed_experts > p.gpus[2].capacity);
    const std::vector<std::string> want = {
        "-ngl", "99", "-ot",
        "blk\\.([1-2]|5|10|19|2[6-9]|3[0-9]|40)\\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU",
        // the last count takes the files' nextn block: llama.cpp splits 48 units (46 layers,
        // the MTP block, the head; launch_command's llamacpp_tensor_split), so GPU 0 gets
        // ceil(10 x 48 / 48) = 10 layers, as placed
        "-ts", "10,8,8,22"};
    CHECK(placement_args(&h, &p) == want);
    PlacementOptions old = chosen;
    old.tensor_split = {7, 6, 13, 21};
    old.cpu_moe_set = {13, 14, 15, 16, 17, 18, 19};
    for (std::uint64_t i = 26; i <= 40; ++i) old.cpu_moe_set.push_back(i);
    const Placement before = place(parts, h, old).value();
    REQUIRE(before.fits());
    CHECK(decode_of(m, q, p, h, s) > decode_of(m, q, before, h, s));
    const auto a = answer_for(m, q, h, s).value();
    REQUIRE(a.plan.kind == PlanKind::expert_offload);
    CHECK(a.plan.placement.cpu_moe_layers <= 20);
    CHECK(a.speed.decode_tokens_per_s >= decode_of(m, q, p, h, s) * (1 - 1e-9));
}

// Three unlike GPUs: GLM-4.5-Air Q4_K_M on an RTX 3090, an RTX 4090 and an RTX 4060 Ti 16GB
// with 64 GB. The --n-cpu-moe plan was 9 layers' experts in RAM with -ts 23,15,9 (GPU 0 holds
// the nine expert-less layers). The set {5, 6, 8, 9, 20, 21, 23, 38} of the smaller kind (the
// fewer bytes a token reads from RAM: 1,337,982,976 B of routed experts, as above) with
// -ts 19,18,10 keeps 8: GPU 0 (24 GiB less 1 GiB,
// 24,696,061,952 B) layers 0-18, 4 without experts; GPU 1 (the same) 19-36, 3 without; GPU 2
// (16 GiB less 1 GiB, 16,106,127,360 B) 37-45 and the head, 1 without. Weights summed as above.
TEST_CASE("best plan: a chosen set on three unlike GPUs") {
    const Model& m = test::model("glm-4.5-air");
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-4090", "rtx-4060-ti-16gb"}, 64);
    const PlanSettings s = test::settings_at_8k(m);
    const ModelParts parts = plan_parts(m, q, s).value();
    PlacementOptions chosen = server_placement_for(m, q, h, s).value();
    chosen.tensor_split = {19, 18, 10};
    chosen.cpu_moe_set = {5, 6, 8, 9, 20, 21, 23, 38};
    const Placement p = place(parts, h, chosen).value();
    CHECK(p.fits());
    const auto& set = chosen.cpu_moe_set;
    for (const auto i : set) CHECK(parts.layers[i].routed_experts == 1'337'982'976);
    CHECK(p.gpus[0].weights == block_weights(parts, 0, 19, set));
    CHECK(p.gpus[1].weights == block_weights(parts, 19, 37, set));
    CHECK(p.gpus[2].weights == block_weights(parts, 37, 46, set) + parts.output_weights);
    CHECK(p.gpus[0].capacity == 24'696'061'952);
    CHECK(p.gpus[1].capacity == 24'696'061'952);
    CHECK(p.gpus[2].capacity == 16'106'127'360);
    const std::vector<std::string> want = {
        "-ngl", "99", "-ot",
        "blk\\.([5-6]|[8-9]|2[0-1]|23|38)\\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU",
        // the last count takes the files' nextn block: llama.cpp splits 48 units (46 layers,
        // the MTP block, the head; launch_command's llamacpp_tensor_split), so GPU 0 gets
        // ceil(19 x 48 / 48) = 19 layers, as placed
        "-ts", "19,18,11"};
    CHECK(placement_args(&h, &p) == want);
    PlacementOptions old = chosen;
    old.cpu_moe_set.clear();
    old.cpu_moe_layers = 9;
    old.tensor_split = {23, 15, 9};
    const Placement before = place(parts, h, old).value();
    REQUIRE(before.fits());
    CHECK(decode_of(m, q, p, h, s) > decode_of(m, q, before, h, s));
    const auto a = answer_for(m, q, h, s).value();
    REQUIRE(a.plan.kind == PlanKind::expert_offload);
    CHECK(a.plan.placement.cpu_moe_layers <= 8);
    CHECK(a.speed.decode_tokens_per_s >= decode_of(m, q, p, h, s) * (1 - 1e-9));
}
