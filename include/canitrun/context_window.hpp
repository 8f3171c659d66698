#pragma once
// The one rule for how long a context a model may be asked about: up to its native window
// freely, past it (up to the extended window its data records, YaRN and the like) with a
// warning, and never past that. No figure is computed for a context the model cannot run.

#include <cstdint>

#include "canitrun/error.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// The longest context the model runs at: the extended window where the data has one.
std::uint64_t longest_supported_context(const Model& model);

enum class ContextStatus {
    within_native,  // at most the trained window
    extended,       // past it, within the extended (YaRN) window: quality may drop
};

// Refuses a context past longest_supported_context(model), with the windows in the message.
Result<ContextStatus> check_context(const Model& model, std::uint64_t context);

}  // namespace canitrun
