#include "canitrun/exo_plan.hpp"

#include <algorithm>

#include "canitrun/model_parts.hpp"
#include "canitrun/rpc_plan.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {

Bytes ExoNode::total() const {
    return checked::add(checked::add(weights, kv_cache), overhead);
}

std::vector<std::uint64_t> exo_layers(std::uint64_t layers, const std::vector<Bytes>& memory) {
    const std::size_t n = memory.size();
    std::vector<std::uint64_t> out(n, 0);
    Bytes all = 0;
    for (Bytes m : memory) all = checked::add(all, m);
    if (n == 0 || all == 0) return out;
    // Floors of layers x memory / all, then the remainder by the largest fractional parts
    // (compared exactly as the numerators of those fractions).
    std::vector<checked::Wide> rest(n);
    std::uint64_t given = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const checked::Wide raw = static_cast<checked::Wide>(layers) * memory[i];
        out[i] = static_cast<std::uint64_t>(raw / all);
        rest[i] = raw % all;
        given += out[i];
    }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
    for (std::size_t k = 0; given < layers && k < n; ++k, ++given) ++out[order[k]];
    // At least one layer per node, taken from the node with the most.
    for (std::size_t i = 0; i < n && layers >= n; ++i) {
        if (out[i] > 0) continue;
        const auto most = std::max_element(out.begin(), out.end());
        --*most;
        out[i] = 1;
    }
    return out;
}

namespace {

Bytes node_memory(const Host& h) {
    if (h.hardware.gpus.empty()) return h.hardware.ram;
    Bytes m = 0;
    for (const GpuDevice& d : h.hardware.gpus) m = checked::add(m, d.memory);
    return m;
}

// One host as the one device its node computes on: its memory, its slowest bandwidth.
GpuDevice node_device(const Host& h, std::size_t index) {
    if (h.hardware.gpus.empty()) return host_cpu_device(h, index);
    GpuDevice d = h.hardware.gpus.front();
    for (const GpuDevice& g : h.hardware.gpus) {
        d.bandwidth_gbps = std::min(d.bandwidth_gbps, g.bandwidth_gbps);
    }
    d.memory = node_memory(h);
    return d;
}

}  // namespace

Result<ExoPlan> plan_exo(const Model& model, const Quant& quant, const Cluster& cluster,
                         const EstimateOptions& options) {
    if (cluster.hosts.empty()) {
        return fail(ErrorKind::bad_input, "exo needs machines", "add --host GPUS for each");
    }
    CANITRUN_TRY_ASSIGN(auto parts, model_parts(model, quant, options));
    return catch_overflow(
        [&]() -> Result<ExoPlan> {
            std::vector<Bytes> memory;
            for (const Host& h : cluster.hosts) memory.push_back(node_memory(h));
            const std::vector<std::uint64_t> split = exo_layers(parts.layers.size(), memory);
            const SpeedModel& sm = fitted_speed_model();
            ExoPlan plan;
            plan.fits = true;
            std::uint64_t first = 0;
            double device_seconds = 0;
            bool speed_known = true;
            for (std::size_t i = 0; i < split.size(); ++i) {
                ExoNode node;
                node.host = i;
                node.memory = memory[i];
                node.first_layer = first;
                node.layers = split[i];
                Bytes active = 0;
                for (std::uint64_t l = first; l < first + split[i]; ++l) {
                    const LayerPart& p = parts.layers[l];
                    node.weights = checked::add(node.weights, p.weights);
                    node.kv_cache =
                        checked::add(node.kv_cache, checked::add(p.kv_cache, p.recurrent_state));
                    active = checked::add(active, p.active_weights);
                }
                if (i == 0) node.weights = checked::add(node.weights, parts.input_weights);
                if (i + 1 == split.size()) {
                    node.weights = checked::add(node.weights, parts.output_weights);
                    active = checked::add(active, parts.output_weights);
                }
                node.overhead = checked::mul_div_ceil(checked::add(node.weights, node.kv_cache),
                                                      parts.overhead_percent, 100);
                // The node's reads on its one device, by the fitted decode rule.
                Hardware one;
                one.gpus.push_back(node_device(cluster.hosts[i], i));
                SpeedWork work;
                work.gpus.push_back({});
                work.gpus[0].read_bytes = static_cast<double>(active + node.kv_cache);
                work.gpus[0].layers = node.layers;
                if (one.gpus[0].bandwidth_gbps > 0) {
                    node.seconds_per_token = decode_seconds(work, one, sm);
                } else {
                    speed_known = false;
                }
                device_seconds += node.seconds_per_token;
                plan.fits = plan.fits && node.fits();
                first += split[i];
                plan.nodes.push_back(node);
            }
            for (std::size_t i = 1; i < plan.nodes.size(); ++i) {
                if (plan.nodes[i].seconds_per_token >
                    plan.nodes[plan.slowest_node].seconds_per_token)
                    plan.slowest_node = i;
            }
            // Round the ring: node to node, and the last back to the first for the next token.
            plan.transfers = plan.nodes.size() > 1 ? plan.nodes.size() : 0;
            plan.bytes_per_transfer = checked::mul(model.arch.hidden_size, 2);
            plan.link_seconds_per_token =
                static_cast<double>(plan.transfers) *
                (link_seconds(plan.bytes_per_transfer, cluster.link_gbits) + kRpcTransferSeconds);
            if (speed_known && device_seconds > 0) {
                plan.decode_tokens_per_s = 1.0 / (device_seconds + plan.link_seconds_per_token);
            }
            return plan;
        },
        [&] {
            return fail(ErrorKind::overflow, "the plan for " + model.id + " overflows 64 bits");
        });
}

}  // namespace canitrun
