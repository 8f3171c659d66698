#include "canitrun/cluster.hpp"

#include "canitrun/name_match.hpp"
#include "canitrun/parse.hpp"

namespace canitrun {

std::size_t Cluster::gpu_count() const {
    std::size_t n = 0;
    for (const Host& h : hosts) n += h.hardware.gpus.size();
    return n;
}

Result<Host> parse_host(const Database& db, const std::string& spec,
                        std::optional<Bytes> given_ram) {
    Host host;
    host.spec = spec;
    std::string gpus = spec;
    std::optional<Bytes> ram_setting = given_ram;
    if (const std::size_t colon = spec.find(':'); colon != std::string::npos) {
        gpus = spec.substr(0, colon);
        const std::string rest = spec.substr(colon + 1);
        if (rest.rfind("ram=", 0) != 0) {
            return fail(ErrorKind::bad_input,
                        "unknown host setting '" + rest + "' in '" + spec + "'",
                        "write a host as GPUS or GPUS:ram=GB, e.g. 2x3090:ram=128");
        }
        CANITRUN_TRY_ASSIGN(auto ram, parse_gb(rest.substr(4)));
        ram_setting = ram;
    }
    CANITRUN_TRY_ASSIGN(auto selection, select_gpus(db, gpus));
    host.hardware.gpus = devices_for(selection.gpus);
    host.hardware.notes = std::move(selection.notes);
    host.hardware.ram = ram_setting ? *ram_setting : default_ram(host.hardware);
    return host;
}

Result<double> parse_link_gbits(const std::string& text) {
    std::string s = to_lower(text);
    for (const char* suffix : {"gbit/s", "gbits", "gbit", "gb/s", "gbps", "gbe", "g"}) {
        const std::string suf(suffix);
        if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
            s.resize(s.size() - suf.size());
            break;
        }
    }
    // parse_bandwidth reads the same decimal range; only the unit differs.
    auto value = parse_bandwidth(s);
    if (!value || *value > 10000) {
        return fail(ErrorKind::bad_input, "invalid link speed '" + text + "'",
                    "give gigabits per second between 0.1 and 10000, for example 10 or 25gbe");
    }
    return *value;
}

double link_seconds(Bytes bytes, double link_gbits) {
    return static_cast<double>(bytes) * 8.0 / (link_gbits * 1e9);
}

GpuDevice host_cpu_device(const Host& host, std::size_t index) {
    GpuDevice d;
    d.name = "CPU of host " + std::to_string(index + 1);
    d.memory = host.hardware.ram;
    d.bandwidth_gbps = host.hardware.ram_bandwidth_gbps;
    return d;
}

std::string describe_host(const Cluster& cluster, std::size_t index) {
    const Host& h = cluster.hosts.at(index);
    return "host " + std::to_string(index + 1) + " (" + describe_gpus(h.hardware.gpus) + ")";
}

}  // namespace canitrun
