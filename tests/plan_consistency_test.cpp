// Consistency as a property (issue "One plan, one answer"): for every database model, on 20+
// hardware setups, the answers that different commands give come from the same plans and agree.
//   page lists / smallest GPU (gpus, the model page)  vs  --gpu (answer_for)
//   --vram N                                             vs  --gpu on a card of N GB
//   fit (models_that_fit, with its fast paths)          vs  --gpu's best quantization
// Under the default rule (llama.cpp's; the quick rule for architectures it does not lay out).

#include <algorithm>
#include <set>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/hardware_report.hpp"
#include "canitrun/plan_views.hpp"
#include "catch.hpp"
#include "support/sampling.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

const std::vector<std::string>& single_cards() {
    static const std::vector<std::string> cards = {
        "gtx-1080-ti",   "rtx-3060", "rtx-4060",     "rtx-4080",       "rtx-4090",
        "rtx-3090",      "rtx-5090", "rtx-a6000",    "rtx-6000-ada",   "h100-sxm",
        "h200-sxm",      "rx-7600",  "rx-7900-xtx",  "mi300x",         "arc-b580",
        "arc-a770-16gb", "m1-8gb",   "m4-max-128gb", "m2-ultra-192gb", "ryzen-ai-max-395-128gb"};
    return cards;
}

bool offloaded(PlanKind k) {
    return k == PlanKind::expert_offload || k == PlanKind::layer_offload;
}

// The board as `--gpu ID` plans it without --ram (resolve_hardware): a unified-memory machine
// gets its own CPU side, any other the 32 GB the lists assume (default_ram).
Hardware as_named(const std::string& id) {
    Hardware h = test::hardware_of({id});
    h.ram = default_ram(h);
    return h;
}

PlanSettings default_for(const Model& m) {
    PlanSettings s;
    s.estimate.context = std::min<std::uint64_t>(8192, m.context_native);
    return settings_for_model(m, s);
}

}  // namespace

TEST_CASE("consistency: the GPU lists, the smallest GPU and --gpu agree for every model") {
    const Database& db = test::database();
    const Quant& q = *db.recommended_quant();
    FitOptions fit;  // --ram left out: 32 GB, a unified machine its own (default_ram)
    for (const auto& m : db.models) {
        const PlanSettings s = default_for(m);
        INFO(m.id << " by " << rule_name(s.rule));
        const auto verdicts = plan_gpu_verdicts(db, m, q, s, fit);
        REQUIRE(verdicts);
        const std::set<const Gpu*> native(verdicts->gpus.native.begin(),
                                          verdicts->gpus.native.end());
        const std::set<const Gpu*> offload(verdicts->gpus.offload.begin(),
                                           verdicts->gpus.offload.end());
        for (const auto& id : single_cards()) {
            INFO("on " << id);
            const Hardware h = as_named(id);
            const auto a = answer_for(m, q, h, s);
            REQUIRE(a);
            const Gpu* gpu = h.gpus.front().gpu;
            if (s.rule == Rule::quick) continue;  // the page's lists: marketed GB (METHOD.md)
            CHECK((a->plan.kind == PlanKind::native) == native.contains(gpu));
            CHECK(offloaded(a->plan.kind) == offload.contains(gpu));
        }
        if (s.rule == Rule::llamacpp && verdicts->smallest != nullptr) {
            const Hardware h = as_named(verdicts->smallest->id);
            CHECK(answer_for(m, q, h, s)->plan.kind == PlanKind::native);
        }
    }
}

TEST_CASE("consistency: --vram N answers as --gpu does on an NVIDIA card of N GB") {
    const Database& db = test::database();
    const Quant& q = *db.recommended_quant();
    const std::vector<const Quant*> quants = llama_cpp_quants(db);
    for (std::size_t i = 0; i < db.models.size(); ++i) {
        if (!test::sampled(i)) continue;
        const Model& m = db.models[i];
        const PlanSettings s = default_for(m);
        if (s.rule != Rule::llamacpp) continue;
        INFO(m.id);
        for (const auto& id : {"rtx-4060", "rtx-4090", "h100-sxm"}) {
            INFO("on " << id);
            const Hardware h = test::hardware_of({id});
            const Gpu& gpu = *h.gpus.front().gpu;
            REQUIRE(h.gpus.front().memory == gpu.vram_gb * kGiB);  // sold as N GB: N GiB
            const auto budget =
                plan_budget(m, q, quants, s, gpu.vram_gb * kGB, kDefaultRamGb * kGB);
            REQUIRE(budget);
            const auto a = answer_for(m, q, h, s).value();
            CHECK(budget->fits == (a.plan.kind == PlanKind::native));
            const auto best = best_quant_for_hardware(m, quants, h, s).value();
            if (best && best->plan.kind == PlanKind::native) {
                REQUIRE(budget->best);
                CHECK(budget->best->quant == best->quant);
            } else {
                CHECK_FALSE(budget->best);
            }
        }
    }
}

// plan_budget plans a quantization no better than both choices found so far not at all, and
// one no better than the offload choice only for whether it is native: its choices must still
// be those of every quantization's plan on a card of that size. A MoE and a dense model of about
// 32B on the page's 16 and 24 GB cards (each has a native choice on both, as the page shows:
// Q2_K on 16 GB, Q4_K_M on 24), the page's quantizations; asked about FP32 (no better choice
// before it) and Q4_K_M (after the higher-quality ones, which may have made the offload choice).
TEST_CASE("consistency: the page's budgets choose as every quantization's plan on that card") {
    const Database& db = test::database();
    std::vector<const Quant*> quants;
    for (const auto& q : db.quants) {
        if (q.page_table) quants.push_back(&q);
    }
    for (const char* id : {"qwen3.5-35b-a3b", "qwen3-32b"}) {
        const Model& m = test::model(id);
        const PlanSettings s = default_for(m);
        REQUIRE(s.rule == Rule::llamacpp);
        for (const std::uint64_t gb : {16ULL, 24ULL}) {
            INFO(id << " on " << gb << " GB");
            const GpuDevice card = generic_device(card_bytes_for_gb(gb * kGB));
            const Quant* best = nullptr;
            const Quant* best_offload = nullptr;
            for (const Quant* q : quants) {
                if (!*rule_offers(s, *q)) continue;
                const PlanKind k = plan_on_device(m, *q, s, card, kDefaultRamGb * kGB).value();
                const Quant*& slot = k == PlanKind::native ? best : best_offload;
                if (k != PlanKind::native && !offloaded(k)) continue;
                if (slot == nullptr || q->quality_rank < slot->quality_rank) slot = q;
            }
            if (best && best_offload && best_offload->quality_rank >= best->quality_rank) {
                best_offload = nullptr;
            }
            for (const Quant* asked : {quants.front(), &test::quant("Q4_K_M")}) {
                const auto a =
                    plan_budget(m, *asked, quants, s, gb * kGB, kDefaultRamGb * kGB).value();
                CHECK((a.best ? a.best->quant : nullptr) == best);
                CHECK((a.best_offload ? a.best_offload->quant : nullptr) == best_offload);
                CHECK(a.fits == (plan_on_device(m, *asked, s, card, kDefaultRamGb * kGB).value() ==
                                 PlanKind::native));
            }
        }
    }
}

TEST_CASE("consistency: fit lists exactly the models --gpu runs natively, at their best quant") {
    const Database& db = test::database();
    const std::vector<const Quant*> quants = llama_cpp_quants(db);
    // The last: no GPU and 64 GB of RAM, where the one plan is the CPU's.
    for (const auto& gpus : std::vector<std::vector<std::string>>{{"rtx-4090"},
                                                                  {"rtx-3090", "rtx-3090"},
                                                                  {"rtx-4090", "rtx-3060"},
                                                                  {"m4-max-128gb"},
                                                                  {}}) {
        const Hardware h = test::hardware_of(gpus, gpus.empty() ? 64 : 32);
        const auto fits = models_that_fit(db, h, PlanSettings{}).value();
        std::map<std::string, std::string> listed;
        for (const auto& f : fits) listed[f.model->id] = f.answer.quant->id;
        const PlanKind whole = gpus.empty() ? PlanKind::cpu_only : PlanKind::native;
        if (gpus.empty()) CHECK(fits.size() > 50);  // the CPU case lists models at all
        for (std::size_t i = 0; i < db.models.size(); ++i) {
            if (!test::sampled(i)) continue;
            const Model& m = db.models[i];
            INFO(m.id << " on " << (gpus.empty() ? "no GPU" : gpus.front()) << " x" << gpus.size());
            PlanSettings s = settings_for_model(m, PlanSettings{});
            s.estimate.context = std::min<std::uint64_t>(8192, longest_supported_context(m));
            const auto best = best_quant_for_hardware(m, quants, h, s).value();
            const bool native = best && best->plan.kind == whole;
            REQUIRE(listed.contains(m.id) == native);
            if (native) CHECK(listed[m.id] == best->quant->id);
        }
    }
}

// The lists plan boards alike in what placement reads once. A board's verdict must still be its
// own plan: a Radeon Pro W7800 has the RTX 5090's 32 GiB, but ROCm keeps no copy of the masks in
// its compute buffer (keeps_mask_copy), so it may not take the 5090's plan (it did: the memo's
// key left out the backend's terms).
TEST_CASE("consistency: each board in the GPU lists holds what its own plan holds") {
    const Database& db = test::database();
    const Quant& q = *db.recommended_quant();
    const FitOptions fit;
    // At 131,072 cells the masks' copy (f32, cells x 512 ubatch tokens = 256 MiB) sets the
    // compute buffer, so a CUDA board and a ROCm board of one size (RTX 5090 and Radeon Pro
    // W7800, 32 GiB each) plan apart.
    for (const std::uint64_t ctx : {std::uint64_t{8192}, std::uint64_t{131072}})
        for (const char* id : {"qwen3.5-35b-a3b", "llama-3.1-8b", "gemma-3-27b"}) {
            const auto found = db.find_model(id);
            REQUIRE(found);
            const Model& m = **found;
            PlanSettings base;
            base.estimate.context = std::min<std::uint64_t>(ctx, m.context_native);
            const PlanSettings s = settings_for_model(m, base);
            const auto verdicts = plan_gpu_verdicts(db, m, q, s, fit);
            REQUIRE(verdicts);
            for (const GpuVerdict& v : verdicts->verdicts) {
                // Native boards of one device: an MI250's two GCDs are listed by llama.cpp's split
                // by memory, where --gpu takes the fastest split (one GCD), as #32 asks.
                if (v.kind != PlanKind::native || devices_for(*v.gpu).size() != 1) continue;
                INFO(id << " on " << v.gpu->id);
                const auto a = answer_for(m, q, as_named(v.gpu->id), s);
                REQUIRE(a);
                CHECK(a->plan.kind == PlanKind::native);
                CHECK(a->plan.placement.gpu_total() == v.gpu_bytes);
            }
        }
}

// A Mac in the lists gets the RAM `--gpu` gives it (#32): Apple M4 16GB keeps 11.5 GB for its
// GPU, so its CPU side is the rest of 16 GiB, 5.7 GB (default_ram). With --cache-ram 8192 given
// (kept, never lowered), Qwen 2.5 14B at Q4_K_M holds its load (about 0.5 GB in RAM) but not
// the 8,589,934,592 B cache on top: --gpu says it does not run, and the list must not name the
// Mac. Planned against 32 GB (--ram 32 given to both) the cache fits and both name it.
TEST_CASE("consistency: a Mac's CPU side is the same in the GPU lists and --gpu") {
    const Database& db = test::database();
    const Model& m = test::model("qwen2.5-14b");
    const Quant& q = test::quant("Q4_K_M");
    PlanSettings s = default_for(m);
    s.server.cache_ram_given = true;  // --cache-ram 8192
    const Hardware mac = as_named("m4-16gb");
    CHECK(mac.ram == 16ULL * kGiB - mac.gpus.front().memory);
    const auto a = answer_for(m, q, mac, s);
    REQUIRE(a);
    CHECK(a->plan.kind == PlanKind::none);
    CHECK(a->plan.placement.ram.loads());
    const auto listed = [&](const FitOptions& fit) {
        const auto v = plan_gpu_verdicts(db, m, q, s, fit);
        REQUIRE(v);
        return std::find(v->gpus.native.begin(), v->gpus.native.end(), mac.gpus.front().gpu) !=
               v->gpus.native.end();
    };
    CHECK_FALSE(listed(FitOptions{}));
    FitOptions given;
    given.ram_given = true;  // --ram 32
    CHECK(listed(given));
    const auto on_32 = answer_for(m, q, test::hardware_of({"m4-16gb"}, 32), s);
    REQUIRE(on_32);
    CHECK(on_32->plan.kind == PlanKind::native);
}
