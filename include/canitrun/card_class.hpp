#pragma once
// Card classes: the "24 GB card / 32 GB card / 48 GB card" buckets the reference page uses to
// say what a total needs.
// A field added to a struct here also goes into fields() in
// src/core/database/database_snapshot.cpp.

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/gpu.hpp"

namespace canitrun {

struct CardClass {
    std::uint64_t gb = 0;  // marketed size
    GpuClass gpu_class = GpuClass::consumer;

    bool operator==(const CardClass&) const = default;
};

// The smallest class whose marketed size, taken as that many GB (10^9 bytes), holds `total`.
// `classes` must be sorted by size. Empty when even the largest is too small.
std::optional<CardClass> smallest_card_class(Bytes total, const std::vector<CardClass>& classes);

}  // namespace canitrun
