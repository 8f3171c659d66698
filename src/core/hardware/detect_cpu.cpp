// The CPU a prompt runs on without a GPU (detect.hpp: parse_cpuinfo).
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "canitrun/detect.hpp"
#include "canitrun/strings.hpp"
#include "probe_text.hpp"

namespace canitrun {
namespace {

using detail::probe_number;
using detail::probe_split;

// "flags : fpu vme ... avx2 ..." as its words, each padded with spaces to match whole words.
bool has_word(const std::string& words, const char* word) {
    return (" " + words + " ").find(" " + std::string(word) + " ") != std::string::npos;
}

// The clock an Intel model name carries: "Intel(R) Core(TM) i5-4278U CPU @ 2.60GHz".
double name_ghz(const std::string& name) {
    const auto at = name.rfind('@');
    if (at == std::string::npos) return 0;
    const std::string rest = trim(name.substr(at + 1));
    if (!rest.ends_with("GHz")) return 0;
    char* end = nullptr;
    const double ghz = std::strtod(rest.c_str(), &end);
    return end != rest.c_str() && ghz > 0 && ghz < 20 ? ghz : 0;
}

}  // namespace

CpuCompute parse_cpuinfo(const std::string& cpuinfo,
                         const std::optional<std::string>& max_freq_khz) {
    CpuCompute cpu;
    std::set<std::pair<std::string, std::string>> cores;
    std::string physical, flags;
    std::uint64_t processors = 0;
    for (const auto& line : probe_split(cpuinfo, '\n')) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = trim(line.substr(0, colon));
        const std::string value = trim(line.substr(colon + 1));
        if (key == "processor") ++processors;
        if (key == "physical id") physical = value;
        if (key == "core id") cores.emplace(physical, value);
        if ((key == "flags" || key == "Features") && flags.empty()) flags = value;
        if (key == "model name" && cpu.name.empty()) cpu.name = printable_text(value);
    }
    cpu.cores = cores.empty() ? processors : cores.size();
    cpu.vector_bytes = has_word(flags, "avx512f") ? 64
                       : has_word(flags, "avx2")  ? 32
                       : has_word(flags, "asimd") ? 16
                                                  : 0;
    const auto khz = max_freq_khz ? probe_number(trim(*max_freq_khz)) : std::nullopt;
    cpu.ghz =
        khz && *khz > 0 && *khz < 20'000'000 ? static_cast<double>(*khz) / 1e6 : name_ghz(cpu.name);
    return cpu;
}

}  // namespace canitrun
