#include "canitrun/json_bounds.hpp"

#include <string>

namespace canitrun {

Result<bool> check_json_bounds(std::string_view text, std::string_view what,
                               const JsonBounds& bounds) {
    const std::string name(what);
    if (text.size() > bounds.max_bytes) {
        return fail(ErrorKind::bad_input,
                    name + " is larger than " + std::to_string(bounds.max_bytes >> 20) +
                        " MiB, the most canitrun reads",
                    "a real one is far smaller; check that this is the right file");
    }
    // One pass outside strings: a value is its container's first or follows a ',', so
    // containers + commas + 1 bounds the values; the depth is the open containers.
    std::uint64_t depth = 0;
    std::uint64_t values = 1;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            ++values;
            if (++depth > bounds.max_depth) {
                return fail(
                    ErrorKind::bad_input,
                    name + " nests deeper than " + std::to_string(bounds.max_depth) + " levels",
                    "a real one nests a few levels; the document is not what it claims");
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        } else if (c == ',') {
            ++values;
        }
        if (values > bounds.max_values) {
            return fail(ErrorKind::bad_input,
                        name + " holds more than " + std::to_string(bounds.max_values) +
                            " values, the most canitrun reads",
                        "a real one holds far fewer; the document is not what it claims");
        }
    }
    return true;
}

}  // namespace canitrun
