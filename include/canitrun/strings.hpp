#pragma once
// The few string helpers the core's readers share, in one place (a second copy is a rule that
// can drift: the probes, the log reader and the hardware names once trimmed three ways).

#include <string>

namespace canitrun {

// Without leading and trailing whitespace (std::isspace: space, tab, CR, LF, VT, FF).
std::string trim(const std::string& text);

// ASCII lower case; other bytes unchanged.
std::string to_lower(std::string text);

}  // namespace canitrun
