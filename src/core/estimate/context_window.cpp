#include "canitrun/context_window.hpp"

#include <algorithm>

#include "canitrun/token_text.hpp"

namespace canitrun {

std::uint64_t longest_supported_context(const Model& model) {
    return std::max(model.context_native, model.context_extended);
}

Result<ContextStatus> check_context(const Model& model, std::uint64_t context) {
    // A model without a recorded window (some files carry none) is taken at its word: no cap.
    if (model.context_native == 0 || context <= model.context_native) {
        return ContextStatus::within_native;
    }
    const std::uint64_t longest = longest_supported_context(model);
    if (context <= longest) return ContextStatus::extended;
    std::string windows = format_thousands(model.context_native) + " tokens";
    if (longest > model.context_native) {
        windows += " (" + format_thousands(longest) + " with " +
                   (model.context_extension.empty() ? "its extension" : model.context_extension) +
                   ")";
    }
    return fail(
        ErrorKind::bad_input,
        "context " + format_context(context) + " is past " + model.id + "'s window of " + windows,
        "give --ctx " + std::to_string(longest) + " or less");
}

}  // namespace canitrun
