#include "canitrun/parse.hpp"

#include <cctype>

#include "canitrun/checked.hpp"

namespace canitrun {
namespace {

std::string strip(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c != ' ' && c != '_' && c != ',' && c != '\t') out += c;
    }
    return out;
}

// Digits with an optional fraction, as a value scaled by 10^`decimals` (no floating point,
// so "11.5" GB is exactly 11.5e9 bytes). Returns false on anything else.
bool parse_decimal(const std::string& digits, unsigned decimals, std::uint64_t& out) {
    std::uint64_t value = 0;
    unsigned fraction_digits = 0;
    bool seen_dot = false, seen_digit = false;
    for (char c : digits) {
        if (c == '.') {
            if (seen_dot) return false;
            seen_dot = true;
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        seen_digit = true;
        if (seen_dot) {
            if (fraction_digits == decimals) continue;  // finer than we keep: truncated
            ++fraction_digits;
        }
        if (value > (UINT64_MAX - 9) / 10) return false;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!seen_digit) return false;
    for (; fraction_digits < decimals; ++fraction_digits) {
        if (value > UINT64_MAX / 10) return false;
        value *= 10;
    }
    out = value;
    return true;
}

}  // namespace

Result<std::uint64_t> parse_context(const std::string& text) {
    std::string s = strip(text);
    std::uint64_t unit = 1;
    if (!s.empty()) {
        const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(s.back())));
        if (last == 'k') unit = 1024;
        if (last == 'm') unit = 1024ULL * 1024;
        if (unit != 1) s.pop_back();
    }
    std::uint64_t scaled = 0;  // tokens x 1000, so "1.5k" works
    const auto bad = [&] {
        return fail(ErrorKind::bad_input, "invalid context length '" + text + "'",
                    "write it as tokens: 8192, 32k, 256K or 1M");
    };
    if (!parse_decimal(s, 3, scaled)) return bad();
    if (scaled / 1000 > kMaxContext) {
        return fail(ErrorKind::bad_input, "context length '" + text + "' is too large",
                    "the largest accepted is 1048576k (2^30 tokens)");
    }
    const std::uint64_t tokens = scaled * unit / 1000;
    if (tokens == 0) {
        return fail(ErrorKind::bad_input, "context length '" + text + "' is less than 1 token",
                    "write it as tokens: 8192, 32k, 256K or 1M");
    }
    if (tokens > kMaxContext) {
        return fail(ErrorKind::bad_input, "context length '" + text + "' is too large",
                    "the largest accepted is 1048576k (2^30 tokens)");
    }
    return tokens;
}

Result<std::uint64_t> parse_gb(const std::string& text) {
    std::string s = strip(text);
    for (const char* suffix : {"GB", "gb", "Gb", "G", "g"}) {
        const std::string suf(suffix);
        if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
            s.resize(s.size() - suf.size());
            break;
        }
    }
    std::uint64_t bytes = 0;  // GB x 10^9
    if (!parse_decimal(s, 9, bytes)) {
        return fail(ErrorKind::bad_input, "invalid size '" + text + "'",
                    "write it in GB, for example 24 or 11.5");
    }
    constexpr std::uint64_t kMaxBytes = 1000000ULL * 1000000000ULL;  // 1 PB
    if (bytes == 0 || bytes > kMaxBytes) {
        return fail(ErrorKind::bad_input, "size '" + text + "' is out of range",
                    "give a size above 0 and at most 1000000 GB");
    }
    return bytes;
}

Result<std::uint64_t> parse_count(const std::string& text, const std::string& flag,
                                  std::uint64_t max) {
    const std::string s = strip(text);
    std::uint64_t value = 0;
    if (s.find('.') != std::string::npos || !parse_decimal(s, 0, value)) {
        return fail(ErrorKind::bad_input, "invalid " + flag + " '" + text + "'",
                    "give a whole number, for example " + flag + " 20");
    }
    if (value > max) {
        return fail(ErrorKind::bad_input, flag + " " + text + " is out of range",
                    "give a number between 0 and " + std::to_string(max));
    }
    return value;
}

Result<std::uint64_t> parse_positive_count(const std::string& text, const std::string& flag,
                                           std::uint64_t max) {
    CANITRUN_TRY_ASSIGN(const std::uint64_t n, parse_count(text, flag, max));
    if (n == 0) {
        return fail(ErrorKind::bad_input, flag + " 0 is out of range",
                    "give a number between 1 and " + std::to_string(max));
    }
    return n;
}

Result<std::uint64_t> parse_margin_mib(const std::string& text) {
    const auto mib = parse_count(text, "--margin", 1ULL << 20);
    if (!mib) {
        return fail(ErrorKind::bad_input, "bad --margin value '" + text + "'",
                    "give the MiB to keep free on every GPU, 0 to 1048576 (default 1024)");
    }
    return *mib << 20;
}

Result<std::uint64_t> parse_utilization_pct(const std::string& text) {
    const auto bad = [&] {
        return fail(ErrorKind::bad_input, "bad --gpu-memory-utilization value '" + text + "'",
                    "give a fraction in (0, 1], e.g. 0.9");
    };
    const auto dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (whole.size() > 1 || frac.size() > 2 || (whole.empty() && frac.empty())) return bad();
    for (const char c : whole + frac) {
        if (c < '0' || c > '9') return bad();
    }
    while (frac.size() < 2) frac += '0';
    const std::uint64_t pct = (whole.empty() ? 0 : std::stoull(whole)) * 100 + std::stoull(frac);
    if (pct == 0 || pct > 100) return bad();
    return pct;
}

Result<double> parse_bandwidth(const std::string& text) {
    std::string s = strip(text);
    for (const char* suffix : {"GB/s", "gb/s", "GBps"}) {
        const std::string suf(suffix);
        if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
            s.resize(s.size() - suf.size());
            break;
        }
    }
    std::uint64_t milli = 0;  // GB/s x 1000
    if (!parse_decimal(s, 3, milli) || milli < 100 || milli > 100000000ULL) {
        return fail(ErrorKind::bad_input, "invalid bandwidth '" + text + "'",
                    "give GB/s between 0.1 and 100000, for example 76.8");
    }
    return static_cast<double>(milli) / 1000.0;
}

Result<double> parse_tokens_per_second(const std::string& text) {
    std::uint64_t milli = 0;  // tokens/s x 1000
    if (!parse_decimal(strip(text), 3, milli) || milli < 100 || milli > 100000000ULL) {
        return fail(ErrorKind::bad_input, "invalid speed '" + text + "'",
                    "give tokens per second between 0.1 and 100000, for example 5");
    }
    return static_cast<double>(milli) / 1000.0;
}

Result<std::string> parse_release_date(const std::string& text) {
    const auto bad = [&] {
        return fail(ErrorKind::bad_input, "invalid date '" + text + "'",
                    "write a month or a day: 2026-06 or 2026-06-15");
    };
    if (text.size() != 7 && text.size() != 10) return bad();
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool dash = i == 4 || i == 7;
        if (dash ? text[i] != '-' : (text[i] < '0' || text[i] > '9')) return bad();
    }
    const int month = (text[5] - '0') * 10 + (text[6] - '0');
    if (month < 1 || month > 12) return bad();
    if (text.size() == 10) {
        const int day = (text[8] - '0') * 10 + (text[9] - '0');
        if (day < 1 || day > 31) return bad();
    }
    return text;
}

}  // namespace canitrun
