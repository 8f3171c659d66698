#include "canitrun/plan_views.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "canitrun/hardware_questions.hpp"

namespace canitrun {
namespace {

Hardware one_device(const GpuDevice& device, Bytes ram) {
    Hardware h;
    h.gpus.push_back(device);
    h.ram = ram;
    return h;
}

// One board of the database as the runtime sees it (both GCDs of an MI250), with the RAM
// `--gpu` gives it (FitOptions::ram_given).
Hardware one_board(const Gpu& gpu, const FitOptions& fit) {
    Hardware h;
    h.gpus = devices_for(gpu);
    h.ram = fit.ram;
    if (!fit.ram_given && unified_host_memory(h) != 0) h.ram = default_ram(h);
    return h;
}

// What plan_placement reads: each device's memory and whether it is unified, the RAM, and the
// placement options whole (each backend's runtime, masks' copy and pool, op offload, the server's
// terms; here the index of the distinct options, BoardOptions), so that two boards share a plan
// only where placement cannot tell them apart.
using PlacementKey = std::tuple<std::vector<std::pair<Bytes, bool>>, Bytes, std::size_t>;

PlacementKey placement_key(const Hardware& h, std::size_t options) {
    std::vector<std::pair<Bytes, bool>> devices;
    for (const auto& d : h.gpus) devices.emplace_back(d.memory, d.unified);
    return {devices, h.ram, options};
}

// server_placement_for of each board of the database, each distinct result kept once.
// It reads a board through each device's backend (placement_for: the runtime, the masks' copy,
// the pool) and whether it has a GPU, and through the whole board only to place a --draft or
// --also model beside it: without those, boards of the same backends get the same options, and
// 200-odd boards have a handful of backend lists.
class BoardOptions {
  public:
    BoardOptions(const Model& model, const Quant& quant, const PlanSettings& settings)
        : model_(model),
          quant_(quant),
          settings_(settings),
          by_backends_(!settings.server.draft && settings.server.also.empty()) {}

    // The index of the board's options, for options().
    Result<std::size_t> operator()(const Hardware& board) {
        std::vector<Backend> backends;
        for (const auto& d : board.gpus) backends.push_back(backend_for(d));
        if (by_backends_) {
            const auto known = of_backends_.find(backends);
            if (known != of_backends_.end()) return known->second;
        }
        CANITRUN_TRY_ASSIGN(auto o, server_placement_for(model_, quant_, board, settings_));
        const auto [it, fresh] = index_.try_emplace(std::move(o), distinct_.size());
        if (fresh) distinct_.push_back(&it->first);
        if (by_backends_) of_backends_.emplace(std::move(backends), it->second);
        return it->second;
    }
    const PlacementOptions& options(std::size_t i) const { return *distinct_[i]; }

  private:
    const Model& model_;
    const Quant& quant_;
    const PlanSettings& settings_;
    bool by_backends_;
    std::map<std::vector<Backend>, std::size_t> of_backends_;
    std::map<PlacementOptions, std::size_t> index_;
    std::vector<const PlacementOptions*> distinct_;  // index_'s keys, which stay in place
};

bool offloaded(PlanKind k) {
    return k == PlanKind::expert_offload || k == PlanKind::layer_offload;
}

// Each quantization's parts, planned on first use, with the placements made of them: plan_parts
// reads the model, the quantization and the settings, which the budgets of one page share, and
// the budgets place the same parts on GPUs of other memories. An error is not kept, so it comes
// back where it came before.
class PartsOf {
  public:
    PartsOf(const Model& model, const PlanSettings& settings)
        : model_(model), settings_(settings) {}

    Result<PlacementMemo*> operator()(const Quant& quant) {
        for (auto& [q, parts] : parts_) {
            if (q == &quant) return &parts;
        }
        CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model_, quant, settings_));
        parts_.emplace_back(&quant, PlacementMemo(std::move(parts)));
        return &parts_.back().second;
    }

  private:
    const Model& model_;
    const PlanSettings& settings_;
    std::deque<std::pair<const Quant*, PlacementMemo>> parts_;  // a deque keeps them in place
};

}  // namespace

Bytes card_bytes_for_gb(Bytes marketed_bytes) {
    return checked::mul_div_floor(marketed_bytes, kGiB, kGB);
}

Bytes budget_usable(const PlanSettings& settings, Bytes budget) {
    if (settings.rule == Rule::quick) return budget;
    return gpu_capacity(card_bytes_for_gb(budget), settings.margin);
}

GpuDevice generic_device(Bytes memory) {
    GpuDevice d;
    d.name = "a GPU with " + std::to_string(memory / kGiB) + " GiB";
    d.memory = memory;
    return d;
}

Result<Estimate> rule_estimate(const Model& model, const Quant& quant,
                               const PlanSettings& settings) {
    if (settings.rule == Rule::quick) return estimate(model, quant, settings.estimate);
    CANITRUN_TRY(require_loadable(settings, quant));
    CANITRUN_TRY_ASSIGN(auto o, llamacpp_options(model, settings, Backend::cuda));
    return estimate_llamacpp(model, quant, o);
}

Result<PlanKind> plan_on_device(const Model& model, const Quant& quant,
                                const PlanSettings& settings, const GpuDevice& device, Bytes ram) {
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    PlacementMemo placed(std::move(parts));
    return layer_kind(model, placed, quant, one_device(device, ram), settings, KindSteps::whole);
}

Result<ModelGpuVerdicts> plan_gpu_verdicts(const Database& db, const Model& model,
                                           const Quant& quant, const PlanSettings& settings,
                                           const FitOptions& fit) {
    ModelGpuVerdicts v;
    if (settings.rule == Rule::quick) {
        CANITRUN_TRY_ASSIGN(auto e, estimate(model, quant, settings.estimate));
        v.gpus = gpus_for(db.gpus, quant, e.total(), fit);
        v.smallest = smallest_gpu(db.gpus, quant, e.total());
        for (const auto* list : {&v.gpus.native, &v.gpus.offload}) {
            for (const Gpu* g : *list) {
                const Bytes budget = gpu_budget_bytes(*g);
                const bool native = list == &v.gpus.native;
                v.verdicts.push_back({g, native ? PlanKind::native : PlanKind::layer_offload,
                                      native ? e.total() : budget, budget,
                                      native ? 0 : e.total() - budget});
            }
        }
        return v;
    }
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    // The boards of one backend and memories other than those planned: the same placements
    // with another capacity.
    PlacementMemo memo(std::move(parts));
    std::vector<GpuVerdict> native, offload;
    // Boards alike in what placement reads get the same plan: of 200-odd boards only a few
    // dozen differ, and planning each was most of the page's time.
    std::map<PlacementKey, Plan> planned;
    BoardOptions options_of(model, quant, settings);
    for (const auto& gpu : db.gpus) {
        if (!gpu_runs_quant(gpu, quant)) continue;
        const Hardware h = one_board(gpu, fit);
        CANITRUN_TRY_ASSIGN(const std::size_t options, options_of(h));
        PlacementKey key = placement_key(h, options);
        auto it = planned.find(key);
        if (it == planned.end()) {
            CANITRUN_TRY_ASSIGN(auto fresh, plan_placement(memo, h, options_of.options(options)));
            it = planned.emplace(std::move(key), std::move(fresh)).first;
        }
        const Plan& plan = it->second;
        if (plan.kind != PlanKind::native && !offloaded(plan.kind)) continue;
        Bytes capacity = 0;
        for (const Share& g : plan.placement.gpus) capacity = checked::add(capacity, g.capacity);
        (plan.kind == PlanKind::native ? native : offload)
            .push_back({&gpu, plan.kind, plan.placement.gpu_total(), capacity,
                        plan.placement.ram.total()});
    }
    const auto order = [](const GpuVerdict& a, const GpuVerdict& b) {
        return smaller_gpu_first(*a.gpu, *b.gpu);
    };
    std::sort(native.begin(), native.end(), order);
    std::sort(offload.begin(), offload.end(), order);
    for (const auto& x : native) v.gpus.native.push_back(x.gpu);
    for (const auto& x : offload) v.gpus.offload.push_back(x.gpu);
    v.verdicts = native;
    v.verdicts.insert(v.verdicts.end(), offload.begin(), offload.end());
    if (!v.gpus.native.empty()) v.smallest = v.gpus.native.front();
    return v;
}

Result<std::optional<CardClass>> plan_card_class(const Model& model, const Quant& quant,
                                                 const PlanSettings& settings,
                                                 const std::vector<CardClass>& classes) {
    if (settings.rule == Rule::quick) {
        CANITRUN_TRY_ASSIGN(auto e, estimate(model, quant, settings.estimate));
        return smallest_card_class(e.total(), classes);
    }
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    PlacementMemo memo(std::move(parts));  // one placement for the classes, each its capacity
    for (const auto& c : classes) {
        const GpuDevice d = generic_device(card_bytes_for_gb(checked::mul(c.gb, kGB)));
        // RAM for the host's buffers (token_embd, logits); a native plan needs no more.
        CANITRUN_TRY_ASSIGN(
            auto kind, layer_kind(model, memo, quant, one_device(d, kDefaultRamGb * kGB), settings,
                                  KindSteps::native_only));
        if (kind == PlanKind::native) return std::optional<CardClass>{c};
    }
    return std::optional<CardClass>{};
}

namespace {

Result<BudgetAnswer> budget_answer(PartsOf& parts_of, const Model& model, const Quant& asked,
                                   const std::vector<const Quant*>& quants,
                                   const PlanSettings& settings, Bytes budget, Bytes ram) {
    BudgetAnswer a;
    a.usable = budget_usable(settings, budget);
    std::vector<const Quant*> offered;
    for (const Quant* q : quants) {
        CANITRUN_TRY_ASSIGN(auto offers, rule_offers(settings, *q));
        if (offers) offered.push_back(q);
    }
    if (settings.rule == Rule::quick) {
        CANITRUN_TRY_ASSIGN(auto e, estimate(model, asked, settings.estimate));
        a.fits = e.total() <= budget;
        CANITRUN_TRY_ASSIGN(auto best,
                            best_quant_for_budget(model, offered, budget, settings.estimate));
        a.best = best;
        return a;
    }
    const Hardware device = one_device(generic_device(card_bytes_for_gb(budget)), ram);
    // plan_on_device with the parts planned once.
    const auto kind_of = [&](const Quant& q) -> Result<PlanKind> {
        CANITRUN_TRY_ASSIGN(PlacementMemo * parts, parts_of(q));
        return layer_kind(model, *parts, q, device, settings, KindSteps::whole);
    };
    // Whether q is native, without the offload search kind_of makes when it is not: one
    // placement where the search makes some fifteen.
    const auto native = [&](const Quant& q) -> Result<bool> {
        CANITRUN_TRY_ASSIGN(PlacementMemo * parts, parts_of(q));
        CANITRUN_TRY_ASSIGN(const auto kind,
                            layer_kind(model, *parts, q, device, settings, KindSteps::native_only));
        return kind == PlanKind::native;
    };
    const auto beats = [](const std::optional<QuantChoice>& slot, const Quant& q) {
        return !slot || slot->quant->quality_rank > q.quality_rank;
    };
    if (std::find(offered.begin(), offered.end(), &asked) == offered.end() &&
        *rule_loads(settings, asked)) {
        // The quantization asked for by name is planned whether or not it is among the
        // choices (a row the page does not show, a type below the quality floor).
        CANITRUN_TRY_ASSIGN(a.fits, native(asked));
    }
    for (const Quant* q : offered) {
        // A quantization no better than both choices so far changes neither: only the one asked
        // is planned then, and only for whether it is native. One no better than the offload
        // choice can only become the native one, so whether it is native is all it needs.
        const bool for_offload = beats(a.best_offload, *q);
        if (q != &asked && !for_offload && !beats(a.best, *q)) continue;
        PlanKind kind = PlanKind::none;
        if (for_offload) {
            CANITRUN_TRY_ASSIGN(kind, kind_of(*q));
        } else {
            CANITRUN_TRY_ASSIGN(const bool whole, native(*q));
            if (whole) kind = PlanKind::native;
        }
        if (q == &asked) a.fits = kind == PlanKind::native;
        auto& slot = kind == PlanKind::native ? a.best : a.best_offload;
        if (kind != PlanKind::native && !offloaded(kind)) continue;
        if (slot && slot->quant->quality_rank <= q->quality_rank) continue;
        CANITRUN_TRY_ASSIGN(auto e, rule_estimate(model, *q, settings));
        slot = QuantChoice{q, e};
    }
    if (a.best && a.best_offload &&
        a.best_offload->quant->quality_rank >= a.best->quant->quality_rank)
        a.best_offload.reset();  // offload is worth showing only when it buys quality
    return a;
}

}  // namespace

Result<BudgetAnswer> plan_budget(const Model& model, const Quant& asked,
                                 const std::vector<const Quant*>& quants,
                                 const PlanSettings& settings, Bytes budget, Bytes ram) {
    PartsOf parts_of(model, settings);
    return budget_answer(parts_of, model, asked, quants, settings, budget, ram);
}

Result<std::vector<BudgetAnswer>> plan_budgets(const Model& model, const Quant& asked,
                                               const std::vector<const Quant*>& quants,
                                               const PlanSettings& settings,
                                               const std::vector<Bytes>& budgets, Bytes ram) {
    PartsOf parts_of(model, settings);
    std::vector<BudgetAnswer> out;
    for (const Bytes budget : budgets) {
        CANITRUN_TRY_ASSIGN(auto a,
                            budget_answer(parts_of, model, asked, quants, settings, budget, ram));
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace canitrun
