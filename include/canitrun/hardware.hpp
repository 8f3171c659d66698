#pragma once
// The hardware a question is about: the GPUs (given by name, as "2x3090" or "4090,3090", or
// detected), the system RAM that takes what the GPUs cannot hold, and the bandwidths that set
// the speed.
//
// A device's memory is its real capacity in bytes (24 GiB for an RTX 3090; what the driver
// reports for a detected card). The page's GPU lists compare with the marketed size read as GB
// instead (see fit.hpp), which is more conservative by 7 %.

#include <cstdint>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/database.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// Dual-channel DDR5-4800: 4800 MT/s x 8 bytes x 2 channels (JEDEC JESD79-5).
inline constexpr double kDefaultRamBandwidthGbps = 76.8;

struct GpuDevice {
    std::string name;
    const Gpu* gpu = nullptr;  // the database entry, when one matches
    Bytes memory = 0;          // what the model may use on it
    double bandwidth_gbps = 0;
    double fp16_tflops = 0;
    double fp32_tflops = 0;    // 0 unless it beats fp16 (Gpu::fp32_tflops)
    double int8_dot_tops = 0;  // GPUs without matrix units: dp4a (Gpu::int8_dot_tops)
    bool unified = false;      // shares system RAM (Apple silicon): nothing to offload to
};

// The CPU that reads a prompt when no GPU does (a CPU-only plan): its physical cores, the
// widest vector register llama.cpp's CPU kernels use on it (AVX-512: 64 bytes, AVX2: 32, ARM
// NEON: 16) and the highest clock a core reaches, as /proc/cpuinfo and cpufreq give them
// (detect.hpp). llama.cpp multiplies quantized weights on the CPU as int8 dot products against
// the activations quantized to 8 bits (ggml-cpu's vec_dot kernels), one multiply-add per byte
// of a vector: cpu_int8_tops. A zero field: not known, and no prompt rate.
struct CpuCompute {
    std::uint64_t cores = 0;
    std::uint64_t vector_bytes = 0;
    double ghz = 0;
    std::string name;  // as /proc/cpuinfo's "model name" gives it
};

// cores x vector bytes x 2 (a multiply-add) x GHz / 1000: a 2-core AVX2 i5-4278U at 3.1 GHz
// is 0.397. Not a figure any vendor states (Zen 4's AVX-512 runs on 256-bit units, Haswell has
// two FMA ports): the fitted efficiency (SpeedModel::cpu_prefill_efficiency) carries the rest.
double cpu_int8_tops(const CpuCompute& cpu);

struct Hardware {
    std::vector<GpuDevice> gpus;  // empty: CPU only
    CpuCompute cpu;               // detected (--gpu auto); none given: zero
    Bytes ram = 0;                // system RAM available for offloaded layers
    double ram_bandwidth_gbps = kDefaultRamBandwidthGbps;
    // How the devices were taken as the runtime sees them (one MIG slice of several), for the
    // plan to say.
    std::vector<std::string> notes;

    // The sum over the GPUs. Placement is per device, so this is for display and as a bound
    // (nothing fits natively in more than all of it), never as one pool.
    Bytes gpu_memory() const;
    bool unified() const;
};

// A database GPU as a device: its real capacity (the unified-memory share for Apple silicon).
GpuDevice device_for(const Gpu& gpu);

// The devices the runtime sees on one board: device_for() for most, each GCD of a multi-die
// board (Gpu::devices) with its share of the memory, bandwidth and throughput.
std::vector<GpuDevice> devices_for(const Gpu& gpu);

// Whether every database GPU of the hardware loads the quantization's format (NVFP4 needs
// CUDA); a device not in the database is taken to.
bool hardware_runs(const Hardware& hardware, const Quant& quant);

// Every board of a --gpu list as the devices llama.cpp sees, in order.
std::vector<GpuDevice> devices_for(const std::vector<const Gpu*>& gpus);

// The GPUs of a --gpu list, and what a plan on them says of how they were read: a name several
// memory variants share ("4060ti": the 16 GB card, and how to name the 8 GB one), a board the
// runtime sees as several devices (MI250X: two 64 GB GCDs).
struct GpuSelection {
    std::vector<const Gpu*> gpus;
    std::vector<std::string> notes;
};

// "RTX 4090", "2x3090", "2 x RTX 3090", "4090,3090", "4090+3090", "2x4090, 3090": the GPUs
// named, each counted as often as it appears, in the order given (llama.cpp's device order). A
// '+' the database spells in a name ("Ryzen AI Max+ 395") is part of it; an unknown name's
// error shows the whole list as typed.
Result<GpuSelection> select_gpus(const Database& db, const std::string& spec);
// The same, the GPUs alone.
Result<std::vector<const Gpu*>> parse_gpu_spec(const Database& db, const std::string& spec);

// "2x NVIDIA RTX 3090", "NVIDIA RTX 4090 + NVIDIA RTX 3090"
std::string describe_gpus(const std::vector<GpuDevice>& gpus);

// On a unified-memory machine named from the database, the memory the CPU side keeps: the
// machine's total less what its GPU may use (token_embd and the logits live there). 0 when no
// GPU is a unified database machine; there is no other RAM to offload to.
Bytes unified_host_memory(const Hardware& hardware);

// The RAM a machine named without --ram (or :ram=) is planned with: a unified-memory machine
// has no RAM beside its own memory, so the CPU side keeps what the GPU may not use
// (unified_host_memory); anything else the default, 32 GB. One rule for --gpu and --host.
Bytes default_ram(const Hardware& hardware);

// The hardware with every GPU's usable memory stated: a unified-memory GPU may use what its
// platform allows, not the default share (macOS's iogpu.wired_limit_mb raises Apple silicon's
// working set; an AMD APU's GTT size sets Strix Halo's), up to the machine's memory. A discrete
// GPU's is its VRAM: stating one is refused (--margin keeps part of it free).
Result<Hardware> with_gpu_memory(Hardware hardware, Bytes memory);

}  // namespace canitrun
