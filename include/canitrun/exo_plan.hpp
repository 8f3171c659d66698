#pragma once
// exo over several machines: a pipeline of whole layers, each machine a node that holds a
// share of the layers in proportion to its memory, the token passing from node to node round
// the ring. The rule is exo's own (src/exo/master/placement_utils.py,
// allocate_layers_proportionally, at b5375f8c): each node's share of the layers is its memory
// over the ring's, floored, the layers left over going to the largest fractional parts, and a
// node left with none taking one from the node with the most; nodes in the order of the ring
// (here the order of --host). exo weighs nodes by available RAM; canitrun gives each host the
// memory its accelerator may use (the unified-memory share on a Mac, where exo runs MLX; the
// GPUs' memory elsewhere; RAM on a host without one). Decode is timed by MLX's published runs
// (mlx_speed.hpp): each node reads its layers at its chip's bandwidth times the share MLX
// reached there; a node on a chip with no run leaves the plan without a speed (llama.cpp's fit
// is not MLX's). Each hop round the ring carries the hidden state in 16-bit floats and costs
// llama.cpp RPC's measured 3.0 ms besides its bytes (rpc_plan.hpp; no exo measurement is on
// record). Pure: no I/O.

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/cluster.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/mlx_speed.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// exo's API and dashboard port (src/exo/main.py, --api-port).
inline constexpr std::uint64_t kExoApiPort = 52415;

// Layers per node, in ring order; every node gets at least one when there are enough layers.
std::vector<std::uint64_t> exo_layers(std::uint64_t layers, const std::vector<Bytes>& memory);

struct ExoNode {
    std::size_t host = 0;
    Bytes memory = 0;  // what the partition weighs and what the node's bytes must fit
    std::uint64_t first_layer = 0;
    std::uint64_t layers = 0;
    Bytes weights = 0;   // its layers (and the embedding on the first, the head on the last)
    Bytes kv_cache = 0;  // its layers' cache and recurrent state at the context
    Bytes overhead = 0;  // the quick rule's percentage on its share (exo's own is unmeasured)
    // Decode: its reads at its bandwidth times the middle, highest and lowest share MLX's runs
    // on its chip reached (0 when none is on record).
    double seconds_per_token = 0, seconds_fastest = 0, seconds_slowest = 0;
    std::size_t mlx_runs = 0;  // the runs on its chip

    Bytes total() const;
    bool fits() const { return total() <= memory; }
};

struct ExoPlan {
    std::vector<ExoNode> nodes;
    bool fits = false;
    std::uint64_t transfers = 0;   // hops per token round the ring (0 on one node)
    Bytes bytes_per_transfer = 0;  // the hidden state in 16-bit floats
    double link_seconds_per_token = 0;
    // 0 when a node's chip has no MLX run on record (the first such node: unmeasured_node).
    double decode_tokens_per_s = 0, decode_low = 0, decode_high = 0;
    std::size_t slowest_node = 0;  // the node that takes longest per token
    std::optional<std::size_t> unmeasured_node;
};

// The model at the quantization's rate (the quick rule's parts) over the cluster's hosts, timed
// by the MLX runs' shares (mlx_shares()).
Result<ExoPlan> plan_exo(const Model& model, const Quant& quant, const Cluster& cluster,
                         const EstimateOptions& options, const std::vector<MlxShare>& mlx);

}  // namespace canitrun
