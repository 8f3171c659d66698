#pragma once
// Several machines as one question: each host is the GPUs of one box (and its RAM), joined by
// a network link. The first host is the one the user starts the engine on (llama-server's
// main host, vLLM's Ray head, exo's first node); the others serve it.

#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/hardware.hpp"

namespace canitrun {

// 10 Gb Ethernet (IEEE 802.3ae): the link assumed between hosts unless --link says otherwise.
inline constexpr double kDefaultLinkGbits = 10.0;
inline constexpr std::size_t kMaxHosts = 64;

struct Host {
    std::string spec;   // as given: "8xh100-sxm", "2x3090:ram=128"
    Hardware hardware;  // its GPUs as the runtime sees them, its RAM
};

struct Cluster {
    std::vector<Host> hosts;
    double link_gbits = kDefaultLinkGbits;  // between any two hosts, each direction

    std::size_t gpu_count() const;
};

// "8xh100-sxm", "m3-ultra-256gb", "2x3090:ram=128": one host's GPUs as --gpu names them, and
// its system RAM: `:ram=` GB, else `given_ram` (--ram), else default_ram (hardware.hpp: a
// unified-memory machine's CPU share, else 32 GB), the rule --gpu follows.
Result<Host> parse_host(const Database& db, const std::string& spec,
                        std::optional<Bytes> given_ram);

// A link speed in gigabits per second: "10", "10gbe", "25GbE", "1gbit", "40gbps". Between 0.1
// and 10000.
Result<double> parse_link_gbits(const std::string& text);

// Seconds `bytes` take over the link (gigabits per second), without its latency.
double link_seconds(Bytes bytes, double link_gbits);

// A host's CPU and RAM as one device (llama.cpp's rpc-server on a host without a GPU, an exo
// node without one): its RAM as memory, its RAM bandwidth.
GpuDevice host_cpu_device(const Host& host, std::size_t index);

// "host 1 (8x NVIDIA H100 SXM)"
std::string describe_host(const Cluster& cluster, std::size_t index);

}  // namespace canitrun
