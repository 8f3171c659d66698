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

// ASCII lower and upper case; other bytes unchanged.
std::string to_lower(std::string text);
std::string to_upper(std::string text);

// Equal in ASCII lower case, without a copy: for lookups made per tensor or per quantization.
bool equals_ignoring_case(std::string_view a, std::string_view b);

// Text from outside (a GGUF's general.name, a Hub file name, a database name, a GPU name from
// nvidia-smi, an error message) made safe to print: every control character (C0, DEL, and the
// C1 range U+0080-U+009F, whose CSI a terminal obeys as ESC [) and every byte that is not part
// of well-formed UTF-8 becomes '?'. A terminal then shows the text and obeys none of it.
std::string printable_text(std::string_view text);

// `text` with any "user:password@" of the addresses in it left out, so a message that names an
// address never shows its password.
std::string without_url_userinfo(std::string text);

}  // namespace canitrun
