#include "whole_floor.hpp"

#include "canitrun/estimate.hpp"
#include "canitrun/llamacpp_parts.hpp"

namespace canitrun {
namespace {

void add_saturating(Bytes& sum, Bytes term) {
    if (__builtin_add_overflow(sum, term, &sum)) sum = UINT64_MAX;
}

// The most the GPUs of a native placement hold of the weights and the caches together: on each
// GPU that holds any, its capacity less the runtime's memory (place() gives every GPU that runs
// a layer or the head its options.gpu_runtime entry, the CUDA pool on top where its backend has
// one, and a share fits only where all it holds is within its capacity), and nothing on a GPU
// that holds none; so at most the sum over the GPUs of what is left of each, none below zero.
// Without a GPU, the RAM.
Bytes whole_room(const Hardware& hardware, const PlacementOptions& options) {
    if (hardware.gpus.empty()) return hardware.ram;
    Bytes room = 0;
    for (std::size_t d = 0; d < hardware.gpus.size(); ++d) {
        const Bytes capacity = gpu_capacity(hardware.gpus[d].memory, options.margin);
        const Bytes runtime = d < options.gpu_runtime.size() ? options.gpu_runtime[d] : 0;
        add_saturating(room, capacity > runtime ? capacity - runtime : 0);
    }
    return room;
}

}  // namespace

Bytes gpu_caches(const ModelParts& parts, const PlacementOptions& options) {
    if (options.server.kv_in_ram) return 0;
    Bytes caches = 0;
    for (const auto& l : parts.layers) {
        add_saturating(caches, l.kv_cache);
        add_saturating(caches, l.recurrent_state);
    }
    return caches;
}

WholeFloor::WholeFloor(const Model& model, const Hardware& hardware, const PlanSettings& settings,
                       const std::array<std::uint64_t, 5>* device_elements)
    : model_(model), hardware_(hardware), settings_(settings), elements_(device_elements) {
    if (settings.rule != Rule::quick)
        room_ = whole_room(hardware, placement_for(hardware, settings));
}

// `fit` asks ~4,000 such questions per run.
// - The quick rule: the devices hold the same weights, at least the same KV (each layer's KV
//   rounds up on its own), and each its overhead rounded down, so together they need at least
//   the estimate's total less one byte per share.
// - llama.cpp's rule: what the GPUs may hold beside their runtimes (whole_room; without a GPU,
//   the RAM) holds at least the weights' floor (every tensor but the host inputs at the
//   smallest type the file type gives any) and, on GPUs, the caches given.
Result<bool> WholeFloor::rules_out(const Quant& quant, Bytes caches) const {
    const bool in_ram = hardware_.gpus.empty();
    if (settings_.rule != Rule::quick) {
        // A file's own tensors: every one but the host inputs, exactly.
        Bytes floor = settings_.file ? settings_.file->sums.other : 0;
        if (!settings_.file && elements_) {
            CANITRUN_TRY_ASSIGN(
                floor, device_weights_lower_bound(
                           *elements_, floor_request(model_.run.gguf_plain_recipes, quant)));
        } else if (!settings_.file) {
            CANITRUN_TRY_ASSIGN(floor, llamacpp_device_weights_floor(model_, quant));
        }
        if (!in_ram) add_saturating(floor, caches);
        return floor > room_;
    }
    CANITRUN_TRY_ASSIGN(const auto e, estimate(model_, quant, settings_.estimate));
    const Bytes shares = hardware_.gpus.size() + 1;
    return e.total() > checked::add(in_ram ? hardware_.ram : hardware_.gpu_memory(), shares);
}

}  // namespace canitrun
