#include "format.hpp"

#include <fmt/format.h>

namespace canitrun {

std::string format_gb_number(Bytes bytes) {
    if (bytes < 1000000000ULL) {
        const Bytes hundredths = (bytes + 5000000ULL) / 10000000ULL;
        return fmt::format("{}.{:02}", hundredths / 100, hundredths % 100);
    }
    const Bytes tenths = bytes / 100000000ULL + ((bytes % 100000000ULL) >= 50000000ULL ? 1 : 0);
    return fmt::format("{}.{}", tenths / 10, tenths % 10);
}

std::string format_gb(Bytes bytes) {
    return format_gb_number(bytes) + " GB";
}

double to_mib(Bytes bytes) {
    return static_cast<double>(bytes) / static_cast<double>(1ULL << 20);
}

std::string format_mib(Bytes bytes) {
    return fmt::format("{:.2f} MiB", to_mib(bytes));
}

std::string format_gib(Bytes bytes) {
    const double gib = static_cast<double>(bytes) / static_cast<double>(1ULL << 30);
    return fmt::format("{:.2f} GiB", gib);
}

std::string format_params(std::uint64_t params) {
    if (params >= 1000000000ULL) {
        if (params % 1000000000ULL == 0) return fmt::format("{}B", params / 1000000000ULL);
        const std::uint64_t tenths = (params + 50000000ULL) / 100000000ULL;
        if (tenths % 10 == 0) return fmt::format("{}B", tenths / 10);
        return fmt::format("{}.{}B", tenths / 10, tenths % 10);
    }
    return fmt::format("{}M", (params + 500000ULL) / 1000000ULL);
}

std::string article_for(const std::string& number) {
    // eight, eighty, eight hundred...; eleven and eighteen, alone or as "eleven hundred"
    const bool vowel =
        number.starts_with("8") || number == "11" || number == "18" || number.starts_with("11.") ||
        number.starts_with("18.") ||
        ((number.starts_with("11") || number.starts_with("18")) && number.size() == 4);
    return vowel ? "an" : "a";
}

std::string format_plan_context(std::uint64_t cells, std::uint64_t sequences) {
    if (sequences <= 1) return format_context(cells);
    return std::to_string(sequences) + " x " + format_context(cells / sequences);
}

std::string count_of(std::size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string runs_for(std::size_t n) {
    return n == 1 ? "runs" : "run";
}

std::string format_ram_gb(Bytes bytes) {
    if (bytes % kGB == 0) return std::to_string(bytes / kGB);
    return fmt::format("{:g}", static_cast<double>(bytes) / static_cast<double>(kGB));
}

std::string format_margin(Bytes bytes) {
    if (bytes != 0 && bytes % (1ULL << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
    return fmt::format("{} MiB", bytes >> 20);  // --margin is whole MiB
}

}  // namespace canitrun
