// A prompt's activation traffic past L2 (speed_activation.hpp).
#include "canitrun/speed_activation.hpp"

#include "canitrun/gpu.hpp"

namespace canitrun {

double activation_bytes(const DeviceWork& w, const SpeedWork& work, const GpuDevice& device,
                        double batch) {
    constexpr double kValueBytes = 4;  // bytes a value
    const double l2 = device.gpu != nullptr ? static_cast<double>(device.gpu->l2_cache_bytes) : 0;
    double per_layer = 0;
    for (const SpeedWork::Activation& a : work.activations) {
        if (a.width <= 0 || a.per_layer <= 0) continue;
        if (l2 <= 0 || 2 * batch * a.width * kValueBytes <= l2) continue;  // it and its input fit
        per_layer += a.width * a.per_layer * 2 * kValueBytes;  // written once, read back once
    }
    return per_layer * static_cast<double>(w.layers);
}

}  // namespace canitrun
