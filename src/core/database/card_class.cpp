#include "canitrun/card_class.hpp"

namespace canitrun {

std::optional<CardClass> smallest_card_class(Bytes total, const std::vector<CardClass>& classes) {
    for (const auto& c : classes) {
        if (c.gb > UINT64_MAX / 1000000000ULL) continue;
        if (total <= c.gb * 1000000000ULL) return c;
    }
    return std::nullopt;
}

}  // namespace canitrun
