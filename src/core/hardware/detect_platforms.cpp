// Intel GPUs (sysfs, xpu-smi), NVIDIA Jetson (device tree, tegrastats) and the Vulkan devices
// no other probe found (vulkaninfo --summary). Pure given what the ProbeSource returns.

#include <algorithm>

#include "canitrun/detect.hpp"
#include "canitrun/strings.hpp"
#include "probe_text.hpp"

namespace canitrun {
namespace {

using detail::probe_bytes_file;
using detail::probe_number;
using detail::probe_split;

constexpr std::uint64_t kIntelVendorId = 0x8086;
// An Intel card's largest tile count today is 2 (Data Center GPU Max 1550).
constexpr std::size_t kMaxTiles = 8;

// "16288.00 MiB" -> bytes; xpu-smi prints two decimals.
std::optional<Bytes> mib_text(const std::string& text) {
    std::string t = trim(text);
    if (t.size() < 5 || t.compare(t.size() - 4, 4, " MiB") != 0) return std::nullopt;
    t.resize(t.size() - 4);
    const auto dot = t.find('.');
    const auto whole = probe_number(t.substr(0, dot));
    if (!whole || *whole > (1ULL << 30)) return std::nullopt;
    Bytes bytes = *whole * kMiB;
    if (dot != std::string::npos) {
        const std::string frac = (t.substr(dot + 1) + "00").substr(0, 2);
        const auto hundredths = probe_number(frac);
        if (!hundredths) return std::nullopt;
        bytes += *hundredths * kMiB / 100;
    }
    return bytes;
}

std::string vendor_of(std::uint64_t pci_vendor) {
    switch (pci_vendor) {
        case 0x10de:
            return "nvidia";
        case 0x1002:
            return "amd";
        case 0x8086:
            return "intel";
        case 0x106b:
            return "apple";
        default:
            return "";
    }
}

// The xe driver's VRAM, tile by tile (drivers/gpu/drm/xe/xe_tile_sysfs.c:
// device/tile<N>/physical_vram_size_bytes); nothing under i915 or for an integrated GPU.
std::optional<Bytes> xe_vram(const ProbeSource& source, const std::string& device) {
    Bytes total = 0;
    for (std::size_t tile = 0; tile < kMaxTiles; ++tile) {
        const auto bytes = probe_bytes_file(
            source, device + "tile" + std::to_string(tile) + "/physical_vram_size_bytes");
        if (!bytes) break;
        total = checked::add(total, *bytes);
    }
    return total == 0 ? std::nullopt : std::optional<Bytes>(total);
}

// The ids of the entries a PCI id names, for a note: "arc-a770-8gb or arc-a770-16gb".
std::string entry_ids(const std::vector<const Gpu*>& gpus) {
    std::string ids;
    for (std::size_t i = 0; i < gpus.size(); ++i)
        ids += (i == 0 ? "" : i + 1 == gpus.size() ? " or " : ", ") + gpus[i]->id;
    return ids;
}

// One Intel card in sysfs, named by its PCI id (device/device) where the database holds it: with
// the xe driver's VRAM, planned; without (i915, or an integrated GPU), planned on the entry's
// memory where the id names one card, else noted.
void intel_sysfs_card(const ProbeSource& source, const std::string& device, const Database& db,
                      DetectedSystem& system) {
    const auto text = source.read_file(device + "device");
    const std::string id = text ? trim(*text) : std::string("unknown");
    DetectedGpu g;
    g.vendor = "intel";
    g.name = "Intel GPU (PCI device " + id + ")";
    g.pci_id = text ? probe_number(id, 16) : std::nullopt;
    const auto vram = xe_vram(source, device);
    g.memory = vram.value_or(0);
    const Gpu* entry = g.pci_id ? match_gpu(db, g) : nullptr;
    if (entry != nullptr) g.name = entry->name;
    if (vram) {
        g.via = entry != nullptr ? "sysfs (xe), named by PCI id " + id : "sysfs (xe)";
        system.gpus.push_back(g);
        return;
    }
    if (entry == nullptr) {
        const auto named = detail::gpus_with_pci_id(db, g);
        system.notes.push_back(
            g.name + ": no VRAM size in sysfs (an integrated GPU, or the i915 driver) and no " +
            "xpu-smi; " +
            (named.size() > 1 ? "PCI id " + id + " names " + entry_ids(named) + ": name the card "
                              : "name it ") +
            "with --gpu");
        return;
    }
    g.via = "sysfs (i915), named by PCI id " + id + ", memory from the database";
    system.notes.push_back(g.name + " (PCI id " + id +
                           "): the i915 driver reports no VRAM size; planned with the memory of " +
                           "the database entry " + entry->id);
    system.gpus.push_back(g);
}

}  // namespace

std::vector<const Gpu*> detail::gpus_with_pci_id(const Database& db, const DetectedGpu& detected) {
    std::vector<const Gpu*> named;
    if (!detected.pci_id) return named;
    for (const auto& gpu : db.gpus) {
        if (gpu.vendor != detected.vendor) continue;
        if (std::find(gpu.pci_ids.begin(), gpu.pci_ids.end(), *detected.pci_id) !=
            gpu.pci_ids.end())
            named.push_back(&gpu);
    }
    return named;
}

Result<std::vector<DetectedGpu>> parse_xpu_smi_dump(const std::string& csv) {
    std::vector<DetectedGpu> gpus;
    for (const auto& raw : probe_split(csv, '\n')) {
        const std::string line = trim(raw);
        if (line.empty() || line.rfind("Device ID", 0) == 0) continue;
        const auto fields = probe_split(line, ',');
        if (fields.size() < 3 || !probe_number(fields[0])) {
            return fail(ErrorKind::bad_input, "unexpected xpu-smi line '" + line + "'",
                        "expected: Device ID, Device Name, Memory Physical Size");
        }
        const auto memory = mib_text(fields[2]);
        if (!memory) {
            return fail(ErrorKind::bad_input, "xpu-smi gave no memory size in '" + line + "'",
                        "run 'xpu-smi discovery' to check the driver");
        }
        DetectedGpu g;
        g.name = trim(fields[1]);
        g.vendor = "intel";
        g.memory = *memory;
        if (fields.size() >= 4) {
            if (const auto free = probe_number(fields[3]); free && *free > 0 && *free <= *memory)
                g.free = *free;
        }
        g.via = "xpu-smi";
        gpus.push_back(g);
    }
    return gpus;
}

std::vector<VulkanDevice> parse_vulkaninfo_summary(const std::string& text) {
    std::vector<VulkanDevice> devices;
    bool cpu = false;
    const auto finish = [&]() {
        if (!devices.empty() && cpu) devices.pop_back();
        cpu = false;
    };
    for (const auto& raw : probe_split(text, '\n')) {
        const std::string line = trim(raw);
        // "GPU0:" opens a device; its fields follow as "key = value".
        if (line.size() > 4 && line.rfind("GPU", 0) == 0 && line.back() == ':' &&
            probe_number(line.substr(3, line.size() - 4))) {
            finish();
            devices.push_back({});
            continue;
        }
        const auto eq = line.find('=');
        if (devices.empty() || eq == std::string::npos) continue;
        const std::string key = trim(line.substr(0, eq));
        const std::string value = trim(line.substr(eq + 1));
        if (key == "deviceName") devices.back().name = value;
        if (key == "vendorID") {
            const auto id = probe_number(value, 16);
            const std::string known = id ? vendor_of(*id) : "";
            devices.back().vendor = known.empty() ? value : known;
        }
        if (key == "deviceType") {
            devices.back().discrete = value == "PHYSICAL_DEVICE_TYPE_DISCRETE_GPU";
            cpu = value == "PHYSICAL_DEVICE_TYPE_CPU";
        }
    }
    finish();
    devices.erase(std::remove_if(devices.begin(), devices.end(),
                                 [](const VulkanDevice& d) { return d.name.empty(); }),
                  devices.end());
    return devices;
}

std::optional<std::pair<Bytes, Bytes>> parse_tegrastats_ram(const std::string& line) {
    const auto at = line.find("RAM ");
    if (at == std::string::npos) return std::nullopt;
    const auto slash = line.find('/', at);
    const auto mb = line.find("MB", at);
    if (slash == std::string::npos || mb == std::string::npos || slash > mb) return std::nullopt;
    const auto used = probe_number(line.substr(at + 4, slash - at - 4));
    const auto total = probe_number(line.substr(slash + 1, mb - slash - 1));
    if (!used || !total || *used > *total || *total > (1ULL << 30)) return std::nullopt;
    return std::pair<Bytes, Bytes>{*used * kMiB, *total * kMiB};
}

namespace detail {

void detect_intel(const ProbeSource& source, DetectedSystem& system, const Database& db) {
    if (const auto csv = source.run(Probe::xpu_smi_dump)) {
        if (auto gpus = parse_xpu_smi_dump(*csv); gpus && !gpus->empty()) {
            for (auto& g : *gpus) system.gpus.push_back(std::move(g));
            return;
        }
    }
    // Without xpu-smi: a discrete card under the xe driver says its VRAM in sysfs; an integrated
    // GPU (or a card under i915) says none, and shares or hides its memory.
    for (const auto& entry : source.list_dir("/sys/class/drm")) {
        if (entry.size() < 5 || entry.compare(0, 4, "card") != 0) continue;
        if (!probe_number(entry.substr(4))) continue;
        const std::string device = "/sys/class/drm/" + entry + "/device/";
        const auto vendor = source.read_file(device + "vendor");
        if (!vendor || probe_number(trim(*vendor), 16) != kIntelVendorId) continue;
        intel_sysfs_card(source, device, db, system);
    }
}

void detect_jetson(const ProbeSource& source, DetectedSystem& system) {
    const auto compatible = source.read_file("/proc/device-tree/compatible");
    if (!compatible || compatible->find("nvidia,tegra") == std::string::npos) return;
    const auto model = source.read_file("/proc/device-tree/model");
    std::string name = model ? model->substr(0, model->find('\0')) : std::string();
    if (trim(name).empty()) name = "NVIDIA Jetson";
    if (!system.ram) {
        system.notes.push_back(trim(name) + ": unified memory, but /proc/meminfo not readable");
        return;
    }
    DetectedGpu g;
    g.name = trim(name);
    g.vendor = "nvidia";
    g.memory = *system.ram;  // the GPU and the CPU share it
    g.integrated = true;
    g.via = "device tree (unified memory from /proc/meminfo)";
    if (const auto line = source.run(Probe::tegrastats)) {
        if (const auto ram = parse_tegrastats_ram(*line); ram && ram->second <= g.memory + kGiB) {
            g.free = ram->second > ram->first ? ram->second - ram->first : 0;
            g.via += ", free memory from tegrastats";
        }
    }
    system.gpus.push_back(g);
}

void detect_vulkan(const ProbeSource& source, DetectedSystem& system) {
    const auto text = source.run(Probe::vulkaninfo_summary);
    if (!text) return;
    for (const auto& d : parse_vulkaninfo_summary(*text)) {
        // A vendor another probe found is that probe's: Vulkan adds nothing it does not know.
        const bool known = std::any_of(
            system.gpus.begin(), system.gpus.end(),
            [&](const DetectedGpu& g) { return !d.vendor.empty() && g.vendor == d.vendor; });
        if (known) continue;
        if (!d.discrete) {
            system.notes.push_back(d.name +
                                   " (vulkaninfo): integrated, sharing system RAM by an "
                                   "amount Vulkan does not say; name it with --gpu");
            continue;
        }
        DetectedGpu g;
        g.name = d.name;
        g.vendor = d.vendor;
        g.memory = 0;  // the summary gives no memory: the database entry's, when one matches
        g.via = "vulkaninfo --summary (memory from the database)";
        system.gpus.push_back(g);
    }
}

}  // namespace detail
}  // namespace canitrun
