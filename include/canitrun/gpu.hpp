#pragma once
// A GPU (or a unified-memory machine) as the database describes it.
// A field added to a struct here also goes into fields() in
// src/core/database/database_snapshot.cpp.

#include <cstdint>
#include <string>
#include <vector>

namespace canitrun {

enum class GpuClass { consumer, workstation, datacenter, unified };

struct Gpu {
    std::string id;
    std::string name;        // "NVIDIA GeForce RTX 5090"
    std::string short_name;  // "RTX 5090"
    std::string vendor;      // "nvidia", "amd", "intel", "apple"
    std::vector<std::string> aliases;
    // A name several memory variants share ("4060 ti"), which this entry answers: the variant
    // LLM users buy. The plan says so and names the others (other_variants, by id).
    std::vector<std::string> variant_names;
    std::vector<std::string> other_variants;
    // The PCI device ids the card answers (sysfs's device/device, 0x56a0): how detection names a
    // card whose driver reports no product name (Intel's xe and i915). Several entries may share
    // one (the A770's 8 GB and 16 GB cards): the detected memory picks among them.
    std::vector<std::uint64_t> pci_ids;
    GpuClass gpu_class = GpuClass::consumer;
    std::uint64_t vram_gb = 0;     // as marketed: the vendor's "32 GB"
    std::uint64_t vram_bytes = 0;  // the real capacity
    std::string memory_type;
    double bandwidth_gbps = 0;
    double fp16_tflops = 0, fp8_tflops = 0, fp4_tflops = 0;
    // Plain FP32 shader throughput, given where it beats the FP16 figure for prefill: Pascal runs
    // FP16 at 1/64 rate (llama.cpp computes in FP32 / int8 there), and Apple publishes only FP32
    // for M1 and M2 (which run FP16 at the same rate). 0 elsewhere.
    double fp32_tflops = 0;
    // INT8 dot-product throughput (TOPS) of a GPU without matrix units that has a 4-way int8 dot
    // instruction (dp4a on NVIDIA Pascal GP102/GP104, v_dot4_i32_i8 on AMD Vega 20): llama.cpp's
    // MMQ kernels multiply quantized weights with it, at 4x the FP32 rate. 0 elsewhere: a Tesla
    // P100 (GP100) lacks dp4a and dequantizes to FP16 instead.
    double int8_dot_tops = 0;
    // The board's rated power in watts (NVIDIA's "Max Power Consumption" / "Total Graphics
    // Power"), given where a prompt's matrix work can need more than it: a card whose matrix rate
    // outgrows its power budget holds a lower clock under sustained matrix work
    // (sustained_clock_share, speed.hpp). 0 where not given: never power-capped.
    double board_power_w = 0;
    // The L2 cache and the streaming multiprocessors (NVIDIA: SMs) the board enables, given where
    // a prompt's quantized products can overflow it: llama.cpp's MMQ kernel re-reads a weight tile
    // for every tile of tokens, from memory where the tiles the SMs hold at once do not fit in L2
    // (mmq_reread_bytes, speed.hpp). 0 where not given: no re-read.
    std::uint64_t l2_cache_bytes = 0;
    std::uint64_t sm_count = 0;
    std::string architecture;
    std::vector<std::string> backends;
    std::uint64_t release_year = 0;
    // Unified memory: the share the GPU may use by default, in tenths of a percent (666 = 66.6 %).
    std::uint64_t unified_gpu_share_permille = 1000;
    // Devices the runtime sees on one board (MI250 / MI250X: two GCDs, each its own ROCm GPU with
    // half the memory, bandwidth and throughput). The figures above are the whole board's.
    std::uint64_t devices = 1;
    std::string source;

    bool has_backend(const std::string& backend) const;

    bool operator==(const Gpu&) const = default;
};

const char* gpu_class_name(GpuClass c);
// "NVIDIA", "AMD", "Intel", "Apple": how the page writes the vendor before a short name.
std::string vendor_display(const std::string& vendor);
// "NVIDIA RTX 5090"
std::string display_name(const Gpu& gpu);

// The float types of a product a GPU's matrix units multiply in llama.cpp's CUDA and HIP
// kernels, as ggml-cuda/common.cuh has them at 0ad4a86: FP16 from Volta on NVIDIA
// (volta_mma_available, turing_mma_available), BF16 from Ampere (ampere_mma_available), both
// on AMD's RDNA3 and RDNA4 (amd_wmma_available) and CDNA (amd_mfma_available). None on NVIDIA
// Pascal or AMD GCN5.1 and RDNA2 (their data entries say so). The one list of these
// architectures: MMF's expert products (speed.cpp) and the speed class of GPUs without matrix
// units read it. Only NVIDIA and AMD GPUs are asked; any other vendor's: false.
enum class MatrixFloat { f16, bf16 };
bool has_matrix_units(const Gpu& gpu, MatrixFloat type);

}  // namespace canitrun
