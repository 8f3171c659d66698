#pragma once
// The settings a log was run with, read from its command line where the log records one (the
// corpus files' "# settings:" header, validation/llama-logs/): which layers' routed experts
// -ot / --override-tensor, --n-cpu-moe and --cpu-moe put in host memory. A log whose own
// "buffer type overridden" lines were kept says it itself; many published logs drop them.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace canitrun {

// What a note says where the log's placement is one canitrun's cannot express (-ot onto a
// chosen GPU, --split-mode row, the output head behind offloaded layers): verify's verdicts on
// named cards then say they weigh canitrun's placement, and tools/accuracy/gpu_logs.py leaves
// the log out of its figures.
inline constexpr std::string_view kPlacementDiffers = "canitrun's placement cannot say that";

struct CommandLineExperts {
    std::set<std::uint64_t> host_layers;  // layers whose experts go to a host buffer
    std::vector<std::string> notes;       // patterns it could not read or place
    bool gpu_targets = false;             // an override names a GPU buffer (=CUDA0)
};

// nullopt when the command line names none of those flags.
std::optional<CommandLineExperts> command_line_experts(std::string_view command_line,
                                                       std::uint64_t layers);

// -ts / --tensor-split 3,1 (or 0.3,0.7; "/" separates too, as llama.cpp's common/arg.cpp
// allows): each GPU's proportion, in millionths so that fractions stay integers. nullopt when
// the command line gives none or a value is not a number.
std::optional<std::vector<std::uint64_t>> command_line_tensor_split(std::string_view command_line);

// Whether the run offloads ops (llama.cpp's default): false where the command line gives
// --no-op-offload (common/arg.cpp; a later --op-offload turns it back on).
bool command_line_op_offload(std::string_view command_line);

}  // namespace canitrun
