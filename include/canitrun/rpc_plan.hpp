#pragma once
// llama.cpp over several machines with its RPC backend: `rpc-server` on every host but the
// first, `llama-server --rpc host:port,...` on the first. llama.cpp then sees one list of
// devices and splits the layers over it exactly as over local GPUs, so the plan is the planner's
// own (answer_for) on that list; what the network adds is the activations that cross it.
//
// - Device order (src/llama.cpp, llama_prepare_model_devices: "add RPC servers at the front of
//   the list to minimize network transfers"): the RPC devices first, in --rpc order, then the
//   first host's own GPUs, so the output head and its logits stay local.
// - One rpc-server exposes every GPU of its host as its own device (llama.cpp PR #16276); a
//   host without a GPU serves its CPU and RAM as one device.
// - Layers the GPUs cannot hold run on the first host's CPU from its RAM (-ngl).
// - A tensor between two servers goes through the first host (ggml-rpc has no copy between
//   servers: ggml_backend_rpc_buffer_cpy_tensor refuses, ggml_backend_tensor_copy falls back
//   to get then set), so a boundary between two remote hosts is two network transfers.
// Pure: no I/O.

#include <cstdint>
#include <string>
#include <vector>

#include "canitrun/cluster.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/launch_command.hpp"

namespace canitrun {

// rpc-server's default port (tools/rpc/rpc-server.cpp).
inline constexpr std::uint64_t kRpcPort = 50052;

// The cost of one tensor transfer over the network besides its bytes: llama.cpp PR #6829
// measured TinyLlama 1.1B F16 at 60 tokens/s through rpc-server on the same host and 42 over
// 1 Gb Ethernet, 7.1 ms more per token for two transfers (embedding in, logits out: 136 KB,
// 1.1 ms at 1 Gb/s), so about 3.0 ms each. One measurement (April 2024, 1 GbE): an assumption
// for other links, not a fit.
inline constexpr double kRpcTransferSeconds = 0.0030;

struct RpcDevices {
    Hardware hardware;                     // every device, in llama.cpp's order; host 1's RAM
    std::vector<std::size_t> device_host;  // the host of each of hardware.gpus
};

RpcDevices rpc_devices(const Cluster& cluster);

struct RpcTraffic {
    std::uint64_t transfers = 0;   // tensors over the network per decoded token
    Bytes bytes_per_token = 0;     // their bytes (f32 activations, logits)
    double seconds_per_token = 0;  // bytes / link + transfers x kRpcTransferSeconds
};

// What one decoded token sends over the network under this placement.
RpcTraffic rpc_traffic(const Model& model, const Placement& placement, const RpcDevices& devices,
                       double link_gbits);

struct RpcAnswer {
    RpcDevices devices;
    HardwareAnswer answer;  // the planner's, on every device; speed with the network added
    RpcTraffic traffic;
    std::vector<Bytes> host_bytes;  // what each host holds (its GPUs, host 1 also its RAM)
};

Result<RpcAnswer> answer_rpc(const Model& model, const Quant& quant, const Cluster& cluster,
                             const PlanSettings& settings, const PlacementOptions& placement = {});

// What to start, as argument lists (the CLI joins them): `rpc-server --host 0.0.0.0 --port
// 50052` on each host but the first, then llama-server on host 1 with the plan's flags and
// --rpc HOST2_IP:50052,... (the addresses are the user's to fill in).
struct RpcLaunch {
    std::vector<std::size_t> server_hosts;  // hosts that run rpc-server
    std::vector<std::string> rpc_server_args;
    std::vector<std::string> llama_server_args;
};
RpcLaunch rpc_launch(const RpcAnswer& rpc, const LaunchTarget& target);

}  // namespace canitrun
