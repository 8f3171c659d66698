#include "request_target.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <optional>

namespace canitrun::serve {
namespace {

std::unexpected<Refusal> refuse(std::string message, int status = 400) {
    return std::unexpected(Refusal{status, std::move(message)});
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Printable ASCII only: refuses NUL, control characters and every byte of a multi-byte
// sequence, so invalid UTF-8 never reaches a name lookup or a log line.
bool printable(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c > 0x7e) return false;
    }
    return true;
}

// %XX decoded (and '+' as a space in a query); nullopt for a broken escape.
std::optional<std::string> decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '+' && plus_is_space) {
            out += ' ';
        } else if (c == '%') {
            if (i + 2 >= text.size()) return std::nullopt;
            const int hi = hex_digit(text[i + 1]);
            const int lo = hex_digit(text[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

// A path's encoded form may not hide a separator: %2F and %5C would let "a%2F..%2Fb" pass as
// one segment and become a traversal after a second decoding elsewhere.
bool hides_separator(std::string_view raw_path) {
    for (std::size_t i = 0; i + 2 < raw_path.size(); ++i) {
        if (raw_path[i] != '%') continue;
        const int hi = hex_digit(raw_path[i + 1]);
        const int lo = hex_digit(raw_path[i + 2]);
        const int byte = hi * 16 + lo;
        if (hi >= 0 && lo >= 0 && (byte == '/' || byte == '\\' || byte == 0)) return true;
    }
    return false;
}

std::expected<std::string, Refusal> parse_path(std::string_view raw) {
    if (raw.empty() || raw.front() != '/') return refuse("the path must start with '/'");
    if (hides_separator(raw)) return refuse("an encoded '/', '\\' or NUL in the path");
    const auto path = decode(raw, false);
    if (!path) return refuse("a broken %-escape in the path");
    if (!printable(*path)) return refuse("the path holds a byte that is not printable ASCII");
    // Segment by segment: no "." or "..", no backslash, no empty segment inside the path.
    std::size_t start = 1;
    while (start <= path->size()) {
        const std::size_t end = std::min(path->find('/', start), path->size());
        const std::string_view segment = std::string_view(*path).substr(start, end - start);
        if (segment == "." || segment == "..") return refuse("'.' or '..' in the path");
        if (segment.find('\\') != std::string_view::npos) return refuse("'\\' in the path");
        if (segment.empty() && end < path->size()) return refuse("an empty segment in the path");
        start = end + 1;
    }
    return *path;
}

std::expected<Param, Refusal> parse_param(std::string_view pair) {
    const std::size_t eq = pair.find('=');
    const auto key = decode(pair.substr(0, eq), true);
    const auto value = decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!key || !value) return refuse("a broken %-escape in the query");
    Param param{*key, *value};
    if (auto ok = check_param(param); !ok) return std::unexpected(ok.error());
    return param;
}

}  // namespace

std::expected<void, Refusal> check_param(const Param& param) {
    if (param.key.empty()) return refuse("a parameter without a name");
    if (param.key.size() > kMaxParamBytes || param.value.size() > kMaxParamBytes) {
        return refuse("a parameter longer than " + std::to_string(kMaxParamBytes) + " bytes");
    }
    if (!printable(param.key) || !printable(param.value)) {
        return refuse("a parameter holds a byte that is not printable ASCII");
    }
    return {};
}

std::expected<Target, Refusal> parse_target(std::string_view raw) {
    if (raw.size() > kMaxTargetBytes) {
        return refuse(
            "the request target is longer than " + std::to_string(kMaxTargetBytes) + " bytes", 414);
    }
    const std::size_t question = raw.find('?');
    Target target;
    auto path = parse_path(raw.substr(0, question));
    if (!path) return std::unexpected(path.error());
    target.path = std::move(*path);
    if (question == std::string_view::npos) return target;
    std::string_view query = raw.substr(question + 1);
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        if (target.params.size() == kMaxParams) {
            return refuse("more than " + std::to_string(kMaxParams) + " query parameters");
        }
        auto param = parse_param(pair);
        if (!param) return std::unexpected(param.error());
        if (find_param(target, param->key) != nullptr) {
            return refuse("the query parameter '" + param->key + "' is given twice");
        }
        target.params.push_back(std::move(*param));
    }
    return target;
}

const std::string* find_param(const Target& target, std::string_view key) {
    for (const Param& p : target.params) {
        if (p.key == key) return &p.value;
    }
    return nullptr;
}

bool loopback_bind(std::string_view address) {
    if (address == "localhost") return true;
    const std::string text(address);
    std::array<unsigned char, 16> a{};
    if (inet_pton(AF_INET, text.c_str(), a.data()) == 1) return a[0] == 127;
    if (inet_pton(AF_INET6, text.c_str(), a.data()) != 1) return false;
    const auto zeros = [&](std::size_t from, std::size_t to) {
        return std::all_of(a.begin() + from, a.begin() + to,
                           [](unsigned char b) { return b == 0; });
    };
    if (zeros(0, 15) && a[15] == 1) return true;                            // ::1
    return zeros(0, 10) && a[10] == 0xff && a[11] == 0xff && a[12] == 127;  // ::ffff:127.x.x.x
}

}  // namespace canitrun::serve
