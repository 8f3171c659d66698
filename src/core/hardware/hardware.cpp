#include "canitrun/hardware.hpp"

#include "canitrun/detect.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/strings.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

namespace canitrun {
namespace {

inline constexpr std::uint64_t kMaxGpusPerSpec = 64;

// "2x3090" -> {2, "3090"}; "3090" -> {1, "3090"}. The count is one or two digits followed by
// 'x', so names that begin with digits ("7900 XTX") are not read as counts.
std::pair<std::uint64_t, std::string> split_count(const std::string& item) {
    std::size_t digits = 0;
    while (digits < item.size() && digits < 3 &&
           std::isdigit(static_cast<unsigned char>(item[digits]))) {
        ++digits;
    }
    if (digits == 0 || digits > 2) return {1, item};
    std::size_t at = digits;
    while (at < item.size() && item[at] == ' ') ++at;
    if (at >= item.size() || (item[at] != 'x' && item[at] != 'X' && item[at] != '*'))
        return {1, item};
    const std::string rest = trim(item.substr(at + 1));
    if (rest.empty()) return {1, item};
    return {std::stoull(item.substr(0, digits)), rest};
}

// "99999999999999999999x4090": three or more digits, then 'x' and a name the database knows, is
// a count out of range, not an unknown GPU ("7900XTX" is a name: "TX" is no GPU).
std::optional<Error> oversized_count(const Database& db, const std::string& item) {
    std::size_t digits = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits]))) {
        ++digits;
    }
    std::size_t at = digits;
    while (at < item.size() && item[at] == ' ') ++at;
    if (digits < 3 || at >= item.size() || (item[at] != 'x' && item[at] != 'X' && item[at] != '*'))
        return std::nullopt;
    const std::string rest = trim(item.substr(at + 1));
    if (rest.empty() || !db.find_gpu(rest)) return std::nullopt;
    return Error{ErrorKind::bad_input,
                 "'" + item + "' asks for " + item.substr(0, digits) + " GPUs",
                 "give between 1 and " + std::to_string(kMaxGpusPerSpec) + " GPUs"};
}

}  // namespace

double cpu_int8_tops(const CpuCompute& cpu) {
    return static_cast<double>(cpu.cores) * static_cast<double>(cpu.vector_bytes) * 2 * cpu.ghz /
           1000;
}

Bytes Hardware::gpu_memory() const {
    Bytes sum = 0;
    for (const auto& d : gpus) sum = checked::add(sum, d.memory);
    return sum;
}

bool hardware_runs(const Hardware& hardware, const Quant& quant) {
    for (const auto& d : hardware.gpus) {
        if (d.gpu != nullptr && !gpu_runs_quant(*d.gpu, quant)) return false;
    }
    return true;
}

bool Hardware::unified() const {
    for (const auto& d : gpus) {
        if (d.unified) return true;
    }
    return false;
}

GpuDevice device_for(const Gpu& gpu) {
    GpuDevice d;
    d.name = display_name(gpu);
    d.gpu = &gpu;
    d.unified = gpu.gpu_class == GpuClass::unified;
    d.memory = d.unified
                   ? checked::mul_div_floor(gpu.vram_bytes, gpu.unified_gpu_share_permille, 1000)
                   : gpu.vram_bytes;
    d.bandwidth_gbps = gpu.bandwidth_gbps;
    d.fp16_tflops = gpu.fp16_tflops;
    d.fp32_tflops = gpu.fp32_tflops;
    d.int8_dot_tops = gpu.int8_dot_tops;
    return d;
}

std::vector<GpuDevice> devices_for(const Gpu& gpu) {
    const GpuDevice whole = device_for(gpu);
    if (gpu.devices <= 1) return {whole};
    std::vector<GpuDevice> out;
    const auto n = static_cast<double>(gpu.devices);
    for (std::uint64_t i = 0; i < gpu.devices; ++i) {
        GpuDevice d = whole;
        d.name =
            display_name(gpu) + " GCD " + std::to_string(i + 1) + "/" + std::to_string(gpu.devices);
        d.memory = whole.memory / gpu.devices;
        d.bandwidth_gbps = whole.bandwidth_gbps / n;
        d.fp16_tflops = whole.fp16_tflops / n;
        d.fp32_tflops = whole.fp32_tflops / n;
        d.int8_dot_tops = whole.int8_dot_tops / n;
        out.push_back(d);
    }
    return out;
}

std::vector<GpuDevice> devices_for(const std::vector<const Gpu*>& gpus) {
    std::vector<GpuDevice> out;
    for (const Gpu* g : gpus) {
        for (auto& d : devices_for(*g)) out.push_back(std::move(d));
    }
    return out;
}

namespace {

const char* vendor_words(const std::string& vendor) {
    if (vendor == "nvidia") return "NVIDIA";
    if (vendor == "amd") return "AMD";
    if (vendor == "intel") return "Intel";
    if (vendor == "apple") return "Apple";
    return "other";
}

// The --host flags that plan these GPUs as machines over llama.cpp's RPC: a unified-memory GPU
// (a Mac, an APU) is a machine of its own, discrete cards go one machine per vendor.
std::string hosts_for(const std::vector<MachineGpu>& gpus) {
    std::vector<std::pair<std::string, std::string>> hosts;  // (vendor, "id,id"); "" unified
    for (const MachineGpu& g : gpus) {
        auto at = std::find_if(hosts.begin(), hosts.end(),
                               [&](const auto& h) { return !g.unified && h.first == g.vendor; });
        if (at == hosts.end()) {
            hosts.emplace_back(g.unified ? "" : g.vendor, g.id);
        } else {
            at->second += "," + g.id;
        }
    }
    std::string flags;
    for (const auto& h : hosts) flags += (flags.empty() ? "" : " ") + ("--host '" + h.second + "'");
    return flags;
}

Result<std::vector<const Gpu*>> one_machine(std::vector<const Gpu*> gpus, const std::string& spec) {
    std::vector<MachineGpu> devices;
    devices.reserve(gpus.size());
    for (const Gpu* g : gpus) {
        devices.push_back({g->vendor, g->gpu_class == GpuClass::unified, g->short_name, g->id});
    }
    CANITRUN_TRY(check_one_machine(devices, "'" + spec + "'"));
    return gpus;
}

}  // namespace

// GPUs one llama.cpp process can drive together: a unified-memory GPU (a Mac, an APU) is a
// machine of its own, and one process runs one vendor's backend (CUDA, ROCm, SYCL) on discrete
// cards; cards of two vendors together need the Vulkan backend or llama.cpp's RPC, which
// canitrun plans as machines (--host). The one rule for named (--gpu LIST) and detected GPUs.
Result<bool> check_one_machine(const std::vector<MachineGpu>& gpus, const std::string& asked) {
    if (gpus.size() < 2) return true;
    for (const MachineGpu& g : gpus) {
        if (g.unified) {
            return fail(ErrorKind::bad_input,
                        asked + " puts " + g.name +
                            ", a unified-memory machine, beside other GPUs in one machine",
                        "a Mac or an APU is a machine of its own: plan them over llama.cpp's RPC, "
                        "one --host per machine: " +
                            hosts_for(gpus));
        }
    }
    for (const MachineGpu& g : gpus) {
        if (g.vendor != gpus.front().vendor) {
            return fail(ErrorKind::bad_input,
                        asked + " mixes " + vendor_words(gpus.front().vendor) + " and " +
                            vendor_words(g.vendor) +
                            " cards: one llama.cpp process runs one vendor's backend",
                        "drive them together through llama.cpp's RPC, one --host per vendor's "
                        "cards: " +
                            hosts_for(gpus) +
                            " (or build llama.cpp with Vulkan, which canitrun does not plan)");
        }
    }
    return true;
}

namespace {

// A '+' right after a word the database spells with one ("Max+" of "Ryzen AI Max+ 395") is part
// of the name; any other '+' separates GPUs, as a comma does ("4090+3090").
bool plus_in_name(const Database& db, const std::string& before) {
    std::size_t at = before.size();
    while (at > 0 && std::isalnum(static_cast<unsigned char>(before[at - 1]))) --at;
    if (at == before.size()) return false;
    const std::string word = normalize_name(before.substr(at)) + "+";
    for (const auto& g : db.gpus) {
        for (const auto* names : {&g.aliases, &g.variant_names}) {
            for (const auto& n : *names) {
                if (normalize_name(n).find(word) != std::string::npos) return true;
            }
        }
        if (normalize_name(g.name).find(word) != std::string::npos) return true;
    }
    return false;
}

// Where in the list an item that went wrong was, when the list has more than that item: the
// error shows what was typed ("unknown GPU 'foo' in '2xfoo,3090'").
std::string typed_context(const std::string& item, const std::string& spec) {
    if (trim(spec) == item) return "";
    return " in '" + spec.substr(0, 60) + (spec.size() > 60 ? "...'" : "'");
}

// The end of the list item that starts at `start`: the next ',' or separating '+'.
std::size_t item_end(const Database& db, const std::string& spec, std::size_t start) {
    std::size_t at = spec.find_first_of(",+", start);
    while (at != std::string::npos && spec[at] == '+' &&
           plus_in_name(db, spec.substr(start, at - start))) {
        at = spec.find_first_of(",+", at + 1);
    }
    return at;
}

// What a plan on these boards says of how they were read: the variant a shared name chose, and
// a board the runtime sees as several devices.
void add_spec_notes(const Database& db, const Gpu& gpu, const std::string& name,
                    std::vector<std::string>& notes) {
    const auto add = [&notes](std::string note) {
        if (std::find(notes.begin(), notes.end(), note) == notes.end())
            notes.push_back(std::move(note));
    };
    if (auto chose = variant_note(db, gpu, name)) add(std::move(*chose));
    if (gpu.devices > 1) {
        add("the " + display_name(gpu) + " is " + std::to_string(gpu.devices) +
            " GCDs that ROCm and llama.cpp see as " + std::to_string(gpu.devices) + " devices of " +
            std::to_string(gpu.vram_gb / gpu.devices) +
            " GB each; planned as such, each with its share of the bandwidth");
    }
}

}  // namespace

Result<GpuSelection> select_gpus(const Database& db, const std::string& spec) {
    GpuSelection selection;
    auto& gpus = selection.gpus;
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t end = item_end(db, spec, start);
        const std::string item =
            trim(spec.substr(start, end == std::string::npos ? std::string::npos : end - start));
        start = end == std::string::npos ? spec.size() + 1 : end + 1;
        if (item.empty()) {
            return fail(ErrorKind::bad_input, "empty GPU name in '" + spec + "'",
                        R"(write GPUs as "RTX 4090", "2x3090" or "4090,3090")");
        }
        const auto [count, name] = split_count(item);
        if (count == 0 || count > kMaxGpusPerSpec) {
            return fail(ErrorKind::bad_input,
                        "'" + item + "' asks for " + std::to_string(count) + " GPUs",
                        "give between 1 and " + std::to_string(kMaxGpusPerSpec) + " GPUs");
        }
        // The whole list counts: the 65th of 65 names asks for one GPU, the list for 65.
        if (gpus.size() + count > kMaxGpusPerSpec) {
            return fail(ErrorKind::bad_input,
                        "'" + spec.substr(0, 60) + (spec.size() > 60 ? "...'" : "'") +
                            " asks for more than " + std::to_string(kMaxGpusPerSpec) + " GPUs",
                        "give between 1 and " + std::to_string(kMaxGpusPerSpec) + " GPUs");
        }
        auto gpu = db.find_gpu(name);
        if (!gpu) {
            if (const auto big = oversized_count(db, item)) return std::unexpected(*big);
            Error e = gpu.error();
            e.message += typed_context(name, spec);
            return std::unexpected(e);
        }
        add_spec_notes(db, **gpu, name, selection.notes);
        for (std::uint64_t i = 0; i < count; ++i) gpus.push_back(*gpu);
    }
    CANITRUN_TRY_ASSIGN(gpus, one_machine(std::move(gpus), spec));
    return selection;
}

Result<std::vector<const Gpu*>> parse_gpu_spec(const Database& db, const std::string& spec) {
    CANITRUN_TRY_ASSIGN(auto selection, select_gpus(db, spec));
    return std::move(selection.gpus);
}

Bytes unified_host_memory(const Hardware& hardware) {
    Bytes host = 0;
    for (const auto& d : hardware.gpus) {
        if (!d.unified || d.gpu == nullptr || d.gpu->vram_bytes <= d.memory) continue;
        host = checked::add(host, d.gpu->vram_bytes - d.memory);
    }
    return host;
}

Bytes default_ram(const Hardware& hardware) {
    const Bytes host = unified_host_memory(hardware);
    return host != 0 ? host : checked::mul(kDefaultRamGb, kGB);
}

Result<Hardware> with_gpu_memory(Hardware hardware, Bytes memory) {
    if (hardware.gpus.empty()) {
        return fail(ErrorKind::bad_input, "--gpu-memory states a GPU's usable memory",
                    "name the GPU with --gpu, e.g. --gpu m4-max-128gb --gpu-memory 120");
    }
    for (auto& d : hardware.gpus) {
        if (!d.unified) {
            return fail(ErrorKind::bad_input,
                        "--gpu-memory is for unified memory (Apple silicon, an APU); the " +
                            d.name + " has its own VRAM",
                        "use --margin MIB to keep part of a discrete GPU free");
        }
        // The machine's memory bounds what its GPU may wire: the database's total for a named
        // Apple or APU machine, else the RAM detected or given.
        const Bytes machine = d.gpu != nullptr ? d.gpu->vram_bytes : hardware.ram;
        if (machine != 0 && memory > machine) {
            return fail(ErrorKind::bad_input,
                        "--gpu-memory is more than the " + d.name + " machine's " +
                            std::to_string(machine >> 30) + " GiB of memory",
                        "give at most the machine's memory, less what the system needs");
        }
        d.memory = memory;
    }
    return hardware;
}

std::string describe_gpus(const std::vector<GpuDevice>& gpus) {
    std::string out;
    for (std::size_t i = 0; i < gpus.size();) {
        std::size_t same = i + 1;
        while (same < gpus.size() && gpus[same].name == gpus[i].name) ++same;
        if (!out.empty()) out += " + ";
        if (same - i > 1) out += std::to_string(same - i) + "x ";
        out += gpus[i].name;
        i = same;
    }
    return out;
}

}  // namespace canitrun
