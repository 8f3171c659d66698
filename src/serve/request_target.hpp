#pragma once
// The request line's target ("/api/v1/models/x?quant=Q4_K_M"), parsed here rather than by the
// HTTP library, so one short, fuzzed function (fuzz/request_target_fuzz.cpp) decides what a
// request may name: a path of printable ASCII segments with no "." or "..", no encoded slash,
// backslash or NUL, and a bounded list of printable ASCII parameters. Anything else is refused
// before a route or a file is looked at, so no request reaches past the embedded assets.

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace canitrun::serve {

inline constexpr std::size_t kMaxTargetBytes = 4096;
inline constexpr std::size_t kMaxParams = 32;
inline constexpr std::size_t kMaxParamBytes = 256;  // a key or a value, decoded

struct Param {
    std::string key;
    std::string value;
};

struct Target {
    std::string path;  // decoded; starts with '/'
    std::vector<Param> params;
};

// A refusal: the HTTP status and one line saying why.
struct Refusal {
    int status = 400;
    std::string message;
};

std::expected<Target, Refusal> parse_target(std::string_view raw);

// A parameter that did not come through parse_target (an MCP tool's argument): the same bounds
// and the same printable-ASCII rule.
std::expected<void, Refusal> check_param(const Param& param);

// The value of `key`, or nullptr.
const std::string* find_param(const Target& target, std::string_view key);

// Whether a --bind address reaches only this machine: an IPv4 address in 127.0.0.0/8, ::1 or
// its IPv4-mapped form, or "localhost". serve warns on any other (a wildcard, an interface's
// address, a host name), since anyone who reaches it can ask.
bool loopback_bind(std::string_view address);

}  // namespace canitrun::serve
