// parse_target (src/serve/request_target.hpp): the request target of every HTTP request
// `canitrun serve` answers. Beyond not crashing, what it accepts keeps the promises the server
// relies on: a path of printable ASCII under '/', no "." or ".." segment, no backslash, and at
// most kMaxParams printable parameters of bounded length.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "request_target.hpp"

namespace {

// same body: the oracle restates request_target.cpp's rule rather than call it, so a bug in
// that rule cannot also hide from the check.
bool printable(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c > 0x7e) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view raw(reinterpret_cast<const char*>(data), size);
    const auto target = canitrun::serve::parse_target(raw);
    if (!target) {
        if (target.error().status < 400 || target.error().message.empty()) __builtin_trap();
        return 0;
    }
    const std::string& path = target->path;
    if (path.empty() || path.front() != '/' || !printable(path)) __builtin_trap();
    if (path.find("/../") != std::string::npos || path.ends_with("/..") ||
        path.find("/./") != std::string::npos || path.ends_with("/.") ||
        path.find('\\') != std::string::npos) {
        __builtin_trap();
    }
    if (target->params.size() > canitrun::serve::kMaxParams) __builtin_trap();
    for (const auto& p : target->params) {
        if (p.key.empty() || !printable(p.key) || !printable(p.value) ||
            p.value.size() > canitrun::serve::kMaxParamBytes) {
            __builtin_trap();
        }
    }
    return 0;
}
