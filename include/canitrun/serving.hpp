#pragma once
// Several users at once on one plan. llama-server runs --parallel N slots that share its
// -c cells (each slot gets n_ctx / N, llama_context), so N users of C tokens each are the plan
// with N sequences and N x C cells; its batched decode reads the weights once per step for all
// N tokens and each user's cache, so per-user speed falls slowly and the total rises until the
// GPU's arithmetic, not its memory, sets the pace. Pure: no I/O.

#include <cstdint>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/speed.hpp"
#include "canitrun/vllm_engine.hpp"

namespace canitrun {

// llama.cpp's most sequences (LLAMA_MAX_SEQ in src/llama-cparams.h).
inline constexpr std::uint64_t kLlamaMaxSequences = 256;

// The settings for `users` users of `per_user_context` tokens each: N sequences, N x C cells.
Result<PlanSettings> settings_for_users(const PlanSettings& base, std::uint64_t users,
                                        std::uint64_t per_user_context);

struct ServingSpeed {
    std::uint64_t users = 0;
    double per_user_tokens_per_s = 0;  // each user's decode speed, caches full
    double total_tokens_per_s = 0;     // users x that
    bool compute_bound = false;        // the batch's arithmetic, not its reads, sets the step
};

// One decode step of `users` sequences whose caches are full: the weights read once (for an
// MoE model the experts the users' tokens route to: E x (1 - (1 - k/E)^N) of them, routing
// taken as uniform), every sequence's cache, and at least the batch's arithmetic at the
// prefill rate. `placement` is the plan for `users` sequences over `total_context` cells. The
// speed model has no batched measurement: the figures carry no error band.
ServingSpeed batched_decode(const Model& model, const Quant& quant, const Placement& placement,
                            const Hardware& hardware, std::uint64_t total_context,
                            std::uint64_t users, const SpeedModel& m = fitted_speed_model());

// vLLM's decode of `users` sequences at the estimate's context on its layout: on each GPU of each
// stage one step reads its rank's active weights (experts as above) and every sequence's pages,
// at the device class's fitted bandwidth share, or the batch's arithmetic at its tensor rate,
// whichever is longer; the stages add up (one token crosses them all). Collectives between the
// tensor-parallel ranks and vLLM's kernels differ from llama.cpp's: an estimate with no band.
// `stage_devices`: one GPU per stage.
ServingSpeed vllm_batched_decode(const Model& model, const VllmEstimate& estimate,
                                 const std::vector<GpuDevice>& stage_devices, std::uint64_t users,
                                 const SpeedModel& m = fitted_speed_model());

struct ServingCapacity {
    std::uint64_t per_user_context = 0;
    std::uint64_t max_users = 0;  // 0: not even one user fits natively
    HardwareAnswer answer;        // the plan at max_users (valid when max_users > 0)
    ServingSpeed speed;
};

// The most users (up to llama.cpp's 256 sequences) whose caches of `settings.estimate.context`
// tokens each fit the GPUs with the model (a native plan).
Result<ServingCapacity> llamacpp_capacity(const Model& model, const Quant& quant,
                                          const Hardware& hardware, const PlanSettings& settings);

}  // namespace canitrun
