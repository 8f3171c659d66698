// Fuzzes what --gpu, --gpu-spec and detection read: GPU specs ("2x3090", "4090,3090") against
// the built-in database, a --gpu-spec file, and the outputs of nvidia-smi, nvidia-smi -L,
// rocm-smi, xpu-smi, vulkaninfo --summary, tegrastats and /proc/meminfo.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/detect.hpp"
#include "canitrun/gpu_description.hpp"
#include "canitrun/hardware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const canitrun::Database db = [] {
        auto parsed = canitrun::parse_database(canitrun::embedded_database_files());
        if (!parsed) std::abort();
        return *parsed;
    }();
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto gpus = canitrun::parse_gpu_spec(db, text);
    if (gpus && (gpus->empty() || gpus->size() > 64)) std::abort();
    if (!gpus && gpus.error().message.empty()) std::abort();
    (void)canitrun::parse_nvidia_smi_query(text);
    (void)canitrun::parse_nvidia_smi_mig(text);
    (void)canitrun::parse_rocm_smi_json(text);
    (void)canitrun::parse_meminfo_total(text);
    (void)canitrun::parse_xpu_smi_dump(text);
    (void)canitrun::parse_vulkaninfo_summary(text);
    (void)canitrun::parse_tegrastats_ram(text);
    const auto described = canitrun::parse_gpu_description(text, "fuzz.json");
    if (!described && described.error().empty()) std::abort();
    return 0;
}
