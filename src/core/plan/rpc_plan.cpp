#include "canitrun/rpc_plan.hpp"

#include "canitrun/launch_command.hpp"

namespace canitrun {

RpcDevices rpc_devices(const Cluster& cluster) {
    RpcDevices r;
    for (std::size_t h = 1; h < cluster.hosts.size(); ++h) {
        const Host& host = cluster.hosts[h];
        if (host.hardware.gpus.empty()) {
            r.hardware.gpus.push_back(host_cpu_device(host, h));
            r.device_host.push_back(h);
        }
        for (const GpuDevice& d : host.hardware.gpus) {
            // rpc-server allocates on the remote GPU alone: its memory is no part of the
            // server's RAM (and the server's RAM none of it), so to the plan it is discrete.
            r.hardware.gpus.push_back(d);
            r.hardware.gpus.back().unified = false;
            r.device_host.push_back(h);
        }
    }
    if (!cluster.hosts.empty()) {
        const Hardware& main = cluster.hosts[0].hardware;
        for (const GpuDevice& d : main.gpus) {
            r.hardware.gpus.push_back(d);
            r.device_host.push_back(0);
        }
        r.hardware.ram = main.ram;
        r.hardware.ram_bandwidth_gbps = main.ram_bandwidth_gbps;
    }
    return r;
}

RpcTraffic rpc_traffic(const Model& model, const Placement& placement, const RpcDevices& devices,
                       double link_gbits) {
    // Walk the layers in order: the input embedding is computed on host 1 (RAM), then each
    // device that holds layers, then the logits come back to host 1. Every change of host
    // between consecutive holders crosses the network, twice between two remote hosts.
    RpcTraffic t;
    const Bytes activation = checked::mul(model.arch.hidden_size, kF32Bytes);
    std::size_t at = 0;  // host 1
    const auto move_to = [&](std::size_t host, Bytes bytes) {
        if (host == at) return;
        const std::uint64_t n = (host != 0 && at != 0) ? 2 : 1;
        t.transfers += n;
        t.bytes_per_token = checked::add(t.bytes_per_token, checked::mul(bytes, n));
        at = host;
    };
    for (std::size_t i = 0; i < placement.gpus.size() && i < devices.device_host.size(); ++i) {
        const Share& s = placement.gpus[i];
        if (s.layers == 0 && !s.output) continue;
        move_to(devices.device_host[i], activation);
    }
    // The logits (one f32 per vocabulary entry) go from the output head's host to host 1.
    move_to(0, checked::mul(model.arch.vocab_size, kF32Bytes));
    t.seconds_per_token = link_seconds(t.bytes_per_token, link_gbits) +
                          static_cast<double>(t.transfers) * kRpcTransferSeconds;
    return t;
}

Result<RpcAnswer> answer_rpc(const Model& model, const Quant& quant, const Cluster& cluster,
                             const PlanSettings& settings, const PlacementOptions& placement) {
    if (cluster.hosts.empty()) {
        return fail(ErrorKind::bad_input, "llama.cpp RPC needs hosts", "add --host GPUS");
    }
    RpcAnswer r;
    r.devices = rpc_devices(cluster);
    CANITRUN_TRY_ASSIGN(auto a, answer_for(model, quant, r.devices.hardware, settings, placement));
    r.answer = std::move(a);
    const Placement& p = r.answer.plan.placement;
    r.traffic = rpc_traffic(model, p, r.devices, cluster.link_gbits);
    r.host_bytes.assign(cluster.hosts.size(), 0);
    for (std::size_t i = 0; i < p.gpus.size() && i < r.devices.device_host.size(); ++i) {
        Bytes& b = r.host_bytes[r.devices.device_host[i]];
        b = checked::add(b, p.gpus[i].total());
    }
    r.host_bytes[0] = checked::add(r.host_bytes[0], p.ram.total());
    // Decode pays the network once per token; prefill once per micro-batch of ubatch tokens
    // for the latency, and per token for the bytes.
    Speed& s = r.answer.speed;
    const auto slower = [&](double tokens_per_s, double extra) {
        return tokens_per_s > 0 ? 1.0 / (1.0 / tokens_per_s + extra) : 0;
    };
    s.decode_tokens_per_s = slower(s.decode_tokens_per_s, r.traffic.seconds_per_token);
    if (s.decode_at_context) {
        s.decode_at_context = slower(*s.decode_at_context, r.traffic.seconds_per_token);
    }
    if (s.prefill_tokens_per_s && settings.ubatch > 0) {
        const double per_token = link_seconds(r.traffic.bytes_per_token, cluster.link_gbits) +
                                 static_cast<double>(r.traffic.transfers) * kRpcTransferSeconds /
                                     static_cast<double>(settings.ubatch);
        s.prefill_tokens_per_s = slower(*s.prefill_tokens_per_s, per_token);
    }
    // The measured bands were earned without a network; they do not cover this.
    if (r.traffic.transfers > 0) {
        s.decode_band.reset();
        s.prefill_band.reset();
    }
    return r;
}

RpcLaunch rpc_launch(const RpcAnswer& rpc, const LaunchTarget& target) {
    RpcLaunch l;
    std::size_t hosts = 1;
    for (std::size_t h : rpc.devices.device_host) hosts = std::max(hosts, h + 1);
    const std::string port = std::to_string(kRpcPort);
    l.rpc_server_args = {"--host", "0.0.0.0", "--port", port};
    std::string servers;
    for (std::size_t h = 1; h < hosts; ++h) {
        l.server_hosts.push_back(h);
        servers += (servers.empty() ? "" : ",") + std::string("HOST") + std::to_string(h + 1) +
                   "_IP:" + port;
    }
    l.llama_server_args = llama_server_args(target, rpc.answer.settings, &rpc.devices.hardware,
                                            &rpc.answer.plan.placement);
    if (!servers.empty()) {
        l.llama_server_args.emplace_back("--rpc");
        l.llama_server_args.push_back(servers);
    }
    return l;
}

}  // namespace canitrun
