#include "canitrun/detect.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "canitrun/bounded_file.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/strings.hpp"
#include "probe_text.hpp"

namespace canitrun {
namespace {

constexpr std::uint64_t kAmdVendorId = 0x1002;
// An AMD device with less dedicated VRAM than this and more GTT is an integrated part (APU):
// its VRAM is a BIOS carve-out and the model lives in shared system memory.
constexpr Bytes kIntegratedVramBelow = 2 * kGiB;
// macOS lets the GPU wire about two thirds of unified memory by default
// (recommendedMaxWorkingSetSize); the database's entry says more precisely when one matches.
constexpr std::uint64_t kDefaultUnifiedSharePermille = 666;

using detail::probe_bytes_file;
using detail::probe_number;
using detail::probe_split;

// A vendor with nothing on this machine is worth a note only where no GPU was found at all
// (detect_system): beside an NVIDIA card, "no amdgpu device" says nothing the table does not.
void detect_nvidia(const ProbeSource& source, DetectedSystem& system,
                   std::vector<std::string>& absent) {
    const auto csv = source.run(Probe::nvidia_smi_query);
    if (!csv) {
        absent.emplace_back("nvidia-smi: not found or failed");
        return;
    }
    auto gpus = parse_nvidia_smi_query(*csv);
    if (!gpus) {
        system.notes.push_back("nvidia-smi: " + gpus.error().message);
        return;
    }
    std::vector<std::pair<std::uint64_t, std::vector<DetectedGpu>>> mig;
    if (const auto listing = source.run(Probe::nvidia_smi_list))
        mig = parse_nvidia_smi_mig(*listing);
    for (std::size_t i = 0; i < gpus->size(); ++i) {
        bool split = false;
        for (const auto& [parent, instances] : mig) {
            if (parent != i || instances.empty()) continue;
            split = true;
            for (auto instance : instances) {
                instance.parent_name = (*gpus)[i].name;
                instance.parent_memory = (*gpus)[i].memory;
                instance.name = (*gpus)[i].name + " " + instance.name;
                system.gpus.push_back(instance);
            }
        }
        if (!split) system.gpus.push_back((*gpus)[i]);
    }
}

void detect_amd(const ProbeSource& source, DetectedSystem& system,
                std::vector<std::string>& absent) {
    std::vector<DetectedGpu> rocm;
    if (const auto text = source.run(Probe::rocm_smi)) {
        if (auto parsed = parse_rocm_smi_json(*text)) rocm = *parsed;
    }
    std::size_t found = 0;
    for (const auto& entry : source.list_dir("/sys/class/drm")) {
        // card0, card1, ... (not card0-DP-1 connectors, not renderD128)
        if (entry.size() < 5 || entry.compare(0, 4, "card") != 0) continue;
        if (!probe_number(entry.substr(4))) continue;
        const std::string device = "/sys/class/drm/" + entry + "/device/";
        const auto vendor = source.read_file(device + "vendor");
        if (!vendor || probe_number(trim(*vendor), 16) != kAmdVendorId) continue;
        const auto vram = probe_bytes_file(source, device + "mem_info_vram_total");
        if (!vram) continue;
        const auto gtt = probe_bytes_file(source, device + "mem_info_gtt_total");
        DetectedGpu gpu;
        gpu.vendor = "amd";
        gpu.via = "sysfs";
        gpu.memory = *vram;
        if (*vram < kIntegratedVramBelow && gtt && *gtt > *vram) {
            gpu.integrated = true;
            gpu.memory = *gtt;
            gpu.via = "sysfs (integrated: " + std::to_string(*vram / kMiB) + " MiB carve-out, " +
                      "shared memory through GTT)";
        }
        // What is free now, as amdgpu counts it (mem_info_vram_used, mem_info_gtt_used): what a
        // plan on this machine gets, as nvidia-smi's memory.free is for NVIDIA.
        const auto used = probe_bytes_file(
            source, device + (gpu.integrated ? "mem_info_gtt_used" : "mem_info_vram_used"));
        if (used && *used <= gpu.memory) gpu.free = gpu.memory - *used;
        if (const auto product = source.read_file(device + "product_name");
            product && !trim(*product).empty()) {
            gpu.name = trim(*product);
        } else if (found < rocm.size()) {
            gpu.name = rocm[found].name;
        } else {
            const auto id = source.read_file(device + "device");
            gpu.name = "AMD GPU (PCI device " + (id ? trim(*id) : std::string("unknown")) + ")";
        }
        system.gpus.push_back(gpu);
        ++found;
    }
    if (found == 0 && !rocm.empty()) {
        for (const auto& g : rocm) system.gpus.push_back(g);
        found = rocm.size();
    }
    if (found == 0) absent.emplace_back("AMD: no amdgpu device in /sys/class/drm and no rocm-smi");
}

void detect_apple(const ProbeSource& source, DetectedSystem& system) {
    const auto brand = source.run(Probe::sysctl_cpu_brand);
    const auto memsize = source.run(Probe::sysctl_memsize);
    if (!brand || trim(*brand).rfind("Apple", 0) != 0 || !memsize) return;
    const auto bytes = probe_number(*memsize);
    if (!bytes) return;
    DetectedGpu gpu;
    gpu.name = trim(*brand);
    gpu.vendor = "apple";
    gpu.memory = *bytes;
    gpu.integrated = true;
    gpu.via = "sysctl";
    system.gpus.push_back(gpu);
    if (!system.ram) system.ram = *bytes;
}

// Keys worth matching: at least three characters and a digit ("4090", "h100", not "nvidia").
bool useful_key(const std::string& key) {
    if (key.size() < 3) return false;
    for (char c : key) {
        if (std::isdigit(static_cast<unsigned char>(c))) return true;
    }
    return false;
}

// A name memory variants share ("4060 ti") belongs to every variant; by id, the names the
// variant holding them shares.
std::map<std::string, std::vector<std::string>> shared_names(const Database& db) {
    std::map<std::string, std::vector<std::string>> shared;
    for (const auto& gpu : db.gpus) {
        for (const auto& other : gpu.other_variants) {
            auto& names = shared[other];
            names.insert(names.end(), gpu.variant_names.begin(), gpu.variant_names.end());
        }
    }
    return shared;
}

// How much of the detected name one of the entry's names covers: an alias, the id or the short
// name when it holds a digit ("4090", not "nvidia"); a name variants share ("jetson agx orin",
// curated data) from six characters; or the chip an entry begins with ("m2max" of "m2max64gb").
std::size_t matched_key(const Gpu& gpu, const std::vector<std::string>* shared,
                        const std::string& name, const std::string& chip) {
    std::size_t length = 0;
    std::vector<std::string> keys = gpu.aliases;
    keys.push_back(gpu.id);
    keys.push_back(gpu.short_name);
    std::vector<std::string> curated = gpu.variant_names;
    if (shared != nullptr) curated.insert(curated.end(), shared->begin(), shared->end());
    for (const auto& k : curated) {
        const std::string key = normalize_name(k);
        if (key.size() >= 6 && name.find(key) != std::string::npos)
            length = std::max(length, key.size());
    }
    keys.insert(keys.end(), curated.begin(), curated.end());
    for (const auto& k : keys) {
        const std::string key = normalize_name(k);
        if (useful_key(key) && name.find(key) != std::string::npos)
            length = std::max(length, key.size());
        if (useful_key(chip) && key.rfind(chip, 0) == 0) length = std::max(length, chip.size());
    }
    return length;
}

double memory_distance(const Gpu& gpu, Bytes detected) {
    if (detected == 0) return 0;  // no figure (vulkaninfo --summary): the name alone decides
    const auto a = static_cast<double>(gpu.vram_bytes);
    const auto b = static_cast<double>(detected);
    return std::fabs(a - b) / std::max(a, b);
}

}  // namespace

const char* probe_command(Probe probe) {
    switch (probe) {
        case Probe::nvidia_smi_query:
            return "nvidia-smi --query-gpu=index,name,memory.total,memory.free "
                   "--format=csv,noheader,nounits";
        case Probe::nvidia_smi_list:
            return "nvidia-smi -L";
        case Probe::rocm_smi:
            return "rocm-smi --showproductname --showmeminfo vram --json";
        case Probe::sysctl_memsize:
            return "sysctl -n hw.memsize";
        case Probe::sysctl_cpu_brand:
            return "sysctl -n machdep.cpu.brand_string";
        case Probe::xpu_smi_dump:
            return "xpu-smi discovery --dump 1,2,16,34";
        case Probe::vulkaninfo_summary:
            return "vulkaninfo --summary";
        case Probe::tegrastats:
            // tegrastats prints a line per interval until stopped: the first line is enough.
            return "tegrastats --interval 100 | head -n 1";
    }
    return "";
}

const char* probe_file_name(Probe probe) {
    switch (probe) {
        case Probe::nvidia_smi_query:
            return "nvidia-smi-query.csv";
        case Probe::nvidia_smi_list:
            return "nvidia-smi-L.txt";
        case Probe::rocm_smi:
            return "rocm-smi.json";
        case Probe::sysctl_memsize:
            return "sysctl-hw.memsize.txt";
        case Probe::sysctl_cpu_brand:
            return "sysctl-machdep.cpu.brand_string.txt";
        case Probe::xpu_smi_dump:
            return "xpu-smi-dump.csv";
        case Probe::vulkaninfo_summary:
            return "vulkaninfo-summary.txt";
        case Probe::tegrastats:
            return "tegrastats.txt";
    }
    return "";
}

Result<std::vector<DetectedGpu>> parse_nvidia_smi_query(const std::string& csv) {
    std::vector<DetectedGpu> gpus;
    for (const auto& raw : probe_split(csv, '\n')) {
        const std::string line = trim(raw);
        if (line.empty()) continue;
        const auto fields = probe_split(line, ',');
        if (fields.size() < 3) {
            return fail(ErrorKind::bad_input, "unexpected nvidia-smi line '" + line + "'",
                        "expected: index, name, memory.total");
        }
        const auto mib = probe_number(fields[2]);
        if (!mib || *mib > (1ULL << 30)) {
            // "[N/A]" or "[Insufficient Permissions]": report the card, memory unknown.
            return fail(ErrorKind::bad_input, "nvidia-smi gave no memory size in '" + line + "'",
                        "run 'nvidia-smi' to check the driver");
        }
        DetectedGpu g;
        g.name = trim(fields[1]);
        g.vendor = "nvidia";
        g.memory = *mib * kMiB;
        // memory.free, where the query has it (older recordings have three fields) and it is a
        // number no larger than the card.
        if (fields.size() >= 4) {
            if (const auto free = probe_number(fields[3]); free && *free <= *mib)
                g.free = *free * kMiB;
        }
        g.via = "nvidia-smi";
        gpus.push_back(g);
    }
    return gpus;
}

std::vector<std::pair<std::uint64_t, std::vector<DetectedGpu>>> parse_nvidia_smi_mig(
    const std::string& listing) {
    std::vector<std::pair<std::uint64_t, std::vector<DetectedGpu>>> out;
    for (const auto& raw : probe_split(listing, '\n')) {
        const std::string line = trim(raw);
        if (line.rfind("GPU ", 0) == 0) {
            const auto colon = line.find(':');
            const auto index =
                colon == std::string::npos ? std::nullopt : probe_number(line.substr(4, colon - 4));
            if (index) out.push_back({*index, {}});
            continue;
        }
        // "MIG 3g.40gb     Device  0: (UUID: MIG-...)"
        if (line.rfind("MIG ", 0) != 0 || out.empty()) continue;
        const std::string profile = trim(line.substr(4, line.find(' ', 4) - 4));
        const auto dot = profile.find('.');
        if (dot == std::string::npos || profile.size() < dot + 3) continue;
        const std::string size = profile.substr(dot + 1);
        if (size.size() < 3 || size.compare(size.size() - 2, 2, "gb") != 0) continue;
        const auto gb = probe_number(size.substr(0, size.size() - 2));
        if (!gb) continue;
        DetectedGpu g;
        g.name = "MIG " + profile;
        g.vendor = "nvidia";
        g.memory = checked::mul(*gb, 1000000000ULL);  // the profile's nominal size
        g.via = "nvidia-smi -L (MIG " + profile + ")";
        out.back().second.push_back(g);
    }
    return out;
}

Result<std::vector<DetectedGpu>> parse_rocm_smi_json(const std::string& text) {
    CANITRUN_TRY(
        check_json_bounds(text, "rocm-smi's JSON", JsonBounds{.max_bytes = kMaxProbeFileBytes}));
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return fail(ErrorKind::bad_input, "rocm-smi printed no JSON object", "");
    }
    std::vector<DetectedGpu> gpus;
    for (const auto& [card, info] : json.items()) {
        if (card.rfind("card", 0) != 0 || !info.is_object()) continue;
        DetectedGpu g;
        g.vendor = "amd";
        g.via = "rocm-smi";
        for (const char* key : {"Card Series", "Card series", "Card SKU"}) {
            if (info.contains(key) && info[key].is_string()) {
                g.name = info[key].get<std::string>();
                break;
            }
        }
        if (info.contains("VRAM Total Memory (B)") && info["VRAM Total Memory (B)"].is_string()) {
            g.memory = probe_number(info["VRAM Total Memory (B)"].get<std::string>()).value_or(0);
        }
        if (g.name.empty()) g.name = "AMD GPU (" + card + ")";
        gpus.push_back(g);
    }
    return gpus;
}

std::optional<Bytes> parse_meminfo_total(const std::string& meminfo) {
    for (const auto& raw : probe_split(meminfo, '\n')) {
        if (raw.rfind("MemTotal:", 0) != 0) continue;
        std::string rest = trim(raw.substr(9));
        if (rest.size() > 3 && rest.compare(rest.size() - 3, 3, " kB") == 0)
            rest.resize(rest.size() - 3);
        const auto kb = probe_number(rest);
        if (!kb || *kb > (1ULL << 40)) return std::nullopt;
        return *kb * 1024;
    }
    return std::nullopt;
}

DetectedSystem detect_system(const ProbeSource& source, const Database& db) {
    DetectedSystem system;
    if (const auto meminfo = source.read_file("/proc/meminfo"))
        system.ram = parse_meminfo_total(*meminfo);
    if (const auto cpuinfo = source.read_file("/proc/cpuinfo")) {
        system.cpu = parse_cpuinfo(
            *cpuinfo, source.read_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"));
    }
    std::vector<std::string> absent;  // vendors with nothing here, said only if nothing is
    detect_nvidia(source, system, absent);
    detect_amd(source, system, absent);
    detect_apple(source, system);
    detail::detect_intel(source, system, db);
    detail::detect_jetson(source, system);
    detail::detect_vulkan(source, system);
    if (system.gpus.empty())
        system.notes.insert(system.notes.begin(), absent.begin(), absent.end());
    // A GPU's name comes from a tool or a file on the machine: printed, it must not carry the
    // terminal escapes a driver or a planted tool might put in it.
    for (auto& g : system.gpus) g.name = printable_text(g.name);
    if (!system.ram)
        system.notes.push_back("system RAM: /proc/meminfo and sysctl hw.memsize not readable");
    return system;
}

const Gpu* match_gpu(const Database& db, const DetectedGpu& detected) {
    const std::string name = normalize_name(detected.name);
    // "Apple M2 Max" names the chip; the database's entries add the memory ("m2max64gb").
    const std::string chip = name.rfind("apple", 0) == 0 ? name.substr(5) : name;
    const auto shared = shared_names(db);
    // A device with a PCI id is named by it alone (its name is generic): the entries holding the
    // id, the memory choosing among them, and none where there is no memory to choose by.
    const auto by_id = detail::gpus_with_pci_id(db, detected);
    if (detected.pci_id && (by_id.empty() || (by_id.size() > 1 && detected.memory == 0)))
        return nullptr;
    const Gpu* best = nullptr;
    std::size_t best_key = 0;
    double best_distance = 0;
    for (const auto& gpu : db.gpus) {
        if (!detected.vendor.empty() && gpu.vendor != detected.vendor) continue;
        const auto it = shared.find(gpu.id);
        const std::size_t key_length =
            detected.pci_id
                ? static_cast<std::size_t>(std::count(by_id.begin(), by_id.end(), &gpu))
                : matched_key(gpu, it == shared.end() ? nullptr : &it->second, name, chip);
        if (key_length == 0) continue;
        const double distance = memory_distance(gpu, detected.memory);
        // Nearest memory first (an 8 GB and a 16 GB card share a name), then the longest name.
        const bool better = best == nullptr || distance + 0.02 < best_distance ||
                            (std::fabs(distance - best_distance) <= 0.02 && key_length > best_key);
        if (better) {
            best = &gpu;
            best_key = key_length;
            best_distance = distance;
        }
    }
    // A match more than 25 % off in memory is another card of the same name family.
    if (best != nullptr && best_distance > 0.25) return nullptr;
    return best;
}

namespace {

// A unified-memory machine whose probe reports all of its memory, not the GPU's part.
bool whole_unified(const DetectedGpu& d) {
    return d.integrated && (d.vendor == "apple" || d.vendor == "nvidia");
}

// A CUDA process sees one MIG instance (CUDA enumerates a single compute instance of a MIG
// GPU: the CUDA Programming Guide's MIG section, and NVIDIA's MIG User Guide, "CUDA Device
// Enumeration"), so slices cannot be pooled by a -ts split: keep the largest and say so.
std::vector<DetectedGpu> as_cuda_sees(const DetectedSystem& system,
                                      std::vector<std::string>& notes) {
    std::vector<DetectedGpu> out;
    const DetectedGpu* largest = nullptr;
    std::size_t slices = 0;
    for (const auto& d : system.gpus) {
        if (d.parent_memory == 0) {
            out.push_back(d);
        } else {
            ++slices;
            if (largest == nullptr || d.memory > largest->memory) largest = &d;
        }
    }
    if (largest != nullptr) {
        out.push_back(*largest);
        if (slices > 1) {
            notes.push_back("planned on " + largest->name + " alone, the largest of " +
                            std::to_string(slices) +
                            " MIG slices: a CUDA process sees one MIG instance, so slices cannot "
                            "be pooled (run one server per slice, each with its own model)");
        }
    }
    return out;
}

// The GPUs one llama.cpp process on this machine would run on: as_cuda_sees's, less an
// integrated GPU beside discrete cards. Such a GPU shares the system RAM and needs its own
// backend (a desktop's Radeon or Intel iGPU beside an NVIDIA card is invisible to CUDA), so the
// cards are planned and it is named in a note, never pooled with them.
std::vector<DetectedGpu> one_process_gpus(const DetectedSystem& system,
                                          std::vector<std::string>& notes) {
    std::vector<DetectedGpu> seen = as_cuda_sees(system, notes);
    const bool cards =
        std::any_of(seen.begin(), seen.end(), [](const DetectedGpu& d) { return !d.integrated; });
    if (!cards) return seen;
    std::vector<DetectedGpu> out;
    for (auto& d : seen) {
        if (!d.integrated) {
            out.push_back(std::move(d));
            continue;
        }
        notes.push_back(d.name +
                        " left out: an integrated GPU shares the system RAM and is not driven by "
                        "the process that runs the cards beside it (plan it as a machine of its "
                        "own with --host)");
    }
    return out;
}

// The database entry a detected GPU is: a MIG slice's is its parent GPU's.
const Gpu* database_entry(const DetectedGpu& d, const Database& db) {
    DetectedGpu lookup = d;
    if (d.parent_memory != 0) {
        lookup.name = d.parent_name;
        lookup.memory = d.parent_memory;
    }
    return match_gpu(db, lookup);
}

}  // namespace

GpuDevice device_from(const DetectedGpu& d, const Database& db) {
    GpuDevice device;
    device.name = d.name;
    // Free memory where the tool reports it: other processes' allocations are not ours.
    device.memory = d.free.value_or(d.memory);
    device.unified = d.integrated;
    const bool mig = d.parent_memory != 0;
    if (const Gpu* gpu = database_entry(d, db)) {
        const double slice =
            mig ? static_cast<double>(d.memory) / static_cast<double>(d.parent_memory) : 1.0;
        device.gpu = gpu;
        device.bandwidth_gbps = gpu->bandwidth_gbps * slice;
        device.fp16_tflops = gpu->fp16_tflops * slice;
        device.fp32_tflops = gpu->fp32_tflops * slice;
        device.int8_dot_tops = gpu->int8_dot_tops * slice;
        if (d.memory == 0) device.memory = device_for(*gpu).memory;  // named, not measured
        // The machine's whole memory reported (Apple's sysctl, a Jetson's meminfo): the GPU may
        // use the entry's share of it, and no more than is free.
        if (whole_unified(d)) {
            device.memory = checked::mul_div_floor(d.memory, gpu->unified_gpu_share_permille, 1000);
            if (d.free) device.memory = std::min(device.memory, *d.free);
        }
    } else if (whole_unified(d)) {
        device.memory = checked::mul_div_floor(d.memory, kDefaultUnifiedSharePermille, 1000);
    }
    return device;
}

Hardware hardware_from(const DetectedSystem& system, const Database& db) {
    Hardware h;
    h.ram = system.ram.value_or(0);
    h.cpu = system.cpu;
    Bytes shared = 0;  // the unified devices' memory, taken from system RAM
    for (const auto& d : one_process_gpus(system, h.notes)) {
        const GpuDevice device = device_from(d, db);
        if (device.memory == 0) {
            h.notes.push_back(d.name + " left out: " + d.via +
                              " gives no memory size and the database has no entry for it "
                              "(describe it with --gpu-spec)");
            continue;
        }
        if (device.unified) shared = checked::add(shared, device.memory);
        h.gpus.push_back(device);
    }
    // Unified memory counted once: what the GPU may use is not also RAM for the CPU (as when
    // the machine is named with --gpu, unified_host_memory).
    h.ram = h.ram > shared ? h.ram - shared : 0;
    return h;
}

Result<bool> detected_one_machine(const DetectedSystem& system, const Database& db) {
    std::vector<std::string> notes;
    std::vector<MachineGpu> gpus;
    std::string names;
    for (const auto& d : one_process_gpus(system, notes)) {
        const Gpu* entry = database_entry(d, db);
        gpus.push_back({d.vendor, d.integrated, d.name, entry != nullptr ? entry->id : d.name});
        names += (names.empty() ? "" : ", ") + d.name;
    }
    auto one = check_one_machine(gpus, "--gpu auto (found " + names + ")");
    if (!one && !gpus.front().unified) {
        // Two vendors' cards (one_process_gpus left no integrated GPU beside them): name the
        // first vendor's, which one process can run together.
        std::string ids;
        for (const auto& g : gpus) {
            if (g.vendor == gpus.front().vendor) ids += (ids.empty() ? "" : ",") + g.id;
        }
        one.error().hint =
            "name the GPUs one llama.cpp process runs: --gpu '" + ids + "'; or " + one.error().hint;
    }
    return one;
}

namespace detail {

std::vector<std::string> probe_split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(s);
    while (std::getline(in, item, sep)) out.push_back(item);
    return out;
}

std::optional<std::uint64_t> probe_number(const std::string& text, int base) {
    const std::string t = trim(text);
    if (t.empty() || t.size() > 20) return std::nullopt;
    std::size_t used = 0;
    try {
        const unsigned long long v = std::stoull(t, &used, base);
        if (used != t.size()) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<Bytes> probe_bytes_file(const ProbeSource& source, const std::string& path) {
    const auto text = source.read_file(path);
    if (!text) return std::nullopt;
    return probe_number(*text);
}

}  // namespace detail
}  // namespace canitrun
