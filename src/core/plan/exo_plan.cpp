#include "canitrun/exo_plan.hpp"

#include <algorithm>
#include <iterator>

#include "canitrun/model_parts.hpp"

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

// The middle of sorted values, lowest first (the mean of the two middle ones of an even count):
// of the MLX runs' shares, and of exo's hop costs.
double middle_value(const std::vector<double>& s) {
    const std::size_t n = s.size();
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

}  // namespace

double exo_hop_seconds(const ExoHopRun& run) {
    if (run.hops == 0 || run.standalone_tokens_per_s <= 0 || run.pipelined_tokens_per_s <= 0) {
        return 0;
    }
    return (1.0 / run.pipelined_tokens_per_s - 1.0 / run.standalone_tokens_per_s) /
           static_cast<double>(run.hops);
}

ExoHopCost exo_hop_cost(const std::vector<ExoHopRun>& runs) {
    std::vector<double> each;
    for (const ExoHopRun& r : runs) each.push_back(exo_hop_seconds(r));
    ExoHopCost c;
    c.runs = each.size();
    if (each.empty()) return c;
    std::sort(each.begin(), each.end());
    c.middle = middle_value(each);
    c.low = each.front();
    c.high = each.back();
    return c;
}

ExoHopCost exo_hop_cost() {
    return exo_hop_cost(std::vector<ExoHopRun>(std::begin(kExoHopRuns), std::end(kExoHopRuns)));
}

namespace {

// The node's decode at its chip's MLX shares: its reads over its bandwidth times each.
void time_node(ExoNode& node, Bytes read, const GpuDevice& device,
               const std::vector<MlxShare>& mlx) {
    const std::vector<double> shares = mlx_shares_for(mlx, device);
    node.mlx_runs = shares.size();
    if (shares.empty() || device.bandwidth_gbps <= 0) return;
    const double at_full = static_cast<double>(read) / (device.bandwidth_gbps * 1e9);
    node.seconds_per_token = at_full / middle_value(shares);
    node.seconds_fastest = at_full / shares.back();
    node.seconds_slowest = at_full / shares.front();
}

}  // namespace

Result<ExoPlan> plan_exo(const Model& model, const Quant& quant, const Cluster& cluster,
                         const EstimateOptions& options, const std::vector<MlxShare>& mlx) {
    if (cluster.hosts.empty()) {
        return fail(ErrorKind::bad_input, "exo needs machines", "add --host GPUS for each");
    }
    CANITRUN_TRY_ASSIGN(auto parts, model_parts(model, quant, options));
    return catch_overflow(
        [&]() -> Result<ExoPlan> {
            std::vector<Bytes> memory;
            for (const Host& h : cluster.hosts) memory.push_back(node_memory(h));
            const std::vector<std::uint64_t> split = exo_layers(parts.layers.size(), memory);
            ExoPlan plan;
            plan.fits = true;
            std::uint64_t first = 0;
            double seconds[3] = {0, 0, 0};  // middle, fastest, slowest
            for (std::size_t i = 0; i < split.size(); ++i) {
                ExoNode node;
                node.host = i;
                node.memory = memory[i];
                node.first_layer = first;
                node.layers = split[i];
                for (std::uint64_t l = first; l < first + split[i]; ++l) {
                    const LayerPart& p = parts.layers[l];
                    node.weights = checked::add(node.weights, p.weights);
                    node.kv_cache =
                        checked::add(node.kv_cache, checked::add(p.kv_cache, p.recurrent_state));
                }
                const bool last = i + 1 == split.size();
                if (i == 0) node.weights = checked::add(node.weights, parts.input_weights);
                if (last) node.weights = checked::add(node.weights, parts.output_weights);
                node.overhead = checked::mul_div_ceil(checked::add(node.weights, node.kv_cache),
                                                      parts.overhead_percent, 100);
                time_node(node,
                          decode_read_bytes(parts, first, split[i],
                                            last ? mlx_head_bytes(model, quant) : 0),
                          node_device(cluster.hosts[i], i), mlx);
                if (node.mlx_runs == 0 && !plan.unmeasured_node) plan.unmeasured_node = i;
                seconds[0] += node.seconds_per_token;
                seconds[1] += node.seconds_fastest;
                seconds[2] += node.seconds_slowest;
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
            plan.hop = exo_hop_cost();
            const auto hops = static_cast<double>(plan.transfers);
            const double bytes = link_seconds(plan.bytes_per_transfer, cluster.link_gbits);
            plan.link_seconds_per_token = hops * (bytes + plan.hop.middle);
            plan.link_seconds_fastest = hops * (bytes + plan.hop.low);
            plan.link_seconds_slowest = hops * (bytes + plan.hop.high);
            if (!plan.unmeasured_node && seconds[0] > 0) {
                plan.decode_tokens_per_s = 1.0 / (seconds[0] + plan.link_seconds_per_token);
                plan.decode_high = 1.0 / (seconds[1] + plan.link_seconds_fastest);
                plan.decode_low = 1.0 / (seconds[2] + plan.link_seconds_slowest);
            }
            return plan;
        },
        [&] {
            return fail(ErrorKind::overflow, "the plan for " + model.id + " overflows 64 bits");
        });
}

}  // namespace canitrun
