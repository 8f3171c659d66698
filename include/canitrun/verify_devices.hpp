#pragma once
// `canitrun verify` per device: each buffer a llama.cpp log reports on each device (CUDA0,
// CUDA1, ROCm0, Vulkan0, MTL0, SYCL0, and the host's CPU, CPU_Mapped, CUDA_Host ...) beside
// canitrun's plan of the same model on the same devices with the settings the log shows: its
// context, ubatch, sequences, unified KV, flash attention, cache types, offloaded layers, the
// layers whose experts were overridden to host memory, and llama.cpp's default split (in
// proportion to each device's free memory, where the log gives it).

#include <optional>
#include <string>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/llama_log.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

struct VerifyDeviceRow {
    std::string device;  // the log's name: "CUDA0", "host" for every host buffer together
    std::string term;    // "weights", "kv_cache", "recurrent_state", "compute", "output"
    std::optional<Bytes> estimate;
    std::optional<Bytes> actual;
};

// On named hardware (verify --gpu, else the GPUs the log names where the database has them),
// one GPU's verdict: the plan's total there (its buffers and the runtime's own memory, what
// a plan's verdict counts) against the card's capacity (its memory less the margin every plan
// keeps free, kDefaultMargin).
struct DeviceFit {
    std::string device;  // the log's name: "CUDA0"
    std::string gpu;     // the card planned on: "NVIDIA GeForce RTX 3090"
    Bytes used = 0;
    Bytes capacity = 0;
    bool fits() const { return used <= capacity; }
};

struct DeviceCheck {
    std::vector<std::string> gpus;  // the log's GPU devices, in llama.cpp's order
    std::uint64_t host_expert_layers = 0;
    std::optional<std::uint64_t> gpu_layers;
    std::vector<VerifyDeviceRow> rows;
    std::vector<std::string> notes;
    // Whether the log's count of the file's tensors per type is the plan's: false where the
    // file's recipe is not the one canitrun's data holds for it (its weights rows compare that
    // recipe, not a rule), nullopt where the log prints no counts.
    std::optional<bool> file_types_match;
    // The plan's share of each GPU, in the order of `gpus` (what check_on_hardware weighs).
    std::vector<Share> planned;
    // Filled by check_on_hardware: per GPU, the runtime term (canitrun's, against the card's
    // memory less the free memory the log reports: what the driver, the runtime and any other
    // process held when llama.cpp loaded), apart from `rows`, which hold llama.cpp's buffers
    // only; and each GPU's verdict on the named card.
    std::vector<VerifyDeviceRow> runtime;
    std::vector<DeviceFit> fit;
};

// The GPU devices a log's buffers name, in the order llama.cpp numbers them.
std::vector<std::string> log_gpu_devices(const LlamaLog& log);

// nullopt when the log shows no GPU buffer (a CPU-only log: the totals say it all).
Result<std::optional<DeviceCheck>> verify_devices(const LlamaLog& log, const LlamaLogContext& c,
                                                  const Model& model, const Quant& quant);

// The check on named cards, each list one entry per GPU of the check in its order (the CLI
// resolves the names). `logged`: the database card the log names for each GPU (null where it
// names none the database has); a runtime row for each GPU whose card is known and whose free
// memory the log gives. `hardware`: the cards the plan is weighed on (--gpu, else the log's
// own); empty: no verdicts.
void check_on_hardware(const LlamaLog& log, const std::vector<const Gpu*>& logged,
                       const std::vector<GpuDevice>& hardware, DeviceCheck& check);

// llama.cpp's options of a context the log built (its n_ctx, ubatch, sequences, unified cache,
// flash attention and cache types) on a backend.
LlamaCppOptions options_from_log(const LlamaLogContext& context, Backend backend);

// The last llama.cpp build known to make f32 KQ masks under flash attention (b9174, before PR
// #23764), and whether a log's build (none printed: taken as older) is one of those.
inline constexpr std::uint64_t kLastBuildWithF32Mask = 9174;
bool before_f16_mask(std::optional<std::uint64_t> build);

// The last llama.cpp build known to run the MoE experts' activation without ggml's GLU ops (b5622,
// validation/llama-logs/cudax-006 of 2025-06-10; the ops came with ggml PR #14158 and #14181,
// 2025-06-29, in a build not pinned down, by b5781 likely): whether a log's build is one of
// those. A log that prints no build, or build 1 (a source tree without git), is read as the
// pinned graph: its date is not known.
inline constexpr std::uint64_t kLastBuildWithoutGlu = 5622;
bool before_glu_ops(std::optional<std::uint64_t> build);

}  // namespace canitrun
