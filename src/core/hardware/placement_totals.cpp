#include "canitrun/placement.hpp"

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

}  // namespace canitrun
