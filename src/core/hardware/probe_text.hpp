#pragma once
// The small readers every detector shares (detect.cpp, detect_platforms.cpp): a tool's output
// cut into lines or fields, a number as a tool or a sysfs file writes it.

#include <optional>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/detect.hpp"

namespace canitrun::detail {

std::vector<std::string> probe_split(const std::string& s, char sep);

// A whole decimal (or, with base 16, hexadecimal: "0x8086") number, nothing else on the line.
std::optional<std::uint64_t> probe_number(const std::string& text, int base = 10);

// A sysfs file holding one number of bytes.
std::optional<Bytes> probe_bytes_file(const ProbeSource& source, const std::string& path);

// The database entries of the device's vendor whose pci_ids hold its PCI id; none without one.
std::vector<const Gpu*> gpus_with_pci_id(const Database& db, const DetectedGpu& detected);

// The detectors of detect_platforms.cpp, run by detect_system after NVIDIA's, AMD's and
// Apple's: Intel (sysfs, xpu-smi), NVIDIA Jetson (device tree, tegrastats) and, last, the
// Vulkan devices no other probe found.
void detect_intel(const ProbeSource& source, DetectedSystem& system, const Database& db);
void detect_jetson(const ProbeSource& source, DetectedSystem& system);
void detect_vulkan(const ProbeSource& source, DetectedSystem& system);

}  // namespace canitrun::detail
