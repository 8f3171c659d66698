#pragma once
// Finding the local GPUs and system RAM, from the outputs of the tools that report them:
// nvidia-smi (NVIDIA, MIG instances from `nvidia-smi -L`), rocm-smi or the amdgpu driver's sysfs
// files (AMD, integrated parts included, free memory from mem_info_*_used), Intel's sysfs (the xe
// driver's physical_vram_size_bytes; the card named by its PCI id) and xpu-smi, NVIDIA Jetson's
// device tree and tegrastats (unified memory: /proc/meminfo), sysctl (Apple silicon), vulkaninfo
// --summary for devices no other probe found (named only: their memory is the database entry's),
// and /proc/meminfo (RAM).
//
// Detection reads through a ProbeSource, so the logic is pure given what the source returns:
// the CLI's source runs the tools and reads the files; tests give recorded outputs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/database.hpp"
#include "canitrun/hardware.hpp"

namespace canitrun {

enum class Probe {
    nvidia_smi_query,    // one CSV line per GPU: index, name, memory.total (MiB)
    nvidia_smi_list,     // `nvidia-smi -L`: GPUs and their MIG instances
    rocm_smi,            // product names and VRAM totals as JSON
    sysctl_memsize,      // hw.memsize (bytes)
    sysctl_cpu_brand,    // machdep.cpu.brand_string ("Apple M2 Max")
    xpu_smi_dump,        // Intel: `xpu-smi discovery --dump 1,2,16,34` (CSV: id, name, memory)
    vulkaninfo_summary,  // `vulkaninfo --summary`: every Vulkan device, no memory figures
    tegrastats,          // NVIDIA Jetson: one tegrastats line ("RAM 18993/62841MB ...")
};

const char* probe_command(Probe probe);    // the command line the CLI runs
const char* probe_file_name(Probe probe);  // the file a recording keeps its output in

class ProbeSource {
  public:
    virtual ~ProbeSource() = default;
    // The tool's standard output, or nothing when the tool is missing or fails.
    virtual std::optional<std::string> run(Probe probe) const = 0;
    virtual std::optional<std::string> read_file(const std::string& path) const = 0;
    virtual std::vector<std::string> list_dir(const std::string& path) const = 0;
};

struct DetectedGpu {
    std::string name;    // as the tool reports it
    std::string vendor;  // nvidia, amd, apple
    Bytes memory = 0;    // as the tool reports it
    // What the tool reports free now (nvidia-smi memory.free): what llama.cpp's own fitting
    // sees, and what a plan on this machine gets. Empty when the tool gives no figure.
    std::optional<Bytes> free;
    bool integrated = false;  // shares system memory (an APU's GTT, Apple's unified memory)
    std::string via;          // "nvidia-smi", "nvidia-smi -L (MIG 3g.40gb)", "sysfs", ...
    // A MIG instance: its parent GPU's name and memory. The instance gets the parent's
    // bandwidth and throughput in proportion to its memory slice.
    std::string parent_name;
    Bytes parent_memory = 0;
    // An Intel card found in sysfs: its PCI device id (device/device). Such a device is matched
    // to the database by this id alone (Gpu::pci_ids), its name being the entry's or a generic one.
    std::optional<std::uint64_t> pci_id;
};

struct DetectedSystem {
    std::vector<DetectedGpu> gpus;
    std::optional<Bytes> ram;
    CpuCompute cpu;                  // /proc/cpuinfo and cpu0's cpufreq (parse_cpuinfo)
    std::vector<std::string> notes;  // what was tried and not found, for `canitrun system`
};

// The database names the Intel cards sysfs finds by their PCI ids (xe and i915 give no product
// name), and gives the memory of one whose driver (i915) reports none.
DetectedSystem detect_system(const ProbeSource& source, const Database& db);

// Parsers of each tool's output (exposed for tests and fuzzing).
Result<std::vector<DetectedGpu>> parse_nvidia_smi_query(const std::string& csv);
// MIG instances by parent GPU index: "  MIG 3g.40gb  Device  0: (UUID: ...)" lines.
std::vector<std::pair<std::uint64_t, std::vector<DetectedGpu>>> parse_nvidia_smi_mig(
    const std::string& listing);
Result<std::vector<DetectedGpu>> parse_rocm_smi_json(const std::string& text);
std::optional<Bytes> parse_meminfo_total(const std::string& meminfo);
// /proc/cpuinfo: physical cores (distinct "physical id" / "core id" pairs; where the kernel
// writes none, as on ARM, one a "processor"), the vector width from the flags ("avx512f": 64
// bytes, "avx2": 32, ARM "asimd": 16) and the "model name". The clock: cpufreq's
// cpuinfo_max_freq (kHz, `max_freq_khz`) where readable, else the "@ 2.60GHz" an Intel model
// name carries (its base clock), else none. A hybrid CPU's cores are counted alike and cpu0's
// clock (a performance core's) taken for all: an overstatement the fitted efficiency does not
// know of.
CpuCompute parse_cpuinfo(const std::string& cpuinfo,
                         const std::optional<std::string>& max_freq_khz);
// `xpu-smi discovery --dump 1,2,16,34`: "0, Intel(R) Arc(TM) A770 Graphics, 16288.00 MiB, 1326..."
// (the free size in bytes); the heading line skipped.
Result<std::vector<DetectedGpu>> parse_xpu_smi_dump(const std::string& csv);
// `vulkaninfo --summary`'s devices: name, vendor (by vendorID) and whether discrete; CPU
// devices (llvmpipe) left out. The memory is 0: the summary gives none.
struct VulkanDevice {
    std::string name;
    std::string vendor;  // nvidia, amd, intel, apple, or the vendorID ("0x5143")
    bool discrete = false;
};
std::vector<VulkanDevice> parse_vulkaninfo_summary(const std::string& text);
// tegrastats' "RAM 18993/62841MB": used and total in bytes (tegrastats' MB are MiB).
std::optional<std::pair<Bytes, Bytes>> parse_tegrastats_ram(const std::string& line);

// Detected GPUs as the runtime sees them: the detected memory kept, bandwidth and throughput
// from the database entry the name matches (longest matching name, nearest memory), if any;
// of several MIG slices the largest alone (a CUDA process sees one), with a note; and unified
// memory counted once (the RAM left for the CPU is system RAM less what the GPU may use).
Hardware hardware_from(const DetectedSystem& system, const Database& db);

// One GPU as the one-machine rule reads it: its vendor, whether it shares the host's memory,
// its name for the message and the id a --host flag takes.
struct MachineGpu {
    std::string vendor;
    bool unified = false;
    std::string name;
    std::string id;
};

// Whether one llama.cpp process can drive these GPUs together, the same rule for a --gpu list
// (select_gpus) and for detected GPUs: a unified-memory GPU (a Mac, an APU) is a machine of its
// own, and one process runs one vendor's backend on discrete cards. The error says how they
// were asked (`asked`), which GPU breaks the rule and the --host flags that plan them.
Result<bool> check_one_machine(const std::vector<MachineGpu>& gpus, const std::string& asked);

// The detected GPUs as one process would be asked to drive them (hardware_from's, MIG slices as
// one), through check_one_machine: --gpu auto refuses what --gpu refuses when named.
Result<bool> detected_one_machine(const DetectedSystem& system, const Database& db);

// One detected device as the planner takes it (its database entry, usable memory, a MIG
// slice's share of its GPU's bandwidth), whatever hardware_from keeps: `system` lists them all.
GpuDevice device_from(const DetectedGpu& d, const Database& db);
const Gpu* match_gpu(const Database& db, const DetectedGpu& detected);

}  // namespace canitrun
