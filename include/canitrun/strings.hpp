#pragma once
// The few string helpers the core's readers share, in one place (a second copy is a rule that
// can drift: the probes, the log reader and the hardware names once trimmed three ways).

#include <string>
#include <string_view>

namespace canitrun {

// Without leading and trailing whitespace (std::isspace: space, tab, CR, LF, VT, FF): a view
// into `text` for the readers that parse without copying, and a copy.
std::string_view trim_view(std::string_view text);
std::string trim(std::string_view text);

// ASCII lower case; other bytes unchanged.
std::string to_lower(std::string text);

// Equal in ASCII lower case, without a copy: for lookups made per tensor or per quantization.
bool equals_ignoring_case(std::string_view a, std::string_view b);

}  // namespace canitrun
