#include "canitrun/placement.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

// A placement's sums and its verdict: what each device holds in all, and whether it fits.

namespace canitrun {

Bytes Share::total() const {
    const Bytes own = checked::sub(weights, mapped_by_gpu);
    Bytes sum = checked::add(checked::add(checked::add(own, kv_cache), overhead),
                             checked::add(checked::add(recurrent_state, compute), runtime));
    return checked::add(sum, resident_load());
}

Bytes Share::resident_load() const {
    Bytes sum = 0;
    for (const auto& r : resident) sum = checked::add(sum, r.load);
    return sum;
}

Bytes Share::grows_by() const {
    Bytes sum = 0;
    for (const auto& r : resident) sum = checked::add(sum, r.most - r.load);
    return sum;
}

Bytes Share::most() const {
    return checked::add(total(), grows_by());
}

std::optional<Overflow> first_overflow(const Placement& placement) {
    for (std::size_t d = 0; d < placement.gpus.size(); ++d) {
        const Share& g = placement.gpus[d];
        if (!g.fits()) return Overflow{d, g.most(), g.capacity};
    }
    if (!placement.ram.fits()) {
        return Overflow{std::nullopt, placement.ram.most(), placement.ram.capacity};
    }
    return std::nullopt;
}

bool Placement::fits() const {
    for (const auto& g : gpus) {
        if (!g.fits()) return false;
    }
    return ram.fits();
}

double placement_room(const Placement& placement) {
    // A difference of two byte counts that may be negative: in double, exact below 2^53 bytes,
    // and only ever an aim.
    const auto room = [](const Share& s) {
        return static_cast<double>(s.capacity) - static_cast<double>(s.most());
    };
    double least = room(placement.ram);
    for (const auto& g : placement.gpus) least = std::min(least, room(g));
    return least;
}

bool Placement::all_experts_in_ram() const {
    std::uint64_t layers = ram.layers;
    for (const auto& g : gpus) layers += g.layers;
    return cpu_moe_layers > 0 && cpu_moe_layers >= layers;
}

Bytes Placement::gpu_total() const {
    Bytes sum = 0;
    for (const auto& g : gpus) sum = checked::add(sum, g.total());
    return sum;
}

Bytes Placement::gpu_usable() const {
    Bytes sum = 0;
    for (const auto& g : gpus) sum = checked::add(sum, g.capacity);
    return sum;
}

namespace {

ResidentTerm* term_named(Share& s, std::string_view name) {
    for (auto& r : s.resident) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

// The room a growing term may take: the capacity less everything else at its most; empty where
// the rest alone is over.
std::optional<Bytes> room_for(const Share& s, const ResidentTerm& term) {
    const Bytes rest = s.most() - term.most;
    if (rest > s.capacity) return std::nullopt;
    return s.capacity - rest;
}

}  // namespace

void cap_growth(Placement& p, const ServerTerms& server, Bytes one) {
    Share& ram = p.ram;
    if (ram.fits() || !ram.loads()) return;
    const std::uint64_t sequences = std::max<std::uint64_t>(server.sequences, 1);
    ResidentTerm* checkpoints =
        server.checkpoints_given ? nullptr : term_named(ram, "ctx_checkpoints");
    ResidentTerm* cache = server.prompt_cache_given ? nullptr : term_named(ram, "prompt_cache");
    // What the lowered terms would hold: checkpoints first, then the cache (the order #32 sets).
    Bytes kept_checkpoints = checkpoints ? checkpoints->most : 0;
    Bytes kept_cache = cache ? cache->most : 0;
    std::uint64_t per_sequence = one > 0 ? server.checkpoints / sequences : 0;
    if (checkpoints != nullptr && one > 0) {
        const auto room = room_for(ram, *checkpoints);
        per_sequence = room ? std::min(per_sequence, *room / one / sequences) : 0;
        kept_checkpoints = checked::mul(checked::mul(per_sequence, sequences), one);
    }
    const Bytes others = ram.most() - (checkpoints ? checkpoints->most : 0) -
                         (cache ? cache->most : 0);  // the load and what the user gave
    const Bytes held = checked::add(others, kept_checkpoints);
    if (held > ram.capacity) return;  // a term the user gave outgrows the RAM on its own
    kept_cache = std::min(kept_cache, (ram.capacity - held) / kMiB * kMiB);
    p.checkpoint_bytes = one;
    if (checkpoints != nullptr && kept_checkpoints != checkpoints->most) {
        p.asked_checkpoints = server.checkpoints / sequences;
        p.capped_checkpoints = per_sequence;
        checkpoints->most = kept_checkpoints;
    }
    if (cache != nullptr && kept_cache != cache->most) {
        p.asked_cache_ram = cache->most;
        p.capped_cache_ram = kept_cache;
        cache->most = kept_cache;
    }
    // A term lowered to nothing is not held (add_term keeps none of 0).
    std::erase_if(ram.resident, [](const ResidentTerm& r) { return r.most == 0; });
}

}  // namespace canitrun
