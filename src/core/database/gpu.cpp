#include "canitrun/gpu.hpp"

#include <algorithm>
#include <string_view>

namespace canitrun {

bool Gpu::has_backend(const std::string& backend) const {
    return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

const char* gpu_class_name(GpuClass c) {
    switch (c) {
        case GpuClass::consumer:
            return "consumer";
        case GpuClass::workstation:
            return "workstation";
        case GpuClass::datacenter:
            return "datacenter";
        case GpuClass::unified:
            return "unified";
    }
    return "?";
}

std::string vendor_display(const std::string& vendor) {
    if (vendor == "nvidia") return "NVIDIA";
    if (vendor == "amd") return "AMD";
    if (vendor == "intel") return "Intel";
    if (vendor == "apple") return "Apple";
    if (vendor == "other") return "";  // a described GPU of another vendor: its name alone
    return vendor;
}

std::string display_name(const Gpu& gpu) {
    const std::string vendor = vendor_display(gpu.vendor);
    if (gpu.short_name.rfind(vendor, 0) == 0) return gpu.short_name;
    return vendor + " " + gpu.short_name;
}

bool has_matrix_units(const Gpu& gpu, MatrixFloat type) {
    // Views, whose == compares the lengths first: the speed model asks this for every device of
    // every placement a split search tries.
    const std::string_view a = gpu.architecture, vendor = gpu.vendor;
    if (vendor == "amd") {
        return a == "RDNA3" || a == "RDNA3.5" || a == "RDNA4" || a.starts_with("CDNA");
    }
    if (vendor != "nvidia") return false;
    if (a == "Pascal") return false;  // the oldest NVIDIA architecture in the data
    return type == MatrixFloat::f16 || (a != "Volta" && a != "Turing");
}

}  // namespace canitrun
