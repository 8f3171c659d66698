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
// is not MLX's). Each hop round the ring carries the hidden state in 16-bit floats and costs,
// besides its bytes, exo's own per-hop time fitted on exo's measured runs (kExoHopRuns). Pure:
// no I/O.

#include <cstddef>
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

// One published exo measurement of the same model standalone on one Mac and pipelined over
// several. Pipelined, each Mac reads its share of the layers at the rate it reads them all
// standalone, so the compute sums to the standalone time and what the pipeline adds is its hops
// (the hidden state's bytes take microseconds over Thunderbolt): 1 / pipelined - 1 / standalone
// over the hops is one hop's cost. Only runs whose Macs decode the model at the same standalone
// speed qualify; the readings are the reporter's rounded ones.
struct ExoHopRun {
    double standalone_tokens_per_s = 0;
    double pipelined_tokens_per_s = 0;
    std::uint64_t hops = 0;  // round the ring per token: one per Mac
    const char* machines = "";
    const char* quote = "";
};

// exo issue #2070 (exo 1.0.71, gpt-oss-120b, pipeline over TCP/IP on a Thunderbolt 5 cable, May
// 2026): an M4 Max and an M5 Max MacBook Pro (128 GB each, so 18 layers each), then two M5 Max.
// The whole hop, exo's work included: more than the link's round trip (0.38 to 0.95 ms over
// Thunderbolt as exo issue #2295 is quoted). Two runs on one link: an assumption elsewhere.
inline constexpr const char* kExoHopSource = "https://github.com/exo-explore/exo/issues/2070";
inline constexpr ExoHopRun kExoHopRuns[] = {
    {80, 68, 2, "an M4 Max and an M5 Max MacBook Pro, 128 GB each",
     "standalone on either M4Max or M5Max using EXO: +- 80tokens/s; running on both using "
     "pipeline/TCPIP using EXO: +- 68tokens/s"},
    {89, 68, 2, "two M5 Max MacBook Pros, 128 GB each",
     "Standalone on one Machine 89 tokens/s; Pipeline - TCP/IP 68 tokens/s"},
};

// One run's cost per hop, in seconds.
double exo_hop_seconds(const ExoHopRun& run);

// The runs' hop costs: the middle (the mean of the two middle ones of an even count), lowest
// and highest.
struct ExoHopCost {
    double middle = 0, low = 0, high = 0;
    std::size_t runs = 0;
};
ExoHopCost exo_hop_cost(const std::vector<ExoHopRun>& runs);
// kExoHopRuns' cost: about 1.42 ms a hop, 1.10 to 1.73.
ExoHopCost exo_hop_cost();

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
    ExoHopCost hop;                // exo's cost per hop besides its bytes (exo_hop_cost())
    // The hops' time per token at the middle, lowest and highest hop cost.
    double link_seconds_per_token = 0, link_seconds_fastest = 0, link_seconds_slowest = 0;
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
