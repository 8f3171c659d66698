// Fuzzes what --gpu and detection read: GPU specs ("2x3090", "4090,3090") against the built-in
// database, and the outputs of nvidia-smi, nvidia-smi -L, rocm-smi and /proc/meminfo.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/detect.hpp"
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
    return 0;
}
