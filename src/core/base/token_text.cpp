#include "canitrun/token_text.hpp"

namespace canitrun {

std::string format_context(std::uint64_t tokens) {
    if (tokens >= 1048576 && tokens % 1048576 == 0) return std::to_string(tokens / 1048576) + "M";
    if (tokens >= 1024 && tokens % 1024 == 0) return std::to_string(tokens / 1024) + "k";
    return format_thousands(tokens);
}

std::string format_thousands(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string format_fraction(std::uint64_t percent) {
    const std::string cents = std::to_string(percent % 100);
    return std::to_string(percent / 100) + "." + (cents.size() < 2 ? "0" : "") + cents;
}

}  // namespace canitrun
