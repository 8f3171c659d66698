#include "canitrun/model.hpp"

namespace canitrun {

std::uint64_t count_layers(const Model& model, LayerKind kind) {
    std::uint64_t n = 0;
    for (const auto& group : model.arch.layer_groups) {
        if (group.kind == kind) n += group.count;
    }
    return n;
}

std::uint64_t count_kv_layers(const Model& model) {
    return count_layers(model, LayerKind::full) + count_layers(model, LayerKind::sliding) +
           count_layers(model, LayerKind::mla);
}

const char* layer_kind_name(LayerKind kind) {
    switch (kind) {
        case LayerKind::full:
            return "full";
        case LayerKind::sliding:
            return "sliding";
        case LayerKind::linear:
            return "linear";
        case LayerKind::ssm:
            return "ssm";
        case LayerKind::mla:
            return "mla";
    }
    return "?";
}

}  // namespace canitrun
